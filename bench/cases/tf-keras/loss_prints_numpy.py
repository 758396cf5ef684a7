# source: https://github.com/tensorflow/tensorflow/issues/40508
# framework: tf
# shape: function
# expect: error AttributeError
# hazard: 12 JIT204 `err.numpy()` inside a custom loss: Keras calls the loss on symbolic tensors inside the traced train step
import numpy as np
import tensorflow as tf


def loss(y_true, y_pred):
    err = y_true - y_pred
    print(err.numpy())
    return tf.reduce_mean(tf.square(err))


def main():
    (x, y) = (np.random.default_rng(0).random((32, 28, 28)).astype("float32"),
              np.eye(10, dtype="float32")[np.arange(32) % 10])
    model = tf.keras.Sequential([
        tf.keras.Input((28, 28)),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(100, activation="relu"),
        tf.keras.layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer="adam", loss=loss)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
