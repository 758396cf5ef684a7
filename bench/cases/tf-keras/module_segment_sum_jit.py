# source: https://github.com/tensorflow/tensorflow/issues/50713
# framework: tf
# shape: class
# expect: error InvalidArgumentError
# hazard: 19 JIT203 `tf.math.segment_sum` has no XLA kernel (unsorted_segment_sum has); method compiled with jit_compile=True
import tensorflow as tf


class GraphReadout(tf.Module):
    """Sums node features per graph for a batch of concatenated graphs."""

    def __init__(self, units):
        super().__init__()
        self.proj = tf.Variable(tf.random.normal([3, units], seed=2))

    @tf.function(jit_compile=True)
    def __call__(self, node_feats, graph_ids):
        h = tf.nn.relu(tf.matmul(node_feats, self.proj))
        return tf.math.segment_sum(h, graph_ids)


if __name__ == "__main__":
    readout = GraphReadout(4)
    feats = tf.random.normal([6, 3], seed=3)
    ids = tf.constant([0, 0, 0, 1, 1, 2])
    print(readout(feats, ids).shape)
