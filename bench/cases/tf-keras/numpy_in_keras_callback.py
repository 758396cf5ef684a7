# source: https://github.com/tensorflow/tensorflow/issues/40508
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


class WeightNormLogger(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.norms = []

    def on_epoch_end(self, epoch, logs=None):
        kernel = self.model.layers[-1].kernel
        self.norms.append(float(np.linalg.norm(kernel.numpy())))
        preds = self.model(np.ones((2, 3), "float32"))
        print("epoch", epoch, "loss", logs["loss"], "pred", preds.numpy().ravel())


def main():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(16, 3)).astype("float32")
    cb = WeightNormLogger()
    model.fit(x, x.sum(axis=1, keepdims=True), batch_size=8, epochs=2, verbose=0, callbacks=[cb])
    print(np.round(cb.norms, 3))


if __name__ == "__main__":
    main()
