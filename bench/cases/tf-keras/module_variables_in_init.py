# source: https://github.com/tensorflow/tensorflow/issues/26812
# framework: tf
# shape: class
# expect: ok
import tensorflow as tf


class Affine(tf.Module):
    def __init__(self):
        super().__init__()
        self.a = tf.Variable([[10.0, 10.0], [11.0, 1.0]])
        self.b = tf.Variable(12.0)

    @tf.function
    def __call__(self, x):
        self.b.assign_add(1.0)
        return tf.matmul(self.a, x) + self.b


if __name__ == "__main__":
    f = Affine()
    for _ in range(3):
        out = f(tf.eye(2))
    print(out.numpy())
