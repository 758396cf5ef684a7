"""A function one file jits (`@jax.jit`, `@partial(jax.jit, static_argnums=...)`, or
`step = jax.jit(f, ...)` at module level) called through an import in another file
(model/jax/crossfile/returned.py `jitted_by_name`): the call is read against its static spec
as a local one is, for JIT110 and JIT111; and a module of a framework whose modules are not
pytrees (flax linen), built in a third file and stored on `self` in `__init__`, is not an
array (model/jax/static_args/nonarray.py)."""

from __future__ import annotations

import pytest
from test_project import check, where, write

STEPS = """\
from functools import partial

import jax


@partial(jax.jit, static_argnums=(2,))
def single_step(params, model, options):
    return model.apply(params)


def plain_step(params, model, options):
    return model.apply(params)


@jax.jit
def plain_jit(params, model, options):
    return params


def _step(params, model, options):
    return params


assigned_step = jax.jit(_step, static_argnames="options")
"""

LINEN = """\
import flax.linen as nn


class Model(nn.Module):
    width: int = 8

    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.width)(x)
"""

EQUINOX = """\
import equinox as eqx
import jax


class Model(eqx.Module):
    weight: jax.Array

    def __call__(self, x):
        return self.weight * x
"""

TRAINER = """\
import jax.numpy as jnp

from pkg.models import Model
from pkg.steps import assigned_step, plain_jit, plain_step, single_step


class Trainer:
    def __init__(self, weight):
        self.model = Model({init})
        self.params = None

    def update(self):
        return {call}
"""


def _project(tmp_path, models: str, call: str, init: str = "", extra: str = "") -> object:
    trainer = TRAINER.format(init=init, call=call) + extra
    files = {
        "pkg/__init__.py": "",
        "pkg/steps.py": STEPS,
        "pkg/models.py": models,
        "pkg/trainer.py": trainer,
    }
    return write(tmp_path, files)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        # The linen module, built in another file and kept on self, reaches a traced parameter.
        ("single_step(self.params, self.model, ())", [(13, "JIT111")]),
        ("plain_jit(self.params, self.model, ())", [(13, "JIT111")]),
        # `name = jax.jit(f, ...)` at the other file's module level.
        ("assigned_step(self.params, self.model, ())", [(13, "JIT111")]),
        ("assigned_step(self.params, None, options={})", [(13, "JIT110")]),
        # A dict reaches the static parameter; a string a traced one.
        ("single_step(self.params, None, {})", [(13, "JIT110")]),
        ('single_step("params", None, ())', [(13, "JIT111")]),
        # Not jitted where it is defined: nothing to say.
        ("plain_step(self.params, self.model, {})", []),
        # The module goes to the static parameter: hashed by identity, fine.
        ("single_step(self.params, None, self.model)", []),
    ],
)
def test_calls_of_a_function_another_file_jits(tmp_path, call, expected):
    status, found, err = check(_project(tmp_path, LINEN, call))
    assert where(found) == [("pkg/trainer.py", line, code) for line, code in expected], err
    assert status == (1 if expected else 0), err


def test_an_equinox_module_is_a_pytree(tmp_path):
    root = _project(tmp_path, EQUINOX, "single_step(self.params, self.model, ())", "weight")
    status, found, err = check(root)
    assert found == [] and status == 0, err


def test_an_attribute_assigned_again_is_not_known(tmp_path):
    extra = """
    def swap(self, other):
        self.model = other
"""
    root = _project(tmp_path, LINEN, "single_step(self.params, self.model, ())", extra=extra)
    status, found, err = check(root)
    assert found == [] and status == 0, err


def test_the_other_files_jit_gets_no_fix_from_here(tmp_path):
    # An array to the static parameter: the fix would make it traced in the other file.
    root = _project(tmp_path, LINEN, "single_step(self.params, None, jnp.zeros(3))")
    _, found, err = check(root)
    assert where(found) == [("pkg/trainer.py", 13, "JIT110")], err
    assert found[0].get("fix") is None
    message = str(found[0]["message"])
    assert "`options` is a static argument of `single_step` (jitted in pkg/steps.py)" in message
