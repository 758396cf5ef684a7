# source: https://github.com/tensorflow/tensorflow/issues/50713
# framework: tf
# shape: class
# expect: ok
import tensorflow as tf


class GraphReadout(tf.Module):
    def __init__(self, units, num_graphs):
        super().__init__()
        self.proj = tf.Variable(tf.random.normal([3, units], seed=2))
        self.num_graphs = num_graphs

    @tf.function(jit_compile=True)
    def __call__(self, node_feats, graph_ids):
        h = tf.nn.relu(tf.matmul(node_feats, self.proj))
        return tf.math.unsorted_segment_sum(h, graph_ids, self.num_graphs)


if __name__ == "__main__":
    readout = GraphReadout(4, num_graphs=3)
    print(readout(tf.random.normal([6, 3], seed=3), tf.constant([0, 0, 0, 1, 1, 2])).shape)
