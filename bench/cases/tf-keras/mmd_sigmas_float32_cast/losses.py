import tensorflow as tf

from .consts import Const
from .utils import gaussian_kernel_matrix


def maximum_mean_discrepancy(x, y, kernel):
    cost = tf.reduce_mean(kernel(x, x))
    cost += tf.reduce_mean(kernel(y, y))
    cost -= 2 * tf.reduce_mean(kernel(x, y))
    return tf.where(cost > 0, cost, tf.zeros_like(cost))


def mmd_loss(source_samples, target_samples, weight):
    sigmas = tf.constant(Const.MMD_SIGMAS)
    kernel = lambda a, b: gaussian_kernel_matrix(a, b, sigmas)
    return weight * maximum_mean_discrepancy(source_samples, target_samples, kernel), sigmas
