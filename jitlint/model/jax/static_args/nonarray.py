"""Values the source shows are not arrays, nor pytrees of arrays: what `jax.jit` cannot
trace when a call passes them to a parameter that is not static (JIT111)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.model.domain import plugins
from jitlint.model.domain.values import BoundMethod, FunctionRef, Object, PartialRef
from jitlint.model.jax.crossfile.class_facts import module_framework
from jitlint.model.library.jax_facts import python_constants
from jitlint.python.attributes import assigned_only_plainly, self_assignments, self_attr_name
from jitlint.python.names import Names

if TYPE_CHECKING:
    from jitlint.model.jax.jit import JitModel
    from jitlint.model.jax.tracing import Tracing

_ENUM_BASES = {"enum.Enum", "enum.Flag", "enum.StrEnum"}
_PLAIN_BASES = {"builtins.object", "abc.ABC"}
_DATACLASS = {"dataclasses.dataclass"}
# Callables from these modules are functions (or dtypes), never arrays.
_FUNCTION_MODULES = ("jax.numpy.", "jax.nn.", "jax.lax.", "jax.scipy.", "math.", "operator.")
# `register_pytree_node(Name, ...)`, `register_dataclass(Name)` ... make `Name` a pytree.
_PYTREE_HINTS = (
    *("register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys"),
    *("register_dataclass", "register_static"),
)
# Methods that make instances pytrees or arrays.
_ARRAY_PROTOCOL = {"tree_flatten", "tree_flatten_with_keys", "__jax_array__", "__array__"}


_HASHABLE_KINDS = frozenset(
    ("string", "function", "class", "library function", "enum member", "record of functions")
)


@dataclass(frozen=True)
class NonArray:
    """A value that is not an array. `kind` is one of "string", "lambda", "function",
    "class", "library function" (a function or dtype of jax.numpy, math, ...), "enum member",
    "instance", "module instance" (of a framework whose modules are not pytrees) and "record
    of functions" (a NamedTuple whose fields are functions)."""

    kind: str
    name: str | None = None  # the function, class or enum; the library name as written
    via: str | None = None  # the local name the value is read through, when not direct

    @property
    def hashable(self) -> bool:
        """Whether the value hashes (by identity or value), so that a static parameter takes
        it. An instance (a dataclass may define `__eq__` without `__hash__`) and a lambda (a
        new object, and so a new compilation, per call) are not counted."""
        return self.kind in _HASHABLE_KINDS


class NonArrays:
    """The file's non-array values, asked of the names, jit applications and tracing model."""

    def __init__(
        self, names: Names, jit: JitModel, tracing: Tracing, module: cst.Module, source: str
    ) -> None:
        self.names = names
        self.jit = jit
        self.tracing = tracing
        self.module = module
        self.source = source  # the file's text, for the pytree registrations it mentions

    def of(self, expr: cst.BaseExpression, path: Sequence[cst.CSTNode]) -> NonArray | None:
        """What `expr` (in the scope `path` leads into) is, when it is visibly not an array."""
        if isinstance(expr, cst.Name):
            functions = self._record_of_functions(expr, path)
            if functions is not None:
                return functions
        if isinstance(expr, cst.SimpleString | cst.ConcatenatedString | cst.FormattedString):
            return NonArray("string")
        if isinstance(expr, cst.Lambda):
            return NonArray("lambda")
        if isinstance(expr, cst.Name):
            return self._name(expr, path)
        if isinstance(expr, cst.Attribute):
            imported = self._imported_function(expr, path)
            if imported is not None:
                return imported
            field = self._self_field(expr, path)
            if field is not None:
                return field
            cls = self.local_class(expr.value, path)
            if cls is not None and self._is_enum(cls, path):
                return NonArray("enum member", cls.name.value)
            return None
        if isinstance(expr, cst.Call):
            cls = self.local_class(expr.func, path)
            if cls is not None and self.plain_class(cls, path):
                return NonArray("instance", cls.name.value)
            return self._module_instance(expr, path)
        return None

    def _self_field(self, expr: cst.Attribute, path: Sequence[cst.CSTNode]) -> NonArray | None:
        """`self.model` in a method, when its class assigns the attribute once, plainly, to
        an instance of a class that is not a pytree (`self.model = Model()` in `__init__`)."""
        attr = self_attr_name(expr)
        method = _method_and_class(path) if attr is not None else None
        if method is None or attr is None:
            return None
        cls, cls_path = method
        if not assigned_only_plainly(cls, attr):
            return None
        found = self_assignments(cls, attr, cls_path)
        if len(found) != 1 or type(found[0][0]) is not cst.Call:
            return None
        value, value_path = found[0]
        made = self.of(value, value_path)  # type: ignore[arg-type]
        if made is None or made.kind not in ("instance", "module instance"):
            return None
        return NonArray(made.kind, made.name, f"self.{attr}")

    def _module_instance(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> NonArray | None:
        """`Model()` of a framework whose modules are not pytrees (flax linen, haiku), the
        class defined here or, as its file's facts say, in another file of the run."""
        func = call.func
        if type(func) is not cst.Name:
            return None
        bindings = self.names.lookup(func.value, path)
        if not bindings or len(bindings) != 1:
            return None
        binding = bindings[0]
        kind = None
        if binding.kind == "class":
            found = self.names.lookup_with_path(func.value, path)
            scope = found[1] if found is not None else list(path)
            info = self.tracing.classes.of(binding.node, scope)  # type: ignore[arg-type]
            kind = None if info.registered else info.kind
        elif binding.kind == "import" and binding.qualname:
            kind = module_framework(self.tracing.inbound, binding.qualname)
        framework = plugins.plugin(kind)
        if framework is None or not framework.not_a_pytree:
            return None
        return NonArray("module instance", f"{framework.display} Module `{func.value}`")

    def _name(self, expr: cst.Name, path: Sequence[cst.CSTNode]) -> NonArray | None:
        found = self.names.lookup_with_path(expr.value, path)
        if found is None or len(found[0]) != 1:
            return None
        binding, scope_path = found[0][0], found[1]
        if binding.kind == "def":
            # A decorator may turn it into a pytree (eqx.filter_jit, tree_util.Partial).
            decorators = binding.node.decorators  # type: ignore[union-attr]
            if all(self.jit.jit_spec(d.decorator, scope_path) for d in decorators):
                return NonArray("function", expr.value)
            return None
        if binding.kind == "class":
            return NonArray("class", expr.value)
        if binding.kind == "import":
            return self._imported_function(expr, path)
        if binding.kind == "assign" and isinstance(
            binding.node, cst.SimpleString | cst.ConcatenatedString | cst.Lambda | cst.Call
        ):
            inner = self.of(binding.node, scope_path)  # type: ignore[arg-type]
            return NonArray(inner.kind, inner.name, expr.value) if inner else None
        return None

    def _record_of_functions(self, expr: cst.Name, path: Sequence[cst.CSTNode]) -> NonArray | None:
        """An instance of a project class whose every field is a function (an optimizer's
        `init`/`update` in a NamedTuple): a pytree whose leaves are not arrays. Only a
        NamedTuple: other pytree classes may declare such fields static."""
        trace = self.tracing.any_function_at(path)
        value = trace.value(expr) if trace is not None else None
        if not isinstance(value, Object) or not value.fields or value.cls.kind != "namedtuple":
            return None
        if not all(
            type(f) in (FunctionRef, BoundMethod, PartialRef) for f in value.fields.values()
        ):
            return None
        return NonArray("record of functions", value.cls.name, expr.value)

    def _imported_function(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> NonArray | None:
        names = self.names.qualified_names(expr, path)
        if not names or not all(n.startswith(_FUNCTION_MODULES) for n in names):
            return None
        if names & python_constants():  # `jnp.pi`, `jnp.newaxis`: Python values
            return None
        return NonArray("library function", self.module.code_for_node(expr))

    def local_class(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> cst.ClassDef | None:
        if not isinstance(expr, cst.Name):
            return None
        bindings = self.names.lookup(expr.value, path)
        if bindings and len(bindings) == 1 and bindings[0].kind == "class":
            return bindings[0].node  # type: ignore[return-value]
        return None

    def _is_enum(self, cls: cst.ClassDef, path: Sequence[cst.CSTNode]) -> bool:
        return bool(cls.bases) and all(
            self.names.resolves_to(base.value, path, _ENUM_BASES) for base in cls.bases
        )

    def plain_class(self, cls: cst.ClassDef, path: Sequence[cst.CSTNode], depth: int = 0) -> bool:
        """True when instances of `cls` are visibly not pytrees (nor arrays)."""
        if depth > 3 or cls.keywords:
            return False
        name = cls.name.value
        if any(f"{hint}({name}" in self.source for hint in _PYTREE_HINTS):
            return False
        for decorator in cls.decorators:
            callee = decorator.decorator
            callee = callee.func if isinstance(callee, cst.Call) else callee
            if not self.names.resolves_to(callee, path, _DATACLASS):
                return False
        body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
        for statement in body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value in _ARRAY_PROTOCOL:
                return False
        for base in cls.bases:
            if base.keyword is not None or base.star:
                return False
            if self.names.resolves_to(base.value, path, _PLAIN_BASES):
                continue
            parent = self.local_class(base.value, path)
            if parent is None or not self.plain_class(parent, path, depth + 1):
                return False
        return True


def _method_and_class(
    path: Sequence[cst.CSTNode],
) -> tuple[cst.ClassDef, list[cst.CSTNode]] | None:
    """The class whose method `path` is in (directly, not in a nested function), and the
    path to the class, when the method's first parameter is `self`."""
    for index in range(len(path) - 1, 1, -1):
        node = path[index]
        if type(node) is cst.Lambda:
            return None
        if type(node) is not cst.FunctionDef:
            continue
        cls = path[index - 2]
        params = node.params.params  # type: ignore[attr-defined]
        if type(cls) is not cst.ClassDef or not params or params[0].name.value != "self":
            return None
        return cls, list(path[: index - 2])
    return None
