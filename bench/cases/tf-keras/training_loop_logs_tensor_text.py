# source: https://github.com/YosefLab/epitome/issues/51
# framework: tf
# shape: class
# expect: observed symbolic_logs=1
# hazard: 39 JIT208 the progress line is built from tensors with str() and logged while tracing
import logging

import tensorflow as tf


class CountSymbolic(logging.Handler):
    """Counts log records that show a graph tensor instead of a value."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def emit(self, record):
        if "Tensor(" in record.getMessage():
            self.count += 1


class Trainer:
    def __init__(self, data):
        self.data = data
        self.model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        self.optimizer = tf.keras.optimizers.SGD(0.01)

    def train(self):
        @tf.function
        def run_epoch():
            for step, (x, y) in enumerate(self.data):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((self.model(x) - y) ** 2)
                weights = self.model.trainable_variables
                grads = tape.gradient(loss, weights)
                self.optimizer.apply_gradients(zip(grads, weights))
                if step % 2 == 0:
                    tf.compat.v1.logging.info(str(step) + " loss " + str(loss))

        for _ in range(3):
            run_epoch()


counter = CountSymbolic()
tf.get_logger().addHandler(counter)
tf.get_logger().setLevel(logging.INFO)
data = tf.data.Dataset.from_tensor_slices((tf.ones([8, 3]), tf.zeros([8, 1]))).batch(2)
Trainer(data).train()
print(f"observed: symbolic_logs={counter.count}")
