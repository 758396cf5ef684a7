# source: https://github.com/keras-team/keras/issues/15360
# framework: tf
# shape: class
# expect: error OperatorNotAllowedInGraphError
# hazard: 22 JIT205 `for batch in tf.range(...)` in a Keras 3 layer's `call`, which Keras runs without autograph
import numpy as np
import tensorflow as tf


class OuterProductLayer(tf.keras.layers.Layer):
    def __init__(self, n_input, n_memb, **kwargs):
        super().__init__(**kwargs)
        self.n = n_input
        self.m = n_memb

    def build(self, batch_input_shape):
        super().build(batch_input_shape)

    def call(self, inputs):
        products = []
        self.batch_size = tf.shape(inputs)[0]
        for batch in tf.range(self.batch_size):
            xd_shape = [self.m]
            c_shape = [1]
            cp = inputs[batch, 0, :]
            for d in range(1, self.n):
                c_shape.insert(0, self.m)
                xd_shape.insert(0, 1)
                xd = tf.reshape(inputs[batch, d, :], xd_shape)
                c = tf.reshape(cp, c_shape)
                cp = tf.matmul(c, xd)
            products.append(tf.reshape(cp, (1, self.m**self.n)))
        stacked = tf.stack(products)
        return tf.reshape(stacked, (self.batch_size, self.m**self.n))


model = tf.keras.Sequential([tf.keras.Input((3, 2)), OuterProductLayer(3, 2)])
print(model(np.ones((4, 3, 2), dtype="float32")).shape)
