"""Raw jax transformations around flax linen or haiku modules (JIT120).

`jax.jit`, `jax.checkpoint` and the `lax` loops and branches stage their function out to a
jaxpr: what it computes is a tracer of that trace. A linen or haiku module called there for
the first time (at `init`) creates its parameters from such tracers and stores them in the
framework's variables, outside the trace: `init` hands back leaked tracers, and using them
raises `UnexpectedTracerError` (a module passed to `jax.jit`/`checkpoint`/`cond` itself
fails earlier: linen modules holding variables cannot be hashed). `jax.vmap` and `jax.grad`
do not stage the function out and work. Observed with jax 0.10.2, flax 0.12.8 and dm-haiku
0.0.17 (bench/cases/jax-modules/*_raw_*.py).

The framework's lifted transformations (`hk.scan`, `nn.scan`, ...) thread the variables
through the trace; their names and which of them are exact renames are in haiku.py and
linen.py.

`Lifting.uses(call, path)` answers, for a call of a raw transformation, which module calls
its function arguments make: the function itself when it is a module (`jax.checkpoint(lin)`),
or module calls and parameter reads in the body of a lambda, a local `def` or a bound method
of the module (`jax.lax.scan(self.step, ...)`). A module is an instance of a class of the
generated list (library/module_classes.py) or of a class of the file whose framework is
linen or haiku, reached through a local name or a `self.x` set in `setup`/`__init__`, each
bound exactly once, or a linen field annotated with a module class (`cell: nn.Module`). A
module the enclosing function already called before the transformation has its parameters,
and is not reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import libcst as cst

from jitlint.model.domain.classes import Classes
from jitlint.model.domain.plugins import FrameworkPlugin, plugin, plugins
from jitlint.model.jax.transforms import TRANSFORMS
from jitlint.model.library.module_classes import framework_of_class
from jitlint.python.names import Names, leaf_name

# Raw transformations that stage their function out (the ones that fail, see above).
STAGING = frozenset(
    {
        "jax.jit", "jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint",
        "jax.lax.scan", "jax.lax.map", "jax.lax.fori_loop", "jax.lax.while_loop",
        "jax.lax.cond", "jax.lax.switch",
    }
)  # fmt: skip


def _lifting(kind: str | None) -> FrameworkPlugin | None:
    """The plug-in of `kind` when its modules create parameters when first called."""
    found = plugin(kind)
    return found if found is not None and found.submodules_in is not None else None


@dataclass(frozen=True)
class ModuleUse:
    """A module call (or parameter read) that a raw transformation's function makes."""

    node: cst.CSTNode  # the call, or the argument that is a module
    framework: str  # the plug-in's kind: "linen" or "haiku"
    what: str  # for messages: "`cell` (flax.linen.Dense)"
    made_outside: bool  # the module exists before the transformation runs


class Lifting:
    def __init__(self, names: Names, classes: Classes) -> None:
        self.names = names
        self.classes = classes
        # The methods the file's `init` calls name, per class (see `_init_targets`).
        self._init_targets: dict[int | None, set[str]] | Literal[False] | None = None

    # ---- which framework a place belongs to ---------------------------------------------
    def framework_class(self, path: Sequence[cst.CSTNode]) -> tuple[str, cst.ClassDef] | None:
        """The innermost linen or haiku class whose method holds the end of `path`."""
        for index in range(len(path) - 1, -1, -1):
            node = path[index]
            if type(node) is cst.ClassDef:
                kind = self.classes.of(node, path[:index]).kind  # type: ignore[arg-type]
                return (kind, node) if _lifting(kind) else None  # type: ignore[return-value]
        return None

    # ---- module instances ---------------------------------------------------------------
    def module(
        self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], depth: int = 0
    ) -> tuple[str, str] | None:
        """(framework, class name) when `expr` (ending `path`) is a module instance."""
        if depth > 4:
            return None
        kind = type(expr)
        if kind is cst.Call:
            return self._constructed(expr, path)  # type: ignore[arg-type]
        if kind is cst.Name:
            found = self.names.lookup_with_path(expr.value, path)  # type: ignore[attr-defined]
            if found is None or len(found[0]) != 1 or found[0][0].kind != "assign":
                return None
            value = found[0][0].node
            return self.module(value, found[1], depth + 1) if value is not None else None
        if kind is cst.Attribute and type(expr.value) is cst.Name:  # type: ignore[attr-defined]
            return self._attribute(expr, path, depth)  # type: ignore[arg-type]
        return None

    def _constructed(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> tuple[str, str] | None:
        qualnames = self.names.qualified_names(call.func, path)
        kinds = {framework_of_class(q) for q in qualnames}
        if len(qualnames) == 1 and None not in kinds:
            return kinds.pop(), next(iter(qualnames))  # type: ignore[return-value]
        if type(call.func) is cst.Name:  # a module class of the file
            found = self.names.lookup_with_path(call.func.value, path)
            if found is not None and len(found[0]) == 1 and found[0][0].kind == "class":
                node = found[0][0].node
                kind = self.classes.of(node, found[1]).kind  # type: ignore[arg-type]
                if _lifting(kind):
                    return kind, node.name.value  # type: ignore[union-attr,return-value]
        return None

    def _attribute(
        self, expr: cst.Attribute, path: Sequence[cst.CSTNode], depth: int
    ) -> tuple[str, str] | None:
        """`self.cell`, set once in `setup` (linen) or `__init__` (haiku) of the class."""
        owner = self.framework_class(path)
        method = _method_of(path)
        if owner is None or method is None or not _is_self(expr.value, method):
            return None
        kind, cls = owner
        framework = _lifting(kind)
        assert framework is not None and framework.submodules_in is not None  # framework_class
        setup = _method(cls, framework.submodules_in)
        assigned = _self_assignments(setup) if setup is not None else iter(())
        values = [value for target, value in assigned if target == expr.attr.value]
        if len(values) == 1 and setup is not None:
            setup_path = [*path[: _index(path, cls) + 1], cls.body, setup, setup.body]
            return self.module(values[0], setup_path, depth + 1)
        if framework.field_submodules and not values:  # a dataclass field holding a submodule
            return self._field(framework, cls, expr.attr.value, path[: _index(path, cls)])
        return None

    def _field(
        self, framework: FrameworkPlugin, cls: cst.ClassDef, name: str, path: Sequence[cst.CSTNode]
    ) -> tuple[str, str] | None:
        """A linen field annotated with a module class (`cell: nn.Module`): flax binds the
        module given for it as a submodule."""
        for field, annotation, _ in self.classes.of(cls, path).init_fields():
            if field != name:
                continue
            found = self.names.qualified_names(annotation, path)
            qualname = next(iter(found)) if len(found) == 1 else ""
            kind = framework.kind
            if qualname in framework.module_bases or framework_of_class(qualname) == kind:
                return kind, qualname
            return None
        return None

    # ---- what a raw transformation's functions call -------------------------------------
    def uses(self, call: cst.Call, qualname: str, path: Sequence[cst.CSTNode]) -> list[ModuleUse]:
        """The module calls the function arguments of `call` (a raw transformation named
        `qualname`, ending `path`) make, minus modules called before it."""
        transform = TRANSFORMS.get(qualname)
        if transform is None or qualname not in STAGING:
            return []
        found: list[ModuleUse] = []
        for index, arg in enumerate(call.args):
            if arg.star:
                break
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword not in transform.target_keywords and (
                keyword is not None or index not in transform.targets
            ):
                continue
            functions = [arg.value]
            if type(arg.value) in (cst.List, cst.Tuple):  # `lax.switch` branches
                functions = [e.value for e in arg.value.elements]  # type: ignore[attr-defined]
            for function in functions:
                found.extend(self._function_uses(function, path))
        if found and self._never_initialises(path):
            return []
        return [u for u in found if not (u.made_outside and self._called_before(u, call, path))]

    def _never_initialises(self, path: Sequence[cst.CSTNode]) -> bool:
        """Whether the method holding the end of `path` runs under no `init` of its class:
        an `init` of the file names a method of the class (`method=Cls.init_probe`), and
        neither that method, `__call__` (what an `init` without `method=` runs) nor the
        submodule method reaches this one through `self.<method>`, and no class of the file
        derives from the class. Then this method runs only under `apply`, where the
        parameters exist and its modules only read them."""
        owner, method = self.framework_class(path), _method_of(path)
        framework = plugin(owner[0]) if owner is not None else None
        if owner is None or method is None or framework is None or not framework.init_methods:
            return False
        if self._init_targets is None:
            self._init_targets = _init_targets(self.names, framework.init_methods)
        if self._init_targets is False:
            return False
        cls = owner[1]
        named = self._init_targets.get(id(cls))
        if not named or _subclassed(self.names.module, cls.name.value):
            return False  # a subclass's `__call__` may run the method at its own init
        roots = {*named, *self._init_targets.get(None, ()), "__call__"}
        if framework.submodules_in is not None:
            roots.add(framework.submodules_in)
        return method.name.value not in _reachable(cls, roots)

    def _function_uses(self, function: cst.CSTNode, path: Sequence[cst.CSTNode]) -> list[ModuleUse]:
        module = self.module(function, path)
        if module is not None:
            code = cst.Module([]).code_for_node(function)
            made_outside = type(function) is not cst.Call
            return [ModuleUse(function, module[0], f"`{code}` ({module[1]})", made_outside)]
        if type(function) is cst.Lambda:
            return list(self._body_uses(function, [*path, function]))
        if type(function) is cst.Name:
            found = self.names.lookup_with_path(function.value, path)
            if found is not None and len(found[0]) == 1 and found[0][0].kind == "def":
                node = found[0][0].node
                return list(self._body_uses(node, [*found[1], node]))  # type: ignore[arg-type]
        if type(function) is cst.Attribute and type(function.value) is cst.Name:
            owner, method = self.framework_class(path), _method_of(path)
            if owner is not None and method is not None and _is_self(function.value, method):
                target = _method(owner[1], function.attr.value)
                if target is not None:
                    cls = owner[1]
                    prefix = [*path[: _index(path, cls) + 1], cls.body, target]
                    return list(self._body_uses(target, prefix))
        return []

    def _body_uses(
        self, func: cst.FunctionDef | cst.Lambda, path: list[cst.CSTNode]
    ) -> Iterator[ModuleUse]:
        """Module calls and parameter reads in `func`'s body (`path` ends at `func`)."""
        method = _method_of(path)
        for node, node_path in _calls(func.body, [*path, func.body]):
            callee = node.func
            module = self.module(callee, node_path)
            code = cst.Module([]).code_for_node(callee)
            if module is not None:
                outside = type(callee) is not cst.Call
                yield ModuleUse(node, module[0], f"`{code}` ({module[1]})", outside)
                continue
            qualnames = self.names.qualified_names(callee, node_path)
            reader = next(
                (p for p in plugins() if qualnames and qualnames <= p.parameter_functions), None
            )
            if reader is not None:
                yield ModuleUse(node, reader.kind, f"`{code}`", False)
                continue
            if (
                type(callee) is cst.Attribute
                and method is not None
                and _is_self(callee.value, method)
                and (owner := self.framework_class(node_path)) is not None
                and callee.attr.value in getattr(plugin(owner[0]), "parameter_methods", ())
            ):
                yield ModuleUse(node, owner[0], f"`{code}`", False)

    def _called_before(self, use: ModuleUse, call: cst.Call, path: Sequence[cst.CSTNode]) -> bool:
        """Whether the function holding `call` calls the same module (same text) in a
        statement before the one holding `call`, outside a function or lambda (those may
        be bodies of transformations too): its parameters exist by then."""
        callee = use.node.func if type(use.node) is cst.Call else use.node  # type: ignore[attr-defined]
        code = cst.Module([]).code_for_node(callee)
        func = next((n for n in reversed(path) if type(n) is cst.FunctionDef), None)
        if func is None:
            return False
        lines = func.body.body  # type: ignore[attr-defined]
        statement = next((n for n in path if any(n is line for line in lines)), None)
        for earlier in lines:
            if earlier is statement:
                return False
            if type(earlier) in (cst.FunctionDef, cst.ClassDef):
                continue
            for node, _ in _calls(earlier, [earlier], (cst.FunctionDef, cst.Lambda)):
                if cst.Module([]).code_for_node(node.func) == code:
                    return True
        return False


def _init_targets(
    names: Names, init_methods: tuple[str, ...]
) -> dict[int | None, set[str]] | Literal[False]:
    """The methods the module's `init` calls name with `method=`, keyed by the id of the
    class statement `Cls.method` names (None for a string, which may be any class's);
    False when one names a method some other way (a lambda, a variable)."""
    out: dict[int | None, set[str]] = {}
    stack: list[cst.CSTNode] = [names.module]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if type(node) is not cst.Call or type(node.func) is not cst.Attribute:  # type: ignore[attr-defined]
            continue
        if node.func.attr.value not in init_methods:  # type: ignore[attr-defined]
            continue
        value = next(
            (a.value for a in node.args if a.keyword and a.keyword.value == "method"), None
        )  # type: ignore[attr-defined]
        if value is None:
            continue  # runs `__call__`
        if type(value) is cst.SimpleString:
            out.setdefault(None, set()).add(value.evaluated_value)  # type: ignore[arg-type]
            continue
        if type(value) is not cst.Attribute or type(value.value) is not cst.Name:
            return False
        bindings = names.lookup(value.value.value, [names.module])
        if not bindings or len(bindings) != 1 or bindings[0].kind != "class":
            return False
        out.setdefault(id(bindings[0].node), set()).add(value.attr.value)
    return out


def _subclassed(module: cst.Module, name: str) -> bool:
    """Whether a class statement of the module names `name` among its bases."""
    return any(
        type(s) is cst.ClassDef and any(leaf_name(b.value) == name for b in s.bases)
        for s in module.body
    )


def _reachable(cls: cst.ClassDef, roots: set[str]) -> set[str]:
    """The methods of `cls` that `roots` reach through `self.<method>` (called or passed
    on, in nested functions too)."""
    methods = {
        s.name.value: s
        for s in cls.body.body
        if type(s) is cst.FunctionDef  # type: ignore[attr-defined]
    }
    reached = {name for name in roots if name in methods}
    frontier = list(reached)
    while frontier:
        func = methods[frontier.pop()]
        params = func.params.params
        if not params:
            continue
        receiver = params[0].name.value
        stack: list[cst.CSTNode] = [func.body]
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            if (
                type(node) is cst.Attribute
                and type(node.value) is cst.Name
                and node.value.value == receiver
                and node.attr.value in methods
                and node.attr.value not in reached
            ):
                reached.add(node.attr.value)
                frontier.append(node.attr.value)
    return reached


def _calls(
    node: cst.CSTNode, path: list[cst.CSTNode], skip: tuple[type, ...] = (cst.FunctionDef,)
) -> Iterator[tuple[cst.Call, list[cst.CSTNode]]]:
    """Every call under `node` (not inside nested `def`s, classes or `skip`), with its path."""
    if type(node) is cst.Call:
        yield node, path
    for child in node.children:
        if type(child) is cst.ClassDef or type(child) in skip:
            continue
        yield from _calls(child, [*path, child], skip)


def _index(path: Sequence[cst.CSTNode], node: cst.CSTNode) -> int:
    return next(i for i, n in enumerate(path) if n is node)


def _method_of(path: Sequence[cst.CSTNode]) -> cst.FunctionDef | None:
    """The method (a `def` directly in a class body) that holds the end of `path`."""
    for index in range(len(path) - 1, 1, -1):
        if type(path[index]) is cst.FunctionDef and type(path[index - 2]) is cst.ClassDef:
            return path[index]  # type: ignore[return-value]
    return None


def _is_self(expr: cst.CSTNode, method: cst.FunctionDef) -> bool:
    params = method.params.params
    return type(expr) is cst.Name and bool(params) and expr.value == params[0].name.value


def _method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    for statement in cls.body.body:
        if type(statement) is cst.FunctionDef and statement.name.value == name:
            return statement
    return None


def _self_assignments(method: cst.FunctionDef) -> Iterator[tuple[str, cst.BaseExpression]]:
    """(attribute, value) of each `self.attribute = value` in `method`'s own statements."""
    params = method.params.params
    receiver = params[0].name.value if params else None
    for statement in method.body.body:  # type: ignore[attr-defined]
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is not cst.Assign or len(small.targets) != 1:
                continue
            target = small.targets[0].target
            if (
                type(target) is cst.Attribute
                and type(target.value) is cst.Name
                and target.value.value == receiver
            ):
                yield target.attr.value, small.value
