"""A fix as a rule states it, before the engine positions it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from jitlint.diagnostics import Applicability


@dataclass(frozen=True)
class NodeFix:
    """A fix as a rule states it: replace nodes by source text, maybe add imports.

    The engine turns it into positioned `Edit`s. `imports` are whole statements such as
    "import jax.numpy as jnp"; use `FileContext.import_name` to reuse an alias the module
    already has. A replacement's text stands exactly where the node's own text stood
    (no surrounding whitespace); continuation lines must carry their own indentation.
    """

    applicability: Applicability
    message: str
    replacements: tuple[tuple[cst.CSTNode, str], ...]
    imports: tuple[str, ...] = ()
