# source: https://github.com/suinleelab/attributionpriors/issues/6
# framework: tf
# shape: function
# expect: error ValueError
# hazard: 32 JIT206 a new Adam optimizer per loop iteration is passed to the tf.function train step, whose second trace makes its slot variables
import numpy as np
import tensorflow as tf


def make_model():
    return tf.keras.Sequential(
        [tf.keras.Input((4,)), tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(1)]
    )


@tf.function
def train_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


rng = np.random.default_rng(0)
x = rng.normal(size=(16, 4)).astype("float32")
y = rng.normal(size=(16, 1)).astype("float32")

# A fresh model and optimizer for each run, as in a small hyper-parameter search.
for learning_rate in (1e-2, 1e-3):
    model = make_model()
    optimizer = tf.keras.optimizers.Adam(learning_rate)
    for _ in range(3):
        loss = train_step(model, optimizer, x, y)
    print(learning_rate, float(loss))
