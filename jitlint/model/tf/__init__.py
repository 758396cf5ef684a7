"""The TensorFlow/Keras model: graph and XLA contexts, tensor values, dtypes."""
