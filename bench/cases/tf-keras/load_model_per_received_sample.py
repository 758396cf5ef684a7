# source: https://github.com/tensorflow/tensorflow/issues/43501
# framework: tf
# shape: function
# expect: observed traces=3
# hazard: 27 JIT207 `prediction` loads the saved model on every call, once per received sample, so each call traces a new predict function
"""A service that loads its saved model inside the prediction function it calls for every
sample it receives."""
import os
import tempfile

import numpy as np
import tensorflow as tf

MODEL_PATH = os.path.join(tempfile.mkdtemp(), "model.keras")
PREDICT_FUNCTIONS = []


def save_model():
    model = tf.keras.Sequential([
        tf.keras.Input((8,)),
        tf.keras.layers.Dense(1),
    ])
    model.save(MODEL_PATH)


def prediction(signal):
    new_model = tf.keras.models.load_model(MODEL_PATH)
    test_output = new_model.predict(signal, verbose=0)
    PREDICT_FUNCTIONS.append(new_model.predict_function)
    return test_output


def main():
    save_model()
    for k in range(3):
        prediction(np.full((1, 8), float(k), np.float32))
    traces = sum(f.experimental_get_tracing_count() for f in PREDICT_FUNCTIONS)
    print(f"observed: traces={traces}")


if __name__ == "__main__":
    main()
