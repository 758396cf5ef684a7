import tensorflow as tf

from .modeling_utils import prepare_attention_mask


class TinySelfAttention(tf.keras.layers.Layer):
    def __init__(self, dim=8, **kwargs):
        super().__init__(**kwargs)
        self.qkv = tf.keras.layers.Dense(3 * dim)
        self.dim = dim

    def call(self, hidden, mask_bias=None):
        q, k, v = tf.split(self.qkv(hidden), 3, axis=-1)
        scores = tf.matmul(q, k, transpose_b=True)[:, None] / self.dim ** 0.5
        if mask_bias is not None:
            scores = scores + mask_bias
        return tf.matmul(tf.nn.softmax(scores, axis=-1)[:, 0], v)


class TinyEncoder(tf.keras.Model):
    def __init__(self, vocab=50, dim=8):
        super().__init__()
        self.embed = tf.keras.layers.Embedding(vocab, dim)
        self.attn = TinySelfAttention(dim)
        self.head = tf.keras.layers.Dense(2)

    def call(self, input_ids):
        mask_bias = prepare_attention_mask(input_ids)
        h = self.attn(self.embed(input_ids), mask_bias)
        return self.head(tf.reduce_mean(h, axis=1))
