# source: https://github.com/zhanshicu/rnn_simulator1/blob/5fa7faf57ff90382f381b740995113c63c73dea2/COMPREHENSIVE_FIX_SUMMARY.md
# framework: tf
# shape: multi-file
# expect: ok
import numpy as np
import tensorflow as tf

from .consts import Const
from .losses import mmd_loss


@tf.function(jit_compile=True)
def latent_loss(z_prior, z_post):
    return mmd_loss(z_prior, z_post, 1.0)


def main():
    rng = np.random.default_rng(0)
    prior = tf.constant(rng.normal(size=(64, 3)), dtype=Const.FLOAT)
    post = tf.constant(rng.normal(size=(32, 3)) + 0.3, dtype=Const.FLOAT)
    print("jit mmd:", float(latent_loss(prior, post)))
    print("eager mmd:", float(mmd_loss(prior, post, 1.0)))


main()
