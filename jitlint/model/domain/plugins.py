"""Framework plug-ins: what each framework built on JAX (equinox, flax, haiku, optax, ...)
says about itself, as data, on one table keyed by the plug-in's `kind` and by qualified name.

The model asks the table ("which framework does a base `equinox.Module` make a class?",
"does this kind hash by its fields?", "what does `optax.global_norm` return?") instead of
naming frameworks in if-chains. The plug-ins themselves live in `model/jax/frameworks/`, one
module per framework; importing that package registers them here. This module sits on the
domain floor so that `classes.py` and `hashing.py`, below the JAX model, can read the table
without importing it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from jitlint.model.domain.values import Value

GRAD, ABSTRACT = 1, 2  # trace levels: under grad alone Python bool conversion still works

# How instances of a kind hash (`FrameworkPlugin.hash_by`): by the tuple of their fields (a
# frozen dataclass), or by their pytree leaves (lists and dicts are nodes, not leaves).
HASH_FIELDS, HASH_LEAVES = "fields", "leaves"


@dataclass(frozen=True)
class FieldHelper:
    """A call that declares a field (`eqx.field(static=True)`): `flag` is the keyword that
    makes the field static when it equals `static_when`; with no `flag`, always static."""

    qualname: str
    flag: str | None = None
    static_when: bool = True


@dataclass(frozen=True)
class TransformSpec:
    """Transformations a framework exports: which arguments are traced bodies (`targets`,
    by position and keyword), how parameters are treated (`style`, see
    transforms.application_params) and the verb messages use."""

    names: tuple[str, ...]
    level: int
    style: str
    targets: tuple[int, ...] = (0,)
    target_keywords: tuple[str, ...] = ("fun", "f", "fn")
    verb: str = "traces"
    # Whether it stages every JAX operation in its body (jit, lax bodies, checkpoint): False
    # for vmap and grad alone, where an operation on none of the transformed values runs
    # eagerly and returns a concrete array [observed on jax 0.10.2].
    stages: bool = True


@dataclass(frozen=True)
class CallArgs:
    """A call as a call hook sees it: its arguments (keyword or None, value), whether one is
    starred, and `argument_name(i)`: the one qualified name the i-th argument expression
    stands for (`eqx.is_array`), or None."""

    args: list[tuple[str | None, Value]]
    star: bool
    argument_name: Callable[[int], str | None]


# What a call of a framework function returns (mypy's function hooks); None when the hook
# cannot tell, and the model goes on as for any other call.
CallHook = Callable[[CallArgs], Value | None]


@dataclass(frozen=True)
class Contract:
    """The methods of a framework's modules that its users call under jit."""

    framework: str  # ClassInfo.kind
    methods: frozenset[str]
    says: str  # why the body is traced, for messages: "equinox modules are meant to be"
    # Every public method too (and `__init__`): an equinox module is a pytree whose methods
    # its users call inside `eqx.filter_jit`; `assume-traced`'s `base:` patterns ask the same.
    public: bool = False
    # `__init__` only where the project asks for it (`assume-traced`'s `module-constructors`): a
    # module is sometimes built under jit (`jax.jit(Spline)(x, y)`), yet research code builds
    # most of its modules once, in Python, at set-up, and a constructor read as traced there
    # was the most common false root (round 3: 6 findings on dev research code, all false).
    constructor_when_asked: bool = False
    # Its users hand the module to their `filter_jit` as an argument, so its array fields
    # are tracers in the body (equinox); otherwise fields stay unknown.
    array_leaves_traced: bool = False
    # The module object itself is made inside the user's trace (haiku and flax linen build or
    # bind it in `apply`): setting its attributes there changes nothing outside.
    made_in_trace: bool = False
    # Its modules are built only inside a function made into a pair of pure functions
    # (haiku's `hk.transform`): where the file itself builds one in such a function, the run
    # shows where the module runs (where the pair's `apply` is called, traced or not), and
    # the contract does not stand in for callers it cannot see, unless a pair of that
    # function leaves the run (returned by a factory nothing of the run calls).
    built_in_pair: bool = False
    # A traceback showed this very function failing under jit (explain-error's entry hint):
    # its parameters may be tracers, whatever their annotations leave unsaid.
    parameters_traced: bool = False
    # Its modules are immutable (equinox's frozen dataclasses): a public method that returns
    # nothing changes nothing a jitted caller could get back, so it is called for what it does
    # in Python (printing, plotting, saving) and the contract does not trace it.
    immutable: bool = False

    def traced_methods(self, defined: Iterable[str], asked: bool = False) -> set[str]:
        """The methods, of those a class defines, that the contract traces; `asked`: the
        project's `module-constructors` setting, which adds the constructor where the framework
        leaves it to the project (`constructor_when_asked`)."""
        if not self.public:
            return set(self.methods).intersection(defined)
        constructor = asked or not self.constructor_when_asked
        return {
            name
            for name in defined
            if name in self.methods
            or (name == "__init__" and constructor)
            or not name.startswith("_")
        }


@dataclass(frozen=True, eq=False)
class FrameworkPlugin:
    """What one framework says about itself. Every field has a neutral default, so that a
    plug-in states only what its framework does. One per framework, compared by identity:
    no `__eq__` or `__hash__` over its 45 fields is generated (compiling them cost every
    process ~1 ms)."""

    kind: str  # ClassInfo.kind of its classes: "equinox", "linen", "flax.struct", ...
    display: str  # for messages: "flax linen"
    # Top-level packages whose import makes the framework's rules worth running, and the
    # names users import them as when that is not the package's own (`eqx`).
    packages: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    # ---- classes --------------------------------------------------------------------------
    class_bases: frozenset[str] = frozenset()  # a base with one of these names: this kind
    class_decorators: frozenset[str] = frozenset()  # `@flax.struct.dataclass`
    # Method decorators after which the method is still the plain function its body defines.
    transparent_decorators: frozenset[str] = frozenset()
    generated_init: bool = False  # a generated `__init__` takes the declared fields in order
    post_init: bool = False  # ... and then runs `__post_init__`
    check_init: bool = False  # ... and then every `__check_init__` of the order (equinox)
    # ---- pytrees --------------------------------------------------------------------------
    pytree: bool = False  # instances are pytrees whose children are their fields
    # The class declarations say which fields are leaves (pytree_fields reads them); only
    # for a class whose one base (or one decorator) is the framework's.
    declared_leaves: bool = False
    field_helpers: tuple[FieldHelper, ...] = ()
    # A Module instance is no pytree: `jax.jit` cannot take it as a traced argument.
    not_a_pytree: bool = False
    # The framework's jit splits a Module argument into its graph (static Python attributes)
    # and its state (arrays, traced).
    graph_split: bool = False
    # ---- hashing --------------------------------------------------------------------------
    hash_by: str | None = None  # HASH_FIELDS, HASH_LEAVES, or None: Python's own rules
    dataclass_options: bool = False  # `eq=`/`frozen=`/`unsafe_hash=` decide `__hash__`
    # ---- calls ----------------------------------------------------------------------------
    contract: Contract | None = None
    transforms: tuple[TransformSpec, ...] = ()
    # Packages that mirror `jax.lax`'s control flow (`hk.scan`, `nnx.cond`): "haiku.".
    lax_mirrors: tuple[str, ...] = ()
    # Methods of a Module instance that bind it and run `__call__` (linen's `apply`), and
    # what a call of one from another file is as a call of `__call__` (an inbound record in,
    # one out; None when it cannot be read so).
    apply_methods: tuple[str, ...] = ()
    adapt_inbound: Callable[[Any], Any | None] | None = None
    # Calls computed with JAX operations from their arguments, like a `jax.numpy` function:
    # traced in traced code; of those, the ones whose result is a pytree of arrays.
    jax_calls: frozenset[str] = frozenset()
    pytree_results: frozenset[str] = frozenset()
    array_results: frozenset[str] = frozenset()  # calls whose result is one traced array
    call_hooks: Mapping[str, CallHook] = field(default_factory=dict)  # by qualified name
    # Layer constructors whose arguments become parameter shapes: positions and keywords.
    shape_params: Mapping[str, tuple[tuple[int, ...], tuple[str, ...]]] = field(
        default_factory=dict
    )
    # Layer packages whose modules switch behaviour on a Python flag (`deterministic=`).
    switchable_layers: tuple[str, ...] = ()
    # ---- modules that create their parameters when first called (JIT120) ----------------
    # The method a Module assigns its submodules in (`setup`, `__init__`); a framework with
    # one makes parameters inside whatever trace first runs a module.
    submodules_in: str | None = None
    field_submodules: bool = False  # a field annotated with a module class is a submodule
    module_bases: frozenset[str] = frozenset()  # the Module base class, as annotations name it
    parameter_functions: frozenset[str] = frozenset()  # `hk.get_parameter(...)`
    parameter_methods: frozenset[str] = frozenset()  # `self.param(...)` in a method
    # Methods of a Module instance that create its parameters by running `__call__`, or the
    # method their `method=` keyword names (linen's `init`): a method no such call runs
    # only ever reads parameters that exist.
    init_methods: tuple[str, ...] = ()
    # For a raw jax transformation: the framework's lifted one to use instead, as advice...
    lift_advice: Mapping[str, str] = field(default_factory=dict)
    # ... and the ones that are exact renames: its name there, and the keywords it takes.
    lift_twins: Mapping[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    import_as: tuple[str, str] | None = None  # how a fix imports the framework: ("haiku", "hk")
    # A lifted scan that runs a method's submodules with the module as the first carried
    # argument (`nn.scan(fn, variable_broadcast="params", ...)(self, init, xs)`): the
    # options that broadcast the parameters to every step. None: no such rewrite.
    lifted_scan_options: tuple[str, ...] | None = None


_REGISTERED: dict[str, FrameworkPlugin] = {}


def register(*plugins: FrameworkPlugin) -> None:
    """Adds plug-ins to the table (model/jax/frameworks/ does, when imported)."""
    for plugin in plugins:
        _REGISTERED[plugin.kind] = plugin
    _index.cache_clear()


def plugins() -> tuple[FrameworkPlugin, ...]:
    """Every registered plug-in, in registration order."""
    if not _REGISTERED:
        # Reading an empty table would silently turn every framework off.
        raise RuntimeError("no framework plug-ins: import jitlint.model.jax.frameworks first")
    return tuple(_REGISTERED.values())


def plugin(kind: str | None) -> FrameworkPlugin | None:
    """The plug-in of a `ClassInfo.kind`; None for None or a kind no plug-in has."""
    if kind is None:
        return None
    found = _REGISTERED.get(kind)
    if found is None and not _REGISTERED:
        plugins()  # raises: nothing registered
    return found


@dataclass(frozen=True, eq=False)
class _Index:
    """The registered plug-ins' tables, merged for lookups by name (one, compared by identity)."""

    base_kinds: dict[str, str]
    decorator_kinds: dict[str, str]
    transparent: frozenset[str]
    jax_calls: frozenset[str]
    array_results: frozenset[str]
    pytree_results: frozenset[str]
    shape_params: dict[str, tuple[tuple[int, ...], tuple[str, ...]]]
    call_hooks: dict[str, CallHook]
    apply_methods: frozenset[str]


@cache
def _index() -> _Index:
    every = plugins()
    return _Index(
        {q: p.kind for p in every for q in p.class_bases},
        {q: p.kind for p in every for q in p.class_decorators},
        frozenset(q for p in every for q in p.transparent_decorators),
        frozenset(q for p in every for q in p.jax_calls),
        frozenset(q for p in every for q in p.array_results),
        frozenset(q for p in every for q in p.pytree_results),
        {q: spec for p in every for q, spec in p.shape_params.items()},
        {q: hook for p in every for q, hook in p.call_hooks.items()},
        frozenset(m for p in every for m in p.apply_methods),
    )


def kind_of_base(qualname: str) -> str | None:
    """The kind a base class with this qualified name makes a class (`equinox.Module`)."""
    return _index().base_kinds.get(qualname)


def is_known_base(qualname: str) -> bool:
    return qualname in _index().base_kinds


def kind_of_decorator(qualname: str) -> str | None:
    """The kind a class decorator with this qualified name makes a class."""
    return _index().decorator_kinds.get(qualname)


def transparent_decorators() -> frozenset[str]:
    return _index().transparent


def jax_calls() -> frozenset[str]:
    return _index().jax_calls


def array_results() -> frozenset[str]:
    return _index().array_results


def pytree_results() -> frozenset[str]:
    return _index().pytree_results


def shape_params() -> dict[str, tuple[tuple[int, ...], tuple[str, ...]]]:
    return _index().shape_params


def call_hook(qualname: str) -> CallHook | None:
    """The hook that says what a call of `qualname` returns, if a plug-in has one."""
    return _index().call_hooks.get(qualname)


def apply_methods() -> frozenset[str]:
    """Every plug-in's Module methods that run `__call__` (`apply`, `init`)."""
    return _index().apply_methods


def layer_packages() -> tuple[str, ...]:
    """The packages (`"flax."`) of the layer constructors `shape_params` lists."""
    return tuple(sorted({q.split(".", 1)[0] + "." for q in shape_params()}))


def tracing_packages() -> tuple[str, ...]:
    """The packages of the frameworks that trace code (a transformation or a contract of
    their own), in registration order."""
    every = plugins()
    return tuple(dict.fromkeys(n for p in every if p.transforms or p.contract for n in p.packages))


def tracing_aliases() -> tuple[str, ...]:
    """What users import those frameworks as, where not the package's own name."""
    return tuple(a for p in plugins() if p.transforms or p.contract for a in p.aliases)


def has(kind: str | None, fact: str) -> bool:
    """Whether the plug-in of `kind` states the boolean `fact` (`"pytree"`, ...)."""
    found = plugin(kind)
    return bool(found is not None and getattr(found, fact))
