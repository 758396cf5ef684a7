"""The fixes the TF rules attach, applied by the fix engine."""

from __future__ import annotations

import textwrap

from jitlint import fix_source


def fixed(source: str, code: str, unsafe: bool = True) -> tuple[str, list[str]]:
    result = fix_source(textwrap.dedent(source), "m.py", unsafe=unsafe, select=[code])
    return result.source, [d.code for d in result.remaining]


def test_jit201_dtype_fix_is_safe_where_the_constant_meets_the_tensor_directly():
    source, remaining = fixed(
        """
        import tensorflow as tf
        x = tf.zeros([2], dtype=tf.float64)
        y = x * tf.constant(2.0)
        """,
        "JIT201",
        unsafe=False,
    )
    assert "y = x * tf.constant(2.0, dtype=tf.float64)" in source
    assert remaining == []


def test_jit201_fix_through_a_name_is_unsafe():
    source = """
        import tensorflow as tf
        x = tf.zeros([2], dtype=tf.float64)
        scale = tf.constant(2.0)
        y = x * scale
        """
    assert fixed(source, "JIT201", unsafe=False)[1] == ["JIT201"]
    assert "scale = tf.constant(2.0, dtype=tf.float64)" in fixed(source, "JIT201")[0]


def test_jit208_print_becomes_tf_print_outside_xla_only():
    source, remaining = fixed(
        """
        import tensorflow as tf
        @tf.function
        def f(x):
            print("x", x, sep="=")
            return x
        @tf.function(jit_compile=True)
        def g(x):
            print("x", x)
            return x
        """,
        "JIT208",
    )
    assert 'tf.print("x", x, sep="=")' in source
    assert '    print("x", x)\n' in source
    assert remaining == ["JIT208"]


def test_jit205_assert_becomes_tf_debugging_assert():
    source, remaining = fixed(
        """
        import tensorflow as tf
        @tf.function
        def f(x):
            assert tf.reduce_min(x) > 0, "positive"
            return x
        """,
        "JIT205",
    )
    assert 'tf.debugging.Assert(tf.reduce_min(x) > 0, ["positive"])' in source
    assert remaining == []


def test_jit205_unpacking_and_a_comprehension_over_tf_range_get_python_fixes():
    source, remaining = fixed(
        """
        import tensorflow as tf
        @tf.function
        def f(x):
            rows, cols = tf.shape(x)
            parts = [x[:, b] for b in tf.range(x.shape[1])]
            return tf.zeros([rows, cols]) + tf.stack(parts, axis=1)
        """,
        "JIT205",
    )
    assert "rows, cols = tf.unstack(tf.shape(x), num=2)" in source
    assert "for b in range(x.shape[1])]" in source
    assert remaining == []
    assert fixed(source, "JIT205")[0] == source  # idempotent
