"""Which framework objects are not pytrees, so that `jax.jit` cannot trace them as an
argument (TypeError: Error interpreting argument ... as an abstract array): a flax linen
Module instance (a dataclass that jax does not flatten), a haiku Module instance, and the
pair of Python functions `hk.transform` returns.

[bench/cases/jax-modules/flax_module_passed_to_jit.py and hk_transform_passed_to_jit.py record
it at run time (jax 0.10.2); tests/test_frameworks.py]
"""

from __future__ import annotations

from jitlint.model.domain.values import Object, Value
from jitlint.model.jax.frameworks import haiku

_MODULE_KINDS = {"linen": "flax linen", "haiku": "haiku"}


def not_a_pytree(value: Value) -> str | None:
    """What `value` is, when it is a framework object `jax.jit` cannot take as a traced
    argument; None otherwise or when unsure."""
    if haiku.is_pair(value):
        return "the `hk.transform` pair, a NamedTuple of two Python functions (`init`, `apply`)"
    if isinstance(value, Object):
        framework = _MODULE_KINDS.get(value.cls.kind or "")
        if framework is not None and not value.cls.registered:
            return f"an instance of the {framework} Module `{value.cls.name}`"
    return None
