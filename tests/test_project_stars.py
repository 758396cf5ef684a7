"""Modules that re-export another module whole (model/jax/crossfile/stars.py): a backend module
holding `from jax.numpy import *` is jax.numpy to the files that import it, so `B.all(mask)`
in traced code is a tracer. A star under `if TYPE_CHECKING:`, a second star, a relative star,
or a name the module binds itself is not the star's: those names stay unknown."""

from __future__ import annotations

import libcst as cst
import pytest
from test_project import check, where, write

from jitlint.model.jax.crossfile import stars
from jitlint.python.names import Names, public_names, star_source

STEP = """
import jax

from . import backend as B
from .backend import any as any_of


@jax.jit
def step(x):
    if B.all(x > 0):
        x = -x
    if any_of(x < 0):
        x = x * 2
    return x
"""


@pytest.mark.parametrize(
    ("backend", "expected"),
    [
        ("from jax.numpy import *  # noqa: F403\n", [10, 12]),
        # The module's own `all` is not jax.numpy's.
        ("from jax.numpy import *\n\n\ndef all(x):\n    return True\n", [12]),
        # Only for type checkers: at run time the module has none of these names.
        (
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from jax.numpy import *\n",
            [],
        ),
        # Two stars: which one a name comes from depends on both modules.
        ("from jax.numpy import *\nfrom numpy import *\n", []),
        ("import jax.numpy as jnp\n\nall = jnp.all\n", []),
    ],
)
def test_a_backend_module_that_star_imports_jax_numpy(tmp_path, backend, expected):
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/backend.py": backend, "pkg/step.py": STEP})
    _, found, err = check(root)
    assert err == ""
    assert where(found) == [("pkg/step.py", line, "JIT101") for line in expected]


def test_the_file_alone_knows_nothing_of_the_backend(tmp_path):
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/step.py": STEP})
    _, found, _ = check(root)
    assert where(found) == []


def test_the_star_fact_and_its_answers():
    names = Names(cst.parse_module("from jax.numpy import *\n\nscale = 2.0\n"))
    assert star_source(names) == ("jax.numpy", frozenset({"scale"}))
    (record,) = stars.exports(names)
    facts = {record.target: record.status}

    def outside(path: str, module: str) -> None:
        return None  # no module is a file of the run

    assert stars.answer("m.py", facts, "linalg.norm", outside) == (
        "jax:alias:jax.numpy.linalg.norm"
    )
    assert stars.answer("m.py", facts, "scale", outside) is None
    assert stars.answer("m.py", facts, "", outside) is None
    assert star_source(Names(cst.parse_module("from .core import *\n"))) == (".core", frozenset())
    assert star_source(Names(cst.parse_module("from a import *\nfrom b import *\n"))) is None
    assert public_names(Names(cst.parse_module("__all__ = ['f', 'g']\n"))) == {"f", "g"}
    assert public_names(Names(cst.parse_module("x = 1\n"))) is None
    assert public_names(Names(cst.parse_module("__all__ = ['f']\n__all__ += ['g']\n"))) == set()


CHAIN_STEP = """
import jax

import pkg.ops as B


@jax.jit
def step(x):
    if B.all(x > 0):
        x = -x
    if B.any(x < 0):
        x = x * 2
    return x
"""


@pytest.mark.parametrize(
    ("ops", "expected"),
    [
        ("from ._backend import *\n", [9, 11]),
        # `__all__` of the module star-imported decides what the star takes from it.
        ("from ._backend import *\n", [9]),
        # A module of the run that defines the name itself: not jax.numpy's.
        ("from ._local import *\n", []),
    ],
)
def test_star_imports_chained_through_modules_of_the_run(tmp_path, ops, expected):
    backend = "from jax.numpy import *\n"
    if expected == [9]:
        backend += '\n__all__ = ["all"]\n'
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/_backend.py": backend,
            "pkg/_local.py": "def all(x):\n    return True\n\n\ndef any(x):\n    return True\n",
            "pkg/ops.py": ops,
            "pkg/step.py": CHAIN_STEP,
        },
    )
    _, found, err = check(root)
    assert err == ""
    assert where(found) == [("pkg/step.py", line, "JIT101") for line in expected]
