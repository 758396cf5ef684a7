# source: https://github.com/tensorflow/tensorflow/issues/36790
# framework: tf
# shape: function
# expect: error TypeError
# hazard: 19 JIT201 `tf.constant([...])` of Python floats bound through functools.partial as `class_weights`; the model runs in float64 (keras.config.set_floatx)
import functools

import keras
import numpy as np
import tensorflow as tf

keras.config.set_floatx("float64")


def weighted_mse(y_true, y_pred, class_weights):
    return tf.reduce_mean(class_weights * tf.square(y_true - y_pred), axis=-1)


loss_fn = functools.partial(weighted_mse, class_weights=tf.constant([0.2, 0.3, 0.5]))
loss_fn.__name__ = "weighted_mse"


def main():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile(optimizer="sgd", loss=loss_fn)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 4))
    y = rng.normal(size=(8, 3))
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
