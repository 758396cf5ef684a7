# source: https://github.com/huggingface/transformers/pull/19030
# framework: tf
# shape: class
# expect: ok
import numpy as np
import tensorflow as tf


def shape_list(t):
    dynamic = tf.shape(t)
    return [dynamic[i] if s is None else s for i, s in enumerate(t.shape.as_list())]


class MaskBuilder(tf.keras.layers.Layer):
    def call(self, input_ids):
        bs, slen = shape_list(input_ids)
        mask = tf.cast(tf.not_equal(input_ids, 0), tf.float32)
        if tf.executing_eagerly():
            assert mask.numpy().shape == (bs, slen)
        tf.debugging.assert_equal(shape_list(mask), [bs, slen])
        return mask


def main():
    layer = MaskBuilder()
    ids = np.array([[5, 3, 0], [2, 0, 0]])
    print(layer(tf.constant(ids)).numpy())
    inp = tf.keras.Input((3,), dtype="int32")
    model = tf.keras.Model(inp, tf.keras.layers.Dense(1)(MaskBuilder()(inp)))
    model.compile(optimizer="sgd", loss="mse")
    model.fit(ids, np.ones((2, 1)), verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
