# source: https://github.com/proteneer/timemachine/pull/800
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: reference.py:12 JIT101 `assert` on a comparison of the traced `box`; the partial returned by `to_reference()` keeps `runtime_validate=True`
"""Evaluates the reference nonbonded energy, first eagerly, then jitted."""
import jax
import jax.numpy as jnp

from .generic import Nonbonded


def main():
    nonbonded = Nonbonded(num_atoms=4, beta=2.0, cutoff=1.2)
    conf = jax.random.uniform(jax.random.PRNGKey(0), (4, 3)) * 3.0
    params = jnp.ones((4, 3))
    box = jnp.eye(3) * 3.0
    nonbonded_ref = nonbonded.to_reference()
    print(nonbonded_ref(conf, params, box, 0.1))
    nonbonded_ref_jit = jax.jit(nonbonded_ref)
    print(nonbonded_ref_jit(conf, params, box, 0.1))


main()
