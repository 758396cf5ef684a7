# source: https://github.com/jax-ml/jax/issues/10596
# framework: jax
# shape: multi-file
# expect: ok
"""The reporter's fix: the pulse is an argument of the jitted function, so the
compiled program holds no copy of it; a jitted helper reading only the global's
shape embeds nothing either."""
import jax

from fft_pulse_argument.transmitter import pulse, spectrum, window_length

print(jax.jit(spectrum)(pulse).shape)
print(jax.jit(window_length)())
print(len(jax.make_jaxpr(spectrum)(pulse).consts))
