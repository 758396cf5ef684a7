# source: https://github.com/hoidn/PtychoPINN/blob/71be462d3268b498b46637f860200cb7f2fc179d/docs/bugs/XLA_INFERENCE_BUG.md
# framework: tf
# shape: multi-file
# expect: error InvalidArgumentError
# hazard: tf_helper.py:10 JIT202 `tf.repeat` with count `images_batch // trans_batch`, not a compile-time constant once the batch comes from a loop-carried slice (Tile must be a compile-time constant)
# hazard: tf_helper.py:26 JIT202 slice `patches[i:end]` with loop-carried bounds inside tf.while_loop makes the batch size dynamic
import numpy as np
import tensorflow as tf

from .custom_layers import Translation


def main():
    n = 8
    inp = tf.keras.Input((7, n, n, 1))
    h = Translation()(inp)
    out = tf.keras.layers.Conv2D(1, 3, padding="same")(h)
    model = tf.keras.Model(inp, out)
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    x = np.random.default_rng(0).random((4, 7, n, n, 1)).astype("float32")
    print(model.predict(x, batch_size=2, verbose=0).shape)


main()
