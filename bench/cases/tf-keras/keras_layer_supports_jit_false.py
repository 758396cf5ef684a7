# source: https://github.com/keras-team/tf-keras/issues/418
# framework: tf
# shape: class
# expect: ok
import numpy as np
import keras
import tensorflow as tf


class IdHasher(keras.layers.Layer):
    def __init__(self, num_buckets, **kwargs):
        super().__init__(**kwargs)
        self.num_buckets = num_buckets
        self.supports_jit = False

    def call(self, ids):
        return tf.strings.to_hash_bucket_fast(tf.strings.as_string(ids), self.num_buckets)


def main():
    ids = keras.Input(shape=(3,), dtype="int64")
    h = keras.layers.Embedding(32, 4)(IdHasher(32)(ids))
    out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.GlobalAveragePooling1D()(h))
    model = keras.Model(ids, out)
    model.compile(optimizer="adam", loss="binary_crossentropy")
    rng = np.random.default_rng(0)
    model.fit(rng.integers(0, 10_000, size=(16, 3)), rng.integers(0, 2, size=(16, 1)).astype("float32"),
              batch_size=8, epochs=1, verbose=0)
    print("ok, jit_compile =", model.jit_compile)


if __name__ == "__main__":
    main()
