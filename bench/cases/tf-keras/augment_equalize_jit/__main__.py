# source: https://github.com/keras-team/keras-cv/issues/286
# framework: tf
# shape: multi-file
# expect: error InvalidArgumentError
# hazard: image_ops.py:6 JIT203 `tf.histogram_fixed_width` has no XLA kernel; reached from Equalization.call in a model compiled with jit_compile=True
import keras
import numpy as np

from .layers import Equalization


def main():
    rng = np.random.default_rng(1)
    images = rng.integers(0, 200, size=(8, 12, 12, 3)).astype("float32")
    labels = rng.integers(0, 2, size=(8,))
    model = keras.Sequential([
        keras.Input((12, 12, 3)),
        Equalization(),
        keras.layers.Rescaling(1.0 / 255),
        keras.layers.Conv2D(4, 3, activation="relu"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(2),
    ])
    model.compile(optimizer="adam",
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  jit_compile=True)
    model.fit(images, labels, batch_size=4, epochs=1, verbose=0)
    print("ok")


main()
