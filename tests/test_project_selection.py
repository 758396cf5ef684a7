"""`--select` filters findings; it never changes what the project pass analyses.

A file sends its records whatever is selected: a caller whose text fails the selected rule's
text gate still says that it traces another file's helper."""

from __future__ import annotations

import pytest
from test_project import check, where, write

# The caller mentions neither NumPy (JIT104's gate) nor anything of JIT206's gate.
JAX_FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": """\
        import numpy as np


        def helper(x):
            return np.sin(x)
        """,
    "pkg/b.py": """\
        import jax

        from pkg.a import helper

        f = jax.jit(helper)
        """,
}
TF_FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": """\
        import tensorflow as tf


        def helper(x):
            v = tf.Variable(1.0)
            return x * v
        """,
    "pkg/b.py": """\
        import tensorflow as tf

        from pkg.a import helper


        @tf.function
        def step(x):
            return helper(x)
        """,
}


@pytest.mark.parametrize(
    ("files", "code", "line"), [(JAX_FILES, "JIT104", 5), (TF_FILES, "JIT206", 5)]
)
def test_a_selected_rule_finds_what_the_whole_run_finds(tmp_path, files, code, line):
    root = write(tmp_path, files)
    _, everything, _ = check(root, "--select", "ALL", "pkg")
    _, selected, _ = check(root, "--select", code, "pkg")
    expected = [("pkg/a.py", line, code)]
    assert [w for w in where(everything) if w[2] == code] == expected
    assert where(selected) == expected


def test_an_unrelated_selection_still_finds_nothing(tmp_path):
    root = write(tmp_path, JAX_FILES)
    _, selected, _ = check(root, "--select", "JIT301", "pkg")
    assert selected == []
