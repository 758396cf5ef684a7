"""Classes of the linted module: their bases, methods, class attributes and declared fields.

What the interpreter needs to resolve `obj.m()`, `Cls(...)`, `Cls.from_x(...)` and
`super().__init__(...)`: the method resolution order over the module's own classes, each
method's kind (plain, static, class method, property) and whether its decorators leave it a
plain function. A base the module does not define (an import) ends the known part of the
order: a name not found before it is unknown, unless the base is a known root (`object`,
`equinox.Module`, `typing.NamedTuple`, ...) whose attributes the model knows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import libcst as cst

from jitlint.model.domain import plugins
from jitlint.python.builtins_facts import METHOD_KINDS, not_none_annotation
from jitlint.python.names import Names, base_class, is_none_literal, leaf_name
from jitlint.python.walker import iter_children

# Roots whose own attributes do not matter to the model: an attribute not found in the
# module's classes above them is not theirs either (their methods are object's or dunders).
# The frameworks' roots (`equinox.Module`, `typing.NamedTuple`) come from the plug-in table,
# which also says the kind they make a class.
_PLAIN_ROOTS = frozenset({"builtins.object", "abc.ABC", "typing.Generic", "typing.Protocol"})
# Calls that register a class as a pytree with flattening of its own: its fields are then not
# what its declarations say (`register_pytree_node(COO, flatten, unflatten)`).
_REGISTER = frozenset(
    {"register_pytree_node", "register_pytree_with_keys", "register_pytree_node_class",
     "register_dataclass", "register_static"}
)  # fmt: skip
# Decorators after which a method is still the plain function the body defines (the
# frameworks' own, `@nn.compact`, come from the plug-in table).
_TRANSPARENT = frozenset(
    {
        "abc.abstractmethod", "typing.override", "typing_extensions.override",
        "functools.wraps", "typing.final",
    }
)  # fmt: skip


@dataclass
class Method:
    """A function a class body defines, with how it is bound."""

    func: cst.FunctionDef
    kind: str  # "method", "staticmethod", "classmethod", "property"
    plain: bool  # no decorator that may change what calling it does
    decorators: tuple[cst.BaseExpression, ...] = ()  # the ones that are not kinds/transparent


@dataclass
class ClassInfo:
    """A class of the file: its bases, methods, attributes and annotated fields."""

    node: cst.ClassDef
    name: str
    path: list[cst.CSTNode]  # into the scope that defines the class
    bases: list[ClassInfo | str | None] = field(default_factory=list)
    methods: dict[str, Method] = field(default_factory=dict)
    attributes: dict[str, cst.BaseExpression | None] = field(default_factory=dict)
    # Annotated class-level declarations, in order: (name, annotation, default or None).
    fields: list[tuple[str, cst.BaseExpression, cst.BaseExpression | None]] = field(
        default_factory=list
    )
    framework: str | None = None
    open: bool = False  # a base the model does not know: a missing attribute may be there
    registered: bool = False  # a pytree with flattening of its own (register_pytree_node)
    # Bases imported from other modules, by their dotted names (".core.ProcessorBase").
    imported_bases: list[str] = field(default_factory=list)
    # The keywords of a dataclass decorator call: `@dataclass(frozen=True)`.
    decorator_options: dict[str, cst.BaseExpression] = field(default_factory=dict)
    pytree: Any = None  # its pytree_fields.PytreeClass, once someone asked
    # The order after this class (not the class itself: a list holding its own class would
    # be a reference cycle, and the tree would wait for the cycle collector).
    _ancestors: list[ClassInfo] | None = None
    _containers: dict[str, str] | None = None  # container_attributes, once asked

    @property
    def mro(self) -> list[ClassInfo]:
        if self._ancestors is None:
            self._ancestors = []  # a cycle of bases stops here
            out: list[ClassInfo] = [self]
            for base in self.bases:
                if isinstance(base, ClassInfo):
                    for cls in base.mro:
                        if all(cls is not seen for seen in out):
                            out.append(cls)
            self._ancestors = out[1:]
        return [self, *self._ancestors]

    @property
    def closed(self) -> bool:
        """Every base is known: an attribute no class of the order defines does not exist."""
        return not any(cls.open for cls in self.mro)

    @property
    def kind(self) -> str | None:
        """The framework the class belongs to, inherited from its bases."""
        for cls in self.mro:
            if cls.framework is not None:
                return cls.framework
        return None

    def lookup(self, name: str, after: ClassInfo | None = None) -> tuple[ClassInfo, str] | None:
        """The class of the order (after `after`, for super()) that defines `name`, and how:
        "method", "attribute" or "field"."""
        order = self.mro
        if after is not None:
            for index, cls in enumerate(order):
                if cls is after:
                    order = order[index + 1 :]
                    break
        for cls in order:
            if name in cls.methods:
                return cls, "method"
            if name in cls.attributes:
                return cls, "attribute"
            if any(f[0] == name for f in cls.fields):
                return cls, "field"
            if cls.open:
                return None
        return None

    def imported_bases_after(self, after: ClassInfo | None = None) -> list[str]:
        """The bases from other modules the order reaches (after `after`), in order, when
        every other base is known: an attribute the module's classes do not define is in
        one of them (the first that defines it), or nowhere. Empty when some base is not a
        name the project pass can follow."""
        order = self.mro
        if after is not None:  # `after`'s own bases come after it in the order
            for index, cls in enumerate(order):
                if cls is after:
                    order = order[index:]
                    break
        found = [q for cls in order for q in cls.imported_bases]
        unknown = sum(1 for cls in order for b in cls.bases if b is None)
        return found if found and len(found) == unknown else []

    def scalar_field(self, name: str) -> str | None:
        """The builtin scalar type (`int`, `str`...) that the field `name` is declared with
        by the first class of the order that declares it: never None. None when no class
        declares it, or declares it otherwise (`Optional[int]`, no annotation, or a None
        default that belies it: `features: int = None`)."""
        for cls in self.mro:
            for field_name, annotation, default in cls.fields:
                if field_name == name:
                    if is_none_literal(default):
                        return None
                    return not_none_annotation(annotation)
            if name in cls.methods or name in cls.attributes:
                return None
        return None

    def init_fields(self) -> list[tuple[str, cst.BaseExpression, cst.BaseExpression | None]]:
        """The fields a generated `__init__` takes, base classes' first."""
        out: dict[str, tuple[str, cst.BaseExpression, cst.BaseExpression | None]] = {}
        for cls in reversed(self.mro):
            for item in cls.fields:
                out[item[0]] = item
        return list(out.values())


class Classes:
    """Reads (and caches) the classes of one module."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self._classes: dict[int, ClassInfo] = {}

    def of(self, node: cst.ClassDef, path: Sequence[cst.CSTNode]) -> ClassInfo:
        """`node` as a ClassInfo; `path` leads into the scope that defines it."""
        key = id(node)
        found = self._classes.get(key)
        if found is None:
            found = self._classes[key] = ClassInfo(node, node.name.value, list(path))
            self._read(found)
            found.registered = node.name.value in self.registered
        return found

    @cached_property
    def registered(self) -> frozenset[str]:
        """Names the module's top-level code registers as pytrees of their own flattening."""
        return registered_pytrees(self.names.module)

    def resolve(self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]) -> ClassInfo | None:
        """The module's class a name stands for at the end of `path`, if exactly one."""
        if type(expr) is not cst.Name:
            return None
        found = self.names.lookup_with_path(expr.value, path)  # type: ignore[attr-defined]
        if found is None:
            return None
        bindings, scope_path = found
        if len(bindings) != 1 or bindings[0].kind != "class":
            return None
        return self.of(bindings[0].node, scope_path)  # type: ignore[arg-type]

    def _read(self, info: ClassInfo) -> None:
        node, path = info.node, info.path
        for arg in node.bases:
            if arg.keyword is not None or arg.star:
                info.open = True
                continue
            # A generic base, `Solver[State]`, is the class `Solver` (its parameters only
            # annotate): same members, same framework.
            base = base_class(arg.value)
            local = self.resolve(base, path)
            if local is not None:
                info.bases.append(local)
                continue
            qualnames = self.names.qualified_names(base, path)
            qualname = next(iter(qualnames)) if len(qualnames) == 1 else ""
            if qualname in _PLAIN_ROOTS or plugins.is_known_base(qualname):
                info.bases.append(qualname)
                info.framework = info.framework or plugins.kind_of_base(qualname)
            else:
                info.bases.append(None)
                info.open = True
                if len(qualnames) == 1 and "" not in qualnames:
                    info.imported_bases.append(next(iter(qualnames)))
        for keyword in node.keywords:
            if keyword.keyword is not None and keyword.keyword.value == "metaclass":
                info.open = True
        for decorator in node.decorators:
            expr = decorator.decorator
            target = expr.func if type(expr) is cst.Call else expr  # type: ignore[attr-defined]
            qualnames = self.names.qualified_names(target, path)
            kinds = {plugins.kind_of_decorator(q) for q in qualnames}
            if len(kinds) == 1 and None not in kinds:
                info.framework = kinds.pop()
                if type(expr) is cst.Call:
                    info.decorator_options = {
                        a.keyword.value: a.value
                        for a in expr.args  # type: ignore[attr-defined]
                        if a.keyword is not None
                    }
            else:
                info.open = True  # a decorator may replace the class
        body = node.body
        if type(body) is not cst.IndentedBlock:
            return
        inner = [*path, node, body]
        for statement in body.body:  # type: ignore[attr-defined]
            kind = type(statement)
            if kind is cst.FunctionDef:
                method = self._method(statement, inner)  # type: ignore[arg-type]
                name = statement.name.value  # type: ignore[attr-defined]
                if method.kind != "setter" or name not in info.methods:
                    info.methods[name] = method
            elif kind is cst.ClassDef:
                info.attributes[statement.name.value] = None  # type: ignore[attr-defined]
            elif kind is cst.SimpleStatementLine:
                for small in statement.body:  # type: ignore[attr-defined]
                    self._statement(info, small)
            else:
                info.open = True  # `if`/`try` in a class body: attributes we cannot list

    def _statement(self, info: ClassInfo, small: cst.BaseSmallStatement) -> None:
        kind = type(small)
        if kind is cst.AnnAssign and type(small.target) is cst.Name:  # type: ignore[attr-defined]
            name = small.target.value  # type: ignore[attr-defined]
            annotation = small.annotation.annotation  # type: ignore[attr-defined]
            if leaf_name(annotation) == "ClassVar" or (
                type(annotation) is cst.Subscript and leaf_name(annotation.value) == "ClassVar"  # type: ignore[attr-defined]
            ):
                info.attributes[name] = small.value  # type: ignore[attr-defined]
            else:
                info.fields.append((name, annotation, small.value))  # type: ignore[attr-defined]
        elif kind is cst.Assign:
            for target in small.targets:  # type: ignore[attr-defined]
                if type(target.target) is cst.Name:
                    info.attributes[target.target.value] = small.value  # type: ignore[attr-defined]
                else:
                    info.open = True

    def _method(self, func: cst.FunctionDef, path: list[cst.CSTNode]) -> Method:
        kind = "method"
        plain = True
        others = []
        for decorator in func.decorators:
            expr = decorator.decorator
            qualnames = self.names.qualified_names(expr, path)
            if len(qualnames) == 1:
                qualname = next(iter(qualnames))
                if qualname in METHOD_KINDS:
                    kind = METHOD_KINDS[qualname]
                    continue
                if qualname in _TRANSPARENT or qualname in plugins.transparent_decorators():
                    continue
            if type(expr) is cst.Attribute and expr.attr.value in ("setter", "deleter"):
                kind = "setter"
                continue
            plain = False
            others.append(expr)
        return Method(func, kind, plain, tuple(others))


def registered_pytrees(module: cst.Module) -> frozenset[str]:
    """Class names a module-level `register_pytree_node(Cls, ...)` (or a class decorator
    `@register_pytree_node_class`) registers: their fields are what their own flattening
    makes of them, not what the declarations say."""
    out: set[str] = set()
    for statement in module.body:
        if type(statement) is cst.ClassDef:
            for decorator in statement.decorators:  # type: ignore[attr-defined]
                expr = decorator.decorator
                if leaf_name(expr.func if type(expr) is cst.Call else expr) in _REGISTER:  # type: ignore[attr-defined]
                    out.add(statement.name.value)  # type: ignore[attr-defined]
            continue
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:  # type: ignore[attr-defined]
            if type(small) is cst.Expr and type(small.value) is cst.Call:  # type: ignore[attr-defined]
                call = small.value  # type: ignore[attr-defined]
                if leaf_name(call.func) in _REGISTER and call.args:
                    first = call.args[0].value
                    if type(first) is cst.Name:
                        out.add(first.value)  # type: ignore[attr-defined]
    return frozenset(out)


# What a display or comprehension builds, whatever its items.
DISPLAY_TYPES = {
    cst.List: "list", cst.ListComp: "list", cst.Tuple: "tuple",
    cst.Dict: "dict", cst.DictComp: "dict",
}  # fmt: skip


def container_attributes(info: ClassInfo) -> dict[str, str]:
    """Instance attributes that every assignment in the class's methods (along its order)
    sets to a list, tuple or dict display: `self.blocks = [Block(k) for k in range(n)]`.
    Whatever the constructor's arguments, such an attribute holds that Python container
    (its items may be anything). Read once per class: every traced method of the class asks."""
    if info._containers is not None:
        return info._containers
    kinds: dict[str, set[str | None]] = {}
    for target, value in _instance_assignments(info):
        display = DISPLAY_TYPES.get(type(value)) if value is not None else None
        kinds.setdefault(target, set()).add(display)
    declared = {f[0] for cls in info.mro for f in cls.fields}
    info._containers = {
        name: next(iter(found))  # type: ignore[misc]
        for name, found in kinds.items()
        if len(found) == 1 and None not in found and name not in declared
    }
    return info._containers


def built_attributes(
    info: ClassInfo, class_of: Callable[[cst.Name], ClassInfo | None]
) -> dict[str, tuple[ClassInfo, bool]]:
    """Instance attributes that every assignment in the class's methods sets to an instance
    it builds of one class (`self.embeddings = Embeddings(cfg)`), or to a list of such
    instances (`self.blocks = [Block(cfg) for _ in range(n)]`, also wrapped in one call,
    `nnx.List([...])`): the class, and whether it is a list of them. `class_of` says which
    class a called name is, if any. Whatever the constructor's arguments, such an attribute
    holds instances of that class: a method that calls one runs that class's code."""
    found: dict[str, set[tuple[int, bool]]] = {}
    classes: dict[int, ClassInfo] = {}
    for target, value in _instance_assignments(info):
        built = _built(value, class_of)
        if built is not None:
            classes[id(built[0])] = built[0]
        key = (id(built[0]), built[1]) if built is not None else (0, False)
        found.setdefault(target, set()).add(key)
    out: dict[str, tuple[ClassInfo, bool]] = {}
    for name, keys in found.items():
        if len(keys) == 1:
            (key, listed) = next(iter(keys))
            if key:
                out[name] = (classes[key], listed)
    return out


def _built(
    value: cst.BaseExpression | None, class_of: Callable[[cst.Name], ClassInfo | None]
) -> tuple[ClassInfo, bool] | None:
    """The class `value` builds an instance of (`Cls(...)`), or a list of (`[Cls(...) for
    ...]`, alone or as the one argument of a call), and whether it is a list."""
    listed = False
    if type(value) is cst.Call and len(value.args) == 1 and not value.args[0].keyword:  # type: ignore[attr-defined]
        inner = value.args[0].value  # type: ignore[attr-defined]
        if type(inner) is cst.ListComp:
            value = inner
    if type(value) is cst.ListComp:
        value, listed = value.elt, True  # type: ignore[attr-defined]
    if type(value) is not cst.Call or type(value.func) is not cst.Name:  # type: ignore[attr-defined]
        return None
    built = class_of(value.func)  # type: ignore[attr-defined]
    return (built, listed) if built is not None else None


def _instance_assignments(info: ClassInfo) -> Iterator[tuple[str, cst.BaseExpression | None]]:
    """Each `self.attr = value` in the methods of the class and its bases (`self` being each
    method's first parameter), with its value (None for an augmented assignment)."""
    for cls in info.mro:
        for method in cls.methods.values():
            params = method.func.params
            first = [*params.posonly_params, *params.params]
            if method.kind == "method" and first:
                yield from _attribute_assignments(method.func.body, first[0].name.value)


def _attribute_assignments(
    node: cst.CSTNode, receiver: str
) -> list[tuple[str, cst.BaseExpression | None]]:
    """Each `receiver.attr = value` under `node` (outside nested functions and classes), with
    its value (None for an augmented assignment: an update, not a new object)."""
    out: list[tuple[str, cst.BaseExpression | None]] = []
    stack = iter_children(node)
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        if kind in (cst.Assign, cst.AnnAssign, cst.AugAssign):
            targets = (
                [t.target for t in item.targets] if kind is cst.Assign else [item.target]  # type: ignore[attr-defined]
            )
            value = item.value if kind is not cst.AugAssign else None  # type: ignore[attr-defined]
            for target in targets:
                if (
                    type(target) is cst.Attribute
                    and type(target.value) is cst.Name
                    and target.value.value == receiver
                ):
                    out.append((target.attr.value, value))
        stack.extend(iter_children(item))
    return out
