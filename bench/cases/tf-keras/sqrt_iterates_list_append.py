# source: https://tensorflow.org/versions/r2.3/api_docs/python/tf/config/run_functions_eagerly
# framework: tf
# shape: function
# expect: observed appended=10
# hazard: 21 JIT208 `ys.append(y)` on an outer Python list inside a tf.function: it runs during the single trace (10 symbolic entries), not on each of the 3 calls
import tensorflow as tf

ys = []


@tf.function
def bisect_sqrt(x):
    y = x / 2
    d = y
    for _ in range(10):
        d /= 2
        if y * y < x:
            y += d
        else:
            y -= d
        ys.append(y)
    return y


if __name__ == "__main__":
    for v in (2.0, 3.0, 5.0):
        print(float(bisect_sqrt(tf.constant(v))))
    print(f"observed: appended={len(ys)}")
