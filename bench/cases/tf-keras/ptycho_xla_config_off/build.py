import tensorflow as tf

from .shifts import ShiftPhase

# The shift layer's tf.cond has branches of different shapes: this model stays off XLA.
USE_XLA_COMPILE = False


def build_model(size):
    patches = tf.keras.Input((size, size))
    model = tf.keras.Model(patches, ShiftPhase()(patches))
    model.compile(optimizer="adam", loss="mae", jit_compile=USE_XLA_COMPILE)
    return model
