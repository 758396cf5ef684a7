import keras
import tensorflow as tf

from .image_ops import equalize_image


class Equalization(keras.layers.Layer):
    """Per-image histogram equalisation used as an in-model augmentation."""

    def call(self, images):
        return tf.map_fn(equalize_image, images)
