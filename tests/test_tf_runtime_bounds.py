"""TensorFlow behaviour behind this round's TF model changes, checked against the installed
TensorFlow (XLA on CPU): which data-dependent sizes XLA can bound (values.py, the
generated table's `bounded`), and run-time checks compiled as no-ops (JIT209)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.tensorflow


def _chunked(make_shape_use):  # type: ignore[no-untyped-def]
    """A jit_compile function slicing x[i:end] in a tf.while_loop; `k` is the slice's size."""
    tf = pytest.importorskip("tensorflow")

    @tf.function(jit_compile=True)
    def f(x, t):
        n = tf.shape(x)[0]

        def body(i, acc):
            end = tf.minimum(i + 4, n)
            k = tf.shape(x[i:end])[0]
            return end, acc + tf.reduce_sum(make_shape_use(tf, t, k))

        return tf.while_loop(lambda i, a: i < n, body, [0, 0.0])[1]

    return f(tf.ones([6, 4]), tf.ones([2, 2]))


@pytest.mark.parametrize(
    "use",
    [
        lambda tf, t, k: tf.repeat(t, k * 2, axis=0),
        lambda tf, t, k: tf.zeros([k + 1, 4]),
        lambda tf, t, k: tf.tile(t, [k, 1]),
        lambda tf, t, k: tf.cast(tf.range(k), tf.float32),
    ],
    ids=["repeat-product", "zeros-sum", "tile-size", "range-size"],
)
def test_a_bounded_dynamic_size_compiles(use):  # type: ignore[no-untyped-def]
    assert float(_chunked(use)) > -1.0


@pytest.mark.parametrize(
    "use",
    [
        lambda tf, t, k: tf.repeat(t, k // tf.shape(t)[0], axis=0),
        lambda tf, t, k: tf.zeros([k // 2, 4]),
        lambda tf, t, k: tf.one_hot([0, 1], k),
    ],
    ids=["repeat-quotient", "zeros-quotient", "one-hot-depth"],
)
def test_a_quotient_or_an_exact_constant_argument_fails(use):  # type: ignore[no-untyped-def]
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(tf.errors.InvalidArgumentError, match="compile-time constant"):
        _chunked(use)


def test_xla_compiles_a_failing_check_as_a_no_op():
    tf = pytest.importorskip("tensorflow")

    def checked(x):
        tf.debugging.assert_positive(x)
        return tf.debugging.check_numerics(tf.math.log(x), "nan")

    x = tf.constant([1.0, -1.0])
    result = tf.function(checked, jit_compile=True)(x)
    assert bool(tf.math.is_nan(result[1]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.function(checked)(x)
