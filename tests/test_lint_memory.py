"""A lint frees the file's tree by reference counting: no libcst node is left in a reference
cycle for the cycle collector to find (engine/linter.py calls `FileContext.release`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import libcst as cst
import pytest

from jitlint.engine.linter import lint_text
from jitlint.rules._index import INDEX

ALL_CODES = frozenset(INDEX) | {"JIT001", "JIT002"}

JAX_SOURCE = """
import functools
import jax
import jax.numpy as jnp


class Base:
    scale = 2.0

    def apply(self, x):
        return x * self.scale


class Child(Base):
    def __call__(self, x):
        return self.apply(x) + 1


def helper(x, n):
    def inner(y):
        return inner(y - 1) if y > 0 else y
    if x.sum() > 0:
        print("traced", x)
    return jnp.sin(x) * n


@functools.partial(jax.jit, static_argnums=1)
def step(x, n):
    for i in range(n):
        x = helper(x, i)
    return Child()(x)


def loop(xs):
    return [step(x, 3) for x in xs]
"""

TF_SOURCE = """
import tensorflow as tf


class Dense(tf.keras.layers.Layer):
    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1], 4))

    def call(self, x):
        if tf.reduce_sum(x) > 0:
            x = tf.cast(x, tf.float64)
        return tf.matmul(x, self.w)


@tf.function(jit_compile=True)
def train(model, x):
    for i in tf.range(3):
        x = model(x)
    return x.numpy()
"""


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def _nodes_left_in_cycles() -> int:
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    gc.set_debug(0)
    left = sum(1 for item in gc.garbage if isinstance(item, cst.CSTNode))
    gc.garbage.clear()
    return left


@pytest.mark.parametrize("source", [JAX_SOURCE, TF_SOURCE], ids=["jax", "tf"])
@pytest.mark.parametrize("inbound", [None, ()], ids=["alone", "project"])
def test_no_node_waits_for_the_cycle_collector(
    collector_off: None, source: str, inbound: tuple[()] | None
) -> None:
    result = lint_text(source, "sample.py", ALL_CODES, inbound=inbound)
    assert result.diagnostics, "the sample must exercise the models (it has findings)"
    assert not result.errors
    assert _nodes_left_in_cycles() == 0
