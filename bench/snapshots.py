"""What the benchmarks copy out of a project's git snapshot besides its Python files."""

from __future__ import annotations


def declares_versions(path: str) -> bool:
    """A file where a project declares the framework versions it targets, as jitlint reads
    them (`pyproject.toml`, `requirements*.txt`): users lint their tree with it, so the
    benchmarks do too."""
    name = path.rsplit("/", 1)[-1]
    return name == "pyproject.toml" or (name.startswith("requirements") and name.endswith(".txt"))
