"""Calls made in Python in another file (model/project/outbound.py `_python_calls`): a
number, a bool or a `jnp` array passed to a jitted function or method becomes a tracer, also
for a parameter with a default, which alone says nothing about what callers pass."""

from __future__ import annotations

import pytest
from test_project import check, where, write

MODEL = """\
import functools

import jax
import jax.numpy as jnp


class Stepper:
    def __init__(self, scale):
        self.scale = scale

    @functools.partial(jax.jit, static_argnames=["self"])
    def step(self, x, t=None):
        t = t or 0.0
        return x * t

    def plain(self, x, t=None):
        return x * (t or 0.0)


@jax.jit
def advance(x, t=None):
    if t:
        return x + 1
    return x


class Helper:
    @staticmethod
    @jax.jit
    def scale(x, flag=None):
        if flag:
            return x
        return -x
"""


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        # A method of an instance of the other file's class, given a jnp array.
        ("s.step(x, t=jnp.float32(0.5))", [("pkg/model.py", 13, "JIT101")]),
        ("s.step(x, jnp.float32(0.5))", [("pkg/model.py", 13, "JIT101")]),
        # A jitted function given a number for its defaulted parameter.
        ("advance(x, 2.0)", [("pkg/model.py", 22, "JIT101")]),
        # Left at its default, or given an unknown Python value: nothing known.
        ("s.step(x)", []),
        ("s.step(x, t=options.t)", []),
        ("advance(x, t=options.t)", []),
        # Not jitted: a Python `or` on a concrete array is fine.
        ("s.plain(x, t=jnp.float32(0.5))", []),
        # `jnp.shape` gives a tuple, not one array.
        ("advance(x, jnp.shape(x))", []),
        # A static method receives no instance: 2.0 is `x`, `flag` keeps its default.
        ("Helper().scale(2.0); h = Helper(); h.scale(2.0)", []),
    ],
)
def test_python_callers_in_another_file(tmp_path, calls, expected):
    main = f"""\
import jax.numpy as jnp

from .model import Helper, Stepper, advance


def main(options):
    s = Stepper(2.0)
    x = jnp.ones(3)
    {calls}
"""
    files = {"pkg/__init__.py": "", "pkg/model.py": MODEL, "pkg/main.py": main}
    _, found, err = check(write(tmp_path, files))
    assert err == ""
    assert where(found) == expected


def test_an_instance_rebound_to_something_else_is_not_followed(tmp_path):
    main = """\
import jax.numpy as jnp

from .model import Stepper


def main(other):
    s = Stepper(2.0)
    if other is not None:
        s = other
    s.step(jnp.ones(3), t=jnp.float32(0.5))
"""
    files = {"pkg/__init__.py": "", "pkg/model.py": MODEL, "pkg/main.py": main}
    _, found, err = check(write(tmp_path, files))
    assert err == ""
    assert found == []


def test_the_message_names_the_python_caller(tmp_path):
    main = """\
import jax.numpy as jnp

from .model import Stepper


def main():
    s = Stepper(2.0)
    s.step(jnp.ones(3), t=jnp.float32(0.5))
"""
    files = {"pkg/__init__.py": "", "pkg/model.py": MODEL, "pkg/main.py": main}
    _, found, _ = check(write(tmp_path, files))
    assert "`main` (pkg/main.py:8) passes it a number or an array" in str(found[0]["message"])
