import tensorflow as tf

from .clipping import clip_gradients


class Trainer:
    def __init__(self, model, lr=0.05, max_norm=1.0):
        self.model = model
        self.opt = tf.keras.optimizers.SGD(lr)
        self.max_norm = max_norm

    @tf.function
    def step(self, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self.model(x) - y))
        grads = tape.gradient(loss, self.model.trainable_variables)
        grads = clip_gradients(grads, self.max_norm)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss
