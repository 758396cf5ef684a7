# source: https://github.com/PlasmaControl/DESC/issues/2295
# framework: jax
# shape: multi-file
# expect: ok
"""Evaluates a quasi-symmetry objective through the jitted base-class method."""
from .base import ObjectiveFunction
from .boozer import QuasisymmetryBoozer


def main():
    obj = ObjectiveFunction(QuasisymmetryBoozer(n_surfaces=4, surf_batch_size=1))
    obj.build()
    print(obj.compute_scaled_error(obj.x(6)))


main()
