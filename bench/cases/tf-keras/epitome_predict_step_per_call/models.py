import tensorflow as tf


class VariationalPeakModel:
    def __init__(self, n_features=5):
        self.model = tf.keras.Sequential([
            tf.keras.Input((n_features,)),
            tf.keras.layers.Dense(8, activation="relu"),
            tf.keras.layers.Dense(2),
        ])

    def run_predictions(self, batches, n_samples=3):
        @tf.function
        def predict_step(x):
            draws = [tf.nn.sigmoid(self.model(x, training=True)) for _ in range(n_samples)]
            return tf.reduce_mean(tf.stack(draws), axis=0)

        return [predict_step(b) for b in batches]
