# source: https://github.com/jax-ml/jax/issues/6887
# framework: jax
# shape: function
# expect: observed devices=1
# hazard: 17 JIT301 XLA_FLAGS is written after jax.devices() has already initialised the CPU backend, so the device count flag is ignored

# Choose the number of host devices from a run-time setting after listing
# what is available.
import os

import jax


def setup_host_devices(num_devices):
    print("before:", jax.devices("cpu"))
    if num_devices > 1:
        os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={num_devices}"
    return jax.devices("cpu")


if __name__ == "__main__":
    devices = setup_host_devices(8)
    print(f"observed: devices={len(devices)}")
