# source: https://github.com/tensorflow/tensorflow/issues/38002
# framework: tf
# shape: function
# expect: observed traces=6
# hazard: 43 JIT207 each one-document batch from a generator with a `None` length reaches the tf.function `train` in its own shape: one trace per distinct length
"""Token classification on documents of very different lengths, one document per batch: the
training step is a plain `@tf.function`, so every new document length traces it again."""

import numpy as np
import tensorflow as tf

FEATURES = 8
LENGTHS = (12, 40, 25, 12, 60, 33, 40, 18)

model = tf.keras.Sequential([
    tf.keras.Input((None, FEATURES)),
    tf.keras.layers.Conv1D(6, 5, padding="same", activation="relu"),
    tf.keras.layers.Conv1D(3, 5, padding="same", activation="softmax"),
])
loss_object = tf.keras.losses.SparseCategoricalCrossentropy()
optimizer = tf.keras.optimizers.SGD(0.01)


def documents():
    rng = np.random.default_rng(0)
    for length in LENGTHS:
        yield rng.normal(size=(length, FEATURES)).astype("float32"), rng.integers(0, 3, length)


@tf.function
def train(x, y):
    with tf.GradientTape() as tape:
        loss = loss_object(y, model(x))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


signature = (tf.TensorSpec([None, FEATURES], tf.float32), tf.TensorSpec([None], tf.int64))
dataset = tf.data.Dataset.from_generator(documents, output_signature=signature).batch(1)

for x, y in dataset:
    train(x, y)
print(f"observed: traces={train.experimental_get_tracing_count()}")
