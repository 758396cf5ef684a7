"""The model reads jax's generated library facts (jitlint/data/jax_facts.json): parameters
that must be static (JIT103 on functions and array methods, the size a function reads from
argument values when its size parameter is left out, `jax.jit` applied to a library function
directly), and what collectives return for a Python constant. Each positive case fails under
jax 0.10.2 at the marked line; each negative one runs."""

from __future__ import annotations

import textwrap

import pytest
from helpers import expected, found

from jitlint.model.library.jax_facts import method_static_parameters, static_parameters

JAX_RULES = {f"JIT1{n:02d}" for n in range(1, 14)}

POSITIVE = {
    # `jax.jit(jax.nn.one_hot)` traces `num_classes`, which one_hot needs as a Python int.
    "jit_of_library_function": """
        import jax

        encode = jax.jit(jax.nn.one_hot)

        def targets(labels):
            return encode(labels, 10)  # error: JIT103
        """,
    # The reduction axis of an array method, passed by position.
    "method_axis_by_position": """
        import jax

        @jax.jit
        def smallest(x, axis):
            return x.min(axis)  # error: JIT103
        """,
    # `segment_sum` without `num_segments` reads the output size from the traced ids.
    "size_parameter_left_out": """
        import jax

        @jax.jit
        def totals(values, ids):
            return jax.ops.segment_sum(values, ids)  # error: JIT103
        """,
    # `lax.full`'s shape, from a traced argument of a function jitted by name.
    "lax_full_shape": """
        import jax
        from jax import lax

        def pad(row, length):
            return lax.full((length, row.shape[0]), 0, row.dtype)  # error: JIT103

        padded = jax.jit(pad)(jax.numpy.ones(2), 4)
        """,
    # A field named `shape` of a NamedTuple argument is a traced leaf, not an array's shape.
    "namedtuple_field_named_shape": """
        from typing import NamedTuple, Sequence

        import jax
        import jax.numpy as jnp

        class Coo(NamedTuple):
            rows: jnp.ndarray
            vals: jnp.ndarray
            shape: Sequence[int]

        @jax.jit
        def row_sums(mat: Coo):
            return jax.ops.segment_sum(mat.vals, mat.rows, mat.shape[0])  # error: JIT103

        row_sums(Coo(jnp.array([0, 1]), jnp.array([1.0, 2.0]), (2, 2)))
        """,
    # A result whose length counts values: JIT105's, not also JIT103's (both from the facts).
    "nonzero_without_size": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            return jnp.nonzero(x)  # error: JIT105
        """,
    # `all_gather` of a Python constant is an array (a tracer under vmap), unlike `psum`.
    "all_gather_of_a_constant": """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def f(x):
            counts = lax.all_gather(1, "i")
            if counts.sum() > 1:  # error: JIT101
                return x
            return -x

        jax.vmap(f, axis_name="i")(jnp.ones(3))
        """,
}

NEGATIVE = {
    # Static by jit's own options: the library function gets a Python int.
    "jit_of_library_function_static": """
        import jax

        encode = jax.jit(jax.nn.one_hot, static_argnames=("num_classes",))
        by_position = jax.jit(jax.nn.one_hot, static_argnums=1)

        def targets(labels):
            return encode(labels, num_classes=10) + by_position(labels, 10)
        """,
    # Only array arguments reach the jitted library function.
    "jit_of_library_function_arrays": """
        import jax

        softmax = jax.jit(jax.nn.softmax)

        def probs(logits):
            return softmax(logits)
        """,
    # The size is given, so the ids may be traced.
    "size_parameter_given": """
        import jax

        @jax.jit
        def totals(values, ids):
            return jax.ops.segment_sum(values, ids, num_segments=4)
        """,
    # An axis from the array's own shape is static; so is a closed-over constant.
    "static_axis_and_shape": """
        import jax
        import jax.numpy as jnp

        AXIS = 0

        @jax.jit
        def f(x):
            return x.min(AXIS) + x.sum(x.ndim - 1).sum() + jnp.zeros(x.shape[0]).sum()
        """,
    # `x.at[i].min(v)` scatters `v`: its argument is a value, not the axis of `x.min`.
    "index_update_min": """
        import jax

        @jax.jit
        def relax(costs, j, candidate):
            return costs.at[j].min(candidate)
        """,
    # `permutation(key, x)` permutes a traced array; only a traced int would be a size.
    "permutation_of_an_array": """
        import jax

        @jax.jit
        def shuffle(key, x):
            return jax.random.permutation(key, x)
        """,
    # A real array's `.shape` is static, also when the array is a NamedTuple field.
    "namedtuple_array_shape": """
        from typing import NamedTuple

        import jax
        import jax.numpy as jnp

        class Batch(NamedTuple):
            rows: jnp.ndarray
            vals: jnp.ndarray

        @jax.jit
        def row_sums(batch: Batch):
            n = batch.vals.shape[0]
            return jax.ops.segment_sum(batch.vals, batch.rows, n)

        row_sums(Batch(jnp.array([0, 1]), jnp.array([1.0, 2.0])))
        """,
    # `psum` of a Python constant is the axis size, a Python int; a dict stays a dict.
    "psum_of_a_constant_and_pmean_of_a_dict": """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def f(x):
            n = lax.psum(1, "i")
            metrics = lax.pmean({"loss": x.sum()}, "i")
            metrics["count"] = n
            if n > 1:
                return x / n, metrics
            return x, metrics

        jax.vmap(f, axis_name="i")(jnp.ones((3, 2)))
        """,
}


@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_static_library_parameters_are_found(name):
    source = textwrap.dedent(POSITIVE[name])
    assert found(source, JAX_RULES) == expected(source)


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_static_library_parameters_stay_quiet(name):
    assert found(NEGATIVE[name], JAX_RULES) == set()


def test_facts_bind_positional_arguments_and_sizes():
    segment_sum = static_parameters("jax.ops.segment_sum")
    assert segment_sum is not None
    assert segment_sum.positional[:3] == ("data", "segment_ids", "num_segments")
    assert ("segment_ids", "num_segments") in segment_sum.unless
    bound = segment_sum.bind([(None, "v"), (None, "ids")])
    assert bound == {"data": "v", "segment_ids": "ids"}
    assert ("segment_ids", "num_segments") in segment_sum.concrete(bound)
    given = segment_sum.bind([(None, "v"), (None, "ids"), ("num_segments", "n")])
    assert given is not None and segment_sum.concrete(given) == [("num_segments", None)]
    minimum = method_static_parameters("min")
    assert minimum is not None and minimum.positional[0] == "axis"
    assert "axis" in minimum.always
    full = static_parameters("jax.lax.full")
    assert full is not None and "shape" in full.always
