# source: https://github.com/tensorflow/tensorflow/issues/36792
# framework: tf
# shape: multi-file
# expect: error NotImplementedError
# hazard: robust.py:8 JIT204 `np.percentile` on a symbolic tensor, reached from RobustRegressor.train_step
import numpy as np

from .model import RobustRegressor


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype("float32")
    y = (x @ np.ones((4, 1)) + rng.standard_t(2, size=(32, 1))).astype("float32")
    model = RobustRegressor()
    model.compile(optimizer="adam")
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    print("ok")


main()
