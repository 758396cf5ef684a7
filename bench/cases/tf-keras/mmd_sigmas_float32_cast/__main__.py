# source: https://github.com/zhanshicu/rnn_simulator1/blob/5fa7faf57ff90382f381b740995113c63c73dea2/COMPREHENSIVE_FIX_SUMMARY.md
# framework: tf
# shape: multi-file
# expect: observed inexact=6
# hazard: losses.py:15 JIT201 `tf.constant(Const.MMD_SIGMAS)` without dtype builds float32 bandwidths that utils.py then casts to Const.FLOAT (float64): 6 of the 19 values (1e-6 ... 0.1) change
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
    loss, sigmas = latent_loss(prior, post)
    print("mmd:", float(loss))
    used = tf.cast(sigmas, Const.FLOAT).numpy()
    inexact = int(np.sum(used != np.asarray(Const.MMD_SIGMAS, dtype=np.float64)))
    print(f"observed: inexact={inexact}")


main()
