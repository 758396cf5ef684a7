import keras
import tensorflow as tf


def dilation2d(x, st_element, strides, padding, rates=(1, 1)):
    x = tf.nn.dilation2d(x, st_element, (1,) + strides + (1,), padding.upper(), "NHWC", (1,) + rates + (1,))
    return x


class Dilation2D(keras.layers.Layer):
    """Grey-scale morphological dilation with a learnable structuring element."""

    def __init__(self, num_filters, kernel_size, strides=(1, 1), padding="same", **kwargs):
        super().__init__(**kwargs)
        self.num_filters = num_filters
        self.kernel_size = kernel_size
        self.strides = strides
        self.padding = padding

    def build(self, input_shape):
        channels = input_shape[-1]
        self.kernel = self.add_weight(
            shape=self.kernel_size + (channels, self.num_filters),
            initializer="zeros", name="kernel")

    def call(self, x):
        outs = []
        for i in range(self.num_filters):
            outs.append(dilation2d(x, self.kernel[..., i], self.strides, self.padding))
        return tf.concat(outs, axis=-1)
