# source: https://github.com/tensorflow/tensorflow/issues/48801
# framework: tf
# shape: function
# expect: error AttributeError
# hazard: 11 JIT204 `.numpy()` inside a Dataset.map function, which tf.data always traces into a graph
import numpy as np
import tensorflow as tf


def normalize_sample(signal, label):
    values = signal.numpy()
    values = (values - values.mean()) / (values.std() + 1e-6)
    return tf.convert_to_tensor(values, tf.float32), label


def main():
    rng = np.random.default_rng(0)
    signals = rng.normal(2.0, 3.0, size=(6, 16)).astype("float32")
    labels = np.arange(6) % 2
    ds = tf.data.Dataset.from_tensor_slices((signals, labels)).map(normalize_sample).batch(2)
    for x, y in ds:
        print(x.shape, y.numpy())


if __name__ == "__main__":
    main()
