"""JIT123's page examples under jax: the weak-typed initial state compiles the step twice, the
explicit dtype (written by hand or by the fix) once."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jitlint import catalogue, fix_source
from jitlint.rules import all_rules

RULE = all_rules()["JIT123"]


def _compiles(source: str) -> int:
    # A fresh interpreter: other tests run page examples in this process, and one of them
    # (JIT302's) turns jax_enable_x64 on, which makes the float32 state a float64 result.
    pytest.importorskip("jax")
    probe = source + "\nprint(step._cache_size())\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return int(done.stdout.strip().splitlines()[-1])


@pytest.mark.jax
def test_bad_example_compiles_twice_and_good_example_once():
    assert _compiles(catalogue.section_code(RULE, "Example")) == 2
    assert _compiles(catalogue.section_code(RULE, "Use instead")) == 1


@pytest.mark.jax
def test_fixed_example_compiles_once_and_is_stable():
    bad = catalogue.section_code(RULE, "Example")
    result = fix_source(bad, select=["JIT123"], unsafe=True)
    assert result.applied
    assert "jnp.asarray(0.5, dtype=jnp.float32)" in result.source
    assert _compiles(result.source) == 1
    assert fix_source(result.source, select=["JIT123"], unsafe=True).source == result.source


def test_a_bare_float_is_wrapped_with_the_modules_numpy_alias():
    source = (
        "import jax\nimport jax.numpy as np_\n"
        "@jax.jit\ndef step(lr, g):\n    return lr * g.sum()\n"
        "g = np_.ones(3)\nlr = 0.5\nfor _ in range(2):\n    lr = step(lr, g)\n"
    )
    result = fix_source(source, select=["JIT123"], unsafe=True)
    assert "lr = np_.asarray(0.5, dtype=np_.float32)" in result.source
    assert not [d for d in result.remaining if d.code == "JIT123"]
