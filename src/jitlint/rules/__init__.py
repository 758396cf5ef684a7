"""The rule catalogue. Every module in this package defining a `Rule` subclass registers it."""

from __future__ import annotations

import importlib
import pkgutil

from jitlint.rules.base import REGISTRY, Rule

_loaded = False


def all_rules() -> dict[str, type[Rule]]:
    """Every registered rule by code, sorted; modules are imported on first call."""
    global _loaded
    if not _loaded:
        for info in pkgutil.iter_modules(__path__):
            if info.name != "base":
                importlib.import_module(f"{__name__}.{info.name}")
        _loaded = True
    return dict(sorted(REGISTRY.items()))


__all__ = ["Rule", "all_rules"]
