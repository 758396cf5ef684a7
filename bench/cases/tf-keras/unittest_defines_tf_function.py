# source: https://github.com/dynastes-team/dynastes/issues/4
# framework: tf
# shape: function
# expect: ok
import unittest

import tensorflow as tf


class AttentionShapeTest(unittest.TestCase):
    def test_softmax_attention_shape(self):
        @tf.function
        def attend(q, k, v):
            scores = tf.matmul(q, k, transpose_b=True) / tf.sqrt(tf.cast(tf.shape(q)[-1], tf.float32))
            return tf.matmul(tf.nn.softmax(scores), v)

        q = tf.random.normal([2, 5, 4], seed=0)
        out = attend(q, q, q)
        self.assertEqual(out.shape, (2, 5, 4))

    def test_masked_attention_rows_sum_to_one(self):
        @tf.function
        def weights(q, mask):
            scores = tf.matmul(q, q, transpose_b=True) + (1.0 - mask) * -1e9
            return tf.nn.softmax(scores)

        q = tf.random.normal([1, 3, 4], seed=1)
        w = weights(q, tf.ones([1, 3, 3]))
        self.assertTrue(bool(tf.reduce_all(tf.abs(tf.reduce_sum(w, -1) - 1.0) < 1e-5)))


if __name__ == "__main__":
    unittest.main(argv=["neg"], exit=False)
    print("ok")
