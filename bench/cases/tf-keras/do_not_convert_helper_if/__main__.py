# source: https://tensorflow.org/versions/r2.15/api_docs/python/tf/autograph/experimental/do_not_convert
# framework: tf
# shape: multi-file
# expect: error OperatorNotAllowedInGraphError
# hazard: clipping.py:7 JIT205 `if` on a tensor in a helper decorated with do_not_convert, called from the tf.function Trainer.step
import numpy as np
import tensorflow as tf

from .train import Trainer


def main():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    trainer = Trainer(model)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(8, 3)), tf.float32)
    y = tf.constant(rng.normal(size=(8, 1)), tf.float32)
    for _ in range(3):
        print(float(trainer.step(x, y)))


main()
