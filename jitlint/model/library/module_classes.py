"""The module classes flax linen and haiku export, as shipped data.

`scripts/gen_framework_modules.py` writes `jitlint/data/framework_modules.json` from the
installed frameworks; a test checks that the shipped file is what the script produces.
Nothing here imports a framework.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jitlint.model.library import shipped_json

FACTS_FILE = "framework_modules.json"


@cache
def _raw() -> dict[str, Any]:
    return shipped_json(FACTS_FILE)


@cache
def framework_of_class(qualname: str) -> str | None:
    """The plug-in kind (the data file's key) when `qualname` (`flax.linen.Dense`) is a
    module class of that framework that holds parameters or state; None otherwise
    (`haiku.Flatten` holds none)."""
    raw = _raw()
    if qualname in raw["stateless"]:
        return None
    for framework, classes in raw.items():  # a framework's kind -> its module classes
        if framework != "stateless" and isinstance(classes, list) and qualname in classes:
            return framework
    return None
