"""jitlint: find JIT/XLA compilation hazards in JAX and TensorFlow code before it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jitlint.version import __version__

if TYPE_CHECKING:
    from jitlint.api import fix_source as fix_source
    from jitlint.api import lint_source as lint_source


def __getattr__(name: str) -> object:
    # The API pulls in libcst; keep `import jitlint` itself cheap (e.g. for --version).
    if name in ("lint_source", "fix_source"):
        from jitlint import api

        return getattr(api, name)
    raise AttributeError(name)


__all__ = ["__version__", "fix_source", "lint_source"]
