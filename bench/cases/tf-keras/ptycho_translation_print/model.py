import tensorflow as tf

from .tf_helper import Translation


def build_model(n, offset_dtype):
    imgs = tf.keras.Input(shape=(n, n, 1), name="patches")
    offs = tf.keras.Input(shape=(2,), dtype=offset_dtype, name="offsets")
    h = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")(imgs)
    h = tf.keras.layers.Conv2D(1, 3, padding="same")(h)
    shifted = Translation(name="translation")([h, offs])
    model = tf.keras.Model([imgs, offs], shifted)
    model.compile(optimizer="adam", loss="mae", jit_compile=True)
    return model
