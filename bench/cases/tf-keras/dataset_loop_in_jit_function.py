# source: https://github.com/tensorflow/tensorflow/issues/43665
# framework: tf
# shape: function
# expect: error InvalidArgumentError
# hazard: 16 JIT203 iterating a tf.data.Dataset inside tf.function(jit_compile=True): dataset ops (ScanDataset/ReduceDataset) have no XLA kernel
import tensorflow as tf

features = tf.random.normal([12, 4], seed=7)
dataset = tf.data.Dataset.from_tensor_slices(features).batch(4)


@tf.function(jit_compile=True)
def dataset_mean(w):
    total = tf.zeros([4])
    count = tf.constant(0.0)
    for batch in dataset:
        total += tf.reduce_sum(batch * w, axis=0)
        count += tf.cast(tf.shape(batch)[0], tf.float32)
    return total / count


if __name__ == "__main__":
    print(dataset_mean(tf.ones([4])).numpy())
