# source: https://github.com/PlasmaControl/DESC/issues/2295
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: boozer.py:26 JIT101 `surf_batch_size` is listed as static but read from the `_constants` dict, which is a data leaf of the pytree `self`: traced
"""Evaluates a quasi-symmetry objective through the jitted base-class method."""
from .base import ObjectiveFunction
from .boozer import QuasisymmetryBoozer


def main():
    obj = ObjectiveFunction(QuasisymmetryBoozer(n_surfaces=4, surf_batch_size=1))
    obj.build()
    print(obj.compute_scaled_error(obj.x(6)))


main()
