# source: https://github.com/tensorflow/tensorflow/issues/48878
# framework: tf
# shape: class
# expect: error ValueError
# hazard: 19 JIT206 `tf.keras.Sequential([...])` (with Dense variables) built inside Classifier.call, i.e. inside the traced train step
import numpy as np
import tensorflow as tf


class Classifier(tf.keras.Model):
    def __init__(self, num_classes, hidden=16):
        super().__init__()
        self.num_classes = num_classes
        self.hidden = hidden
        self.backbone = tf.keras.layers.Dense(hidden, activation="relu")

    def call(self, x):
        features = self.backbone(x)
        head = tf.keras.Sequential([
            tf.keras.layers.Dropout(0.1),
            tf.keras.layers.Dense(self.num_classes),
        ])
        return head(features)


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 6)).astype("float32")
    y = rng.integers(0, 3, size=(16,))
    model = Classifier(3)
    model.compile(optimizer="adam",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
