# source: https://github.com/YosefLab/epitome/issues/43
# framework: tf
# shape: multi-file
# expect: observed traces=5
# hazard: models.py:13 JIT207 `predict_step` is a tf.function defined inside run_predictions, which is called once per region chunk: a new trace each call
import logging

import numpy as np
import tensorflow as tf

from .models import VariationalPeakModel


class _TraceCounter(logging.Handler):
    def __init__(self):
        super().__init__()
        self.traces = 0

    def emit(self, record):
        if "Creating new FuncGraph for Python function" in record.getMessage():
            self.traces += 1


def main():
    model = VariationalPeakModel()
    rng = np.random.default_rng(0)
    chunks = [[rng.normal(size=(4, 5)).astype("float32")] for _ in range(5)]
    counter = _TraceCounter()
    logger = tf.get_logger()
    saved_handlers, saved_level = logger.handlers[:], logger.level
    logger.handlers = [counter]
    logger.setLevel(1)
    try:
        for chunk in chunks:
            preds = model.run_predictions(chunk)
            print(preds[0].shape)
    finally:
        logger.handlers = saved_handlers
        logger.setLevel(saved_level)
    print(f"observed: traces={counter.traces}")


main()
