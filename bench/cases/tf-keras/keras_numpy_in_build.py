# source: https://github.com/keras-team/keras/issues/18461
# framework: tf
# shape: class
# expect: ok
import numpy as np
import keras
import tensorflow as tf


class WindowAttention(keras.layers.Layer):
    """Window self-attention with a relative position bias table (Swin-style)."""

    def __init__(self, window_size=2, num_heads=2, **kwargs):
        super().__init__(**kwargs)
        self.window_size = window_size
        self.num_heads = num_heads

    def build(self, input_shape):
        dim = input_shape[-1]
        self.scale = 1.0 / np.sqrt(dim // self.num_heads)
        self.qkv = keras.layers.Dense(3 * dim)
        self.qkv.build(input_shape)
        ws = self.window_size
        coords = np.stack(np.meshgrid(np.arange(ws), np.arange(ws), indexing="ij")).reshape(2, -1)
        rel = (coords[:, :, None] - coords[:, None, :]).transpose(1, 2, 0) + (ws - 1)
        index = rel[..., 0] * (2 * ws - 1) + rel[..., 1]
        self.relative_position_index = tf.constant(index.astype("int32"))
        self.bias_table = self.add_weight(shape=((2 * ws - 1) ** 2, self.num_heads),
                                          initializer="zeros", name="bias_table")

    def call(self, x):
        q, k, v = tf.split(self.qkv(x), 3, axis=-1)
        scores = tf.matmul(q, k, transpose_b=True) * self.scale
        bias = tf.gather(self.bias_table, tf.reshape(self.relative_position_index, [-1]))
        bias = tf.reshape(bias, [x.shape[1], x.shape[1], self.num_heads])
        scores = scores + tf.reduce_mean(bias, axis=-1)
        return tf.matmul(tf.nn.softmax(scores, axis=-1), v)


def main():
    model = keras.Sequential([keras.Input((4, 8)), WindowAttention(), keras.layers.GlobalAveragePooling1D(),
                              keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    x = np.random.default_rng(0).normal(size=(8, 4, 8)).astype("float32")
    model.fit(x, x.mean(axis=(1, 2))[:, None], batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
