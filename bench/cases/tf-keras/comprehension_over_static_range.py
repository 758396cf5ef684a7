# source: https://github.com/tensorflow/tensorflow/issues/33308
# framework: tf
# shape: function
# expect: ok
import numpy as np
import tensorflow as tf

# First and last frequency bin of each band.
BAND_EDGES = np.array([[0, 1], [2, 4], [5, 5]])


@tf.function
def bands_to_bins(bands):
    # The fix from the thread: a Python range over the static band count, unrolled while
    # tracing.
    widths = BAND_EDGES[:, 1] - BAND_EDGES[:, 0] + 1
    tiles = [
        tf.tile(tf.expand_dims(bands[:, b, :], axis=1), [1, widths[b], 1])
        for b in range(bands.shape[1])
    ]
    return tf.concat(tiles, axis=1)


print(bands_to_bins(tf.ones([2, 3, 4])).shape)
