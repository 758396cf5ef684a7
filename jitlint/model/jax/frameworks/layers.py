"""Layer constructors of the frameworks whose arguments become array shapes: the sizes of
the parameters they create (`nn.Dense(features)` makes a kernel of shape
`(in, features)`). Under a trace they must be Python ints, like `jnp.zeros(n)`'s `n`
(TypeError: Shapes must be 1D sequences of concrete values of integer type).

Each entry: positions and keywords of the size arguments.
[the signatures are checked against the installed packages by tests/test_frameworks.py]
"""

from __future__ import annotations

SHAPE_PARAMS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "flax.linen.Dense": ((0,), ("features",)),
    "flax.linen.DenseGeneral": ((0,), ("features",)),
    "flax.linen.Conv": ((0, 1), ("features", "kernel_size")),
    "flax.linen.ConvTranspose": ((0, 1), ("features", "kernel_size")),
    "flax.linen.Embed": ((0, 1), ("num_embeddings", "features")),
    "flax.nnx.Linear": ((0, 1), ("in_features", "out_features")),
    "flax.nnx.Conv": ((0, 1, 2), ("in_features", "out_features", "kernel_size")),
    "flax.nnx.Embed": ((0, 1), ("num_embeddings", "features")),
    "haiku.Linear": ((0,), ("output_size",)),
    "haiku.Conv2D": ((0, 1), ("output_channels", "kernel_shape")),
    "haiku.Embed": ((0, 1), ("vocab_size", "embed_dim")),
    "equinox.nn.Linear": ((0, 1), ("in_features", "out_features")),
    "equinox.nn.MLP": ((0, 1, 2, 3), ("in_size", "out_size", "width_size", "depth")),
}
PREFIXES = ("flax.", "haiku.", "equinox.")
