# source: https://github.com/hoidn/PtychoPINN/blob/a7354bb123e16984fb19553de1789adf9d179f52/docs/findings.md
# framework: tf
# shape: multi-file
# expect: ok
import numpy as np

from .train import build_and_compile


def main():
    n, k = 8, 6
    model = build_and_compile(k, n)
    x = np.random.default_rng(0).random((4, k, n, n)).astype("float32")
    y = np.random.default_rng(1).random((4, n + 4, n + 4, 1)).astype("float32")
    model.fit(x, y, batch_size=2, epochs=1, verbose=0)
    print(model.predict(x, batch_size=2, verbose=0).shape)


main()
