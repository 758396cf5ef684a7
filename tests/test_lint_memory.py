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


# A Keras layer whose attributes the TF model reads (python/attributes.py indexes the class).
LAYER_SOURCE = """
import math

from keras.src import backend, layers, ops


class NoisyScale(layers.Layer):
    def __init__(self, rate, seed=None):
        super().__init__()
        self.rate = rate
        if rate > 0:
            self.seed_generator = backend.random.SeedGenerator(seed)

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            spread = math.sqrt(self.rate / (1.0 - self.rate))
            return inputs * backend.random.normal(
                shape=ops.shape(inputs), stddev=spread, seed=self.seed_generator
            )
        return inputs
"""


def _classes_alive(name: str) -> int:
    gc.collect()
    return sum(
        1
        for item in gc.get_objects()
        if type(item) is cst.ClassDef and item.name.value == name  # type: ignore[attr-defined]
    )


@pytest.mark.parametrize("inbound", [None, ()], ids=["alone", "project"])
def test_no_class_of_the_tree_outlives_its_lint(inbound: tuple[()] | None) -> None:
    """Nothing the lint caches across files holds a node of its tree: the attribute
    indexes are emptied as the lint ends, so the collector's passes over later files do
    not scan this file's classes."""
    from jitlint.python import attributes

    built: list[str] = []
    index = attributes._Index

    class Noting(index):  # type: ignore[misc, valid-type]
        def __init__(self, cls: cst.ClassDef) -> None:
            built.append(cls.name.value)
            super().__init__(cls)

    attributes._Index = Noting  # type: ignore[misc]
    try:
        before = _classes_alive("NoisyScale")
        result = lint_text(LAYER_SOURCE, "layer.py", ALL_CODES, inbound=inbound)
    finally:
        attributes._Index = index  # type: ignore[misc]
    assert not result.errors
    assert built, "the sample must make the TF model index the class's attributes"
    assert _classes_alive("NoisyScale") == before
