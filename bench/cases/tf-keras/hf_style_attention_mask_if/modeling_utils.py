import tensorflow as tf


def shape_list(t):
    dynamic = tf.shape(t)
    return [dynamic[i] if s is None else s for i, s in enumerate(t.shape.as_list())]


def prepare_attention_mask(input_ids, attention_mask=None, pad_token_id=0):
    if attention_mask is None:
        attention_mask = tf.cast(tf.not_equal(input_ids, pad_token_id), tf.float32)
    if tf.reduce_all(attention_mask == 1.0):
        return None
    bsz, seq = shape_list(input_ids)
    return (1.0 - tf.reshape(attention_mask, (bsz, 1, 1, seq))) * -1e9
