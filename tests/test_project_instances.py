"""Instances made in one file of another file's class, whose methods traced code calls: the
method's `self` is the instance the class's own constructor makes from the same arguments
(model/jax/calls.py `Foreign.made_with`, crossfile/records.py `made_with_args`). A field
traced where the maker passed a tracer is a tracer in the method; one made in Python, or
from Python values, is not."""

from __future__ import annotations

import pytest
from test_project import check, where, write

FILTERS = """\
import jax.numpy as jnp


class Kalman:
    def __init__(self, noise, steps=3):
        self.noise = noise
        self.steps = steps

    def run(self, x):
        for _ in range(self.steps):
            x = x * 0.5
        if self.noise > 1.0:
            x = x / self.noise
        return x

    def __call__(self, x):
        return jnp.zeros(self.steps) + x

    @classmethod
    def default(cls, noise):
        return cls(noise, steps=2)


def run(x):
    return x
"""

MAIN = """\
import jax
import jax.numpy as jnp

from .filters import Kalman

{setup}

@jax.jit
def smooth(x, noise):
    return {call}
"""


@pytest.mark.parametrize(
    ("setup", "call", "expected"),
    [
        # Made in the trace from the traced argument: `noise` is a tracer in `run`.
        ("", "Kalman(noise).run(x)", [("pkg/filters.py", 12, "JIT101")]),
        ("", "Kalman(noise, steps=2).run(x)", [("pkg/filters.py", 12, "JIT101")]),
        # Made in the trace from Python values: nothing in `run` is traced but `x`.
        ("", "Kalman(2.0).run(x)", []),
        # Made in Python with a concrete array: a constant the trace closes over.
        ("filt = Kalman(jnp.float32(2.0))", "filt.run(x)", []),
        # `steps` is the Python int the constructor stored, so `jnp.zeros` gets a shape.
        ("", "Kalman(noise, steps=2)(x)", []),
        # A traced `steps` reaches `jnp.zeros` as its shape.
        ("", "Kalman(noise, steps=noise)(x)", [("pkg/filters.py", 17, "JIT103")]),
        # Made by a class-method constructor (`return cls(...)`) of the class.
        ("", "Kalman.default(noise).run(x)", [("pkg/filters.py", 12, "JIT101")]),
        ("", "Kalman.default(2.0).run(x)", []),
    ],
)
def test_an_instance_made_in_another_file(tmp_path, setup, call, expected):
    main = MAIN.format(setup=setup, call=call)
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/filters.py": FILTERS, "pkg/main.py": main})
    _, found, err = check(root)
    assert err == ""
    assert where(found) == expected


def test_a_traced_field_from_one_caller_is_traced_for_the_method(tmp_path):
    """Two files' instances reach one method: the field traced in either is traced there
    (as a parameter is when any call passes a tracer), and the message names that caller."""
    main = MAIN.format(setup="", call="Kalman(noise).run(x) + Kalman(2.0).run(x)")
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/filters.py": FILTERS, "pkg/main.py": main})
    _, found, _ = check(root)
    assert [(f["path"], f["line"], f["code"]) for f in found] == [("pkg/filters.py", 12, "JIT101")]
    assert "smooth" in str(found[0]["message"])


CTF = """\
import equinox as eqx
import jax
import jax.numpy as jnp


class CTF(eqx.Module):
    u: jax.Array
    v: jax.Array

    @classmethod
    def from_defocus(cls, u, v):
        if u < v:
            raise ValueError("u must be >= v")
        return cls(jnp.asarray(u), jnp.asarray(v))
"""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ("jnp.float32(1.5), jnp.float32(1.1)", [("pkg/ctf.py", 12, "JIT101")]),
        # filter_jit keeps Python numbers static: the check runs on floats.
        ("1.5, 1.1", []),
    ],
)
def test_filter_jit_of_another_files_class_method(tmp_path, args, expected):
    """`eqx.filter_jit(CTF.from_defocus)(...)` in one file: which arguments the other file's
    constructor gets traced is decided by this call (arrays traced, the rest static)."""
    main = (
        "import equinox as eqx\nimport jax.numpy as jnp\n\nfrom .ctf import CTF\n\n"
        f"make = eqx.filter_jit(CTF.from_defocus)\nmake({args})\n"
    )
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/ctf.py": CTF, "pkg/main.py": main})
    _, found, err = check(root)
    assert err == ""
    assert where(found) == expected
