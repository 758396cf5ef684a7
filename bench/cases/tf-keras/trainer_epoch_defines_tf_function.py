# source: https://github.com/keras-team/tf-keras/issues/254
# framework: tf
# shape: class
# expect: observed traces=4
# hazard: 18 JIT207 `@tf.function` step_fn is defined inside train_epoch, which runs once per epoch: a new function (and a new trace) every epoch
import logging

import numpy as np
import tensorflow as tf


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = tf.keras.optimizers.SGD(0.01)

    def train_epoch(self, dataset):
        @tf.function
        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self.model(x) - y))
            grads = tape.gradient(loss, self.model.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
            return loss

        total = 0.0
        for x, y in dataset:
            total += float(step_fn(x, y))
        return total


class _TraceCounter(logging.Handler):
    def __init__(self):
        super().__init__()
        self.traces = 0

    def emit(self, record):
        if "Creating new FuncGraph for Python function" in record.getMessage():
            self.traces += 1


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 3)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model(x[:1])
    trainer = Trainer(model)

    counter = _TraceCounter()
    logger = tf.get_logger()
    saved_handlers, saved_level = logger.handlers[:], logger.level
    logger.handlers = [counter]
    logger.setLevel(1)
    try:
        for epoch in range(4):
            print("epoch", epoch, trainer.train_epoch(ds))
    finally:
        logger.handlers = saved_handlers
        logger.setLevel(saved_level)
    print(f"observed: traces={counter.traces}")


if __name__ == "__main__":
    main()
