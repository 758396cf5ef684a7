# source: https://github.com/hoidn/PtychoPINN/blob/c03673d8a871488c79caffa3e36becb40467dbfa/ptycho/model.py
# framework: tf
# shape: multi-file
# expect: ok
import numpy as np

from .build import build_model


def main():
    model = build_model(8)
    batch = np.random.default_rng(0).normal(size=(8, 8, 8)).astype("float32")
    print(model.predict(batch, batch_size=8, verbose=0).shape)


main()
