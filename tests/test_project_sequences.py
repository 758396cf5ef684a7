"""A Python list or tuple passed by traced code to a helper of another file
(model/jax/crossfile/records.py PY_LIST/PY_TUPLE): indexing it there with a tracer is a
concretization error (JIT102), as it would be in the caller's own file."""

from __future__ import annotations

import pytest
from test_project import check, where, write

HELPER = """\
import jax.numpy as jnp


def pick(scores, candidates):
    order = jnp.argsort(scores)
    return [candidates[i] for i in order]
"""


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("list(NAMES)", [("pkg/helper.py", 6, "JIT102")]),
        ("NAMES", [("pkg/helper.py", 6, "JIT102")]),  # a tuple
        # An array is indexed by tracers without trouble.
        ("jnp.arange(3)", []),
        # Something the model does not know may be an array.
        ("table", []),
    ],
)
def test_a_python_sequence_reaches_a_helper_of_another_file(tmp_path, given, expected):
    step = f"""\
import jax
import jax.numpy as jnp

from .helper import pick

NAMES = ("a", "b", "c")


@jax.jit
def step(scores, table):
    return pick(scores, {given})
"""
    files = {"pkg/__init__.py": "", "pkg/helper.py": HELPER, "pkg/step.py": step}
    _, found, err = check(write(tmp_path, files))
    assert err == ""
    assert where(found) == expected


def test_callers_that_disagree_leave_the_type_unknown(tmp_path):
    step = """\
import jax

from .helper import pick


@jax.jit
def first(scores):
    return pick(scores, ["a", "b"])


@jax.jit
def second(scores, table):
    return pick(scores, table)
"""
    files = {"pkg/__init__.py": "", "pkg/helper.py": HELPER, "pkg/step.py": step}
    _, found, err = check(write(tmp_path, files))
    assert err == ""
    assert found == []
