"""Shapes of real Keras code the TF model follows (issue 16, round 2): debug prints in helpers
of a layer's `call`, run-time checks that XLA drops, data-dependent sizes that reach a helper
through a layer created in graph code and through a helper's result, and which of those
sizes XLA can bound."""

from __future__ import annotations

from helpers import found
from test_project import check, where, write

TF_CODES = {f"JIT2{n:02d}" for n in range(1, 16)}


# ----- JIT208: prints of Python values ------------------------------------------------------


def test_a_debug_print_in_a_helper_of_a_layer_call_is_reported():
    source = """
    import tensorflow as tf
    def to_channels(img, n=None):
        if n is None:
            n = 4
            print(f"DEBUG to_channels: n from defaults: {n}")
        print("input shape", img.shape)
        return tf.reshape(img, (-1, n, n, 1))
    class ToChannels(tf.keras.layers.Layer):
        def call(self, x):
            return to_channels(x)
    """
    assert found(source, {"JIT208"}) == {(6, "JIT208"), (7, "JIT208")}


def test_an_opt_in_verbose_print_and_an_error_report_before_exit_are_left_alone():
    source = """
    import sys
    import tensorflow as tf
    def activate(x, activation, verbose=False):
        if verbose:
            print("activate:", activation)
        if activation == "relu":
            return tf.nn.relu(x)
        print("unknown activation", activation, file=sys.stderr)
        exit(1)
    class Block(tf.keras.layers.Layer):
        def __init__(self, activation="relu"):
            super().__init__()
            self.activation = activation
        def call(self, x):
            return activate(x, self.activation)
    """
    assert found(source, {"JIT208"}) == set()
    # A call that turns it on, or a print that goes on without exiting, is reported.
    turned_on = source.replace("activate(x, self.activation)", "activate(x, self.activation, True)")
    assert found(turned_on, {"JIT208"}) == {(6, "JIT208")}
    goes_on = source.replace("exit(1)", "return x")
    assert found(goes_on, {"JIT208"}) == {(9, "JIT208")}


def test_a_print_of_python_values_in_the_traced_function_itself_is_trace_logging():
    source = """
    import tensorflow as tf
    class ToChannels(tf.keras.layers.Layer):
        def call(self, x):
            print("building ToChannels for", x.shape)
            print("ToChannels", x.shape)
            return x
    @tf.function
    def f(x):
        print("f with", x.shape)
        return x
    """
    assert found(source, {"JIT208"}) == set()


def test_a_helper_print_that_says_it_traces_and_an_eager_helper_are_left_alone():
    source = """
    import tensorflow as tf
    def helper(x, n):
        print(f"Tracing helper with n={n}")
        return x * n
    def eager_only(x):
        print("value", x.shape)
        return x
    class L(tf.keras.layers.Layer):
        def call(self, x):
            return helper(x, 2)
    eager_only(tf.ones(3))
    """
    assert found(source, {"JIT208"}) == set()


def test_no_tf_print_fix_where_keras_auto_may_compile_with_xla():
    from jitlint.engine.linter import lint_text

    source = """import tensorflow as tf
def show(x):
    print("sum", tf.reduce_sum(x))
    return x
class L(tf.keras.layers.Layer):
    def call(self, x):
        return show(x)
@tf.function
def g(x):
    return show(x)
"""
    result = lint_text(source, "case.py", {"JIT208"})
    assert [(d.line, d.fix is None) for d in result.diagnostics] == [(3, True)]


# ----- JIT209: run-time checks under XLA ----------------------------------------------------


def test_checks_under_jit_compile_are_reported_and_static_ones_are_not():
    source = """
    import tensorflow as tf
    @tf.function(jit_compile=True)
    def f(x):
        tf.debugging.assert_equal(tf.reduce_sum(x), 1.0)
        tf.debugging.assert_shapes([(x, ("n",))])
        tf.debugging.assert_type(x, tf.float32)
        x = tf.debugging.check_numerics(x, "nan")
        tf.compat.v1.assert_positive(x)
        return x
    @tf.function
    def g(x):
        tf.debugging.assert_equal(tf.reduce_sum(x), 1.0)
        return x
    """
    assert found(source, {"JIT209"}) == {(5, "JIT209"), (8, "JIT209"), (9, "JIT209")}


def test_checks_in_a_layer_of_a_model_compiled_without_xla_are_not_reported():
    source = """
    import tensorflow as tf
    class Check(tf.keras.layers.Layer):
        def call(self, x):
            tf.debugging.assert_non_negative(x)
            return x
    model = tf.keras.Sequential([Check()])
    model.compile(loss="mse", jit_compile=False)
    """
    assert found(source, {"JIT209"}) == set()
    assert found(source.replace("jit_compile=False", "jit_compile=True"), {"JIT209"}) == {
        (5, "JIT209")
    }


# ----- data-dependent sizes -----------------------------------------------------------------

CHUNKS = """
import tensorflow as tf


def pad_patches(imgs, size):
    return tf.image.pad_to_bounding_box(imgs, 0, 0, size, size)


def translate_core(images, translations):
    images_batch = tf.shape(images)[0]
    trans_batch = tf.shape(translations)[0]
    shape = tf.shape(images)
    b, h, w = shape[0], shape[1], shape[2]
    flat = tf.reshape(images, (-1, h, w, 1))
    grid = tf.zeros([b, h, w])

    def broadcast():
        return tf.repeat(translations, images_batch // trans_batch, axis=0)

    moved = tf.cond(images_batch != trans_batch, broadcast, lambda: translations)
    return flat, grid, moved


class Translation(tf.keras.layers.Layer):
    def call(self, inputs):
        imgs = inputs[0]
        offsets = inputs[1]
        return translate_core(imgs, offsets)


def reassemble(imgs_flat, offsets_flat, padded_size):
    n = tf.shape(imgs_flat)[0]

    def body(i, canvas):
        end = tf.minimum(i + 4, n)
        batch_imgs = imgs_flat[i:end]
        batch_offsets = offsets_flat[i:end]

        def process():
            padded = pad_patches(batch_imgs, padded_size)
            moved = Translation()([padded, -batch_offsets])
            return tf.reduce_sum(moved[0], axis=0, keepdims=True)

        return end, canvas + tf.cond(end > i, process, lambda: tf.zeros_like(canvas))

    return tf.while_loop(lambda i, c: i < n, body, [0, tf.zeros((1, 8, 8, 1))])


class Reassemble(tf.keras.layers.Layer):
    def call(self, x, offsets):
        return reassemble(x, offsets, 8)


model = tf.keras.Sequential([Reassemble()])
model.compile(loss="mse", jit_compile=True)
"""


def test_a_quotient_of_a_loop_slice_size_reaches_a_helper_through_a_layer_and_a_helper():
    # The slice's size flows through `pad_patches(...)`'s result, into a Translation layer
    # created and called in the loop body, to `translate_core`: `tf.repeat` with its
    # quotient fails ("Tile must be a compile-time constant"). The same size in `tf.zeros`
    # or `tf.reshape`, and the static dims `h`, `w`, compile as bounded dynamic shapes.
    # Line 20: the `tf.cond` returns the repeated and the unrepeated translations, branches
    # of different shapes (a bounded dynamic dimension under XLA).
    assert found(CHUNKS, {"JIT202"}) == {
        (18, "JIT202"),
        (20, "JIT202"),
        (36, "JIT202"),
        (37, "JIT202"),
    }


def test_the_same_chunks_at_the_keras_default_are_jit213():
    source = CHUNKS.replace(", jit_compile=True", "")
    assert found(source, {"JIT202", "JIT213"}) == {
        (18, "JIT213"),
        (20, "JIT213"),
        (36, "JIT213"),
        (37, "JIT213"),
    }


def test_sizes_xla_can_bound_are_not_reported_and_unbounded_arguments_are():
    source = """
    import tensorflow as tf
    @tf.function(jit_compile=True)
    def f(x):
        def body(i, acc):
            end = tf.minimum(i + 3, tf.shape(x)[0])
            chunk = x[i:end]
            k = tf.shape(chunk)[0]
            a = tf.zeros([k + 1, 4]) + tf.reduce_sum(tf.repeat(x[:1], k * 2, axis=0))
            b = tf.one_hot([0], k)
            c = tf.tile(x[:1], [tf.math.floordiv(k, 2), 1])
            return end, acc + tf.reduce_sum(a) + tf.reduce_sum(b) + tf.reduce_sum(c)
        return tf.while_loop(lambda i, acc: i < 9, body, [0, 0.0])
    """
    # line 7: the growing slice; 10: one_hot's depth needs an exact constant; 11: a quotient
    assert found(source, {"JIT202"}) == {(7, "JIT202"), (10, "JIT202"), (11, "JIT202")}


def test_a_helper_in_another_module_prints_and_checks_under_a_layer(tmp_path):
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/helpers.py": """\
                import tensorflow as tf


                def flat_to_channel(img, n=None):
                    print(f"DEBUG flat_to_channel: n={n}")
                    tf.debugging.assert_rank_at_least(img, 2)
                    tf.debugging.assert_non_negative(img)
                    return tf.reshape(img, (-1, n, n, 1))
                """,
            "pkg/layers.py": """\
                import tensorflow as tf

                from pkg import helpers


                class FlatToChannel(tf.keras.layers.Layer):
                    def call(self, x):
                        return helpers.flat_to_channel(x, 4)
                """,
        },
    )
    _, diagnostics, err = check(root, "--select", "JIT208,JIT209", "pkg")
    assert where(diagnostics) == [
        ("pkg/helpers.py", 5, "JIT208"),
        ("pkg/helpers.py", 7, "JIT209"),
    ], err
