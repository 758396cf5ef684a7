# source: https://www.tensorflow.org/guide/function
# framework: tf
# shape: function
# expect: ok
"""A scoring service that keeps one tf.function per model name: the guide's advice to make a
tf.function once and reuse it, done with a cache filled on first use. The loader is called
for every request, but past the cache hit it never runs again for that name, so each function
traces once however many requests come in."""
import tensorflow as tf

SCORERS = {}
MODELS = {"small": 2.0, "large": 3.0}


def scorer_for(name):
    if name in SCORERS:
        return SCORERS[name]

    @tf.function
    def score(x):
        return tf.reduce_sum(x) * MODELS[name]

    SCORERS[name] = score
    return score


def main():
    requests = [("small", [1.0, 2.0]), ("large", [3.0, 4.0])] * 5
    for name, values in requests:
        scorer_for(name)(tf.constant(values))
    traces = [fn.experimental_get_tracing_count() for fn in SCORERS.values()]
    if traces != [1, 1]:
        raise AssertionError(f"expected one trace per model, got {traces}")


if __name__ == "__main__":
    main()
