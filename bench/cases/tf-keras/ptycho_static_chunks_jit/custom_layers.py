import tensorflow as tf

from .tf_helper import reassemble, translate_core


class Translation(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.shift = self.add_weight(shape=(1, 2), initializer="zeros", name="shift")

    def call(self, patches):
        return tf.map_fn(lambda p: translate_core(p, self.shift), patches)


class ReassemblePatchesLayer(tf.keras.layers.Layer):
    def call(self, patches):
        return tf.map_fn(reassemble, patches)[..., None]
