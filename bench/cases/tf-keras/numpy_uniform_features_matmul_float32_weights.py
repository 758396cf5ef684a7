# source: https://m.17golang.com/article/414882.html
# framework: tf
# shape: function
# expect: error InvalidArgumentError
# hazard: 16 JIT201 the raw NumPy float64 batch is tf.matmul's first argument: converted on its own to float64, it meets the float32 weights
import numpy as np
import tensorflow as tf

N_IN, N_OUT = 4, 2
weights = tf.Variable(tf.random.normal([N_IN, N_OUT], stddev=0.1))
bias = tf.Variable(tf.zeros([N_OUT]))


def predict(batch_size):
    batch = np.random.uniform(-1.0, 1.0, size=(batch_size, N_IN))
    logits = tf.matmul(batch, weights) + bias
    return tf.nn.softmax(logits)


print(predict(3).numpy())
