import jax
import jax.numpy as jnp
import numpy as np

# The transmitted pulse, sampled once at import.
pulse = jax.device_put(np.random.rand(8000))


def spectrum():
    return jnp.fft.fft(pulse)


def embedded_constants():
    """How many arrays jit would embed in the compiled program as constants."""
    return len(jax.make_jaxpr(spectrum)().consts)
