# source: https://github.com/tensorflow/similarity/issues/240
# framework: tf
# shape: class
# expect: error InvalidArgumentError
# hazard: 27 JIT202 `tf.one_hot(idx, num_classes)` whose depth is the size of tf.unique's output: OneHot depth must be a compile-time constant under jit_compile=True
import numpy as np
import keras
import tensorflow as tf


class PrototypeModel(keras.Model):
    """Embedding model trained with a batch-prototype (centroid) softmax loss."""

    def __init__(self, dim=4):
        super().__init__()
        self.encoder = keras.layers.Dense(dim)

    def call(self, x):
        return tf.math.l2_normalize(self.encoder(x), axis=-1)

    def train_step(self, data):
        x, labels = data
        with tf.GradientTape() as tape:
            z = self(x, training=True)
            classes, idx = tf.unique(labels)
            num_classes = tf.size(classes)
            onehot = tf.one_hot(idx, num_classes)
            centroids = tf.math.l2_normalize(tf.matmul(onehot, z, transpose_a=True), axis=-1)
            logits = tf.matmul(z, centroids, transpose_b=True) / 0.1
            loss = tf.reduce_mean(
                keras.losses.categorical_crossentropy(onehot, logits, from_logits=True))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 6)).astype("float32")
    y = rng.integers(0, 3, size=(16,)).astype("int32")
    model = PrototypeModel()
    model.compile(optimizer="adam", jit_compile=True)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
