# source: https://github.com/tensorflow/tensorflow/issues/31362
# framework: tf
# shape: function
# expect: observed updates=1
# hazard: 19 JIT208 `o.value += 1` on an object passed to the tf.function runs once, while tracing
import tensorflow as tf


class Tally:
    def __init__(self):
        self.value = 0


tally = Tally()


@tf.function
def with_python_side_effect(x, o):
    o.value += 1
    return x * 2.0


for _ in range(5):
    with_python_side_effect(tf.constant(1.0), tally)
print(f"observed: updates={tally.value}")
