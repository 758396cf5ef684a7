"""Fields of pytree classes defined in the linted module: equinox Modules and flax struct
dataclasses. Under a transformation, `self.n` / `state.n` is traced or not by how the field is
declared, not by what the object is:

- a field declared static (`eqx.field(static=True)`, `eqx.static_field()`,
  `flax.struct.field(pytree_node=False)`) is auxiliary data of the pytree: never a tracer;
- under `jax.jit` every other leaf is traced, Python ints and bools included;
- under `equinox.filter_jit`/`filter_vmap` only array leaves are traced; the others are static.

[observed on jax 0.10.2, equinox 0.13.8, flax 0.12.8; tests/test_pytree_fields.py]

Only what the class body states is used: a field annotated with an array type is an array, one
annotated `int`/`bool`/`Callable`... is a Python value. Anything unsure is left out (the value
stays UNKNOWN): unknown bases, a custom `__init__`/`__post_init__`, `default_factory`,
converters, unions, class variables. A class from another module is never modelled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from jitlint.model.domain import plugins
from jitlint.model.domain.classes import Classes, ClassInfo, registered_pytrees
from jitlint.model.domain.values import PYTREE, UNKNOWN, Object, U, Value
from jitlint.model.jax.transforms import Entry
from jitlint.python.names import Names, leaf_name

STATIC_FIELD, ARRAY_FIELD, SCALAR_FIELD, PYTHON_FIELD = "static", "array", "scalar", "python"
# A leaf (not static) whose type the declaration does not say; and how `jax.jit` sees it: a
# pytree of tracers (its truthiness is not reported).
LEAF_FIELD, PYTREE_FIELD = "leaf", "pytree"

_ARRAYS = frozenset({"jax.Array", "jax.numpy.ndarray", "jaxtyping.Array"})
# jaxtyping's dtype annotations: `Float[Array, "b n"]` is an array.
_JAXTYPING = frozenset(
    f"jaxtyping.{n}"
    for n in (
        "Float", "Int", "UInt", "Integer", "Bool", "Complex", "Inexact", "Real", "Num",
        "Shaped", "Float32", "Float64", "Float16", "BFloat16", "Int32", "Int64", "Int8",
        "UInt8", "UInt32", "Key",
    )
)  # fmt: skip
# Leaves jax.jit traces too (a Python scalar becomes a 0-d tracer); under filter_jit, static.
_SCALARS = frozenset({"builtins.int", "builtins.float", "builtins.bool", "builtins.complex"})
# Other Python values: static under filter_jit; under jax.jit not valid leaves at all.
_PYTHON = frozenset({"builtins.str", "typing.Callable", "collections.abc.Callable"})
_CUSTOM_INIT = frozenset({"__init__", "__post_init__", "__new__"})


@dataclass(frozen=True)
class PytreeClass:
    """A pytree class of the file and how JAX treats each of its fields."""

    name: str
    framework: str  # the plug-in's kind ("equinox", "flax.struct", "namedtuple")
    # field -> STATIC_FIELD / ARRAY_FIELD / SCALAR_FIELD / PYTHON_FIELD / LEAF_FIELD
    fields: dict[str, str]
    custom_init: bool = False  # an __init__ may store anything: only static declarations hold


@dataclass(frozen=True)
class Instance:
    """The `pytype` of a parameter known to be an instance of a module-local pytree class.
    `style` is how the transformation treats its leaves: "jit" (every leaf traced), "filter"
    (array leaves traced) or "pytree" (another transformation: only static and array fields
    are known)."""

    cls: PytreeClass
    style: str


def field_kind(instance: Instance, attr: str) -> str | None:
    """STATIC_FIELD, ARRAY_FIELD (traced) or PYTREE_FIELD (a pytree of tracers) for
    `obj.attr`, or None when unknown."""
    cls = instance.cls
    kind = cls.fields.get(attr)
    if kind is None or kind == STATIC_FIELD:
        return kind
    if instance.style == "jit":
        # jax.jit traces every leaf, whatever an __init__ stored: a Python int/bool leaf
        # becomes a tracer too.
        if kind in (ARRAY_FIELD, SCALAR_FIELD):
            return ARRAY_FIELD
        return PYTREE_FIELD if kind == LEAF_FIELD else None
    if cls.custom_init:
        return None
    if kind == ARRAY_FIELD:
        return kind
    if instance.style == "filter" and kind in (SCALAR_FIELD, PYTHON_FIELD):
        return STATIC_FIELD  # filter_jit/filter_vmap: non-array leaves are static
    return None


class PytreeClasses:
    """Reads (and caches) the pytree classes of one module."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self._classes: dict[int, PytreeClass | None] = {}

    @cached_property
    def registered(self) -> frozenset[str]:
        return registered_pytrees(self.names.module)

    def of(self, cls: cst.ClassDef, scope_path: Sequence[cst.CSTNode]) -> PytreeClass | None:
        """`cls` as a pytree class; `scope_path` leads into the scope that defines it."""
        key = id(cls)
        if key not in self._classes:
            self._classes[key] = self._read(cls, scope_path)
        return self._classes[key]

    def annotated(
        self, annotation: cst.BaseExpression, path: Sequence[cst.CSTNode]
    ) -> PytreeClass | None:
        """The module-local pytree class a parameter annotation names, if any."""
        found = self.annotated_class(annotation, path)
        return found[0] if found is not None else None

    def annotated_class(
        self, annotation: cst.BaseExpression, path: Sequence[cst.CSTNode]
    ) -> tuple[PytreeClass, cst.ClassDef, Sequence[cst.CSTNode]] | None:
        """Like `annotated`, with the class statement and the path into its scope."""
        if type(annotation) is cst.SimpleString:  # a forward reference: "State"
            text = annotation.evaluated_value  # type: ignore[attr-defined]
            if not isinstance(text, str) or not text.isidentifier():
                return None
            annotation = cst.Name(text)
        if type(annotation) is not cst.Name:
            return None
        found = self.names.lookup_with_path(annotation.value, path)  # type: ignore[attr-defined]
        if found is None:
            return None
        bindings, scope_path = found
        if len(bindings) != 1 or bindings[0].kind != "class":
            return None
        cls = self.of(bindings[0].node, scope_path)  # type: ignore[arg-type]
        return (cls, bindings[0].node, scope_path) if cls is not None else None  # type: ignore[return-value]

    # ---- reading a class --------------------------------------------------------------
    def _read(self, cls: cst.ClassDef, path: Sequence[cst.CSTNode]) -> PytreeClass | None:
        framework = self._framework(cls, path)
        if framework is None or type(cls.body) is not cst.IndentedBlock:
            return None
        if cls.name.value in self.registered:
            return None  # flattened by functions of its own: its fields say nothing
        statements = cls.body.body  # type: ignore[attr-defined]
        defined: set[str] = set()  # names bound in the body other than by a field annotation
        declared: list[cst.AnnAssign] = []
        for statement in statements:
            if type(statement) in (cst.FunctionDef, cst.ClassDef):
                defined.add(statement.name.value)  # type: ignore[attr-defined]
            elif type(statement) is cst.SimpleStatementLine:
                for small in statement.body:  # type: ignore[attr-defined]
                    if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                        declared.append(small)
                    elif type(small) is cst.Assign:
                        for target in small.targets:
                            if type(target.target) is cst.Name:
                                defined.add(target.target.value)
            elif type(statement) is not cst.SimpleStatementLine:
                return None  # `if`/`try`/... in a class body: fields we cannot read
        # A custom initialiser may store anything in a field: only static declarations hold
        # (and, under jax.jit, that every other field is traced).
        custom_init = bool(defined & _CUSTOM_INIT)
        fields: dict[str, str] = {}
        for small in declared:
            name = small.target.value  # type: ignore[attr-defined]
            kind = self._field(framework, small, path)
            if kind is not None and name not in defined and name not in fields:
                fields[name] = kind
            else:
                fields.pop(name, None)
                defined.add(name)
        return PytreeClass(cls.name.value, framework, fields, custom_init)

    def _framework(self, cls: cst.ClassDef, path: Sequence[cst.CSTNode]) -> str | None:
        bases = [a for a in cls.bases if a.keyword is None]
        if any(a.star for a in cls.bases):
            return None
        decorators = [d.decorator for d in cls.decorators]
        declaring = [p for p in plugins.plugins() if p.declared_leaves]
        if len(bases) == 1 and not decorators:
            base = bases[0].value
            for plugin in declaring:
                if self._is(base, path, plugin.class_bases):
                    return plugin.kind
            return None
        if not bases and len(decorators) == 1:
            decorator = decorators[0]
            if type(decorator) is cst.Call:
                decorator = decorator.func  # `@flax.struct.dataclass(frozen=True)`
            for plugin in declaring:
                if self._is(decorator, path, plugin.class_decorators):
                    return plugin.kind
        return None

    def _field(
        self, framework: str, declaration: cst.AnnAssign, path: Sequence[cst.CSTNode]
    ) -> str | None:
        value = declaration.value
        has_default = value is not None
        if type(value) is cst.Call:
            func = value.func  # type: ignore[attr-defined]
            args = value.args  # type: ignore[attr-defined]
            if any(a.keyword is None for a in args):
                return None  # `flax.struct.field(False)`, `**options`: not read
            options = {a.keyword.value: a.value for a in args}
            found = plugins.plugin(framework)
            helpers = found.field_helpers if found is not None else ()
            helper = next((h for h in helpers if self._is(func, path, {h.qualname})), None)
            if helper is None:
                return None  # dataclasses.field(metadata=...) and the like: not read
            if helper.flag is None:
                return STATIC_FIELD  # `eqx.static_field()`
            # `static=True` (equinox), `pytree_node=False` (flax): aux data; else a leaf.
            flag = options.get(helper.flag)
            if flag is not None and not helper.static_when:
                flag = _negate(flag)
            if flag is not None and _is_true(flag):
                return STATIC_FIELD
            if flag is not None and not _is_false(flag):
                return None  # a computed flag
            if "converter" in options or "default_factory" in options:
                return None  # the stored value is not what the annotation says
            has_default = "default" in options
        kind = self._annotated(declaration.annotation.annotation, path)
        # A default for an array field is most likely a Python value standing in for it.
        if kind is None or (kind == ARRAY_FIELD and has_default):
            return LEAF_FIELD
        return kind

    def _annotated(self, annotation: cst.BaseExpression, path: Sequence[cst.CSTNode]) -> str | None:
        """What a field's annotation says it holds."""
        if type(annotation) is cst.Subscript:
            head = annotation.value  # type: ignore[attr-defined]
            if self._is(head, path, _JAXTYPING):
                elements = annotation.slice  # type: ignore[attr-defined]
                first = elements[0].slice if elements else None
                if type(first) is cst.Index and self._is(first.value, path, _ARRAYS):
                    return ARRAY_FIELD
                return None
            if self._is(head, path, _PYTHON):  # `Callable[[int], int]`
                return PYTHON_FIELD
            return None
        if self._is(annotation, path, _ARRAYS):
            return ARRAY_FIELD
        if self._is(annotation, path, _SCALARS):
            return SCALAR_FIELD
        if self._is(annotation, path, _PYTHON):
            return PYTHON_FIELD
        return None

    def _is(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], names: frozenset[str]) -> bool:
        if type(expr) not in (cst.Name, cst.Attribute):
            return False
        return self.names.resolves_to(expr, path, names)  # type: ignore[arg-type]


def _is_true(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Name and expr.value == "True"  # type: ignore[attr-defined]


def _is_false(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Name and expr.value == "False"  # type: ignore[attr-defined]


def _negate(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`pytree_node=False` means static: the flag that `static=` would have."""
    if _is_true(expr):
        return cst.Name("False")
    if _is_false(expr):
        return cst.Name("True")
    return expr


def attach_instances(
    classes: PytreeClasses,
    infos: Classes,
    entry: Entry,
    path: Sequence[cst.CSTNode],
    params: dict[str, Value],
    annotated: Callable[..., tuple[PytreeClass, ClassInfo] | None] | None = None,
) -> None:
    """Mark the parameters of one transformation's application that are instances of a
    pytree class: `self` of a method, or a parameter annotated with the class (a
    module-local one, or what `annotated(annotation, path)` finds). `path` leads to the
    function (excluded)."""
    func = entry.func
    if type(func) is not cst.FunctionDef:
        return
    style = entry.transform.style
    p = func.params
    declared = [*p.posonly_params, *p.params, *p.kwonly_params]
    found: dict[str, tuple[PytreeClass, ClassInfo]] = {}
    if len(path) >= 2 and type(path[-2]) is cst.ClassDef and (p.posonly_params or p.params):
        kinds = {leaf_name(d.decorator) for d in func.decorators}
        cls = classes.of(path[-2], path[:-2])  # type: ignore[arg-type]
        if cls is not None and not kinds & {"staticmethod", "classmethod"}:
            found[declared[0].name.value] = (cls, infos.of(path[-2], path[:-2]))  # type: ignore[arg-type]
    for param in declared:
        if param.annotation is not None and param.name.value not in found:
            if annotated is not None:
                pair = annotated(param.annotation.annotation, path)
            else:
                local = classes.annotated_class(param.annotation.annotation, path)
                pair = (local[0], infos.of(local[1], local[2])) if local is not None else None
            if pair is not None:
                found[param.name.value] = pair
    for name, (cls, info) in found.items():
        kind = entry.params.get(name)
        if kind == PYTREE:
            leaves = "jit" if style == "jit" else "filter" if style == "filter" else "pytree"
        elif kind == UNKNOWN and style == "filter":
            leaves = "filter"
        else:
            continue
        value = params.get(name, U)
        params[name] = Object(
            info,
            kind=value.kind if value.traced else UNKNOWN,
            why=value.why or ("param", name, entry),
            declared=Instance(cls, leaves),
        )
