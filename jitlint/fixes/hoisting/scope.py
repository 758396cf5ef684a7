"""Where code built per call of a function can be built once instead: at module level, or in
the class's `__init__`. The checks the hoisting fixes share (see `out`).

A name an expression reads may move with it when it means the same thing at the new place:
a module-level name bound only by statements before the one the code goes above (and
rebound nowhere, not even through `global`), a builtin nothing in the module rebinds, or the
method's own `self` when the code goes into `__init__` of the same class.
"""

from __future__ import annotations

import builtins
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.python.scopes import build_scope
from jitlint.python.walker import descendants, iter_children

if TYPE_CHECKING:
    from jitlint.model.context import FileContext

# Moving code out of these changes which handler, context or scope it runs under.
BARRIERS = (cst.Try, cst.TryStar, cst.With, cst.Match, cst.Lambda)
# What runs its body more than once: an object made there is made once per iteration.
LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
# Attributes Keras layers/models and tf.Module already have: a new attribute must not be one.
FRAMEWORK_ATTRIBUTES = frozenset(
    {
        *("layers", "weights", "variables", "trainable_variables", "trainable_weights"),
        *("non_trainable_weights", "non_trainable_variables", "submodules", "name"),
        *("dtype", "built", "trainable", "input", "output", "inputs", "outputs", "losses"),
        *("metrics", "optimizer", "loss", "compiled_loss", "compiled_metrics", "state"),
        *("name_scope", "input_spec", "history", "stop_training", "policy"),
    }
)
_BUILTINS = frozenset(dir(builtins)) - {"__name__", "__doc__", "__spec__", "__loader__"}


@dataclass(frozen=True)
class Method:
    """A method `func` directly in the body of the module-level class `cls`, whose
    `__init__` (`init`) ends with a simple statement."""

    cls: cst.ClassDef
    func: cst.FunctionDef
    init: cst.FunctionDef
    self_name: str
    indent: str  # of `__init__`'s body


def top_index(module: cst.Module, path: Sequence[cst.CSTNode]) -> int:
    return next(i for i, s in enumerate(module.body) if s is path[1])


def module_level_reason(
    ctx: FileContext,
    reads: Collection[str],
    path: Sequence[cst.CSTNode],
    allowed: str = "",
    *,
    anywhere: bool = False,
) -> str | None:
    """None when every name in `reads` (read at the end of `path`) means the same above the
    module-level statement `path[1]` (with `anywhere`: at any time after the module has
    run, as in `__init__`); else why not. `allowed` (the method's `self`) is skipped. A name
    bound twice counts only when every binding is an import."""
    if ctx.names.has_star_import():
        return "the module has a `*` import, so its names are not all known"
    index = top_index(ctx.module, path)
    before = build_scope(cst.Module(body=ctx.module.body[:index])).bindings
    after = build_scope(cst.Module(body=ctx.module.body[index:])).bindings
    declared = {
        n.name.value for g in descendants(ctx.module) if isinstance(g, cst.Global) for n in g.names
    }
    for name in sorted(set(reads) - {allowed}):
        found = ctx.names.lookup_with_path(name, path)
        if found is None:
            if name in _BUILTINS and name not in declared:
                continue
            return f"it reads `{name}`, which is not bound in the module"
        if len(found[1]) != 1:
            return f"it reads `{name}`, a local of the function"
        bindings = [*before.get(name, ()), *after.get(name, ())]
        once = len(bindings) == 1 or all(b.kind == "import" for b in bindings)
        if not once or name in declared or not (anywhere or name in before):
            return f"it reads `{name}`, which the module binds after it or more than once"
    return None


def enclosing_method(
    ctx: FileContext, path: Sequence[cst.CSTNode], framework_prefixes: tuple[str, ...]
) -> Method | str:
    """The method around the end of `path` (directly in a module-level class), if its class
    can take a new attribute set at the end of `__init__`; else why not. A base class must
    be `object`, a plain class of this module, or (for `framework_prefixes`, such as
    "tensorflow.") a class of that framework; the class must have no decorator (a
    dataclass, a registered pytree) and no `__slots__`."""
    if len(path) < 5 or type(path[1]) is not cst.ClassDef or type(path[3]) is not cst.FunctionDef:
        return "it is not inside a method of a module-level class"
    cls, func = path[1], path[3]
    assert isinstance(cls, cst.ClassDef) and isinstance(func, cst.FunctionDef)
    why = _class_reason(ctx, cls, path[:2], framework_prefixes, set())
    if why is not None:
        return why
    params = [*func.params.posonly_params, *func.params.params]
    if not params or any(_decorator_name(d) in _NOT_METHODS for d in func.decorators):
        return "the method has no `self` (a static or class method)"
    init = next(
        (
            s
            for s in _body(cls.body)
            if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"
        ),
        None,
    )
    if init is None or func is init:
        return "the class defines no `__init__` of its own to create it in"
    init_params = [*init.params.posonly_params, *init.params.params]
    self_name = params[0].name.value
    if not init_params or init_params[0].name.value != self_name or init.decorators:
        return f"`__init__` does not take `{self_name}` first"
    if not isinstance(init.body, cst.IndentedBlock) or not isinstance(
        init.body.body[-1], cst.SimpleStatementLine
    ):
        return "`__init__` does not end with a simple statement"
    if any(isinstance(n, cst.Return | cst.Yield) for n in _own_nodes(init.body)):
        return "`__init__` has a `return`, which could skip the new line"
    if func.name.value in _called_from(cls, init, self_name):
        return f"`__init__` calls `{func.name.value}` (maybe through another method) before the end"
    indent = "".join(
        (b.indent if b.indent is not None else ctx.module.default_indent)
        for b in (cls.body, init.body)
        if isinstance(b, cst.IndentedBlock)
    )
    return Method(cls, func, init, self_name, indent)


_NOT_METHODS = {"staticmethod", "classmethod"}


def _decorator_name(decorator: cst.Decorator) -> str:
    expr = decorator.decorator
    expr = expr.func if isinstance(expr, cst.Call) else expr
    return expr.attr.value if isinstance(expr, cst.Attribute) else getattr(expr, "value", "")


def _class_reason(
    ctx: FileContext,
    cls: cst.ClassDef,
    path: Sequence[cst.CSTNode],
    prefixes: tuple[str, ...],
    seen: set[int],
) -> str | None:
    if id(cls) in seen:
        return None
    seen.add(id(cls))
    name = cls.name.value
    if cls.decorators:
        return f"the class `{name}` has a decorator (a dataclass or a registered pytree)"
    if any(
        isinstance(t, cst.Name) and t.value == "__slots__"
        for n in _body(cls.body)
        for t in descendants(n)
    ):
        return f"the class `{name}` has `__slots__`"
    for base in cls.bases:
        if base.keyword is not None:
            if base.keyword.value == "metaclass":
                return f"the class `{name}` has a metaclass"
            continue
        expr = base.value
        if isinstance(expr, cst.Name):
            bindings = ctx.names.lookup(expr.value, path)
            if bindings and len(bindings) == 1 and bindings[0].kind == "class":
                local = bindings[0].node
                if isinstance(local, cst.ClassDef) and local in ctx.module.body:
                    why = _class_reason(ctx, local, path, prefixes, seen)
                    if why is not None:
                        return why
                    continue
        names = ctx.names.qualified_names(expr, path)
        if names == {"builtins.object"}:
            continue
        if prefixes and names and all(n.startswith(prefixes) for n in names):
            continue
        return f"the base class `{ctx.module.code_for_node(expr)}` may not take new attributes"
    return None


def self_attributes_reason(
    ctx: FileContext, expr: cst.CSTNode, method: Method, reads: Collection[str]
) -> str | None:
    """`self.x` read in `expr` must be set at the top of `__init__`'s block, or be a name of
    the class body (a method or class attribute), for `expr` to run at `__init__`'s end;
    and `__init__` must not bind another name `expr` reads (`reads`)."""
    own = set(ctx.names.scope(method.cls).bindings)
    for statement in _body(method.init.body):
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets = (
                    [t.target for t in small.targets]
                    if isinstance(small, cst.Assign)
                    else [small.target]
                    if isinstance(small, cst.AnnAssign)
                    else []
                )
                for target in targets:
                    own |= {
                        a.attr.value
                        for a in [target, *descendants(target)]
                        if isinstance(a, cst.Attribute)
                        and isinstance(a.value, cst.Name)
                        and a.value.value == method.self_name
                    }
    for node in descendants(expr):
        if (
            isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name)
            and node.value.value == method.self_name
            and node.attr.value not in own
        ):
            return f"it reads `{method.self_name}.{node.attr.value}`, which `__init__` does not set"
    shadowed = set(ctx.names.scope(method.init).bindings) & set(reads) - {method.self_name}
    return f"`__init__` has its own `{min(shadowed)}`" if shadowed else None


def attribute_names(module: cst.Module) -> set[str]:
    """Names a new attribute must not take: every attribute the module spells, every name a
    class body binds, and the frameworks' own attributes."""
    found = set(FRAMEWORK_ATTRIBUTES)
    for node in descendants(module):
        if isinstance(node, cst.Attribute):
            found.add(node.attr.value)
        elif isinstance(node, cst.ClassDef):
            found |= set(build_scope(node).bindings)
    return found


def barrier_between(path: Sequence[cst.CSTNode], start: int) -> cst.CSTNode | None:
    """The first node of `path[start:-1]` that code cannot leave (see BARRIERS; a nested
    function or class too)."""
    for index in range(start, len(path) - 1):
        node = path[index]
        if isinstance(node, BARRIERS) or (
            isinstance(node, cst.FunctionDef | cst.ClassDef) and index > start
        ):
            return node
    return None


def insertion_after(statement: cst.SimpleStatementLine) -> cst.CSTNode:
    """The node whose text (the line break ending `statement`) is replaced to add lines
    after it."""
    return statement.trailing_whitespace.newline


def above(module: cst.Module, top: cst.CSTNode) -> tuple[object, str]:
    """A span at the start of the module-level statement `top` (at its first decorator),
    and the text that rewrites it unchanged: new code goes in front of that text."""
    code = module.code_for_node
    decorators = getattr(top, "decorators", ())
    if decorators:
        first = decorators[0]
        return first, f"@{code(first.decorator)}"
    if isinstance(top, cst.FunctionDef | cst.ClassDef):
        keyword = "def" if isinstance(top, cst.FunctionDef) else "class"
        asynchronous = getattr(top, "asynchronous", None)
        prefix = code(asynchronous) if asynchronous is not None else ""
        space = (
            top.whitespace_after_def
            if isinstance(top, cst.FunctionDef)
            else top.whitespace_after_class
        )
        return (top, top.name), f"{prefix}{keyword}{code(space)}{top.name.value}"
    raise ValueError("only a def or class")


def _called_from(cls: cst.ClassDef, init: cst.FunctionDef, self_name: str) -> set[str]:
    """Methods `__init__` may run: those it calls as `self.m(...)` (or hands on as
    `self.m`), and those they reach, within the class."""
    methods = {s.name.value: s for s in _body(cls.body) if isinstance(s, cst.FunctionDef)}
    seen: set[str] = set()
    todo = [init]
    while todo:
        current = todo.pop()
        for node in descendants(current):
            if (
                isinstance(node, cst.Attribute)
                and isinstance(node.value, cst.Name)
                and node.value.value == self_name
                and node.attr.value in methods
                and node.attr.value not in seen
            ):
                seen.add(node.attr.value)
                todo.append(methods[node.attr.value])
    return seen


def _body(block: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    return block.body if isinstance(block, cst.IndentedBlock) else ()  # type: ignore[return-value]


def _own_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes under `root`, not inside nested functions, lambdas or classes."""
    stack = list(iter_children(root))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, cst.FunctionDef | cst.Lambda | cst.ClassDef):
            stack.extend(iter_children(node))
