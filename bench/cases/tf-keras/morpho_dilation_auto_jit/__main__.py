# source: https://github.com/Jacobiano/morpholayers/issues/8
# framework: tf
# shape: multi-file
# expect: ok
# gpu-only: with TF >= 2.16 (Keras 3) compile() defaults to jit_compile="auto", which compiles the train step with XLA on GPU; Dilation2D has no XLA kernel, so the same script fails there and passes on CPU
# hazard: morpholayers.py:6 JIT213 `tf.nn.dilation2d` (Dilation2D, no XLA kernel) in a layer of a model compiled with the default jit_compile="auto"
import numpy as np
import keras

from .morpholayers import Dilation2D


def main():
    model = keras.Sequential([
        keras.Input((16, 16, 1)),
        Dilation2D(2, (3, 3)),
        keras.layers.Conv2D(2, 3, activation="relu"),
        keras.layers.GlobalMaxPooling2D(),
        keras.layers.Dense(1),
    ])
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(0)
    x = rng.random((8, 16, 16, 1)).astype("float32")
    y = x.max(axis=(1, 2, 3))[:, None]
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    print("ok")


main()
