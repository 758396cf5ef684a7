# source: https://github.com/GPflow/GPflow/issues/1244
# framework: tf
# shape: multi-file
# expect: ok
import numpy as np

from .kernels import SquaredExponential
from .models import GPR


def main():
    rng = np.random.default_rng(0)
    X = rng.random((12, 2))
    Y = np.sin(6 * X[:, :1]) + 0.1 * rng.normal(size=(12, 1))
    model = GPR((X, Y), SquaredExponential(lengthscales=(0.3, 0.5)))
    print(model.predict_f(rng.random((4, 2))).numpy().ravel())


main()
