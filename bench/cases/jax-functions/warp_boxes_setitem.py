# source: https://github.com/jax-ml/jax/issues/7032
# framework: jax
# shape: function
# expect: error TypeError
# hazard: 24 JIT106 `xy[:, [0, 2]] = ...` item assignment on a JAX array inside the jitted warp
# hazard: 25 JIT106 `xy[:, [1, 3]] = ...` item assignment on a JAX array inside the jitted warp

# Affine-warp bounding boxes and clip them to the image, ported from a NumPy
# augmentation pipeline. `n` comes from len(), so the `if n:` is static.
import jax
import jax.numpy as jnp


def warp_boxes(boxes, M, width, height):
    n = len(boxes)
    if n:
        xy = jnp.ones((n * 4, 3))
        xy = xy.at[:, :2].set(boxes[:, [0, 1, 2, 3, 0, 3, 2, 1]].reshape(n * 4, 2))
        xy = xy @ M.T
        xy = (xy[:, :2] / xy[:, 2:3]).reshape(n, 8)
        x = xy[:, [0, 2, 4, 6]]
        y = xy[:, [1, 3, 5, 7]]
        xy = jnp.concatenate((x.min(1), y.min(1), x.max(1), y.max(1))).reshape(4, n).T
        xy[:, [0, 2]] = xy[:, [0, 2]].clip(0, width)
        xy[:, [1, 3]] = xy[:, [1, 3]].clip(0, height)
        return xy.astype(jnp.float32)
    return boxes


if __name__ == "__main__":
    boxes = jnp.array([[10.0, 10.0, 50.0, 40.0], [0.0, 5.0, 20.0, 30.0]])
    M = jnp.array([[1.0, 0.1, 2.0], [0.0, 1.0, -3.0], [0.0, 0.0, 1.0]])
    print(jax.jit(warp_boxes)(boxes, M, 64, 48))
