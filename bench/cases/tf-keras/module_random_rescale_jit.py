# source: https://github.com/tensorflow/tensorflow/issues/51693
# framework: tf
# shape: class
# expect: error InvalidArgumentError
# hazard: 21 JIT202 `tf.image.resize` with a size computed from a random scale: ResizeBilinear's size must be a compile-time constant under jit_compile=True
import tensorflow as tf


class MultiScaleEncoder(tf.Module):
    """Multi-scale training: every step encodes the batch at a random resolution."""

    def __init__(self, channels=4):
        super().__init__()
        self.filters = tf.Variable(tf.random.normal([3, 3, 1, channels], stddev=0.1, seed=0))

    @tf.function(jit_compile=True)
    def __call__(self, images):
        base = tf.shape(images)[1]
        scale = tf.random.uniform([], 1, 3, dtype=tf.int32)
        size = base * scale
        resized = tf.image.resize(images, [size, size])
        feats = tf.nn.relu(tf.nn.conv2d(resized, self.filters, strides=1, padding="SAME"))
        return tf.reduce_mean(feats, axis=[1, 2])


if __name__ == "__main__":
    enc = MultiScaleEncoder()
    batch = tf.random.uniform([2, 8, 8, 1], seed=1)
    print(enc(batch).shape)
