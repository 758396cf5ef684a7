"""haiku: `hk.transform(f)` returns a pair of pure functions, `init(rng, *args)` and
`apply(params, rng, *args)` (`transform_with_state`: `init(rng, *args)` and
`apply(params, state, rng, *args)`; `hk.without_apply_rng` drops `apply`'s rng). Both run
`f(*args)`, and with it the `hk.Module.__call__` methods it reaches. `hk.transform` traces
nothing by itself: `f` runs where `apply`/`init` is called, with that caller's arguments and
at its level (traced under `jax.jit(net.apply)` or in a jitted step that calls it, eagerly
where Python calls it). A module class the file builds in such an `f` is therefore not traced
by contract (`Contract.built_in_pair`) where the run shows where each pair of `f` goes, in
other files too (a factory's pair travels to its callers and on, as an argument of their
Python calls, to the traced code that calls its `apply`: crossfile/returned.py
`argument_fact`; a caller that takes it says so: records.RETURNED). A module class whose
transform the run does not show (a library's, transformed in its users' scripts), or whose
pair leaves the run (a factory that returns it and that nothing of the run calls: tracing.py
`_pair_stays`), is traced by the contract, as haiku code compiles `apply` with `jax.jit`.

[bench/cases/jax-modules/hk_*.py record it at run time (jax 0.10.2, dm-haiku 0.0.17);
tests/test_frameworks.py]
"""

from __future__ import annotations

from collections.abc import Hashable

from jitlint.model.domain.plugins import (
    ABSTRACT,
    CallArgs,
    Contract,
    FrameworkPlugin,
    TransformSpec,
)
from jitlint.model.domain.values import PYTREE, Ref, Seq, Transformed, U, Value

KIND = "haiku"
TRANSFORM = "haiku.transform"
WITH_STATE = "haiku.transform_with_state"
NO_APPLY_RNG = "haiku.without_apply_rng"
# The transforms table's entries (style "pair": a pair of functions, parameters unknown).
TRANSFORMS = (TRANSFORM, WITH_STATE)
STYLE = "pair"
VERB = "makes into `init` and `apply`"  # it traces nothing: its function makes no entry
PAIR_DESCRIPTION = "the `hk.transform` pair, a NamedTuple of two Python functions (`init`, `apply`)"


class PairMethod(Ref):
    """`init` or `apply` of a transformed pair (`pair`, a Transformed of style "pair")."""

    __slots__ = ("method", "pair")

    def __init__(self, pair: Transformed, method: str) -> None:
        super().__init__(pair.why, "haiku transformed function")
        self.pair = pair
        self.method = method

    def key(self, depth: int = 3) -> Hashable:
        return (KIND, id(self.pair), self.method)


def is_pair(value: Value) -> bool:
    return isinstance(value, Transformed) and value.transform.style == STYLE


def member(base: Value, attr: str) -> Value | None:
    """`pair.apply` / `pair.init`; None when `base` is not a transformed pair."""
    if not is_pair(base):
        return None
    if attr in ("apply", "init"):
        return PairMethod(base, attr)  # type: ignore[arg-type]
    return U


class NoRngPair(Transformed):
    """A pair after `hk.without_apply_rng`: its `apply` takes no rng."""

    __slots__ = ()


def without_apply_rng(value: Value) -> Value:
    """`hk.without_apply_rng(pair)`: the same pair, `apply` taking no rng."""
    if not is_pair(value):
        return U
    pair: Transformed = value  # type: ignore[assignment]
    return NoRngPair(pair.transform, pair.target, pair.options, pair.why)


def leading(method: PairMethod) -> tuple[str, ...]:
    """The parameters `init`/`apply` take before `f`'s own arguments."""
    qualname = method.pair.transform.qualname
    if method.method == "init":
        return ("rng",)
    with_state = qualname == WITH_STATE
    rng = not isinstance(method.pair, NoRngPair)
    return ("params", *(("state",) if with_state else ()), *(("rng",) if rng else ()))


def split_arguments(
    method: PairMethod, args: list[tuple[str | None, Value]]
) -> list[tuple[str | None, Value]] | None:
    """The arguments `f` receives from a call of `init`/`apply`; None when unsure."""
    names = leading(method)
    keywords = [k for k, _ in args if k is not None and k in names]
    positional = [a for a in args if a[0] is None]
    skip = len(names) - len(keywords)
    if skip < 0 or len(positional) < skip:
        return None
    rest = positional[skip:]
    return [*rest, *(a for a in args if a[0] is not None and a[0] not in names)]


def result(method: PairMethod, returned: Value, why: tuple) -> Value:
    """What `init`/`apply` returns when `f` returned `returned`."""
    with_state = method.pair.transform.qualname == WITH_STATE
    if method.method == "init":
        params = Value(PYTREE, why)
        return Seq("tuple", [params, Value(PYTREE, why)]) if with_state else params
    if with_state:
        return Seq("tuple", [returned, Value(PYTREE, why)])
    return returned


# ---- raw jax transformations inside a transformed function (JIT120) ---------------------
# The lifted twin of each raw transformation that stages its body out (frameworks/lifting.py),
# with the keywords the twin accepts: where every keyword of the call is among them, the call
# can be renamed. Observed (jax 0.10.2, dm-haiku 0.0.17): a module made before the loop and
# called in its body fails under the raw one (UnexpectedTracerError) and runs under these.
# `hk.cond`/`hk.switch` need every branch to create the same parameters, `hk.while_loop`
# creates none, and haiku has no `jit`: advice only.
EXACT_TWINS: dict[str, tuple[str, frozenset[str]]] = {
    "jax.lax.scan": ("scan", frozenset({"length", "reverse", "unroll"})),
    "jax.lax.map": ("map", frozenset()),
    "jax.lax.fori_loop": ("fori_loop", frozenset()),
    "jax.checkpoint": ("remat", frozenset({"prevent_cse", "policy", "static_argnums"})),
    "jax.remat": ("remat", frozenset({"prevent_cse", "policy", "static_argnums"})),
    "jax.ad_checkpoint.checkpoint": (
        "remat",
        frozenset({"prevent_cse", "policy", "static_argnums"}),
    ),
}
ADVICE = {
    "jax.lax.cond": "`hk.cond` (every branch must create the same parameters)",
    "jax.lax.switch": "`hk.switch` (every branch must create the same parameters)",
    "jax.lax.while_loop": "`hk.while_loop` after calling the module once before the loop "
    "(it cannot create parameters)",
    "jax.jit": "`jax.jit` of the transformed `apply`, outside `hk.transform`",
}


def _without_apply_rng_call(call: CallArgs) -> Value | None:
    if len(call.args) == 1 and not call.star:
        return without_apply_rng(call.args[0][1])
    return None


PLUGIN = FrameworkPlugin(
    KIND,
    "haiku",
    packages=("haiku",),
    class_bases=frozenset({"haiku.Module"}),
    transparent_decorators=frozenset({"haiku.transparent"}),
    not_a_pytree=True,
    contract=Contract(
        KIND,
        frozenset({"__call__"}),
        "haiku modules run inside `hk.transform`, whose `apply` is meant to be",
        made_in_trace=True,
        built_in_pair=True,
    ),
    transforms=(
        TransformSpec(("haiku.vmap",), ABSTRACT, "vmap", stages=False),
        TransformSpec(("haiku.remat",), ABSTRACT, "ckpt"),
        TransformSpec(TRANSFORMS, ABSTRACT, STYLE, verb=VERB),
    ),
    lax_mirrors=("haiku.",),
    submodules_in="__init__",
    module_bases=frozenset({"haiku.Module"}),
    parameter_functions=frozenset({"haiku.get_parameter", "haiku.get_state", "haiku.set_state"}),
    lift_advice=ADVICE,
    lift_twins=EXACT_TWINS,
    import_as=("haiku", "hk"),
    call_hooks={NO_APPLY_RNG: _without_apply_rng_call},
    shape_params={
        "haiku.Linear": ((0,), ("output_size",)),
        "haiku.Conv2D": ((0, 1), ("output_channels", "kernel_shape")),
        "haiku.Embed": ((0, 1), ("vocab_size", "embed_dim")),
    },
)
