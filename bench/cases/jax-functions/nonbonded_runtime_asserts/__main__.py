# source: https://github.com/proteneer/timemachine/pull/800
# framework: jax
# shape: multi-file
# expect: error TracerBoolConversionError
# hazard: potentials.py:15 JIT101 `assert` on `jnp.all(...)` of the traced box, reached from the jitted `nonbonded_energy`

# The reference potential runs fine when called directly; wrapping it with
# jax.jit trips over the value assertion inside the helper module.
import jax
import jax.numpy as jnp

from nonbonded_runtime_asserts import potentials


def main():
    conf = jax.random.uniform(jax.random.PRNGKey(0), (5, 3)) * 3.0
    charges = jnp.array([0.5, -0.5, 0.2, -0.2, 0.1])
    box = jnp.eye(3) * 4.0
    print(potentials.nonbonded_energy(conf, charges, box, 1.2))
    energy_jit = jax.jit(potentials.nonbonded_energy)
    print(energy_jit(conf, charges, box, 1.2))


main()
