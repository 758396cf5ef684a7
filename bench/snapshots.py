"""What the benchmarks copy out of a project's git snapshot besides its Python files."""

from __future__ import annotations


def declares_versions(path: str) -> bool:
    """A file where a project declares the framework versions it targets, as jitlint reads
    them (`pyproject.toml`, `requirements*.txt`; `TF_USE_LEGACY_KERAS` in CI workflows,
    `tox.ini`, `setup.cfg`): users lint their tree with it, so the benchmarks do too."""
    name = path.rsplit("/", 1)[-1]
    if path.startswith(".github/workflows/") and name.endswith((".yml", ".yaml")):
        return True  # where TF_USE_LEGACY_KERAS asks for Keras 2, as do tox.ini and setup.cfg
    return name in ("pyproject.toml", "tox.ini", "setup.cfg") or (
        name.startswith("requirements") and name.endswith(".txt")
    )
