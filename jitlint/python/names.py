"""What a name means at a place in the module: import aliases, shadowing, scopes.

Resolution answers with every candidate meaning. A name bound both by `from jax import jit` and
by an assignment resolves to {"jax.jit", ""}; the empty string stands for "something local we
cannot name", so a rule that requires all candidates to be hazards stays silent.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.python.scopes import Binding, Scope, build_scope, comprehension_targets
from jitlint.python.walker import iter_children

UNKNOWN = ""
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
# Exact types, not isinstance: libcst's node classes are ABCs, and isinstance against an ABC
# is slow in code that runs for every element of every path a rule asks about.
_FUNCTION_TYPES = frozenset({cst.FunctionDef, cst.Lambda})
_COMPREHENSION_TYPES = frozenset(_COMPREHENSIONS)
_OTHER_SCOPE_TYPES = frozenset({*_COMPREHENSIONS, cst.Module})


class Names:
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._scopes: dict[int, Scope] = {}
        self._has_star_import: bool | None = None
        # Names of the project that stand for another module's names, as this module spells
        # them (".backend.all" -> "jax.numpy.all": `backend` re-exports jax.numpy with `from
        # jax.numpy import *`). The project pass fills it from other files' facts.
        self.aliases: dict[str, str] = {}

    def scope(self, node: cst.Module | cst.FunctionDef | cst.ClassDef | cst.Lambda) -> Scope:
        found = self._scopes.get(id(node))
        if found is None:
            found = self._scopes[id(node)] = build_scope(node)
        return found

    def scope_chain(self, path: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
        """Scopes visible at the end of `path` (root first), innermost first.

        `path` runs from the module down to a node; a function or lambda counts only when the
        path goes through its body (decorators and defaults belong to the enclosing scope), and a
        class body is visible only to code directly inside it.
        """
        chain: list[cst.CSTNode] = []
        inside_function = False
        for index in range(len(path) - 1, -1, -1):
            node = path[index]
            child = path[index + 1] if index + 1 < len(path) else None
            kind = type(node)
            if kind in _FUNCTION_TYPES:
                if child is node.body:
                    chain.append(node)
                    inside_function = True
            elif kind is cst.ClassDef:
                if child is node.body and not inside_function:
                    chain.append(node)
            elif kind in _OTHER_SCOPE_TYPES:
                chain.append(node)
        return chain

    def reads(self, name: str) -> list[tuple[cst.Name, cst.CSTNode]]:
        """Every `Name` node spelling `name` in the module, with its parent, except binding
        targets, `def`/`class` names, parameters, attribute names and keywords (a walk of
        the module: for rare questions)."""
        found: list[tuple[cst.Name, cst.CSTNode]] = []
        stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(self.module, None)]
        while stack:
            node, parent = stack.pop()
            if type(node) is cst.Name:
                if node.value == name and parent is not None and not names_itself(node, parent):  # type: ignore[attr-defined]
                    found.append((node, parent))  # type: ignore[arg-type]
                continue
            stack.extend((child, node) for child in iter_children(node))
        return found

    def handed_out(self, name: str) -> bool:
        """Whether a function of the module returns or yields the name itself (a getter, a
        context manager yielding a module-level container): what the module binds to it is
        then read by its callers, wherever they are. A local of the same spelling counts too
        (a walk of the module: for rare questions)."""
        return any(
            type(parent) in (cst.Return, cst.Yield) and parent.value is node  # type: ignore[attr-defined]
            for node, parent in self.reads(name)
        )

    def lookup(self, name: str, path: Sequence[cst.CSTNode]) -> list[Binding] | None:
        """The bindings `name` refers to at the end of `path`; None if nothing binds it."""
        found = self.lookup_with_path(name, path)
        return found[0] if found else None

    def only_def(self, name: str, path: Sequence[cst.CSTNode]) -> cst.FunctionDef | None:
        """The `def` that `name` refers to at the end of `path` when that is its one binding."""
        bindings = self.lookup(name, path)
        if not bindings or len(bindings) != 1 or bindings[0].kind != "def":
            return None
        node = bindings[0].node
        return node if type(node) is cst.FunctionDef else None

    def module_bases(self, cls: cst.ClassDef, path: Sequence[cst.CSTNode]) -> list[cst.ClassDef]:
        """The bases of `cls` written as a bare name that binds one class statement of the
        module (in order); a base imported or bound twice is not among them."""
        found = []
        for base in cls.bases:
            if type(base.value) is not cst.Name:
                continue
            bindings = self.lookup(base.value.value, path)
            node = bindings[0].node if bindings and len(bindings) == 1 else None
            if type(node) is cst.ClassDef:
                found.append(node)
        return found

    def lookup_with_path(
        self, name: str, path: Sequence[cst.CSTNode]
    ) -> tuple[list[Binding], list[cst.CSTNode]] | None:
        """Like `lookup`, plus a path into the body of the scope that binds the name.

        That path is where the binding's own expressions (a def's decorators, an assigned
        value) are resolved.
        """
        for scope_node in self.scope_chain(path):
            if type(scope_node) in _COMPREHENSION_TYPES:
                if name in comprehension_targets(scope_node):
                    return [Binding("other")], list(path)
                continue
            scope = self.scope(scope_node)  # type: ignore[arg-type]
            if name in scope.declared_global:
                bindings = self.scope(self.module).bindings.get(name)
                return (bindings, [self.module]) if bindings else None
            if name in scope.bindings:
                prefix = list(path[: _index(path, scope_node) + 1])
                if type(scope_node) is not cst.Module:
                    prefix.append(scope_node.body)  # type: ignore[union-attr]
                return scope.bindings[name], prefix
        return None

    def qualified_names(
        self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], depth: int = 0
    ) -> frozenset[str]:
        """Every dotted name `expr` may stand for; empty when it is not a name at all. A name
        assigned a dotted name (`partial = functools.partial`) stands for what that names."""
        kind = type(expr)
        if kind is cst.Attribute:
            heads = self.qualified_names(expr.value, path, depth)  # type: ignore[attr-defined]
            attr = expr.attr.value
            if self.aliases:
                return frozenset(self._alias(f"{h}.{attr}") if h else UNKNOWN for h in heads)
            return frozenset(f"{h}.{attr}" if h else UNKNOWN for h in heads)
        if kind is not cst.Name:
            return frozenset()
        found = self.lookup_with_path(expr.value, path)
        if found is None:
            if self.has_star_import():
                return frozenset({f"builtins.{expr.value}", UNKNOWN})
            return frozenset({f"builtins.{expr.value}"})
        bindings, scope_path = found
        meanings: set[str] = set()
        for binding in bindings:
            if binding.kind == "import" and binding.qualname:
                meanings.add(self._alias(binding.qualname))
            elif binding.kind == "assign" and depth < _ALIAS_DEPTH and _dotted(binding.node):
                aliased = self.qualified_names(binding.node, scope_path, depth + 1)  # type: ignore[arg-type]
                meanings.update(aliased if aliased else (UNKNOWN,))
            else:
                meanings.add(UNKNOWN)
        return frozenset(meanings)

    def _alias(self, qualname: str) -> str:
        return self.aliases.get(qualname, qualname) if self.aliases else qualname

    def resolves_to(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], names: set[str]) -> bool:
        """True when every meaning `expr` can have is one of `names`."""
        candidates = self.qualified_names(expr, path)
        return bool(candidates) and candidates <= names

    def has_star_import(self) -> bool:
        if self._has_star_import is None:
            self._has_star_import = any(
                isinstance(stmt, cst.SimpleStatementLine)
                and any(
                    isinstance(s, cst.ImportFrom) and isinstance(s.names, cst.ImportStar)
                    for s in stmt.body
                )
                for stmt in self.module.body
            )
        return self._has_star_import


# How many `a = b` hops a name is followed through (`x = x.y` would loop).
_ALIAS_DEPTH = 3


def _dotted(node: cst.CSTNode | None) -> bool:
    """`name` or `name.attr.attr`: what an alias assignment binds."""
    while type(node) is cst.Attribute:
        node = node.value  # type: ignore[attr-defined]
    return type(node) is cst.Name


def star_source(names: Names) -> tuple[str, frozenset[str]] | None:
    """The module this one re-exports whole, by its only top-level `from m import *` (`m` as
    spelled, `.core` for a relative one; one under `if TYPE_CHECKING:` or `try:` is not sure
    to run), and the names the module binds itself, which are its own and not the star's.
    None without exactly one."""
    found = [
        small
        for statement in names.module.body
        if type(statement) is cst.SimpleStatementLine
        for small in statement.body
        if type(small) is cst.ImportFrom and type(small.names) is cst.ImportStar
    ]
    if len(found) != 1:
        return None
    star = found[0]
    module = names.module.code_for_node(star.module) if star.module is not None else ""
    source = "." * len(star.relative) + module
    own = frozenset(names.scope(names.module).bindings)
    return source, own


def public_names(names: Names) -> frozenset[str] | None:
    """What `from this_module import *` takes from this module when it declares `__all__`
    once, as a list or tuple of string literals; None when it does not say (then every name
    not starting with `_`), or says it in a way not read here (a frozenset of nothing)."""
    bindings = names.scope(names.module).bindings.get("__all__")
    if bindings is None:
        return None
    if len(bindings) != 1 or type(bindings[0].node) not in (cst.List, cst.Tuple):
        return frozenset()
    out = set()
    for element in bindings[0].node.elements:  # type: ignore[union-attr]
        value = element.value
        text = value.evaluated_value if type(value) is cst.SimpleString else None
        if not isinstance(text, str):
            return frozenset()
        out.add(text)
    return frozenset(out)


def _index(path: Sequence[cst.CSTNode], node: cst.CSTNode) -> int:
    for i, item in enumerate(path):
        if item is node:
            return i
    raise ValueError("scope node not on path")


def leaf_name(expr: cst.CSTNode) -> str:
    """The last name of `f` or `a.b.f`: how a call is spelled, before any resolution."""
    kind = type(expr)
    if kind is cst.Name:
        return expr.value  # type: ignore[attr-defined]
    if kind is cst.Attribute:
        return expr.attr.value  # type: ignore[attr-defined]
    return ""


def names_itself(node: cst.Name, parent: cst.CSTNode) -> bool:
    """`node` names what `parent` binds or selects, and reads nothing."""
    kind = type(parent)
    if kind in (cst.AssignTarget, cst.FunctionDef, cst.ClassDef, cst.Param):
        return True
    if kind is cst.Attribute:
        return parent.attr is node  # type: ignore[attr-defined]
    if kind is cst.Arg:
        return parent.keyword is node  # type: ignore[attr-defined]
    return False


def is_none_literal(expr: cst.CSTNode | None) -> bool:
    """`expr` is the constant `None` as written."""
    return type(expr) is cst.Name and expr.value == "None"  # type: ignore[attr-defined]


_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)


def python_literal(node: cst.CSTNode) -> bool:
    """A Python literal: a number, a string, True/False/None, a negated one, or a written-out
    tuple or list of them."""
    kind = type(node)
    if kind in _LITERALS:
        return True
    if kind is cst.Name:
        return node.value in ("True", "False", "None")  # type: ignore[attr-defined]
    if kind is cst.UnaryOperation:
        return python_literal(node.expression)  # type: ignore[attr-defined]
    if kind in (cst.List, cst.Tuple):
        return all(python_literal(e.value) for e in node.elements)  # type: ignore[attr-defined]
    return False


def false_literal(expr: cst.BaseExpression) -> bool:
    """A literal Python reads as false in a test: `False`, `None` or `0`."""
    if type(expr) is cst.Name:
        return expr.value in ("False", "None")  # type: ignore[attr-defined]
    return type(expr) is cst.Integer and expr.evaluated_value == 0  # type: ignore[attr-defined]


def python_valued(expr: cst.BaseExpression) -> bool:
    """A Python value whatever the names in it hold: a literal, an identity test, or
    `and`/`or`/`not` of such."""
    kind = type(expr)
    if kind is cst.Comparison:
        return all(type(c.operator) in (cst.Is, cst.IsNot) for c in expr.comparisons)  # type: ignore[attr-defined]
    if kind is cst.BooleanOperation:
        return python_valued(expr.left) and python_valued(expr.right)  # type: ignore[attr-defined]
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Not:  # type: ignore[attr-defined]
        return python_valued(expr.expression)  # type: ignore[attr-defined]
    return python_literal(expr)


def base_class(expr: cst.BaseExpression) -> cst.BaseExpression:
    """A class statement's base as a class expression: `Env[State, Params]` is `Env`."""
    return expr.value if type(expr) is cst.Subscript else expr  # type: ignore[attr-defined]
