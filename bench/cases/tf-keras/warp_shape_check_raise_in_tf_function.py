# source: https://github.com/tensorflow/addons/issues/138
# framework: tf
# shape: function
# expect: error ValueError
# hazard: 18 JIT205 `raise` in a branch of an autographed `if` on `tf.shape(grid)[1] < 2`
import tensorflow as tf


@tf.function
def sample_bilinear(grid, points):
    """Samples a [batch, height, width, channels] grid at fractional (y, x) points.

    The grid needs two rows and two columns to interpolate between; the check is written
    as plain Python, which tf.function's autograph turns into a tf.cond.
    """
    height = tf.shape(grid)[1]
    if height < 2:
        raise ValueError("the grid needs at least 2 rows")
    floor = tf.floor(points)
    alpha = points - floor
    top = tf.cast(tf.clip_by_value(floor, 0.0, tf.cast(height - 2, tf.float32)), tf.int32)
    upper = tf.gather(grid, top[..., 0], axis=1, batch_dims=1)
    lower = tf.gather(grid, top[..., 0] + 1, axis=1, batch_dims=1)
    return upper + alpha[..., :1, None] * (lower - upper)


grid = tf.random.uniform([1, 4, 4, 1])
points = tf.constant([[[1.5, 2.0]]])
print(sample_bilinear(grid, points).shape)
