"""Jupyter notebooks: code cells linted and fixed as one Python text, reported per cell."""

NOTEBOOK_SUFFIX = ".ipynb"


def is_notebook(path: str | None) -> bool:
    """Whether `path` (a file, or the name given to stdin) names a notebook."""
    return path is not None and path.lower().endswith(NOTEBOOK_SUFFIX)
