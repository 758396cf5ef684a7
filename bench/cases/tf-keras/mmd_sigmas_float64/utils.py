import tensorflow as tf

from .consts import Const


def compute_pairwise_distances(x, y):
    norm = lambda t: tf.reduce_sum(tf.square(t), 1)
    return tf.transpose(norm(tf.expand_dims(x, 2) - tf.transpose(y)))


def gaussian_kernel_matrix(x, y, sigmas):
    beta = 1.0 / (2.0 * tf.expand_dims(tf.cast(sigmas, Const.FLOAT), 1))
    dist = compute_pairwise_distances(x, y)
    s = tf.matmul(beta, tf.reshape(dist, (1, -1)))
    return tf.reshape(tf.reduce_sum(tf.exp(-s), 0), tf.shape(dist))
