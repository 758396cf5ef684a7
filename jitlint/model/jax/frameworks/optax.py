"""optax functions that compute one array with JAX operations: inside traced code their
result is a tracer, whatever they were given (`float(optax.global_norm(grads))` inside
`jax.jit` raises ConcretizationTypeError).

[observed on jax 0.10.2, optax 0.2.8; tests/test_frameworks.py checks each under jax.jit]
"""

from __future__ import annotations

from jitlint.model.domain.plugins import FrameworkPlugin

ARRAY_RESULTS = frozenset(
    f"optax.{name}"
    for name in (
        "global_norm", "tree.norm", "safe_norm", "safe_root_mean_squares", "l2_loss",
        "squared_error", "huber_loss", "log_cosh", "cosine_similarity", "cosine_distance",
        "softmax_cross_entropy", "softmax_cross_entropy_with_integer_labels",
        "sigmoid_binary_cross_entropy", "hinge_loss", "kl_divergence",
    )
)  # fmt: skip

PLUGIN = FrameworkPlugin(
    "optax",
    "optax",
    packages=("optax",),
    # The few that real code concretizes (optax 0.2), computed like a jax function.
    jax_calls=frozenset(
        {"optax.global_norm", "optax.tree_utils.tree_l2_norm", "optax.apply_updates"}
    ),
    pytree_results=frozenset({"optax.apply_updates"}),
    array_results=ARRAY_RESULTS,
)
