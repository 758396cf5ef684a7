# source: https://github.com/fastmachinelearning/hls4ml/issues/359
# framework: tf
# shape: function
# expect: ok
"""Profiling each layer's output: one intermediate model per layer, each built from that
layer and predicted with once. Every model is a different one, so each traces once; nothing
is traced again for the same model."""
import numpy as np
import tensorflow as tf


def build():
    inputs = tf.keras.Input((8,))
    hidden = tf.keras.layers.Dense(4, name="hidden")(inputs)
    outputs = tf.keras.layers.Dense(1, name="out")(hidden)
    return tf.keras.Model(inputs, outputs)


def layer_outputs(model, x):
    found = {}
    for layer in model.layers[1:]:
        partial = tf.keras.Model(inputs=model.input, outputs=layer.output)
        found[layer.name] = partial.predict(x, verbose=0)
    return found


def main():
    model = build()
    for name, value in layer_outputs(model, np.ones((2, 8), np.float32)).items():
        print(name, value.shape)


if __name__ == "__main__":
    main()
