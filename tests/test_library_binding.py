"""Library arguments found by the one call binder against the API's parameter list: an
argument counts the same given by position or by keyword."""

from __future__ import annotations

import pytest
from helpers import found


@pytest.mark.parametrize(
    "call",
    [
        'tf.where(x > 0, "pos", "neg")',
        'tf.where(x > 0, x="pos", y="neg")',
    ],
)
def test_a_string_tensor_under_xla_is_found_by_position_or_keyword(call):
    source = f"""
import tensorflow as tf
@tf.function(jit_compile=True)
def label(x):
    return {call}  # error: JIT203
"""
    assert found(source, {"JIT203"}) == {(5, "JIT203")}


def test_numbers_given_to_tf_where_by_keyword_are_not_strings():
    source = """
import tensorflow as tf
@tf.function(jit_compile=True)
def label(x):
    return tf.where(x > 0, x=x, y=tf.zeros_like(x))
"""
    assert found(source, {"JIT203"}) == set()


@pytest.mark.parametrize(
    "invariants", ["shape_invariants=[tf.TensorShape([None])]", "[tf.TensorShape([None])]"]
)
def test_shape_invariants_with_none_are_found_by_position_or_keyword(invariants):
    source = f"""
import tensorflow as tf
@tf.function(jit_compile=True)
def grow(x):
    body = lambda v: tf.concat([v, v], 0)
    return tf.while_loop(lambda v: tf.size(v) < 8, body, [x], {invariants})
"""
    assert (6, "JIT202") in found(source, {"JIT202"})


@pytest.mark.parametrize(
    "vmap, flagged",
    [
        ('jax.vmap(total, 0, 0, "batch")', False),
        ('jax.vmap(total, axis_name="batch")', False),
        ("jax.vmap(total)", True),
    ],
)
def test_an_axis_name_given_to_vmap_by_position_binds_it(vmap, flagged):
    source = f"""
import jax
import jax.numpy as jnp
def total(x):
    return jax.lax.psum(x, "batch")
print({vmap}(jnp.ones(3)))
"""
    assert bool(found(source, {"JIT119"})) is flagged


def test_the_traced_functions_of_a_call_are_found_by_position_or_keyword():
    from jitlint.model.jax.transforms import TRANSFORMS, target_arguments
    from jitlint.python.binding import STARRED

    cond = TRANSFORMS["jax.lax.cond"]
    assert target_arguments(cond, [(None, "p"), (None, "t"), (None, "f"), (None, "x")]) == [
        "t",
        "f",
    ]
    assert target_arguments(cond, [(None, "p"), ("false_fun", "f"), ("true_fun", "t")]) == [
        "f",
        "t",
    ]
    # After `*xs` the positions are unknown: only what comes before it is followed.
    assert target_arguments(cond, [(None, "p"), (None, "t"), (STARRED, "rest")]) == ["t"]
    assert target_arguments(TRANSFORMS["jax.jit"], [(STARRED, "fs")]) == []
    assert target_arguments(TRANSFORMS["jax.grad"], [("fun", "loss")]) == ["loss"]
