# source: https://github.com/bayesflow-org/bayesflow/issues/223
# framework: tf
# shape: class
# expect: observed current_step=2
# hazard: 31 JIT208 `self.current_step += 1` on a Python int inside train_step: it runs only while fit() traces the step (twice), not on each of the 6 steps, so the step schedule never advances
import numpy as np
import keras
import tensorflow as tf


class ConsistencyModel(keras.Model):
    def __init__(self, total_steps=100):
        super().__init__()
        self.net = keras.layers.Dense(1)
        self.total_steps = total_steps
        self.current_step = 0

    def call(self, x):
        return self.net(x)

    def discretization(self):
        return 2.0 + 10.0 * self.current_step / self.total_steps

    def train_step(self, data):
        x, y = data
        n = self.discretization()
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x) - y)) / n
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.current_step += 1
        return {"loss": loss}


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(24, 3)).astype("float32")
    model = ConsistencyModel()
    model.compile(optimizer="adam")
    model.fit(x, x[:, :1], batch_size=4, epochs=1, verbose=0)
    print(f"observed: current_step={model.current_step}")


if __name__ == "__main__":
    main()
