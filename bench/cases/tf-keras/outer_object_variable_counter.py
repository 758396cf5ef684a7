# source: https://github.com/tensorflow/tensorflow/issues/31362
# framework: tf
# shape: function
# expect: ok
import tensorflow as tf


class Tally:
    def __init__(self):
        # The state lives in a variable: the graph updates it on every call.
        self.value = tf.Variable(0)


tally = Tally()


@tf.function
def with_graph_side_effect(x, o):
    o.value.assign_add(1)
    return x * 2.0


for _ in range(5):
    with_graph_side_effect(tf.constant(1.0), tally)
print("updates:", int(tally.value.numpy()))
