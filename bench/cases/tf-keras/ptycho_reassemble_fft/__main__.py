# source: https://github.com/hoidn/PtychoPINN/blob/71be462d3268b498b46637f860200cb7f2fc179d/docs/bugs/XLA_INFERENCE_BUG.md
# framework: tf
# shape: multi-file
# expect: error UnimplementedError
# hazard: tf_helper.py:23 JIT202 slice `imgs_flat[start_idx:end_idx]` with loop-carried bounds inside tf.while_loop gives a bounded-dynamic batch that XLA cannot propagate into the fft2d in pad_and_diffract
import numpy as np
import tensorflow as tf

from .custom_layers import ReassemblePatchesLayer


def main():
    n, patches_per_sample = 8, 6
    inp = tf.keras.Input((patches_per_sample, n, n))
    obj = ReassemblePatchesLayer()(inp)
    out = tf.keras.layers.Conv2D(1, 3, padding="same")(obj)
    model = tf.keras.Model(inp, out)
    model.compile(optimizer="adam", loss="mae", jit_compile=True)
    x = np.random.default_rng(0).random((4, patches_per_sample, n, n)).astype("float32")
    print(model.predict(x, batch_size=2, verbose=0).shape)


main()
