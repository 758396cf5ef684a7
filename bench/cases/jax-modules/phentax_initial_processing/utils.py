"""Post-Newtonian helper formulas."""
import jax.numpy as jnp


def chirp_mass(m1, m2):
    return (m1 * m2) ** 0.6 / (m1 + m2) ** 0.2


def newtonian_duration(m1, m2, f_min):
    mc = chirp_mass(m1, m2) * 4.925e-6
    return 5.0 / 256.0 * mc ** (-5.0 / 3.0) * (jnp.pi * f_min) ** (-8.0 / 3.0)
