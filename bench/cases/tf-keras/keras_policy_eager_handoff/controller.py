import tensorflow as tf


class Controller(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.logits = tf.keras.layers.Dense(4)

    def call(self, state):
        probs = tf.nn.softmax(self.logits(state))
        print("probs:", probs.numpy())  # eager: the loop below never traces the model
        return probs


def train_controller(model, state, steps):
    optimizer = tf.keras.optimizers.SGD(0.1)
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = -tf.reduce_sum(tf.math.log(model(state)))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
