"""Pytree classes across files (model/jax/crossfile/class_facts.py): `jax.jit` traces every leaf
of a pytree argument, so an `int` field of an equinox Module defined in another file is a
tracer when a parameter annotated with that class (or stored into a field annotated with it)
is used as a shape. `eqx.filter_jit`, a static field or a static argument keep it a Python
int."""

from __future__ import annotations

import pytest
from test_project import check, where, write

from jitlint.model.jax.crossfile.class_facts import decode, encode
from jitlint.model.jax.pytree_fields import PytreeClass

CONFIG = """
import equinox as eqx


class Config(eqx.Module):
    depth: int = 4
    width: int = eqx.field(static=True, default=8)
    rate: float = 0.1
"""

STEP = """
import equinox as eqx
import jax
import jax.numpy as jnp

from .config import Config


@{decorator}
def init(cfg: Config, key):
    a = jnp.zeros((cfg.depth, 3))
    b = jnp.zeros((cfg.width, 3))
    return a, b
"""


def test_an_int_field_of_another_files_module_is_traced_under_jit(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/config.py": CONFIG,
        "pkg/step.py": STEP.format(decorator="jax.jit"),
    }
    _, found, err = check(write(tmp_path, files))
    assert err == ""
    # `depth` is a leaf, so a tracer; `width` is a static field: a Python int.
    assert where(found) == [("pkg/step.py", 11, "JIT103")]
    assert "`depth` is a non-static field of `Config`" in str(found[0]["message"])


@pytest.mark.parametrize(
    "decorator",
    [
        "eqx.filter_jit",  # non-array leaves are static
        'functools.partial(jax.jit, static_argnames=["cfg"])',
    ],
)
def test_no_finding_where_the_field_stays_a_python_int(tmp_path, decorator):
    step = "import functools\n" + STEP.format(decorator=decorator)
    files = {"pkg/__init__.py": "", "pkg/config.py": CONFIG, "pkg/step.py": step}
    _, found, err = check(write(tmp_path, files))
    assert err == ""
    assert found == []


def test_without_the_defining_file_nothing_is_known(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/config.py": CONFIG,
        "pkg/step.py": STEP.format(decorator="jax.jit"),
    }
    root = write(tmp_path, files)
    _, found, err = check(root, "pkg/step.py")
    assert err == ""
    assert found == []


MODEL = """
import equinox as eqx
import jax
import jax.numpy as jnp

from .config import Config


class Model(eqx.Module):
    weights: jax.Array
    cfg: Config

    def __init__(self, cfg, key):
        {store}
        self.weights = jax.random.normal(key, (cfg.depth,))
"""

FACTORY = """
import jax

from .model import Model


@jax.jit
def make(cfg, key):
    return Model(cfg, key)
"""


@pytest.mark.parametrize(
    ("store", "expected"),
    [
        # The parameter is stored unchanged into the field annotated `Config`.
        ("self.cfg = cfg", [("pkg/model.py", 15, "JIT103")]),
        # Stored from something else: nothing says what `cfg` is.
        ("self.cfg = Config()", []),
    ],
)
def test_a_jitted_factory_passes_the_config_to_a_constructor(tmp_path, store, expected):
    files = {
        "pkg/__init__.py": "",
        "pkg/config.py": CONFIG,
        "pkg/model.py": MODEL.format(store=store),
        "pkg/factory.py": FACTORY,
    }
    _, found, err = check(write(tmp_path, files))
    assert err == ""
    assert where(found) == expected
    if expected:
        assert "passes `cfg` a pytree argument of `jax.jit`" in str(found[0]["message"])


def test_a_factory_under_filter_jit_passes_no_traced_ints(tmp_path):
    factory = FACTORY.replace("import jax\n", "import equinox as eqx\nimport jax\n")
    files = {
        "pkg/__init__.py": "",
        "pkg/config.py": CONFIG,
        "pkg/model.py": MODEL.format(store="self.cfg = cfg"),
        "pkg/factory.py": factory.replace("@jax.jit", "@eqx.filter_jit"),
    }
    _, found, err = check(write(tmp_path, files))
    assert err == ""
    assert found == []


def test_facts_round_trip_and_malformed_ones_are_dropped():
    cls = PytreeClass("Config", "equinox", {"depth": "scalar", "w": "array"}, True)
    assert decode("Config", encode(cls)) == cls
    assert decode("Config", "jax:pytree:equinox:0:depth=weird") is None
    assert decode("Config", "jax:pytree:torch:0:depth=scalar") is None
    assert decode("Config", "jax:returns-list") is None
