import tensorflow as tf

from .tf_helper import reassemble_batched


class ReassemblePatchesLayer(tf.keras.layers.Layer):
    def call(self, patches):
        per_sample = tf.map_fn(lambda p: reassemble_batched(p), patches)
        return per_sample[..., None]
