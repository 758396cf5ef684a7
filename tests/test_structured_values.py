"""Structured values in traced code that real research code uses and that work under jit.

Each case was a false positive on unseen research code (issue #14): the model took a dict, a
Python int or a Python list for a tracer. Every case here runs under jax 0.10.2 as written;
the linter must report nothing and `--fix` must leave it unchanged.
"""

from __future__ import annotations

import textwrap

import pytest
from helpers import found

from jitlint.api import fix_source

JAX_RULES = {f"JIT1{n:02d}" for n in range(1, 14)}

CASES = {
    # `lax.pmean` of a dict returns a dict: item assignment on it is fine.
    "pmean_of_a_dict": """
        import functools
        import jax
        import jax.numpy as jnp
        from jax import lax

        @functools.partial(jax.pmap, axis_name="batch")
        def step(batch):
            metrics = {"loss": jnp.mean(batch), "acc": jnp.mean(batch > 0)}
            metrics = lax.pmean(metrics, axis_name="batch")
            metrics["lr"] = 0.1
            gathered = lax.all_gather({"a": batch}, "batch")
            gathered["b"] = batch
            summed = lax.psum([batch, batch], "batch")
            summed[0] = batch
            return metrics, gathered, summed
        """,
    # `lax.psum(1, axis)` is the axis size, a Python int.
    "psum_of_one_is_an_int": """
        import functools
        import jax
        import jax.numpy as jnp
        from jax import lax

        @functools.partial(jax.pmap, axis_name="i")
        def step(x):
            n = lax.psum(1, "i")
            for _ in range(n):
                x = x + 1
            if n > 1:
                x = x / n
            return x + jnp.zeros((n, 3)).sum()
        """,
    # A `None` in shard_map's in_specs passes the caller's value through unchanged.
    "shard_map_none_in_spec": """
        import jax
        from jax.sharding import PartitionSpec as P
        from jax.experimental.shard_map import shard_map

        def body(x, repeats):
            for _ in range(repeats):
                x = x * 2
            if repeats > 1:
                return x
            return -x

        f = shard_map(body, mesh, in_specs=(P("x"), None), out_specs=P("x"))
        g = jax.shard_map(body, mesh=mesh, in_specs=(P(), None), out_specs=P())
        """,
    # The second argument of `jax.random.permutation` may be an array to permute.
    "permutation_of_an_array": """
        import jax

        @jax.jit
        def shuffle(key, x):
            return jax.random.permutation(key, x)
        """,
    # `len()` of each array is static, also inside a comprehension.
    "len_in_a_comprehension": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def pad(arrays):
            sizes = [len(a) for a in arrays]
            width = max(len(a) for a in arrays)
            out = jnp.zeros((len(sizes), width))
            for i in range(sizes[0]):
                out = out.at[i].set(1.0)
            return out
        """,
    # The keys of a traced dict are its static structure.
    "logging_dict_keys": """
        import logging
        import jax

        @jax.jit
        def report(metrics):
            for name, value in metrics.items():
                logging.info("metric %s", name)
                print(f"metric {name}")
            for key in metrics:
                print(key)
            print(sorted(metrics.keys()))
            return metrics
        """,
    # `a.size` of every array, summed, is a Python int.
    "sum_of_sizes": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def flatten(arrays):
            total = int(sum(a.size for a in arrays))
            return jnp.zeros(total)
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_working_structured_code_is_clean(name):
    assert found(CASES[name], JAX_RULES) == set()


@pytest.mark.parametrize("name", sorted(CASES))
def test_fix_leaves_working_structured_code_unchanged(name):
    source = textwrap.dedent(CASES[name])
    result = fix_source(source, "case.py", unsafe=True)
    assert result.source == source


# The nearest working code to JIT106's safe fix: item assignment on values that support it.
SETITEM_WORKS = {
    "dict_after_pmean": """
        import jax
        from jax import lax

        def step(metrics):
            metrics = lax.pmean(metrics, axis_name="i")
            metrics["lr"] = 0.1
            return metrics

        f = jax.vmap(step, axis_name="i")
        """,
    "numpy_array": """
        import jax
        import numpy as np

        @jax.jit
        def f(x):
            table = np.zeros(3)
            table[0] = 1.0
            table[1:] += 2.0
            return x * table.sum()
        """,
    "list_of_arrays": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            parts = jnp.split(x, 2)
            parts[0] = parts[0] * 2
            rows = [x, x]
            rows[1] += 1
            return parts, rows
        """,
}


@pytest.mark.parametrize("name", sorted(SETITEM_WORKS))
def test_inplace_fix_needs_a_jax_array(name):
    source = textwrap.dedent(SETITEM_WORKS[name])
    assert found(source, {"JIT106"}) == set()
    assert fix_source(source, "case.py", select=["JIT106"]).source == source


def test_collectives_keep_an_array_an_array():
    """The other side: psum of a traced array is a traced array."""
    source = """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def step(x):
            total = lax.psum(jnp.tanh(x), "i")
            if total > 0:  # error: JIT101
                return x
            total[0] = 1.0  # error: JIT106
            return -x

        f = jax.vmap(step, axis_name="i")
        """
    assert found(source, {"JIT101", "JIT106"}) == {(8, "JIT101"), (10, "JIT106")}


def test_inplace_fix_is_unsafe_where_the_array_is_only_assumed():
    """`x * 2` on a traced argument is an array if the arithmetic works, but `x` may be a
    list (then `*` repeats it, and item assignment works): the fix is not safe there."""
    source = textwrap.dedent(
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            y = x * 2
            y[0] = 0
            z = jnp.zeros(3)
            z[0] = 1.0
            return y, z
        """
    )
    safe = fix_source(source, "case.py", select=["JIT106"]).source
    assert "y[0] = 0" in safe and "z = z.at[0].set(1.0)" in safe
    unsafe = fix_source(source, "case.py", select=["JIT106"], unsafe=True).source
    assert "y = y.at[0].set(0)" in unsafe


def test_is_none_answers_only_for_python_scalars():
    from jitlint.model.domain.values import NONE, PYTREE, Array, Scalar, Value, constant, is_none

    assert is_none(NONE) is True
    assert is_none(Scalar("int")) is False  # `x.shape[0]`, `len(xs)`
    assert is_none(constant(True)) is False
    assert is_none(Scalar(None)) is None  # a join of an int and None
    # A parameter annotated `Optional[int]` is modelled as one array under jit, yet None
    # still reaches it (ott's `sobol_ball_sampler(..., n_per_radius=None)`).
    assert is_none(Array(("param", "n"), sure=True)) is None
    assert is_none(Value(PYTREE)) is None


@pytest.mark.parametrize(
    "body",
    [
        "s = set(d)\nreturn s",
        "s = frozenset(d) - {'a'}\nreturn s",
        "s = {k for k in d}\nreturn s",
        "s = {d['a'].sum()}\nreturn s",
    ],
)
def test_a_set_holds_no_tracer(body):
    # A set holds hashable values and no tracer is one (hashing it raises): `set(d)` of a
    # traced dict is its keys, and a set's truth value is its length.
    source = (
        "import jax\n@jax.jit\ndef f(d):\n"
        + textwrap.indent(body.replace("return s", "if s:\n    return 1\nreturn 0"), "    ")
        + "\nf({'a': jax.numpy.ones(2)})\n"
    )
    assert found(source, {"JIT101"}) == set()


def test_a_dict_value_under_a_set_test_is_still_a_tracer():
    source = textwrap.dedent(
        """
        import jax
        @jax.jit
        def f(d):
            if set(d) and d["a"].sum() > 0:
                return 1
            return 0
        f({"a": jax.numpy.ones(2)})
        """
    )
    assert found(source, {"JIT101"}) == {(5, "JIT101")}


@pytest.mark.jax
def test_set_of_a_traced_dict_is_its_keys_under_jit():
    jax = pytest.importorskip("jax")

    @jax.jit
    def f(d):
        missing = {"a", "b"} - set(d)
        assert isinstance(missing, set) and missing == {"b"}
        return d["a"] * 2

    assert float(f({"a": jax.numpy.ones(())})) == 2.0
