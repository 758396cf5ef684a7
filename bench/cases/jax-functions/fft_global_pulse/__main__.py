# source: https://github.com/jax-ml/jax/issues/10596
# framework: jax
# shape: multi-file
# expect: observed embedded_constants=1
# hazard: transmitter.py:10 JIT122 the 8000-sample global pulse is closed over by a jitted function: embedded as a compile-time constant

# The report: jitting an FFT of a global pulse took over 10 s to compile on a GPU
# and 0.1 s on the CPU; passing the pulse as an argument made it normal.
import jax

from fft_global_pulse.transmitter import embedded_constants, spectrum

out = jax.jit(spectrum)()
print(out.shape)
print(f"observed: embedded_constants={embedded_constants()}")
