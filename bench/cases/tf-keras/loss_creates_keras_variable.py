# source: https://github.com/dhirajmaji7/Attention-Res-UNet-with-Guided-Decoder-for-Semantic-Segmentation-of-Brain-tumors/issues/1
# framework: tf
# shape: function
# expect: error ValueError
# hazard: 12 JIT206 `keras.Variable(...)` created inside a custom loss, which runs in fit()'s traced train function on every call
import keras
import numpy as np
import tensorflow as tf


def weighted_log_loss(y_true, y_pred):
    weights = keras.Variable(np.array([0.2, 0.8], dtype="float32"), trainable=False)
    y_pred = tf.clip_by_value(y_pred, 1e-7, 1.0 - 1e-7)
    return -tf.reduce_mean(tf.reduce_sum(weights * y_true * tf.math.log(y_pred), axis=-1))


def main():
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer="adam", loss=weighted_log_loss)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 5)).astype("float32")
    y = np.eye(2, dtype="float32")[rng.integers(0, 2, size=8)]
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
