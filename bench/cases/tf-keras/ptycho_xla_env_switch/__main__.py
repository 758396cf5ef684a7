# source: https://github.com/hoidn/PtychoPINN/blob/71be462d3268b498b46637f860200cb7f2fc179d/docs/bugs/XLA_INFERENCE_BUG.md
# source: https://github.com/hoidn/PtychoPINN/blob/c03673d8a871488c79caffa3e36becb40467dbfa/ptycho/model.py
# framework: tf
# shape: multi-file
# expect: error UnimplementedError
# hazard: shifts.py:11 JIT213 the `tf.cond` returns `(4*b, 2)` from one branch and `(b, 2)` from the other; the model is compiled with `jit_compile` read from USE_XLA_COMPILE, and under XLA the result has a bounded dynamic batch that fft2d cannot take
import os

import numpy as np

from .build import build_model


def main():
    os.environ.setdefault("USE_XLA_COMPILE", "1")  # as the project's inference script does
    model = build_model(8)
    batch = np.random.default_rng(0).normal(size=(8, 8, 8)).astype("float32")
    print(model.predict(batch, batch_size=8, verbose=0).shape)


main()
