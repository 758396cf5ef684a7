"""TensorFlow behaviour the TF rules rely on, checked against the installed TensorFlow.

These are the observations that decide precision and that differ from, or add to, the
research notes: Keras 3 runs `call` without autograph (JIT205), and the PtychoPINN scenario
fails under `jit_compile=True` exactly where JIT202 says, and runs without it.
"""

from __future__ import annotations

import textwrap

import pytest
from test_tf_scenarios import PTYCHO

pytestmark = pytest.mark.tensorflow


def _fit_or_predict(layer_source: str, layer: str, jit: bool, batches=(8,)) -> list[str]:
    pytest.importorskip("tensorflow")
    namespace: dict[str, object] = {"__name__": "__scenario__"}
    exec(compile(textwrap.dedent(layer_source), "<scenario>", "exec"), namespace)
    import numpy as np
    from tensorflow import keras

    outcomes = []
    for batch in batches:
        images, offsets = keras.Input((8, 8, 1)), keras.Input((2,))
        model = keras.Model([images, offsets], namespace[layer](4)([images, offsets]))
        model.compile(optimizer="adam", loss="mse", jit_compile=jit)
        try:
            model.predict(
                [np.ones((batch, 8, 8, 1)), np.ones((batch, 2))], batch_size=batch, verbose=0
            )
            outcomes.append("ok")
        except Exception as exc:  # the compiler's error, to match
            outcomes.append(str(exc))
    return outcomes


def test_ptychopinn_layer_fails_under_xla_where_jit202_points():
    source = PTYCHO.split("def build_model")[0]
    outcomes = _fit_or_predict(source, "ExtractPatches", jit=True, batches=(8, 16))
    for outcome in outcomes:
        assert "while/Tile" in outcome and "must be a compile-time constant" in outcome


def test_ptychopinn_layer_runs_without_xla():
    source = PTYCHO.split("def build_model")[0]
    assert _fit_or_predict(source, "ExtractPatches", jit=False, batches=(8, 16)) == ["ok", "ok"]


def test_keras3_call_is_not_autographed():
    pytest.importorskip("tensorflow")
    import numpy as np
    import tensorflow as tf
    from tensorflow import keras

    class Gate(keras.layers.Layer):
        def call(self, inputs):
            if tf.reduce_mean(inputs) > 0.5:
                return inputs
            return tf.zeros_like(inputs)

    inputs = keras.Input((4,))
    with pytest.raises(Exception, match="as a Python `bool` is not allowed"):
        model = keras.Model(inputs, Gate()(inputs))
        model.compile(loss="mse")
        model.fit(np.ones((8, 4)), np.ones((8, 4)), verbose=0)
