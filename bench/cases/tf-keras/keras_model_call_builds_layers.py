# source: https://github.com/calmiLovesAI/Basic_CNNs_TensorFlow2/issues/13
# framework: tf
# shape: class
# expect: error AttributeError
# hazard: 29 JIT206 a Keras layer (and its variables) is constructed inside DenseBlock.call, so fit()'s traced step creates new variables on every call
import numpy as np
import tensorflow as tf


class BottleNeck(tf.keras.layers.Layer):
    def __init__(self, growth_rate, **kwargs):
        super().__init__(**kwargs)
        self.bn = tf.keras.layers.BatchNormalization()
        self.conv = tf.keras.layers.Conv2D(growth_rate, 3, padding="same")

    def call(self, x, training=None):
        return self.conv(tf.nn.relu(self.bn(x, training=training)))


class DenseBlock(tf.keras.layers.Layer):
    def __init__(self, num_layers, growth_rate, **kwargs):
        super().__init__(**kwargs)
        self.num_layers = num_layers
        self.growth_rate = growth_rate

    def call(self, inputs, training=None):
        features = [inputs]
        for _ in range(self.num_layers):
            y = BottleNeck(self.growth_rate)(tf.concat(features, axis=-1), training=training)
            features.append(y)
        return tf.concat(features, axis=-1)


class TinyDenseNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.stem = tf.keras.layers.Conv2D(4, 3, padding="same")
        self.block = DenseBlock(2, 4)
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.head = tf.keras.layers.Dense(3)

    def call(self, x, training=None):
        return self.head(self.pool(self.block(self.stem(x), training=training)))


def main():
    rng = np.random.default_rng(0)
    x = rng.random((8, 8, 8, 1)).astype("float32")
    y = rng.integers(0, 3, size=(8,))
    model = TinyDenseNet()
    model.compile(optimizer="adam",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    print("ok")


if __name__ == "__main__":
    main()
