# source: https://github.com/tensorflow/tensorflow/issues/51493
# framework: tf
# shape: class
# expect: error InvalidArgumentError
# hazard: 29 JIT203 `tf.py_function` (EagerPyFunc) reached from Trainer.run, a method decorated with tf.function(jit_compile=True)
import tensorflow as tf


class Dense(tf.Module):
    def __init__(self, input_dim, output_size, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([input_dim, output_size], seed=1), name="w")
        self.b = tf.Variable(tf.zeros([output_size]), name="b")

    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = tf.keras.optimizers.SGD(0.05)

    def compare(self, y_true, y_pred):
        return (y_true - y_pred) ** 2

    def loss_fn(self, x, y_true):
        y_pred = self.model(x)
        per_elem = tf.py_function(self.compare, [y_true, y_pred], tf.float32)
        return tf.reduce_mean(per_elem)

    @tf.function(jit_compile=True)
    def run(self, x, y_true):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(x, y_true)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss


if __name__ == "__main__":
    trainer = Trainer(Dense(2, 4))
    x = tf.constant([[7.0, 3.0]])
    y = tf.ones([1, 4])
    for _ in range(3):
        print(float(trainer.run(x, y)))
