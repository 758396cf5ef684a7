"""Abstract values: what the model knows about a Python value inside (or outside) traced code.

Values know their structure:

- `Array`: a JAX array (a tracer inside traced code) or a NumPy array, with its dtype and rank
  when known. `.shape`, `.ndim`, `.dtype`, `.size` and `len()` of an array are static.
- `Scalar`: a Python int, float, bool, str, None..., with its value when known.
- `Seq` (list, tuple), `Dict`: containers, with their items (or keys) when known.
- `Object`: an instance of a class of the project, with the fields the model saw it get.
- `ClassRef`, `FunctionRef` (a def or lambda, with the frame it closes over), `BoundMethod`,
  `PartialRef` (`functools.partial`), `Transformed` (`jax.jit(f)`, with its options),
  `ModuleRef`: Python objects the interpreter can call or look into.
- a plain `Value(PYTREE)`: a traced argument whose structure is not known (an array, or a
  container of arrays); `U`: unknown.

Every value also has a `kind`, the coarse flag rules query: TRACED (certainly a JAX array),
PYTREE (traced, maybe a container: its truthiness is not reported, `if params:` on a dict of
arrays is fine), STATIC (a Python value fixed at trace time) or UNKNOWN, which never produces
a finding. `why` is a provenance tuple: why the value is traced, for messages.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from jitlint.python.builtins_facts import LITERAL_NAMES, SCALAR_TYPES

STATIC, TRACED, PYTREE, UNKNOWN = 0, 1, 2, 3
KIND_NAMES = {STATIC: "static", TRACED: "traced", PYTREE: "traced", UNKNOWN: "unknown"}
MISSING: Any = object()  # a Scalar whose value is not known
_KEY_DEPTH = 3  # how deep `key()` looks into containers
_MAX_ITEMS = 16  # longer displays keep only their element value


class Value:
    """A value known only by its kind; the base of every typed value.

    `pytype` names the Python type when a rule needs it ("list", "tuple", "ndarray"...);
    `boolean` marks a boolean array (for mask indexing)."""

    __slots__ = ("boolean", "kind", "pytype", "why")

    def __init__(
        self, kind: int, why: tuple[Any, ...] | None = None, boolean: bool = False, pytype=None
    ) -> None:
        self.kind = kind
        self.why = why
        self.boolean = boolean
        self.pytype = pytype

    @property
    def traced(self) -> bool:
        return self.kind == TRACED or self.kind == PYTREE

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        """What distinguishes this value as an argument, for memoising a call's analysis."""
        pytype = self.pytype if isinstance(self.pytype, str) else type(self.pytype).__name__
        return (self.kind, pytype, self.boolean)

    def element(self) -> Value:
        """What iterating over the value yields."""
        if self.kind == TRACED:
            return traced(self.why)
        if self.kind == PYTREE:
            if self.pytype == ITEMS:
                return Value(PYTREE, self.why, pytype=ITEM)
            # A pytree of unknown structure: a list's elements or a dict's (static) keys.
            return Value(PYTREE, self.why, pytype=MAYBE_KEY)
        return S if self.kind == STATIC else U

    def unpacked(self, count: int) -> list[Value] | None:
        """The values `a, b = value` binds (for `count` targets), if known one by one."""
        return None

    def item(self) -> Value:
        """What unpacking the value into a target yields, when not known one by one."""
        if self.kind == TRACED:
            return traced(self.why)
        if self.kind == PYTREE:
            return Value(PYTREE, self.why)
        return S if self.kind == STATIC else U

    def __repr__(self) -> str:
        why = self.why[:2] if self.why else None
        return f"Value({KIND_NAMES[self.kind]}, {why!r}, bool={self.boolean})"


class Array(Value):
    """An array. `jax`: a JAX array (a tracer in traced code), else a NumPy array. `sure`:
    known to be an array, not only assumed from arithmetic on a traced pytree (which may be
    a list: `params * 2`)."""

    __slots__ = ("dtype", "jax", "rank", "sure")

    def __init__(
        self,
        why: tuple[Any, ...] | None = None,
        *,
        jax: bool = True,
        boolean: bool = False,
        dtype: str | None = None,
        rank: int | None = None,
        sure: bool = True,
    ) -> None:
        super().__init__(TRACED if jax else STATIC, why, boolean, None if jax else "ndarray")
        self.jax = jax
        self.dtype = "bool" if boolean else dtype
        self.rank = rank
        self.sure = sure

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        return ("array", self.jax, self.boolean, self.dtype, self.rank, self.sure)

    def element(self) -> Value:
        rank = self.rank - 1 if self.rank else None
        return Array(self.why, jax=self.jax, dtype=self.dtype, rank=rank, sure=self.sure)

    def item(self) -> Value:
        return self.element()

    def __repr__(self) -> str:
        return f"Array(jax={self.jax}, rank={self.rank}, dtype={self.dtype})"


class Scalar(Value):
    """A Python scalar (`pytype` int, float, bool, complex, str, bytes or None), with its
    value in `const` when known."""

    __slots__ = ("const",)

    def __init__(
        self, pytype: str | None = None, const: Any = MISSING, why: tuple[Any, ...] | None = None
    ) -> None:
        super().__init__(STATIC, why, False, pytype)
        self.const = const

    @property
    def known(self) -> bool:
        return self.const is not MISSING

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        const = self.const if self.known and isinstance(self.const, Hashable) else None
        return ("scalar", self.pytype, const)

    def element(self) -> Value:
        return Scalar("str") if self.pytype == "str" else U

    def __repr__(self) -> str:
        return f"Scalar({self.pytype}, {self.const if self.known else '?'})"


class Seq(Value):
    """A Python list or tuple (`pytype`), with its items when their number is known, and
    `elem`, what any one of them may be."""

    __slots__ = ("elem", "items")

    def __init__(
        self,
        pytype: str,
        items: Sequence[Value] | None = None,
        elem: Value | None = None,
        why: tuple[Any, ...] | None = None,
    ) -> None:
        if items is not None and len(items) > _MAX_ITEMS:
            elem = join_all(items)
            items = None
        if items is not None:
            self.items: tuple[Value, ...] | None = tuple(items)
            self.elem = join_all(self.items) if self.items else U
            kind = _container_kind(self.items)
        else:
            self.items = None
            self.elem = elem if elem is not None else U
            kind = _container_kind((self.elem,))
        hit = first_traced(self.items if self.items is not None else (self.elem,))
        super().__init__(kind, why or (hit.why if hit is not None else None), False, pytype)

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        if depth <= 0:
            return ("seq", self.pytype, self.kind)
        if self.items is not None:
            return ("seq", self.pytype, tuple(v.key(depth - 1) for v in self.items))
        return ("seq*", self.pytype, self.elem.key(depth - 1))

    def element(self) -> Value:
        return self.elem

    def item(self) -> Value:
        return self.elem

    def unpacked(self, count: int) -> list[Value] | None:
        if self.items is not None and len(self.items) == count:
            return list(self.items)
        return None

    def __repr__(self) -> str:
        inner = list(self.items) if self.items is not None else f"*{self.elem!r}"
        return f"Seq({self.pytype}, {inner})"


class Dict(Value):
    """A Python dict, with its entries when every key is a known constant, and `elem`,
    what any one value may be. Its keys are static."""

    __slots__ = ("elem", "entries")

    def __init__(
        self,
        entries: dict[Hashable, Value] | None = None,
        elem: Value | None = None,
        why: tuple[Any, ...] | None = None,
    ) -> None:
        if entries is not None and len(entries) > _MAX_ITEMS:
            elem = join_all(list(entries.values()))
            entries = None
        self.entries = entries
        if entries is not None:
            values: Sequence[Value] = list(entries.values())
            self.elem = join_all(values) if values else U
        else:
            self.elem = elem if elem is not None else U
            values = (self.elem,)
        hit = first_traced(values)
        super().__init__(
            _container_kind(values), why or (hit.why if hit is not None else None), False, "dict"
        )

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        if depth <= 0:
            return ("dict", self.kind)
        if self.entries is not None:
            return (
                "dict",
                tuple(sorted((repr(k), v.key(depth - 1)) for k, v in self.entries.items())),
            )
        return ("dict*", self.elem.key(depth - 1))

    def element(self) -> Value:
        return Scalar()  # the keys

    def get(self, key: Any) -> Value:
        if self.entries is not None and isinstance(key, Hashable) and key in self.entries:
            return self.entries[key]
        return self.elem if self.entries is None else U

    def __repr__(self) -> str:
        return f"Dict({self.entries if self.entries is not None else '*'})"


class Object(Value):
    """An instance of a class of the project (`cls`, a ClassInfo). `fields` holds what the
    model saw the instance get (in `__init__`, or as a traced argument of a known pytree
    class); `declared` (a pytree_fields.Instance) says how a transformation treats the
    fields of a traced argument. `building`: `__init__` is still running, so assignments to
    `self.x` add fields. `constructed`: a call of the class made it, so it is no None (an
    instance the model assumes from an annotation, `Optional[State]`, may be)."""

    __slots__ = ("building", "cls", "constructed", "declared", "fields", "made_at")

    def __init__(
        self,
        cls: Any,
        fields: dict[str, Value] | None = None,
        *,
        kind: int = UNKNOWN,
        why: tuple[Any, ...] | None = None,
        declared: Any = None,
    ) -> None:
        super().__init__(kind, why, False, declared)
        self.cls = cls
        self.fields = fields if fields is not None else {}
        self.declared = declared
        self.building = False
        self.constructed = False
        # The level of the code that made it (0: Python, outside any trace), if known.
        self.made_at: int | None = None

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        return ("object", id(self))

    def element(self) -> Value:
        return U

    def item(self) -> Value:
        return U

    def __repr__(self) -> str:
        return f"Object({getattr(self.cls, 'name', '?')}, {sorted(self.fields)})"


class Ref(Value):
    """A Python object that is not data: a class, function, method, partial, module..."""

    __slots__ = ()

    def __init__(self, why: tuple[Any, ...] | None = None, pytype: Any = None) -> None:
        super().__init__(STATIC, why, False, pytype)

    def element(self) -> Value:
        return U

    def item(self) -> Value:
        return U


class ClassRef(Ref):
    __slots__ = ("cls",)

    def __init__(self, cls: Any) -> None:
        super().__init__(None, "class")
        self.cls = cls

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        return ("class", id(self.cls))

    def __repr__(self) -> str:
        return f"ClassRef({getattr(self.cls, 'name', '?')})"


class FunctionRef(Ref):
    """A `def` or `lambda` (`func`), with the frame (an Analyzer) whose names it closes over,
    and `owner`, the class whose body defines it (a ClassInfo) when it is a method."""

    __slots__ = ("closure", "func", "owner")

    def __init__(self, func: Any, closure: Any = None, owner: Any = None) -> None:
        super().__init__(None, "function")
        self.func = func
        self.closure = closure
        self.owner = owner

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        return ("function", id(self.func), id(self.closure))

    def __repr__(self) -> str:
        name = getattr(getattr(self.func, "name", None), "value", "<lambda>")
        return f"FunctionRef({name})"


class BoundMethod(Ref):
    """`obj.method` (or `cls.classmethod`): calling it passes `receiver` first."""

    __slots__ = ("function", "receiver")

    def __init__(self, function: FunctionRef, receiver: Value) -> None:
        super().__init__(None, "method")
        self.function = function
        self.receiver = receiver

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        return ("method", self.function.key(depth), self.receiver.key(depth - 1))


class PartialRef(Ref):
    """`functools.partial(target, *args, **keywords)`."""

    __slots__ = ("args", "keywords", "star", "target")

    def __init__(
        self,
        target: Value,
        args: Sequence[Value],
        keywords: dict[str, Value],
        star: bool = False,
    ) -> None:
        super().__init__(None, "partial")
        self.target = target
        self.args = tuple(args)
        self.keywords = keywords
        self.star = star

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        return ("partial", id(self))


TRANSFORMED = "transformed function"


class Transformed(Ref):
    """`jax.jit(f, ...)`, `jax.vmap(f)`, `jax.grad(f)`...: `transform` (a transforms.Transform)
    applied to `target` with `options` (the keyword arguments, as libcst Args)."""

    __slots__ = ("options", "target", "transform")

    def __init__(
        self, transform: Any, target: Value, options: Sequence[Any], why: tuple[Any, ...]
    ) -> None:
        super().__init__(why, TRANSFORMED)
        self.transform = transform
        self.target = target
        self.options = tuple(options)

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        return ("transformed", id(self))


class Foreign(Ref):
    """Something another module of the project defines, known only by its dotted name
    (`path`, as the importing file spells it: ".model.Net"): the name itself ("name"), an
    instance made by calling it ("instance": `Net(...)`), or a member of such an instance
    ("member": `net.apply`, `path` ".model.Net.apply"). Calling one from traced code is an
    outbound call for the project pass (model/project/)."""

    __slots__ = ("also", "made_by", "made_with", "path", "role")

    def __init__(
        self,
        path: str,
        role: str = "name",
        also: tuple[str, ...] = (),
        made_with: tuple[tuple[str | None, Value], ...] | None = None,
        made_by: tuple[str, str] | None = None,
    ) -> None:
        super().__init__(None, "foreign")
        self.path = path
        self.role = role
        # For a member inherited from one of several imported bases: the other candidates
        # (the project pass hands the call to whichever defines it).
        self.also = also
        # An instance (or its member) made here by calling the class: the arguments it was
        # made with, which the project pass sends along with calls of its methods, so that
        # the defining file builds the same instance as their `self`. None: not known.
        self.made_with = made_with
        # A name reached as an attribute of another one (`Kalman.default`), or an instance
        # made by calling such a name: (the owner's path, the attribute). The owner may be a
        # class and the attribute its class-method constructor (`return cls(...)`).
        self.made_by = made_by
        if role != "name":
            self.kind = UNKNOWN

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        made = None
        if self.made_with is not None:
            made = tuple((k, v.key(depth - 1)) for k, v in self.made_with)
        return ("foreign", self.path, self.role, made)

    def __repr__(self) -> str:
        return f"Foreign({self.path}, {self.role})"


class ModuleRef(Ref):
    __slots__ = ("qualname",)

    def __init__(self, qualname: str) -> None:
        super().__init__(None, "module")
        self.qualname = qualname

    def key(self, depth: int = _KEY_DEPTH) -> Hashable:
        return ("module", self.qualname)


# Iterating a pytree of unknown structure yields a list's elements or a dict's (static)
# keys: traced for comparisons, but not shown to be a tracer when printed (see JIT107).
MAYBE_KEY = "element or key"
# `.items()` of a traced mapping, and one (key, value) pair of it.
ITEMS, ITEM = "items", "item"


def shows_tracer(value: Value) -> bool:
    """Whether printing `value` shows a tracer (a dict key it may be does not)."""
    return value.traced and value.pytype != MAYBE_KEY


def python_sequence(value: Value) -> str | None:
    """ "list" or "tuple" when `value` is certainly a Python list or tuple (indexing it needs
    a Python int), else None."""
    if isinstance(value, Seq) or (type(value) is Value and value.kind == STATIC):
        return value.pytype if value.pytype in ("list", "tuple") else None
    return None


def is_jax_array(value: Value | None) -> bool:
    """Certainly a JAX array (a tracer in traced code), not a container or NumPy array."""
    return value is not None and value.kind == TRACED


def sure_jax_array(value: Value | None) -> bool:
    """A JAX array for certain: produced by JAX, not assumed from arithmetic on a pytree."""
    return isinstance(value, Array) and value.jax and value.sure


S = Value(STATIC)
U = Value(UNKNOWN)
NONE = Scalar("None", None)
# `object()`: a bare Python object, the usual sentinel (`state=sentinel`). A JAX array
# compared with `==` to a value of a type it does not recognise defers to identity, so
# `tracer == sentinel` is a Python bool.
PLAIN_OBJECT = Value(STATIC, pytype="object")
# A Python set or frozenset: it holds only hashable values, and no JAX array or TF tensor is
# one (hashing a tracer raises TypeError), so a set that was built holds none; a dict's keys
# (`set(d)`) are the pytree's static structure. Its truth value is its length.
PYTHON_SET = Value(STATIC, pytype="set")
# A Python value known not to be None, and nothing more: an instance a call of a class made,
# a name that an `is not None` test guards.
NOT_NONE = Value(STATIC, pytype="not None")


def plain_python_object(value: Value) -> bool:
    """A value that a JAX array's `==` and `!=` do not recognise (they answer by identity,
    a Python bool): a bare `object()`, a function, a class or a module."""
    if value.pytype == "object" and type(value) is Value:
        return True
    return isinstance(value, (ClassRef, FunctionRef, ModuleRef))


def _container_kind(values: Sequence[Value]) -> int:
    if first_traced(values) is not None:
        return PYTREE
    if all(v.kind == STATIC for v in values):
        return STATIC
    return UNKNOWN


def join(a: Value, b: Value) -> Value:
    """What a name holds after two paths that gave it `a` and `b`."""
    if a is b:
        return a
    ta, tb = type(a), type(b)
    if ta is tb and ta is not Value:
        joined = _JOINS[ta](a, b) if ta in _JOINS else None
        if joined is not None:
            return joined
    return _join_kinds(a, b)


def _join_kinds(a: Value, b: Value) -> Value:
    if a.kind == b.kind:
        if a.kind == STATIC:
            # Never `a` itself without a pytype: it may be a narrowing marker (see `narrow`).
            if type(a) is Value and type(b) is Value and a.pytype is not None:
                return a if a.pytype == b.pytype else S
            pytype = a.pytype if isinstance(a.pytype, str) and a.pytype == b.pytype else None
            if pytype in ("list", "tuple", "ndarray", "dict"):
                return Value(STATIC, pytype=pytype)
            return S
        if a.kind == UNKNOWN:
            return U
        if a.boolean and not b.boolean:
            return Value(a.kind, a.why, False)
        if a.pytype != b.pytype:  # e.g. instances of two different pytree classes
            return Value(a.kind, a.why, a.boolean)
        if type(a) is not Value:
            return Value(a.kind, a.why, a.boolean, a.pytype if isinstance(a.pytype, str) else None)
        return a
    if a.traced and b.traced:
        return Value(PYTREE, a.why)
    return U


def _join_arrays(a: Array, b: Array) -> Value | None:  # type: ignore[return]
    if a.jax != b.jax:
        return None
    return Array(
        a.why or b.why,
        jax=a.jax,
        boolean=a.boolean and b.boolean,
        dtype=a.dtype if a.dtype == b.dtype else None,
        rank=a.rank if a.rank == b.rank else None,
        sure=a.sure and b.sure,
    )


def _join_scalars(a: Scalar, b: Scalar) -> Value:
    pytype = a.pytype if a.pytype == b.pytype else None
    const = a.const if a.known and b.known and _same(a.const, b.const) else MISSING
    return Scalar(pytype, const)


def _same(x: Any, y: Any) -> bool:
    try:
        return type(x) is type(y) and bool(x == y)
    except Exception:
        return False


def _join_seqs(a: Seq, b: Seq) -> Value | None:
    if a.pytype != b.pytype:
        return None
    if a.items is not None and b.items is not None and len(a.items) == len(b.items):
        return Seq(a.pytype, [join(x, y) for x, y in zip(a.items, b.items, strict=True)])
    return Seq(a.pytype, elem=join(a.elem, b.elem))


def _join_dicts(a: Dict, b: Dict) -> Value:
    if a.entries is not None and b.entries is not None and a.entries.keys() == b.entries.keys():
        return Dict({k: join(v, b.entries[k]) for k, v in a.entries.items()})
    return Dict(elem=join(a.elem, b.elem))


def _join_objects(a: Object, b: Object) -> Value | None:
    if a.cls is not b.cls or a.declared != b.declared:
        return None
    fields = {k: join(v, b.fields[k]) for k, v in a.fields.items() if k in b.fields}
    kind = a.kind if a.kind == b.kind else UNKNOWN
    out = Object(a.cls, fields, kind=kind, why=a.why or b.why, declared=a.declared)
    out.constructed = a.constructed and b.constructed
    return out


def _join_refs(a: Value, b: Value) -> Value | None:
    if a.key() == b.key():
        return a
    return None


_JOINS: dict[type, Any] = {
    Array: _join_arrays,
    Scalar: _join_scalars,
    Seq: _join_seqs,
    Dict: _join_dicts,
    Object: _join_objects,
    ClassRef: _join_refs,
    FunctionRef: _join_refs,
    BoundMethod: _join_refs,
    ModuleRef: _join_refs,
    Foreign: _join_refs,
}


def join_all(values: Sequence[Value]) -> Value:
    if not values:
        return U
    out = values[0]
    for value in values[1:]:
        out = join(out, value)
    return out


def traced(why: tuple[Any, ...] | None, boolean: bool = False, sure: bool = True) -> Value:
    """A JAX array: a tracer inside traced code."""
    return Array(why, boolean=boolean, sure=sure)


def first_traced(values: Sequence[Value]) -> Value | None:
    for value in values:
        if value.traced:
            return value
    return None


def _array_like(value: Value) -> bool:
    """A traced operand that arithmetic treats as an array: an array, or a traced argument
    of unknown structure (if the arithmetic works on it, it is an array)."""
    return value.kind == TRACED or (type(value) is Value and value.kind == PYTREE)


def combine(values: Sequence[Value]) -> Value:
    """Arithmetic-like combination: traced if any operand is, static if all are."""
    hit = next((v for v in values if _array_like(v)), None)
    if hit is not None:
        if any(isinstance(v, (Seq, Dict, Object, Ref)) for v in values):
            return U  # a container's or object's own operator decides
        sure = all(not v.traced or (isinstance(v, Array) and v.sure) for v in values)
        return traced(hit.why, sure=sure)
    if first_traced(values) is not None:
        return U  # a traced container in arithmetic: its own operator decides
    if all(v.kind == STATIC for v in values):
        numpy = next((v for v in values if isinstance(v, Array) and not v.jax), None)
        if numpy is not None:
            return Array(jax=False)
        return S
    return U


def container(values: Sequence[Value], pytype: str | None = None) -> Value:
    """A tuple/list/set built from `values`."""
    if pytype in ("list", "tuple"):
        return Seq(pytype, values)
    hit = first_traced(values)
    if hit is not None:
        return Value(PYTREE, hit.why)
    if all(v.kind == STATIC for v in values):
        return Value(STATIC, pytype=pytype) if pytype else S
    return U


def constant(value: Any) -> Value:
    """The value of a Python literal."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return Scalar("bool", value)
    for kind in (int, float, complex, str, bytes):
        if isinstance(value, kind):
            return Scalar(kind.__name__, value)
    return S


def literal(text: str) -> Value | None:
    """The value of the constant spelled `text` (`True`, `False`, `None`), else None."""
    if text not in LITERAL_NAMES:
        return None
    return constant(LITERAL_NAMES[text])


def literal_truth(value: Value) -> bool | None:
    """The truth of a known constant; None for any other value."""
    if isinstance(value, Scalar) and value.known:
        try:
            return bool(value.const)
        except Exception:
            return None
    return None


def is_none(value: Value) -> bool | None:
    """Whether the value is None, as `x is None` asks: True for the constant, False for a
    Python scalar of another known type (an int such as `x.shape[0]` or `len(xs)`, a
    literal), None otherwise. Arrays, containers and instances are left unknown: a parameter
    annotated `Optional[int]` or `Optional[State]` is modelled as one, and None still
    reaches it. An instance a call of its class made is no None."""
    if isinstance(value, Scalar):
        if value.known:
            return value.const is None
        return None if value.pytype is None else value.pytype == "None"
    if type(value) is Value and value.kind == STATIC and value.pytype in SCALAR_TYPES:
        return False
    if isinstance(value, Object) and value.constructed:
        return False
    if type(value) is Value and value.pytype == "not None":
        return False
    return None


Env = dict[str, Value]


def join_envs(a: Env, b: Env) -> Env:
    out: Env = {}
    for name in a.keys() | b.keys():
        va, vb = a.get(name), b.get(name)
        out[name] = join(va, vb) if va is not None and vb is not None else U
    return out


def same_scalar_type(values: Sequence[Value]) -> bool:
    """Whether every value is a Python scalar of one known type (an int at every call site)."""
    types = {v.pytype if isinstance(v, Scalar) else None for v in values}
    return len(types) == 1 and None not in types


def same_class_instances(values: list[Value]) -> bool:
    """Several instances of one class of the project, none a pytree argument (whose fields a
    transformation decides): `self` of a method that several calls reach."""
    first = values[0] if values else None
    if not isinstance(first, Object):
        return False
    return all(
        isinstance(v, Object) and v.cls is first.cls and v.declared is None and v.kind != PYTREE
        for v in values
    )


def merged_instance(values: list[Object]) -> Object:
    """One instance for several: a field traced in any of them is traced (as a parameter
    is when any call passes a tracer), one that is the same everywhere keeps its value, and
    any other is unknown."""
    out = Object(values[0].cls, kind=values[0].kind, why=values[0].why)
    names = {name for v in values for name in v.fields}
    for name in sorted(names):  # the fields in one order, whatever the hash seed
        found = [v.fields.get(name, U) for v in values]
        hit = first_traced(found)
        if hit is not None:
            out.fields[name] = hit
        elif all(f.key() == found[0].key() for f in found):
            out.fields[name] = found[0]
        else:
            out.fields[name] = U
    levels = {v.made_at for v in values}
    out.made_at = levels.pop() if len(levels) == 1 else None
    out.constructed = all(v.constructed for v in values)
    return out
