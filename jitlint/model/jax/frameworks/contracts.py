"""Traced by contract: bodies that a framework's users run under jit although the run shows no
call that does (issue #29).

Library code meets `jax.jit` in its users' scripts: an equinox, flax or haiku module's
`__call__` is written to be called inside a jitted step, and a function decorated with
`eqx.filter_jit` is compiled whoever calls it. With no call site in the run, the model still
interprets such a body, at the traced level, with the arguments its own text states: a
parameter annotated as a JAX array (`x: jax.Array`, `Float[Array, "n"]`, `chex.Array`) is a
traced array; every other parameter stays unknown, and unknown is never an error.

The table is keyed by the framework a class belongs to (`ClassInfo.kind`, from its bases'
qualified names), so a framework is added here, not in an if-chain elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import libcst as cst

from jitlint.model.domain.names import Names


@dataclass(frozen=True)
class Contract:
    """The methods of a framework's modules that its users call under jit."""

    framework: str  # ClassInfo.kind
    methods: frozenset[str]
    says: str  # why the body is traced, for messages: "equinox modules are meant to be"
    # Every public method too (and `__init__`): an equinox module is a pytree whose methods
    # its users call inside `eqx.filter_jit`, and which is often built there.
    public: bool = False

    def traced_methods(self, defined: Iterable[str]) -> set[str]:
        """The methods, of those a class defines, that the contract traces."""
        if not self.public:
            return set(self.methods).intersection(defined)
        return {
            name
            for name in defined
            if name in self.methods or name == "__init__" or not name.startswith("_")
        }


CONTRACTS: dict[str, Contract] = {
    c.framework: c
    for c in (
        Contract(
            "equinox", frozenset({"__call__"}), "equinox modules are meant to be", public=True
        ),
        Contract("linen", frozenset({"__call__"}), "flax modules are meant to be"),
        Contract("nnx", frozenset({"__call__"}), "flax modules are meant to be"),
        Contract(
            "haiku",
            frozenset({"__call__"}),
            "haiku modules run inside `hk.transform`, whose `apply` is meant to be",
        ),
    )
}

# Every method some contract traces: a class defining one may need its base's framework.
CONTRACT_METHODS = frozenset(m for c in CONTRACTS.values() for m in c.methods)

# Annotations that say "a JAX array": under jit such a parameter holds a tracer. `ArrayLike`
# and NumPy's types are left out: they admit Python numbers and host arrays, which
# `eqx.filter_jit` keeps static and a closure keeps concrete.
ARRAY_TYPES = frozenset(
    {
        "jax.Array", "jax.numpy.ndarray", "jaxtyping.Array", "chex.Array",
        "chex.ArrayDevice", "jaxtyping.PRNGKeyArray", "jax.random.KeyArray",
        # The names of jax's array type before `jax.Array` (jax < 0.4.1).
        "jax.numpy.DeviceArray", "jaxlib.xla_extension.DeviceArray",
        "jax.interpreters.xla.DeviceArray",
    }
)  # fmt: skip
# jaxtyping's dtype-and-shape annotations, `Float[Array, "batch dim"]`: an array when their
# first element is one of ARRAY_TYPES.
_JAXTYPING = frozenset(
    "jaxtyping." + name
    for name in (
        "Shaped", "Num", "Inexact", "Real", "Float", "Complex", "Integer", "Int", "UInt",
        "Bool", "Key", "BFloat16", "Float16", "Float32", "Float64", "Int8", "Int16", "Int32",
        "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Complex64", "Complex128",
    )
)  # fmt: skip


def is_array_annotation(
    names: Names, annotation: cst.BaseExpression, path: Sequence[cst.CSTNode]
) -> bool:
    """Whether every meaning of `annotation` is a JAX array type."""
    if type(annotation) is cst.Subscript:
        head = names.qualified_names(annotation.value, path)  # type: ignore[attr-defined]
        elements = annotation.slice  # type: ignore[attr-defined]
        if not head or not head <= _JAXTYPING or not elements:
            return False
        first = elements[0].slice
        return type(first) is cst.Index and is_array_annotation(names, first.value, path)
    if type(annotation) not in (cst.Name, cst.Attribute):
        return False
    found = names.qualified_names(annotation, path)
    return bool(found) and found <= ARRAY_TYPES


def array_params(
    names: Names, func: cst.FunctionDef, path: Sequence[cst.CSTNode]
) -> frozenset[str]:
    """The parameters of `func` annotated as JAX arrays and without a default (a default is a
    value the caller may keep: nothing says it is traced)."""
    p = func.params
    return frozenset(
        x.name.value
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.annotation is not None
        and x.default is None
        and is_array_annotation(names, x.annotation.annotation, path)
    )
