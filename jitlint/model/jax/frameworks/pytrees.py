"""Which framework objects are not pytrees, so that `jax.jit` cannot trace them as an
argument (TypeError: Error interpreting argument ... as an abstract array): a Module instance
of a framework whose plug-in says so (flax linen's, a dataclass that jax does not flatten;
haiku's), and the pair of Python functions `hk.transform` returns.

[bench/cases/jax-modules/flax_module_passed_to_jit.py and hk_transform_passed_to_jit.py record
it at run time (jax 0.10.2); tests/test_frameworks.py]
"""

from __future__ import annotations

from jitlint.model.domain import plugins
from jitlint.model.domain.values import Object, Value
from jitlint.model.jax.frameworks import haiku


def not_a_pytree(value: Value) -> str | None:
    """What `value` is, when it is a framework object `jax.jit` cannot take as a traced
    argument; None otherwise or when unsure."""
    if haiku.is_pair(value):
        return haiku.PAIR_DESCRIPTION
    if isinstance(value, Object):
        framework = plugins.plugin(value.cls.kind)
        if framework is not None and framework.not_a_pytree and not value.cls.registered:
            return f"an instance of the {framework.display} Module `{value.cls.name}`"
    return None
