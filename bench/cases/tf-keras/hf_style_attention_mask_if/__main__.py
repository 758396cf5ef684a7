# source: https://github.com/huggingface/transformers/pull/9478
# framework: tf
# shape: multi-file
# expect: error OperatorNotAllowedInGraphError
# hazard: modeling_utils.py:12 JIT205 `if` on a tensor in a helper called from TinyEncoder.call; Keras 3 traces call without AutoGraph
import numpy as np
import tensorflow as tf

from .modeling_tiny import TinyEncoder


def main():
    rng = np.random.default_rng(0)
    ids = rng.integers(1, 50, size=(8, 6))
    ids[:4, 4:] = 0
    labels = rng.integers(0, 2, size=(8,))
    model = TinyEncoder()
    model.compile(optimizer="adam",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(ids, labels, batch_size=4, epochs=1, verbose=0)
    print("ok")


main()
