"""Classes whose fields are declared in the class body and set by a generated `__init__`:
Python's dataclasses and NamedTuples, and the pytree dataclasses of flax (`flax.struct`) and
chex. They sit on the plug-in table with the frameworks, keyed by their kind, because the
model asks the same questions of them: is an instance a pytree, which fields are static,
how does it hash.

[bench/cases/jax-pytrees/ and tests/test_pytree_fields.py]
"""

from __future__ import annotations

from jitlint.model.domain.plugins import HASH_FIELDS, FieldHelper, FrameworkPlugin

FLAX_STRUCT = FrameworkPlugin(
    "flax.struct",
    "flax struct",
    packages=("flax",),
    class_bases=frozenset({"flax.struct.PyTreeNode"}),
    class_decorators=frozenset({"flax.struct.dataclass"}),
    generated_init=True,
    post_init=True,
    pytree=True,
    declared_leaves=True,
    field_helpers=(FieldHelper("flax.struct.field", "pytree_node", False),),
    hash_by=HASH_FIELDS,  # a frozen dataclass hashes the tuple of its fields
)
DATACLASS = FrameworkPlugin(
    "dataclass",
    "dataclass",
    class_decorators=frozenset({"dataclasses.dataclass"}),
    generated_init=True,
    post_init=True,
    hash_by=HASH_FIELDS,
    dataclass_options=True,
)
CHEX = FrameworkPlugin(
    "chex",
    "chex dataclass",
    packages=("chex",),
    class_decorators=frozenset({"chex.dataclass"}),
    generated_init=True,
    pytree=True,
)
NAMEDTUPLE = FrameworkPlugin(
    "namedtuple",
    "NamedTuple",
    class_bases=frozenset({"typing.NamedTuple"}),
    generated_init=True,
    pytree=True,
    declared_leaves=True,
)
PLUGINS = (FLAX_STRUCT, DATACLASS, CHEX, NAMEDTUPLE)
