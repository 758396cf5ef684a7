# source: https://github.com/N3PDF/vegasflow/issues/84
# framework: tf
# shape: function
# expect: observed traces=6
# hazard: 15 JIT207 tf.function `while_check` is created inside refine_grid_per_dimension, which is called once per dimension in a loop
# hazard: 19 JIT207 tf.function `while_body` is created inside the same per-dimension function
import logging

import tensorflow as tf


def refine_grid_per_dimension(weights, n_bins):
    avg = tf.reduce_sum(weights) / n_bins

    @tf.function
    def while_check(i, acc, edges):
        return i < tf.shape(weights)[0]

    @tf.function
    def while_body(i, acc, edges):
        acc = acc + weights[i]
        crossed = acc >= avg
        edges = edges + tf.cast(crossed, tf.int32)
        acc = tf.where(crossed, acc - avg, acc)
        return i + 1, acc, edges

    _, _, edges = tf.while_loop(while_check, while_body, [tf.constant(0), tf.constant(0.0), tf.constant(0)])
    return edges


class _TraceCounter(logging.Handler):
    def __init__(self):
        super().__init__()
        self.traces = 0

    def emit(self, record):
        if "Creating new FuncGraph for Python function" in record.getMessage():
            self.traces += 1


def main():
    grid_weights = tf.random.uniform([3, 20], seed=0)
    counter = _TraceCounter()
    logger = tf.get_logger()
    saved_handlers, saved_level = logger.handlers[:], logger.level
    logger.handlers = [counter]
    logger.setLevel(1)
    try:
        for dim in range(3):
            print(int(refine_grid_per_dimension(grid_weights[dim], 5.0)))
    finally:
        logger.handlers = saved_handlers
        logger.setLevel(saved_level)
    print(f"observed: traces={counter.traces}")


if __name__ == "__main__":
    main()
