import numpy as np
import tensorflow as tf


def clipped_residuals(y_true, y_pred, q=90):
    """Clips residuals at their q-th percentile (robust regression)."""
    res = tf.abs(y_true - y_pred)
    cap = np.percentile(res, q)
    return tf.minimum(res, cap)
