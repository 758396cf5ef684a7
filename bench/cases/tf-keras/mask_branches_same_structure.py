# source: https://github.com/huggingface/transformers/pull/9478
# framework: tf
# shape: function
# expect: ok
import tensorflow as tf


@tf.function
def attention_mask(input_ids, limit=4):
    # Both branches of the tensor `if` give one tensor of one dtype: autograph's tf.cond
    # takes them, as the maintainers expect in the thread.
    if tf.shape(input_ids)[1] > limit:
        mask = tf.zeros(tf.shape(input_ids))
    else:
        mask = tf.ones(tf.shape(input_ids))
    return mask


print(attention_mask(tf.ones([2, 3], dtype=tf.int32)))
print(attention_mask(tf.ones([2, 6], dtype=tf.int32)))
