"""flax linen: `module.init(rngs, *args, method=None, **kwargs)` and
`module.apply(variables, *args, method=None, rngs=None, mutable=False, **kwargs)` bind the
module and run its `__call__` (or the method `method=` names) with `*args, **kwargs`. The
module's attributes are the dataclass fields its constructor was given (Python values,
static); its parameters come from `variables` (traced under `jax.jit`). A linen Module is
not a pytree.

Calls from another file (`model.apply(params, x)` with `model` imported) reach the module's
file as inbound calls of `Cls.apply`/`Cls.init`: `adapt_inbound` turns them into calls of
`__call__` with the module first.

[bench/cases/jax-modules/flax_*.py record it at run time (jax 0.10.2, flax 0.12.8);
tests/test_frameworks.py]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from typing import Any

import libcst as cst

from jitlint.model.domain.plugins import ABSTRACT, Contract, FrameworkPlugin, TransformSpec
from jitlint.model.domain.values import PYTREE, Object, Ref, Seq, Value

KIND = "linen"
BASE = "flax.linen.Module"
BASES = frozenset({BASE, "flax.linen.module.Module"})  # what a field annotation may name
ENTRY_METHODS = ("apply", "init", "init_with_output")


def _lifted(names: tuple[str, ...], *args: object, **kwargs: object) -> TransformSpec:
    """A lifted transformation, under both of its spellings (`flax.linen.transforms.scan` is
    `flax.linen.scan`)."""
    spelled = tuple(f"flax.linen.{n}" for n in names)
    aliases = tuple(f"flax.linen.transforms.{n}" for n in names)
    return TransformSpec((*spelled, *aliases), ABSTRACT, "lifted", *args, **kwargs)  # type: ignore[arg-type]


class ModuleMethod(Ref):
    """`module.apply` / `module.init` of a linen Module instance `module`."""

    __slots__ = ("method", "module")

    def __init__(self, module: Object, method: str) -> None:
        super().__init__(module.why, "linen method")
        self.module = module
        self.method = method

    def key(self, depth: int = 3) -> Hashable:
        return (KIND, id(self.module), self.method)


def is_module(value: Value) -> bool:
    return isinstance(value, Object) and value.cls.kind == KIND


def member(base: Value, attr: str) -> Value | None:
    """`module.apply`/`module.init`; None for anything else (the class decides)."""
    if is_module(base) and attr in ENTRY_METHODS and base.cls.lookup(attr) is None:  # type: ignore[attr-defined]
        return ModuleMethod(base, attr)  # type: ignore[arg-type]
    return None


def target_method(args: list[tuple[str | None, Value]]) -> str | None:
    """The method `method=` names (a string), `__call__` without it; None when unsure."""
    for keyword, value in args:
        if keyword == "method":
            const = getattr(value, "const", None)
            return const if isinstance(const, str) else None
    return "__call__"


def split_arguments(args: list[tuple[str | None, Value]]) -> list[tuple[str | None, Value]] | None:
    """The arguments the method receives: after `variables`/`rngs`, without init/apply's
    own keywords; None when the leading argument is not given by position."""
    positional = [a for a in args if a[0] is None]
    if not positional:
        return None
    return [*positional[1:], *(a for a in args if a[0] is not None and a[0] not in _OWN_KEYWORDS)]


def result(method: ModuleMethod, returned: Value, why: tuple) -> Value:
    if method.method == "apply":
        return returned
    if method.method == "init_with_output":
        return Seq("tuple", [returned, Value(PYTREE, why)])
    return Value(PYTREE, why)


def adapt_inbound(record: Any) -> Any | None:
    """An inbound call of `Cls.apply`/`Cls.init` (the module first, then variables or rngs)
    as a call of `Cls.__call__`: None when it names another method or hides arguments."""
    args = list(record.args)
    if record.star or len(args) < 2 or args[0][0] is not None or args[1][0] is not None:
        return None
    if any(keyword == "method" for keyword, _ in args):
        return None
    kept = [args[0], *(a for a in args[2:] if a[0] is None or a[0] not in _OWN_KEYWORDS)]
    return dataclasses.replace(record, args=tuple(kept))


# Lifted transformations applied to a Module class: `nn.checkpoint(Block, static_argnums=(1,))`
# makes a class whose `__call__` runs under jax.checkpoint (or jit), counting the module
# itself as argument 0.
LIFTED = frozenset(f"flax.linen.{n}" for n in ("checkpoint", "remat", "jit")) | frozenset(
    f"flax.linen.transforms.{n}" for n in ("checkpoint", "remat", "jit")
)


class Lifted(Ref):
    """An instance of a lifted Module class: `module` (an Object), `static` the argument
    positions (the module being 0) that stay Python values; None when unknown."""

    __slots__ = ("module", "static", "transform")

    def __init__(self, module: Object, transform: Any, static: frozenset[int] | None) -> None:
        super().__init__(module.why, "lifted linen module")
        self.module = module
        self.transform = transform
        self.static = static

    def key(self, depth: int = 3) -> Hashable:
        return ("lifted", id(self.module))


def static_positions(options: tuple[Any, ...]) -> frozenset[int] | None:
    """`static_argnums=(1, 2)` of a lifted transformation; None when not a literal."""
    for arg in options:
        if arg.keyword is None or arg.keyword.value != "static_argnums":
            continue
        value = arg.value
        elements = value.elements if type(value) in (cst.Tuple, cst.List) else [value]
        out = set()
        for element in elements:
            expr = getattr(element, "value", element)
            if type(expr) is not cst.Integer:
                return None
            out.add(int(expr.value))
        return frozenset(out)
    return frozenset()


# ---- raw jax transformations inside a Module (JIT120) ------------------------------------
# The lifted version of each raw transformation that stages its body out
# (frameworks/lifting.py). They take a Module class or a function of the module, with
# options saying which variable collections to lift (`variable_broadcast`, `split_rngs`):
# no call is a rename of the raw one, so this is advice only.
ADVICE = {
    "jax.lax.scan": "`nn.scan` over a Module class",
    "jax.lax.map": "`nn.scan` or `nn.vmap` over a Module class",
    "jax.lax.fori_loop": "`nn.scan` over a Module class",
    "jax.lax.while_loop": "`nn.while_loop`",
    "jax.lax.cond": "`nn.cond`",
    "jax.lax.switch": "`nn.switch`",
    "jax.jit": "`nn.jit`",
    "jax.checkpoint": "`nn.remat`",
    "jax.remat": "`nn.remat`",
    "jax.ad_checkpoint.checkpoint": "`nn.remat`",
}


PLUGIN = FrameworkPlugin(
    KIND,
    "flax linen",
    packages=("flax",),
    class_bases=frozenset({BASE}),
    # `@nn.compact` lets the method define submodules inline; it still runs the body with
    # the module bound.
    transparent_decorators=frozenset(
        {"flax.linen.compact", "flax.linen.module.compact", "flax.linen.nowrap"}
    ),
    generated_init=True,
    not_a_pytree=True,
    contract=Contract(
        KIND, frozenset({"__call__"}), "flax modules are meant to be", made_in_trace=True
    ),
    # Style "lifted": the first parameter is the module (or `self`), never traced.
    transforms=(
        _lifted(("jit", "scan", "remat", "checkpoint", "remat_scan")),
        _lifted(("vmap",), stages=False),
        _lifted(("while_loop",), (0, 1), ("cond_fn", "body_fn")),
        _lifted(("cond",), (1, 2), ("true_fun", "false_fun")),
        _lifted(("switch",), (1,), ("branches",)),
    ),
    apply_methods=ENTRY_METHODS,
    adapt_inbound=adapt_inbound,
    submodules_in="setup",
    field_submodules=True,
    module_bases=BASES,
    parameter_methods=frozenset({"param", "variable"}),
    init_methods=("init", "init_with_output", "lazy_init"),
    lift_advice=ADVICE,
    import_as=("flax.linen", "nn"),
    lifted_scan_options=('variable_broadcast="params"', 'split_rngs={"params": False}'),
    shape_params={
        "flax.linen.Dense": ((0,), ("features",)),
        "flax.linen.DenseGeneral": ((0,), ("features",)),
        "flax.linen.Conv": ((0, 1), ("features", "kernel_size")),
        "flax.linen.ConvTranspose": ((0, 1), ("features", "kernel_size")),
        "flax.linen.Embed": ((0, 1), ("num_embeddings", "features")),
    },
)
# Keywords of init/apply that are theirs, not the method's.
_OWN_KEYWORDS = frozenset(
    {"method", "rngs", "mutable", "capture_intermediates", "variables", "params"}
)
