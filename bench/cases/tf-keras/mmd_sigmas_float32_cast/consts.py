import tensorflow as tf


class Const:
    FLOAT = tf.float64
    MMD_SIGMAS = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 5, 10, 15, 20, 25, 30, 35, 100,
                  1e3, 1e4, 1e5, 1e6]
