"""JIT120's facts: the generated module-class list, and that what the rule reports fails
under the pinned frameworks while what it leaves alone runs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import found

from jitlint.model.library.module_classes import FACTS_FILE, framework_of_class

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "jitlint" / "data" / FACTS_FILE


def test_module_classes_load_without_the_frameworks():
    code = (
        "import sys\n"
        "from jitlint.model.library.module_classes import framework_of_class\n"
        "assert framework_of_class('flax.linen.Dense') == 'linen'\n"
        "assert not {'jax', 'flax', 'haiku'} & set(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)


def test_module_classes_answer_by_framework():
    assert framework_of_class("haiku.Linear") == "haiku"
    assert framework_of_class("haiku.nets.MLP") == "haiku"
    assert framework_of_class("flax.linen.LSTMCell") == "linen"
    assert framework_of_class("haiku.Flatten") is None  # holds no parameters
    assert framework_of_class("haiku.Module") is None  # the base class
    assert framework_of_class("jax.numpy.sum") is None


@pytest.mark.jax
def test_shipped_module_classes_are_what_the_generator_writes(tmp_path):
    pytest.importorskip("flax")
    haiku = pytest.importorskip("haiku")
    import flax

    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))
    if (raw["flax_version"], raw["haiku_version"]) != (flax.__version__, haiku.__version__):
        pytest.skip("facts built with other framework versions")
    out = tmp_path / FACTS_FILE
    script = ROOT / "scripts" / "gen_framework_modules.py"
    subprocess.run([sys.executable, str(script), str(out)], check=True, timeout=600)
    assert out.read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8")


# Each program runs `init` then `apply` of one module; (source, reported by JIT120).
_DRIVE = """
key = jax.random.PRNGKey(0)
xs = jnp.ones((3, 4))
if isinstance(model, nn.Module):
    model.apply(model.init(key, xs), xs)
else:
    model.apply(model.init(key, xs), key, xs)
"""
_HEAD = "import flax.linen as nn\nimport haiku as hk\nimport jax\nimport jax.numpy as jnp\n"
PROGRAMS = [
    (
        """
        class Decoder(nn.Module):
            def setup(self):
                self.cell = nn.Dense(4)
            def step(self, c, x):
                return c, self.cell(x)
            def __call__(self, xs):
                return jax.lax.scan(self.step, 0.0, xs)[1]
        model = Decoder()
        """,
        True,
    ),
    (
        """
        class Block(nn.Module):
            @nn.compact
            def __call__(self, x):
                def body(i, v):
                    return v * self.param("scale", nn.initializers.ones, (4,))
                return jax.lax.fori_loop(0, 3, body, x)
        model = Block()
        """,
        True,
    ),
    (
        """
        def forward(xs):
            mlp = hk.nets.MLP([4, 4])
            return jax.lax.map(mlp, xs)
        model = hk.transform(forward)
        """,
        True,
    ),
    (
        """
        def forward(xs):
            cell = hk.Linear(4)
            return jax.checkpoint(lambda v: cell(v))(xs)
        model = hk.transform(forward)
        """,
        True,
    ),
    (
        """
        class Sequence(nn.Module):
            cell: nn.Module
            def __call__(self, xs):
                return jax.lax.scan(lambda c, x: (c, self.cell(x)), 0.0, xs)[1]
        model = Sequence(nn.Dense(4))
        """,
        True,
    ),
    (  # vmap does not stage the function out
        """
        class Batched(nn.Module):
            @nn.compact
            def __call__(self, xs):
                return jax.vmap(nn.Dense(4))(xs)
        model = Batched()
        """,
        False,
    ),
    (  # called once before the loop: the loop only reads the parameters
        """
        def forward(xs):
            cell = hk.Linear(4)
            first = cell(xs[0])
            return jax.lax.scan(lambda c, x: (c, cell(x)), first, xs)[1]
        model = hk.transform(forward)
        """,
        False,
    ),
    (  # the lifted twin
        """
        def forward(xs):
            cell = hk.Linear(4)
            return hk.scan(lambda c, x: (c, cell(x)), 0.0, xs)[1]
        model = hk.transform(forward)
        """,
        False,
    ),
]


@pytest.mark.parametrize(("body", "reported"), PROGRAMS)
def test_reported_exactly_where_the_program_fails(body, reported):
    source = _HEAD + textwrap.dedent(body)
    assert bool(found(source, {"JIT120"})) is reported


@pytest.mark.jax
@pytest.mark.parametrize(("body", "reported"), PROGRAMS)
def test_the_programs_fail_exactly_where_reported(body, reported, tmp_path):
    pytest.importorskip("flax")
    pytest.importorskip("haiku")
    program = tmp_path / "program.py"
    program.write_text(_HEAD + textwrap.dedent(body) + _DRIVE, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=300
    )
    if reported:
        assert run.returncode != 0 and "UnexpectedTracerError" in run.stderr, run.stderr[-800:]
    else:
        assert run.returncode == 0, run.stderr[-800:]
