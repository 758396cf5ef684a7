import jax
import jax.numpy as jnp
import numpy as np

pulse = jax.device_put(np.random.rand(10000))


def spectrum(samples):
    return jnp.fft.fft(samples)


def window_length():
    # Only the shape of the global is read: nothing is embedded.
    return jnp.hanning(pulse.shape[0]).sum()
