# source: https://github.com/keras-team/tf-keras/issues/418
# framework: tf
# shape: class
# expect: ok
# gpu-only: built-in lookup layers set supports_jit=False so "auto" falls back, but this custom layer does not; on a GPU machine "auto" resolves to XLA and the string ops fail to compile
# hazard: 21 JIT213 `tf.strings.as_string` (AsString, no XLA kernel) in IdHasher.call of a model compiled with the default jit_compile="auto"
# hazard: 22 JIT213 `tf.strings.to_hash_bucket_fast` (StringToHashBucketFast, no XLA kernel) in the same call
import numpy as np
import keras
import tensorflow as tf


class IdHasher(keras.layers.Layer):
    """Maps integer ids into a fixed number of hash buckets."""

    def __init__(self, num_buckets, **kwargs):
        super().__init__(**kwargs)
        self.num_buckets = num_buckets

    def call(self, ids):
        as_text = tf.strings.as_string(ids)
        return tf.strings.to_hash_bucket_fast(as_text, self.num_buckets)


def main():
    ids = keras.Input(shape=(3,), dtype="int64")
    h = IdHasher(32)(ids)
    h = keras.layers.Embedding(32, 4)(h)
    h = keras.layers.GlobalAveragePooling1D()(h)
    out = keras.layers.Dense(1, activation="sigmoid")(h)
    model = keras.Model(ids, out)
    model.compile(optimizer="adam", loss="binary_crossentropy")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 10_000, size=(16, 3))
    y = rng.integers(0, 2, size=(16, 1)).astype("float32")
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
