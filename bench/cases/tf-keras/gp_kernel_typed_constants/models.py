import tensorflow as tf

from .config import default_float


class GPR(tf.Module):
    def __init__(self, data, kernel, noise_variance=0.01):
        super().__init__()
        self.X, self.Y = data
        self.kernel = kernel
        self.noise = tf.Variable(noise_variance, dtype=default_float())

    @tf.function
    def predict_f(self, Xnew):
        K = self.kernel(self.X) + self.noise * tf.eye(tf.shape(self.X)[0], dtype=default_float())
        L = tf.linalg.cholesky(K)
        A = tf.linalg.triangular_solve(L, self.kernel(self.X, Xnew), lower=True)
        v = tf.linalg.triangular_solve(L, self.Y, lower=True)
        return tf.matmul(A, v, transpose_a=True)
