# source: https://github.com/tensorflow/tensorflow/issues/47211
# framework: tf
# shape: class
# expect: ok
import tensorflow as tf


class BatchStats(tf.Module):
    @tf.function(jit_compile=True)
    def __call__(self, labels, scores):
        classes, _ = tf.unique(labels)
        n_classes = tf.size(classes)
        hits = tf.where(scores > 0.5)
        return n_classes, tf.shape(hits)[0]


if __name__ == "__main__":
    stats = BatchStats()
    n, k = stats(tf.constant([3, 1, 3, 2, 1]), tf.constant([0.2, 0.9, 0.7, 0.1, 0.6]))
    print(int(n), int(k))
