# source: https://github.com/secondmind-labs/trieste/issues/304
# framework: tf
# shape: function
# expect: ok
import tensorflow as tf


def scaled_power(base, exponent):
    # `exponent` is a Python int at every call site: the check is decided while tracing,
    # once per value, and raises exactly when it should.
    if exponent < 1:
        raise ValueError(f"exponent must be at least 1, got {exponent}")
    return base ** exponent


power = tf.function(scaled_power)
print(power(tf.constant(2.0), 3))
try:
    power(tf.constant(2.0), 0)
except ValueError as error:
    print("rejected:", error)
