"""Keras on the TF model, and TensorFlow facts across the modules of a run (issue 16):
jit_compile statuses of Keras classes, helpers in other modules inheriting graph and XLA
contexts, functions that run more than once, dtypes from other modules, data-dependent
shapes."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from helpers import found
from test_project import check, where, write

from jitlint.model.context import FileContext
from jitlint.model.jax.crossfile.records import record_from_json
from jitlint.model.tf.compile_flag import SWITCH_ORIGIN, xla_when
from jitlint.model.tf_records import TfInbound, TfRecord

TF_CODES = {f"JIT2{n:02d}" for n in range(1, 16)}


def contexts(source: str) -> dict[str, object]:
    """Per `Class.method` (or function name): its graph context, None outside graph code."""
    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    ctx = FileContext(module, "m.py", source)
    out: dict[str, object] = {}
    for stmt in module.body:
        if type(stmt) is cst.ClassDef:
            for item in stmt.body.body:
                if type(item) is cst.FunctionDef:
                    out[f"{stmt.name.value}.{item.name.value}"] = ctx.tf.function_context(item)
        elif type(stmt) is cst.FunctionDef:
            out[stmt.name.value] = ctx.tf.function_context(stmt)
    return out


def test_jit_compile_statuses_of_keras_classes():
    found_contexts = contexts(
        """
        import tensorflow as tf
        import tf_keras
        from tensorflow import keras
        class Forced(keras.layers.Layer):
            def call(self, x): return x
        class Auto(keras.layers.Layer):
            def call(self, x): return x
        class Off(keras.layers.Layer):
            def call(self, x): return x
        class Library(keras.layers.Layer):
            def call(self, x): return x
        class LoopOnly(keras.layers.Layer):
            def call(self, x): return x
        class OptedOut(keras.layers.Layer):
            supports_jit = False
            def call(self, x): return x
        class Legacy(tf_keras.layers.Layer):
            def call(self, x): return x
        class Built(keras.layers.Layer):
            def build(self, shape): pass
            def call(self, x): return x
        class Focal(keras.losses.Loss):
            def call(self, y_true, y_pred): return y_pred
        def forced():
            model = keras.Sequential([Forced()])
            model.compile(loss=Focal(), jit_compile=True)
        def auto():
            model = keras.Sequential([Auto(), OptedOut(), Legacy()])
            model.compile(loss="mse")
        def off():
            model = keras.Sequential([Off()])
            model.compile(loss="mse", jit_compile=False)
        def only_built():
            return keras.Sequential([Built()])
        layer = LoopOnly()
        """
    )
    assert found_contexts["Forced.call"].xla
    assert found_contexts["Focal.call"].xla  # a loss given to a model compiled with XLA
    assert found_contexts["Focal.call"].tensor_params == {"y_true", "y_pred"}
    auto = found_contexts["Auto.call"]
    assert not auto.xla and auto.auto_xla and 'jit_compile="auto"' in auto.origin
    assert not found_contexts["Off.call"].auto_xla and not found_contexts["Off.call"].xla
    assert found_contexts["Library.call"].auto_xla  # used nowhere: Keras models run it at auto
    assert not found_contexts["LoopOnly.call"].auto_xla  # created outside any Keras model
    assert not found_contexts["OptedOut.call"].auto_xla
    assert not found_contexts["Legacy.call"].auto_xla  # Keras 2 has no "auto"
    assert found_contexts["Built.call"].auto_xla  # built into a model, no compile seen
    assert found_contexts["Built.build"] is None  # Keras builds before it traces the step


def test_a_jit_compile_chosen_at_run_time_is_xla_in_some_runs():
    found_contexts = contexts(
        """
        import os
        from tensorflow import keras
        USE_XLA = False
        class Switched(keras.layers.Layer):
            def call(self, x): return x
        class Sub(keras.layers.Layer):
            def call(self, x): return x
        class Parent(keras.layers.Layer):
            def call(self, x): return Sub()(x)
        class Constant(keras.layers.Layer):
            def call(self, x): return x
        class Local(keras.layers.Layer):
            def call(self, x): return x
        class Spelled(keras.layers.Layer):
            def call(self, x): return x
        def switched_loss(y_true, y_pred): return y_pred
        def switched():
            use_xla = os.environ.get("USE_XLA", "") == "1"
            model = keras.Sequential([Switched(), Parent()])
            model.compile(loss=switched_loss, jit_compile=use_xla)
        def constant():
            keras.Sequential([Constant()]).compile(loss="mse", jit_compile=USE_XLA)
        def local():
            xla = False
            keras.Sequential([Local()]).compile(loss="mse", jit_compile=xla)
        def spelled():
            keras.Sequential([Spelled()]).compile(loss="mse", jit_compile="auto")
        """
    )
    for name in ("Switched.call", "Sub.call", "switched_loss"):
        context = found_contexts[name]
        assert context.auto_xla and not context.xla, name
        assert SWITCH_ORIGIN in context.origin, name
        assert "XLA in every run where" in xla_when(context.origin)
    for name in ("Constant.call", "Local.call"):  # the name is bound to False only
        assert not found_contexts[name].auto_xla and not found_contexts[name].xla, name
    spelled = found_contexts["Spelled.call"]
    assert spelled.auto_xla and 'jit_compile="auto"' in spelled.origin
    assert "GPU or TPU" in xla_when(spelled.origin)


def test_losses_models_given_to_tf_function_and_eager_branches():
    found_contexts = contexts(
        """
        import functools
        import tensorflow as tf
        class Net(tf.keras.Model):
            def call(self, x):
                if tf.executing_eagerly():
                    eager_only(x)
                return x
        def eager_only(x): return x
        def weighted(y_true, y_pred, w): return w * (y_true - y_pred)
        def plain(y_true, y_pred): return y_true - y_pred
        def main():
            model = Net()
            fast = tf.function(model, jit_compile=True)
            loss = functools.partial(weighted, w=2.0)
            model.compile(loss=loss)
            other = tf.keras.Sequential([tf.keras.Input((2,))])
            other.compile(loss=plain, jit_compile=True)
        """
    )
    assert found_contexts["Net.call"].xla  # tf.function(model, jit_compile=True)
    assert found_contexts["weighted"].tensor_params == {"y_true", "y_pred"}
    assert found_contexts["weighted"].auto_xla and not found_contexts["weighted"].xla
    assert found_contexts["plain"].xla
    assert found_contexts["eager_only"] is None  # only under `if tf.executing_eagerly():`


def test_tf_records_survive_the_json_cache():
    record = TfRecord(".util.h", 12, "graph", "", True, False, False, "`call` of `L`")
    assert record_from_json(record.to_json()) == record
    assert TfInbound("h", "pkg/a.py:3", "use", "auto").to_json()["tf"][2] == "use"


LAYER = """\
import tensorflow as tf
from pkg.helpers import log_stats


class Probe(tf.keras.layers.Layer):
    def call(self, x):
        return log_stats(x)
"""
HELPERS = """\
import tensorflow as tf


def log_stats(x):
    tf.print("mean", tf.reduce_mean(x))
    return x
"""


@pytest.mark.parametrize(
    ("jit", "expected"),
    [
        ("jit_compile=True", [("pkg/helpers.py", 5, "JIT203")]),
        ("", [("pkg/helpers.py", 5, "JIT213")]),
        ("jit_compile=False", []),
        # XLA where the environment asks for it: reported like Keras' "auto".
        ("jit_compile=os.environ.get('XLA') == '1'", [("pkg/helpers.py", 5, "JIT213")]),
    ],
)
def test_a_model_compiled_in_another_module_reaches_a_helper_in_a_third(tmp_path, jit, expected):
    train = f"""\
import os

import tensorflow as tf
from pkg.layers import Probe


def main():
    model = tf.keras.Sequential([tf.keras.Input((4,)), Probe()])
    model.compile(loss="mse", {jit})
"""
    root = write(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/layers.py": LAYER, "pkg/helpers.py": HELPERS,
         "pkg/train.py": train},
    )  # fmt: skip
    _, diagnostics, err = check(root)
    assert where(diagnostics) == expected, err
    if jit == "jit_compile=True":
        message = str(diagnostics[0]["message"])
        assert "`call` of `Probe`" in message and "reached from pkg/layers.py" in message
    if "environ" in jit:
        message = str(diagnostics[0]["message"])
        assert "chosen at run time" in message and "where that `jit_compile`" in message


def test_do_not_convert_and_numpy_in_helpers_of_other_modules(tmp_path):
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/clip.py": """\
import numpy as np
import tensorflow as tf


@tf.autograph.experimental.do_not_convert
def clip(g):
    if tf.reduce_max(g) > 1.0:
        return g / 2
    return g


def spread(r):
    return np.percentile(tf.abs(r), 90)
""",
            "pkg/train.py": """\
import tensorflow as tf
from pkg.clip import clip, spread


class Model(tf.keras.Model):
    def train_step(self, data):
        x, y = data
        return {"loss": spread(x - y)}


@tf.function
def step(g):
    return clip(g)
""",
        },
    )
    _, diagnostics, err = check(root)
    assert where(diagnostics) == [("pkg/clip.py", 7, "JIT205"), ("pkg/clip.py", 13, "JIT204")], err


def test_a_loop_in_another_module_makes_a_method_run_repeatedly(tmp_path):
    models = """\
import tensorflow as tf


class Predictor:
    def run(self, batches):
        @tf.function
        def step(x):
            return x * 2

        return [step(b) for b in batches]


def once(x):
    return tf.function(lambda v: v + 1)(x)
"""
    main = """\
import tensorflow as tf
from pkg.models import Predictor, once


def main(chunks):
    model = Predictor()
    for chunk in chunks:
        model.run(chunk)
    once(tf.constant(1.0))
"""
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/models.py": models, "pkg/main.py": main})
    _, diagnostics, err = check(root)
    assert where(diagnostics) == [("pkg/models.py", 6, "JIT207")], err
    assert "pkg/main.py:8" in str(diagnostics[0]["message"])


def test_dtype_facts_of_imported_modules(tmp_path):
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/consts.py": """\
import tensorflow as tf


class Const:
    FLOAT = tf.float64
    SIGMAS = [1e-6, 1e-3, 1, 10]


_DEFAULT = tf.float64


def default_float():
    return _DEFAULT
""",
            "pkg/kernels.py": """\
import tensorflow as tf
from pkg.consts import Const, default_float


def gaussian(x, sigmas):
    beta = 1.0 / (2.0 * tf.expand_dims(tf.cast(sigmas, Const.FLOAT), 1))
    return tf.exp(-beta * x)


def scaled(x):
    variance = tf.Variable(1.0, dtype=default_float())
    return variance * (x - tf.constant(0.5))
""",
            "pkg/losses.py": """\
import functools

import tensorflow as tf
from pkg.consts import Const
from pkg.kernels import gaussian


def loss(x):
    kernel = functools.partial(gaussian, sigmas=tf.constant(Const.SIGMAS))
    return kernel(x)
""",
        },
    )
    _, diagnostics, err = check(root)
    assert where(diagnostics) == [
        ("pkg/kernels.py", 12, "JIT201"),
        ("pkg/losses.py", 9, "JIT201"),
    ], err
    assert "casts its parameter `sigmas` to float64" in str(diagnostics[1]["message"])


def test_a_file_alone_knows_nothing_of_other_modules():
    source = textwrap.dedent(
        """
        import tensorflow as tf
        from pkg.consts import Const
        def gaussian(x, sigmas):
            return tf.cast(sigmas, Const.FLOAT) * x
        gaussian(1.0, tf.constant([0.5]))
        """
    )
    assert found(source, TF_CODES) == set()


def test_data_dependent_shapes_per_dimension():
    source = textwrap.dedent(
        """
        import tensorflow as tf
        @tf.function(jit_compile=True)
        def f(images):
            def body(i, acc):
                end = tf.minimum(i + 2, 8)
                chunk = images[i:end]
                rows = tf.zeros([tf.shape(chunk)[1], 2])
                half = tf.ones([tf.shape(chunk)[0] // 2])
                return end, acc + tf.reduce_sum(rows) + tf.reduce_sum(half)
            return tf.while_loop(lambda i, acc: i < 8, body, [0, 0.0])
        """
    )
    # dim 1 of the chunk is static; dim 0 grows with the loop (and the slice is reported),
    # and half of it has no bound XLA can infer (its size alone would compile).
    assert found(source, {"JIT202"}) == {(7, "JIT202"), (9, "JIT202")}


def test_a_site_whose_line_is_not_found_sends_no_record(monkeypatch):
    # Placing a node's line can fail on odd source (a research repository crashed the project
    # pass with a KeyError): the record is left out, the file is still linted.
    from jitlint.model.project import tf_outbound as outbound

    source = textwrap.dedent(
        """
        import tensorflow as tf
        from pkg.helpers import log_stats

        @tf.function(jit_compile=True)
        def step(x):
            log_stats(x)
            return x
        """
    )
    ctx = FileContext(cst.parse_module(source), source=source, path="step.py")
    placed = outbound.tf_outbound(ctx.tf, source)
    assert any(r.kind == "import" for r in placed)
    monkeypatch.setattr(outbound, "place", lambda *args, **kwargs: {})
    monkeypatch.setattr(outbound, "counted_lines", lambda *args, **kwargs: {})
    unplaced = outbound.tf_outbound(ctx.tf, source)
    assert all(r.line == 0 for r in unplaced)
    assert len(unplaced) < len(placed)


def test_a_tf_function_of_another_module_called_from_a_keras_call_converts_itself(tmp_path):
    # `guard` is decorated: its own `tf.function` converts its `if`; `plain` is a helper
    # the Keras 3 `call` of the other module runs unconverted.
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/losses.py": """\
import tensorflow as tf


@tf.function
def guard(loss):
    if tf.math.is_nan(loss):
        return 0.0
    return loss


def plain(labels):
    if tf.equal(tf.size(labels), 0):
        return 0.0
    return tf.reduce_mean(labels)
""",
            "pkg/head.py": """\
import tensorflow as tf
from pkg.losses import guard, plain


class Head(tf.keras.layers.Layer):
    def call(self, x):
        return guard(plain(x))
""",
        },
    )
    _, diagnostics, err = check(root)
    assert where(diagnostics) == [("pkg/losses.py", 12, "JIT205")], err


@pytest.mark.parametrize(
    ("requirements", "metric", "expected"),
    [
        ("tensorflow>=2.16\n", "", [12]),  # Keras 3: `call` is not converted
        # Nothing declares the Keras: undecided, so the Keras-3-only finding is left out.
        ("numpy\n", "", []),
        # `self.add_metric` (gone in Keras 3) in one layer says the project runs on Keras 2,
        # where every layer's `call` (and the helpers it calls, in any module) is converted
        # by autograph: `plain`'s `if` on a tensor is a tf.cond there.
        ("numpy\n", "self.add_metric(x)", []),
        ("numpy\n", "x = keras.ops.abs(x)", [12]),  # code only Keras 3 runs says Keras 3
    ],
)
def test_a_project_whose_code_runs_only_on_keras_2_converts_keras_calls(
    tmp_path, requirements, metric, expected
):
    root = write(
        tmp_path,
        {
            "requirements.txt": requirements,
            "pkg/__init__.py": "",
            "pkg/losses.py": KERAS_CALLS_DECORATED_HELPERS,
            "pkg/head.py": """\
import tensorflow as tf
from pkg.losses import plain


class Head(tf.keras.layers.Layer):
    def call(self, x):
        return plain(x)
""",
            "pkg/metrics.py": f"""\
import keras
import tensorflow as tf


class Tracked(tf.keras.layers.Layer):
    def call(self, x):
        {metric or "pass"}
        return x
""",
        },
    )
    _, diagnostics, err = check(root)
    assert where(diagnostics) == [("pkg/losses.py", line, "JIT205") for line in expected], err


KERAS_CALLS_DECORATED_HELPERS = """\
import tensorflow as tf


@tf.function
def guard(loss):
    if tf.math.is_nan(loss):
        return 0.0
    return loss


def plain(labels):
    if tf.equal(tf.size(labels), 0):
        return 0.0
    return tf.reduce_mean(labels)
"""


def test_reports_in_a_library_class_say_they_rest_on_the_keras_contract():
    source = textwrap.dedent(
        """
        import tensorflow as tf
        from tensorflow import keras
        class Gate(keras.layers.Layer):
            def call(self, x):
                if tf.reduce_sum(x) > 0:
                    return x
                return -x
        """
    )
    from jitlint.api import lint_text

    library = lint_text(source, "case.py", TF_CODES).diagnostics
    assert [(d.code, d.traced_by) for d in library] == [("JIT205", "contract")]
    # Built into a model the file compiles: graph code the run shows, not a contract.
    built = source + "model = keras.Sequential([Gate()])\nmodel.compile(loss='mse')\n"
    shown = lint_text(built, "case.py", TF_CODES).diagnostics
    assert [(d.code, d.traced_by) for d in shown] == [("JIT205", None)]
