"""Framework semantics (model/jax/frameworks/): haiku's transformed pairs, equinox modules as
static arguments, and the declarations that say a static argument cannot be hashed. Each
case marks its expected findings with `# error: CODE`; the unmarked lines must stay clean."""

from __future__ import annotations

import pytest
from helpers import expected, found

CODES = {"JIT101", "JIT102", "JIT103", "JIT110", "JIT111"}

HK_STANDALONE = """
import haiku as hk
import jax.numpy as jnp


def encode(ind, emb):
    size = jnp.sum(ind)
    if size == 0:  # error: JIT101
        return jnp.mean(emb, axis=0)
    return jnp.sum(emb * ind[..., None], axis=-2) / size


class Model(hk.Module):
    def __init__(self, dim=4, name="m"):
        super().__init__(name=name)
        self.dim = dim

    def __call__(self, x, names):
        if len(names) > 2:
            x = x * 2
        z = hk.Linear(self.dim)(x)
        candidates = [frozenset(), frozenset({"a"})]
        logits = jnp.array([jnp.sum(encode(jnp.zeros(len(names)), z)) for c in candidates])
        order = jnp.argsort(logits)
        return [candidates[i] for i in order]  # error: JIT102


def make():
    def model_fn(x, names):
        return Model()(x, names)

    return hk.transform(model_fn)
"""

HK_JITTED_APPLY = """
import functools
import haiku as hk
import jax
import jax.numpy as jnp


class Net(hk.Module):
    def __call__(self, x, is_training):
        x = hk.Linear(4)(x)
        if is_training:  # error: JIT101
            x = x * 0.5
        return x


def forward(x, is_training):
    return Net()(x, is_training)


model = hk.without_apply_rng(hk.transform_with_state(forward))


@jax.jit
def update(params, state, x, is_training):
    out, state = model.apply(params, state, x, is_training)
    return jnp.mean(out), state


params, state = model.init(jax.random.PRNGKey(0), jnp.ones(3), True)
update(params, state, jnp.ones(3), True)
"""

HK_STATIC_FLAG = """
import functools
import haiku as hk
import jax


class Net(hk.Module):
    def __call__(self, x, is_training):
        if is_training:
            x = x * 0.5
        return x


def forward(x, is_training):
    return Net()(x, is_training)


model = hk.transform(forward)


@functools.partial(jax.jit, static_argnums=3)
def loss(params, rng, x, is_training):
    return model.apply(params, rng, x, is_training).sum()
"""

EQX_STATIC_SELF = """
import functools
import jax
import jax.numpy as jnp
import equinox as eqx


class Memory(eqx.Module):
    buffer: jax.Array


class Proc(eqx.Module):
    memory: Memory
    n: int = eqx.field(static=True)

    @functools.partial(jax.jit, static_argnames=["self"])  # error: JIT110
    def run(self, x):
        return self.memory.buffer * x


class Layered(eqx.Module):
    net: eqx.nn.MLP

    @functools.partial(jax.jit, static_argnums=0)  # error: JIT110
    def run(self, x):
        return self.net(x)


class OnlyStatic(eqx.Module):
    n: int = eqx.field(static=True)

    @functools.partial(jax.jit, static_argnames=["self"])
    def run(self, x):
        return x * self.n


class Hashed(eqx.Module):
    w: jax.Array

    def __hash__(self):
        return id(self)

    @functools.partial(jax.jit, static_argnames=["self"])
    def run(self, x):
        return self.w * x
"""

# A base from another file: only the fields say it is an equinox module (a warning).
EQX_IMPORTED_BASE = """
import functools
import jax
import equinox as eqx
from .core import ProcessorBase


class Proc(ProcessorBase):
    net: eqx.nn.MLP

    @functools.partial(jax.jit, static_argnames=["self"])  # error: JIT110
    def run(self, x):
        return self.net(x)


class Plain(ProcessorBase):
    size: int

    @functools.partial(jax.jit, static_argnames=["self"])
    def run(self, x):
        return x * self.size
"""

ANNOTATED_STATIC = """
import jax
from typing import List, Optional


def step(x, names: List[str], order: list, keys: tuple, flag: Optional[float] = None):
    return x


fast = jax.jit(step, static_argnums=(1, 2))  # error: JIT110
tuples = jax.jit(step, static_argnums=(3,))
"""

OPTIONAL_SCALAR = """
import functools
import jax
from typing import Optional


@jax.jit
def run(x, timestamp: Optional[float] = None, scale: float | None = None, tag=None):
    t = timestamp or 0.0  # error: JIT101
    s = scale or 1.0  # error: JIT101
    u = tag or 0.0
    return x * s + t + u


@functools.partial(jax.jit, static_argnames=["timestamp"])
def static_run(x, timestamp: Optional[float] = None):
    return x + (timestamp or 0.0)
"""

AND_CHAIN = """
import jax
import jax.numpy as jnp


def finite(s):
    return jnp.all(jnp.isfinite(s))


def has_rank(s):
    return s.ndim >= 1


@jax.jit
def valid(state):
    return (has_rank(state) and  # error: JIT101
            finite(state) and
            has_rank(state))


@jax.jit
def shapes_only(state):
    return has_rank(state) and has_rank(state) and state.shape[0] > 1
"""


@pytest.mark.parametrize(
    "source",
    [
        HK_STANDALONE,
        HK_JITTED_APPLY,
        HK_STATIC_FLAG,
        EQX_STATIC_SELF,
        EQX_IMPORTED_BASE,
        ANNOTATED_STATIC,
        OPTIONAL_SCALAR,
        AND_CHAIN,
    ],
    ids=[
        "hk-standalone",
        "hk-jitted-apply",
        "hk-static-flag",
        "eqx-static-self",
        "eqx-imported-base",
        "annotated-static",
        "optional-scalar",
        "and-chain",
    ],
)
def test_framework_shapes(source: str) -> None:
    assert found(source, CODES) == expected(source)


def test_imported_base_is_a_warning() -> None:
    from jitlint.engine.linter import lint_text

    result = lint_text(EQX_IMPORTED_BASE, "case.py", {"JIT110"})
    assert [d.severity for d in result.diagnostics] == ["warning"]
    assert "ProcessorBase" in result.diagnostics[0].message


def test_haiku_message_names_the_transform() -> None:
    from jitlint.engine.linter import lint_text

    result = lint_text(HK_STANDALONE, "case.py", {"JIT101"})
    (diagnostic,) = result.diagnostics
    assert "haiku.transform" in diagnostic.message
