# source: https://github.com/tensorflow/tensorflow/issues/55973
# framework: tf
# shape: function
# expect: error InvalidArgumentError
# hazard: 13 JIT202|JIT203 `tf.ragged.boolean_mask` on a data-dependent padding mask: the ragged reduction below builds Repeat/Range ops whose sizes are not compile-time constants under jit_compile=True
import numpy as np
import tensorflow as tf


def masked_sparse_categorical_crossentropy(y_true, y_pred):
    mask = tf.not_equal(y_true, 0)
    losses = tf.keras.losses.sparse_categorical_crossentropy(y_true, y_pred, from_logits=True)
    losses = tf.ragged.boolean_mask(losses, mask)
    losses = tf.reduce_mean(losses, axis=-1)
    return losses


def main():
    vocab, seq = 20, 6
    tokens = tf.keras.Input((seq,), dtype="int32")
    h = tf.keras.layers.Embedding(vocab, 8)(tokens)
    logits = tf.keras.layers.Dense(vocab)(h)
    model = tf.keras.Model(tokens, logits)
    model.compile(optimizer="adam", loss=masked_sparse_categorical_crossentropy, jit_compile=True)
    rng = np.random.default_rng(0)
    x = rng.integers(1, vocab, size=(8, seq))
    y = np.roll(x, -1, axis=1)
    y[:, 4:] = 0
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
