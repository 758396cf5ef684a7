"""TensorFlow and Keras rules (JIT2xx)."""
