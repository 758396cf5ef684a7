# source: https://github.com/tensorflow/tensorflow/issues/51453
# framework: tf
# shape: class
# expect: error ValueError
# hazard: 16 JIT206 `tf.Variable(...)` created inside a tf.function-decorated method every time it is called
import tensorflow as tf


class LayerFactory(tf.Module):
    def __init__(self):
        super().__init__()
        self.weights = []

    @tf.function
    def new_weight(self, shape):
        w = tf.Variable(tf.random.truncated_normal(shape, stddev=0.1))
        self.weights.append(w)
        return tf.reduce_sum(w)


if __name__ == "__main__":
    factory = LayerFactory()
    for _ in range(3):
        print(float(factory.new_weight([4, 4])))
