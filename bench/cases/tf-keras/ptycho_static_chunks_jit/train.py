import tensorflow as tf

from .custom_layers import ReassemblePatchesLayer, Translation


def build_and_compile(patches_per_sample, n):
    inp = tf.keras.Input((patches_per_sample, n, n))
    h = Translation()(inp)
    obj = ReassemblePatchesLayer()(h)
    out = tf.keras.layers.Conv2D(1, 3, padding="same")(obj)
    model = tf.keras.Model(inp, out)
    model.compile(optimizer="adam", loss="mae", jit_compile=True)
    return model
