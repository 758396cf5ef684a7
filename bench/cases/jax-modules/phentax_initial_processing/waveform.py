"""Time-domain phenomenological waveform model."""
import jax.numpy as jnp

from .utils import newtonian_duration


class IMRPhenomT:
    def __init__(self, delta_t, f_min=20.0):
        self.delta_t = delta_t
        self.f_min = f_min

    def initial_processing(self, m1, m2, chi1, chi2):
        T = newtonian_duration(m1, m2, self.f_min)
        n_steps = int(jnp.ceil(T / self.delta_t))
        assert jnp.all(jnp.abs(jnp.array([chi1, chi2])) <= 1.0), "spins must satisfy |chi| <= 1"
        return T, n_steps

    def compute_polarizations(self, m1, m2, chi1, chi2):
        T, n_steps = self.initial_processing(m1, m2, chi1, chi2)
        times = jnp.arange(n_steps) * self.delta_t - T
        phase = 2.0 * jnp.pi * self.f_min * times * (1.0 + 0.1 * (chi1 + chi2))
        amp = 1.0 / (1.0 + jnp.abs(times))
        return amp * jnp.cos(phase), amp * jnp.sin(phase)
