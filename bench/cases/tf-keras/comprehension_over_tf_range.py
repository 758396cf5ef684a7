# source: https://github.com/tensorflow/tensorflow/issues/33308
# framework: tf
# shape: function
# expect: error OperatorNotAllowedInGraphError
# hazard: 18 JIT205 a list comprehension iterates `tf.range(...)`, a symbolic tensor, inside a tf.function
import numpy as np
import tensorflow as tf

# First and last frequency bin of each band.
BAND_EDGES = np.array([[0, 1], [2, 4], [5, 5]])


@tf.function
def bands_to_bins(bands):
    widths = BAND_EDGES[:, 1] - BAND_EDGES[:, 0] + 1
    tiles = [
        tf.tile(tf.expand_dims(bands[:, b, :], axis=1), [1, widths[b], 1])
        for b in tf.range(bands.shape[1])
    ]
    return tf.concat(tiles, axis=1)


print(bands_to_bins(tf.ones([2, 3, 4])).shape)
