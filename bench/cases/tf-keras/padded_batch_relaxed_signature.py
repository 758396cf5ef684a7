# source: https://github.com/tensorflow/tensorflow/issues/49151
# framework: tf
# shape: function
# expect: ok
"""Sentences padded per batch (`padded_batch`), so every batch has its own length; the
training step declares an `input_signature` with `None` for the batch and length, as the
maintainers advise there (the transformer tutorial's `train_step_signature`): no retrace."""

import tensorflow as tf

VOCAB = 50

embedding = tf.keras.layers.Embedding(VOCAB, 8)
head = tf.keras.layers.Dense(VOCAB)
optimizer = tf.keras.optimizers.SGD(0.01)
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def sentences():
    for length in (3, 9, 4, 7, 12, 5, 10, 6, 8, 11):
        yield tf.range(1, length + 1) % VOCAB


train_step_signature = [tf.TensorSpec(shape=(None, None), dtype=tf.int32)]


@tf.function(input_signature=train_step_signature)
def train_step(tokens):
    with tf.GradientTape() as tape:
        logits = head(embedding(tokens[:, :-1]))
        loss = loss_object(tokens[:, 1:], logits)
    variables = embedding.trainable_variables + head.trainable_variables
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss


dataset = tf.data.Dataset.from_generator(
    sentences, output_signature=tf.TensorSpec([None], tf.int32)
).padded_batch(2)

for batch in dataset:
    train_step(batch)
# The first call creates the layers' and optimizer's variables, so TF traces it twice; no
# batch length after that traces again (10 sentences, 5 batches of 5 lengths).
assert train_step.experimental_get_tracing_count() <= 2
