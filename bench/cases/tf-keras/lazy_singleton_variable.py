# source: https://rules.sonarsource.com/python/rspec-6918/
# framework: tf
# shape: class
# expect: ok
import tensorflow as tf


class RunningMean(tf.Module):
    def __init__(self):
        super().__init__()
        self.total = None
        self.count = None

    @tf.function
    def __call__(self, x):
        if self.total is None:
            self.total = tf.Variable(tf.zeros_like(x[0]))
            self.count = tf.Variable(0.0)
        self.total.assign_add(tf.reduce_sum(x, axis=0))
        self.count.assign_add(tf.cast(tf.shape(x)[0], tf.float32))
        return self.total / self.count


if __name__ == "__main__":
    rm = RunningMean()
    for i in range(3):
        print(rm(tf.fill([2, 3], float(i))).numpy())
