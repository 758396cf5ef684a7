import tensorflow as tf

from .config import default_float


class SquaredExponential(tf.Module):
    def __init__(self, variance=1.0, lengthscales=(1.0, 1.0), name=None):
        super().__init__(name=name)
        self.variance = tf.Variable(variance, dtype=default_float(), name="variance")
        self.lengthscales = tf.constant(list(lengthscales))

    def __call__(self, X, X2=None):
        X2 = X if X2 is None else X2
        Xs = X / self.lengthscales
        X2s = X2 / self.lengthscales
        d2 = (tf.reduce_sum(Xs ** 2, -1)[:, None] + tf.reduce_sum(X2s ** 2, -1)[None, :]
              - 2.0 * tf.matmul(Xs, X2s, transpose_b=True))
        return self.variance * tf.exp(-0.5 * d2)
