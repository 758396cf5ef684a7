"""Which values JAX can hash: a static argument of a jitted function (and the function
itself) is a key of jit's compilation cache, and hashing fails for lists, dicts, arrays and
instances of classes that cannot be hashed."""

from __future__ import annotations

import libcst as cst

from jitlint.model.domain import plugins
from jitlint.model.domain.values import STATIC, Array, Dict, Object, Seq, Value


def unhashable(value: Value, depth: int = 0) -> str | None:
    """Why JAX cannot hash `value` as a static argument (a short phrase), or None when it
    can or the model does not know."""
    if depth > 3:
        return None
    if isinstance(value, Seq):
        if value.pytype == "list":
            return "a list"
        if value.pytype == "tuple" and value.items is not None:
            for item in value.items:
                inner = unhashable(item, depth + 1)
                if inner is not None:
                    return f"a tuple containing {inner}"
        return None
    if isinstance(value, Dict):
        return "a dict"
    if isinstance(value, Array):
        # A tracer's `__hash__` raises too (TypeError: unhashable type).
        return "a tracer" if value.traced and value.jax else "an array"
    if type(value) is Value and value.kind == STATIC and value.pytype in ("list", "dict"):
        return f"a {value.pytype}"
    if isinstance(value, Object):
        return _unhashable_instance(value, depth)
    return None


def _unhashable_instance(obj: Object, depth: int) -> str | None:
    cls = obj.cls
    name = f"`{cls.name}`"
    framework = plugins.plugin(cls.kind)
    if framework is not None and framework.dataclass_options:
        options = cls.decorator_options
        if _flag(options, "unsafe_hash", False) or not _flag(options, "eq", True):
            return None  # `eq=False` leaves object's hash: by identity
        if not _flag(options, "frozen", False):
            return (
                f"an instance of {name}, a dataclass with `eq=True` and no `frozen=True` (its "
                "`__hash__` is None)"
            )
    if framework is not None and framework.hash_by is not None:
        # equinox hashes the module's leaves; a frozen dataclass (flax.struct's too) hashes
        # the tuple of its fields.
        check = _unhashable_leaf if framework.hash_by == plugins.HASH_LEAVES else unhashable
        for field_name, field in obj.fields.items():
            inner = check(field, depth + 1)
            if inner is not None:
                return f"an instance of {name}, whose field `{field_name}` holds {inner}"
        return None
    if not cls.closed:
        return None
    # Python sets `__hash__ = None` in a class that defines `__eq__` but not `__hash__`.
    for owner in cls.mro:
        if "__hash__" in owner.methods:
            return None
        if "__hash__" in owner.attributes:
            expr = owner.attributes["__hash__"]
            if type(expr) is cst.Name and expr.value == "None":  # type: ignore[attr-defined]
                return f"an instance of {name}, whose `__hash__` is None"
            return None
        if "__eq__" in owner.methods:
            return f"an instance of {name}, which defines `__eq__` but not `__hash__`"
    return None


def _unhashable_leaf(value: Value, depth: int) -> str | None:
    """An unhashable leaf of a pytree (lists and dicts are nodes, not leaves)."""
    if depth > 4:
        return None
    if isinstance(value, Array):
        return "an array"
    if isinstance(value, Seq) and value.items is not None:
        return next((r for v in value.items if (r := _unhashable_leaf(v, depth + 1))), None)
    if isinstance(value, Dict) and value.entries is not None:
        return next(
            (r for v in value.entries.values() if (r := _unhashable_leaf(v, depth + 1))), None
        )
    if isinstance(value, Object) and _hashes_leaves(value.cls.kind):
        return next(
            (r for v in value.fields.values() if (r := _unhashable_leaf(v, depth + 1))), None
        )
    return None


def _hashes_leaves(kind: str | None) -> bool:
    found = plugins.plugin(kind)
    return found is not None and found.hash_by == plugins.HASH_LEAVES


def _flag(options: dict[str, cst.BaseExpression], name: str, default: bool) -> bool:
    expr = options.get(name)
    if expr is None:
        return default
    if type(expr) is cst.Name and expr.value in ("True", "False"):  # type: ignore[attr-defined]
        return expr.value == "True"  # type: ignore[attr-defined]
    return not default  # a computed flag: assume the safe reading


def unfrozen_dataclass(value: Value) -> str | None:
    """The class of `value` when it is an instance of a dataclass whose `__hash__` is None
    (`eq=True`, no `frozen=True`, no `unsafe_hash`): freezing the class makes it hashable."""
    # The same test as `_unhashable_instance`'s, asked of the value rather than its phrase.
    framework = plugins.plugin(value.cls.kind) if isinstance(value, Object) else None
    if framework is None or not framework.dataclass_options:
        return None
    options = value.cls.decorator_options
    if _flag(options, "unsafe_hash", False) or not _flag(options, "eq", True):
        return None
    return None if _flag(options, "frozen", False) else value.cls.name
