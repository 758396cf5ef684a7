import os

import tensorflow as tf

from .shifts import ShiftPhase


def build_model(size):
    patches = tf.keras.Input((size, size))
    model = tf.keras.Model(patches, ShiftPhase()(patches))
    # XLA is a deployment option: the run scripts export USE_XLA_COMPILE=1.
    use_xla = os.environ.get("USE_XLA_COMPILE", "").lower() in ("1", "true", "yes")
    model.compile(optimizer="adam", loss="mae", jit_compile=use_xla)
    return model
