"""Small runtime helpers shared by the forecasting scripts."""
import os


def set_host_device_count(n):
    """Ask XLA for `n` CPU devices so that chains can run in parallel."""
    xla_flags = os.getenv("XLA_FLAGS", "")
    flags = [f for f in xla_flags.split() if "xla_force_host_platform_device_count" not in f]
    os.environ["XLA_FLAGS"] = " ".join(flags + [f"--xla_force_host_platform_device_count={n}"])
