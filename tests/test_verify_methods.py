"""The verifier on methods, against the real compilers: an equinox module's `__call__`, a
plain class's jitted method and a Keras layer's `call`, each with declared examples (an
instance factory next to the arguments) and with instances the pytest plugin recorded; the
other JAX module frameworks (flax linen and nnx, haiku) with fixes written by hand; and
findings left unfixed, which are not failed fixes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli

pytestmark = pytest.mark.jax
REPO = Path(__file__).resolve().parents[1]
SAMPLE = Path(__file__).parent / "verify_samples" / "methods"


@pytest.fixture(autouse=True)
def _needs_jax():
    pytest.importorskip("jax")
    pytest.importorskip("equinox")


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    where = tmp_path / "scratch"
    where.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    return where


def _project(tmp_path: Path, examples: bool) -> Path:
    project = tmp_path / "methods"
    shutil.copytree(SAMPLE, project)
    if examples:
        (project / "pyproject.toml").write_text(
            '[tool.jitlint.verify]\nexamples = ["examples.py"]\ntimeout = 240\n'
        )
    return project


def _lines(out: str) -> dict[str, str]:
    """{"path function": "status (detail)"} from the text report."""
    found = {}
    for line in out.splitlines():
        head, sep, rest = line.partition(": ")
        if (
            sep
            and " " in head
            and rest.split(" ")[0]
            in (
                "verified",
                "compiled",
                "failed",
                "skipped",
            )
        ):
            path, function = head.split(" ", 1)
            found[f"{path.split(':')[0]} {function}"] = rest
    return found


def _record(project: Path, tests: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "TF_CPP_MIN_LOG_LEVEL": "2"}
    env["PYTHONPATH"] = os.pathsep.join([str(project), str(REPO)])
    command = [
        *(sys.executable, "-m", "pytest", "-q", "-p", "jitlint.pytest_plugin"),
        *("--jitlint-record", "-p", "no:cacheprovider", tests),
    ]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)


MODELS = {
    "Scale.__call__": "compiled with jax.jit, 2 examples match eager",
    "Gate.__call__": "compiled with eqx.filter_jit, 1 example matches eager",
    "Counter.total": "compiled with jax.jit, 1 example matches eager",
}


def test_methods_verify_with_declared_examples(tmp_path, scratch, monkeypatch):
    project = _project(tmp_path, examples=True)
    monkeypatch.chdir(project)
    status, out, err = run_cli("verify", "--unsafe-fixes", "--no-cache", "mpkg/models.py")
    lines = _lines(out)
    origins = {
        "Scale.__call__": "instance from make_scale()",
        "Gate.__call__": "instance from <lambda>()",
        "Counter.total": "declared instance, moved to the fixed class by pickling",
    }
    for function, how in MODELS.items():
        expected = f"verified ({how} (declared examples; {origins[function]}))"
        assert lines[f"mpkg/models.py {function}"] == expected, out
    # Each original fails as its finding says: the examples reproduce the bug.
    assert out.count(": confirmed (TracerBoolConversionError") == 3, out
    assert status == 0, err
    assert not list(scratch.iterdir())


def test_unfixed_findings_in_methods_are_not_failed_fixes(tmp_path, scratch, monkeypatch):
    """Without --unsafe-fixes, the JIT101 fixes are not applied and the methods still fail
    to compile: the finding's fault, not a fix's."""
    project = _project(tmp_path, examples=True)
    monkeypatch.chdir(project)
    status, out, _ = run_cli("verify", "--no-cache", "mpkg/models.py")
    lines = _lines(out)
    assert lines["mpkg/models.py Scale.__call__"].startswith(
        "skipped (not verified: it still does not compile with jax.jit, as JIT101 at line 15 "
        "predicts, and its fix is unsafe and was not applied (--unsafe-fixes applies it): "
        "TracerBoolConversionError"
    ), out
    assert lines["mpkg/models.py Gate.__call__"].startswith(
        "skipped (not verified: it still does not compile with eqx.filter_jit, as JIT101"
    ), out
    assert "failed" not in out.replace("0 failed", "")
    assert status == 0


def test_methods_verify_with_recorded_instances(tmp_path, scratch, monkeypatch):
    project = _project(tmp_path, examples=False)
    proc = _record(project, "tests/check_models.py")
    # The hazards make the tests fail under jit; each call was recorded before it failed.
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (
        "jitlint: recorded 3 call(s) of 3 function(s) (3 object(s) pickled in instances/) "
        "in .jitlint/verify-specs.json, for `jitlint verify`"
    ) in proc.stdout, proc.stdout[-3000:]
    recorded = json.loads((project / ".jitlint" / "verify-specs.json").read_text())["calls"]
    (case,) = recorded["mpkg.models:Counter.total"]
    assert case["args"] == [{"__spec__": {"shape": [4], "dtype": "float32", "framework": "jax"}}]
    kept = case["self"]["__pickle__"]
    assert kept["class"] == "mpkg.models:Counter"
    assert (project / ".jitlint" / kept["file"]).is_file()
    monkeypatch.chdir(project)
    status, out, err = run_cli("verify", "--unsafe-fixes", "--no-cache", "mpkg/models.py")
    lines = _lines(out)
    for function, how in MODELS.items():
        how = how.replace("2 examples match", "1 example matches")
        expected = f"verified ({how} (recorded specs; recorded instance, unpickled))"
        assert lines[f"mpkg/models.py {function}"] == expected, out
    assert status == 0, err


@pytest.mark.tensorflow
def test_keras_layer_call_verifies_with_declared_examples(tmp_path, scratch, monkeypatch):
    pytest.importorskip("tensorflow")
    project = _project(tmp_path, examples=True)
    monkeypatch.chdir(project)
    status, out, err = run_cli("verify", "--unsafe-fixes", "--no-cache", "mpkg/layers.py")
    assert _lines(out)["mpkg/layers.py Project.call"] == (
        "verified (compiled with tf.function(jit_compile=True), 1 example matches eager "
        "(declared examples; instance from <lambda>()))"
    ), out
    # Keras 3 calls `call` without autograph: the assert on a tensor fails in a graph.
    assert "JIT205 at line 16: confirmed (OperatorNotAllowedInGraphError" in out
    assert status == 0, err


@pytest.mark.tensorflow
def test_keras_layer_call_verifies_with_a_recorded_layer(tmp_path, scratch, monkeypatch):
    pytest.importorskip("tensorflow")
    project = _project(tmp_path, examples=False)
    proc = _record(project, "tests/check_layers.py")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (
        "jitlint: recorded 1 call(s) of 1 function(s) (1 Keras layer config(s)) in "
        ".jitlint/verify-specs.json"
    ) in proc.stdout
    recorded = json.loads((project / ".jitlint" / "verify-specs.json").read_text())["calls"]
    (case,) = recorded["mpkg.layers:Project.call"]
    assert case["args"] == [
        {"__spec__": {"shape": [2, 3], "dtype": "float32", "framework": "tensorflow"}}
    ]
    layer = case["self"]["__keras__"]
    assert layer["class"] == "mpkg.layers:Project"
    assert layer["config"]["units"] == 4
    monkeypatch.chdir(project)
    status, out, err = run_cli("verify", "--unsafe-fixes", "--no-cache", "mpkg/layers.py")
    assert _lines(out)["mpkg/layers.py Project.call"] == (
        "verified (compiled with tf.function(jit_compile=True), 1 example matches eager "
        "(recorded specs; recorded layer, rebuilt from get_config()))"
    ), out
    assert status == 0, err


NETS = textwrap.dedent(
    """\
    import equinox as eqx
    import flax.linen as nn
    import haiku as hk
    import jax
    import jax.numpy as jnp
    from flax import nnx


    class Dense(nn.Module):
        features: int

        @nn.compact
        def __call__(self, x):
            y = nn.Dense(self.features)(x)
            return max(y.sum(), -1.0)


    class HkNet(hk.Module):
        def __call__(self, x):
            y = hk.Linear(2)(x)
            return max(y.sum(), -1.0)


    def forward(x):
        return HkNet()(x)


    class NxNet(nnx.Module):
        def __init__(self, rngs):
            self.lin = nnx.Linear(3, 2, rngs=rngs)

        @nnx.jit
        def __call__(self, x):
            return max(self.lin(x).sum(), -1.0)


    class EqNet(eqx.Module):
        lin: eqx.nn.Linear

        def __init__(self, key):
            self.lin = eqx.nn.Linear(3, 2, key=key)

        def __call__(self, x):
            return max(self.lin(x).sum(), -1.0)
    """
)
NETS_EXAMPLES = textwrap.dedent(
    """\
    import haiku as hk
    import jax
    import jax.numpy as jnp
    from flax import nnx

    import {name}

    X = jax.ShapeDtypeStruct((3,), jnp.float32)
    EXAMPLES = {{
        "{name}:Dense.__call__": [(lambda: {name}.Dense(2), (X,))],
        "{name}:HkNet.__call__": [(lambda: hk.transform({name}.forward), (X,))],
        "{name}:NxNet.__call__": [(lambda: {name}.NxNet(nnx.Rngs(0)), (X,))],
        "{name}:EqNet.__call__": [(lambda: {name}.EqNet(jax.random.PRNGKey(0)), (X,))],
    }}
    """
)


def test_flax_haiku_and_equinox_modules_verify(tmp_path, scratch):
    """Each framework's module, compiled the way that framework compiles it: a right fix
    is verified, a wrong one (that adds 10) fails. The instance factories run again with the
    module's name bound to the fixed module, so haiku's transform and flax's apply run the
    fixed class."""
    for package in ("flax", "haiku"):
        pytest.importorskip(package)
    from jitlint.verify.plan import plan_module
    from jitlint.verify.runner import Options, Work, verify

    works, examples = [], []
    for name, offset in (("right", ""), ("wrong", " + 10.0")):
        path = tmp_path / f"{name}.py"
        path.write_text(NETS)
        (tmp_path / f"{name}_examples.py").write_text(NETS_EXAMPLES.format(name=name))
        examples.append(tmp_path / f"{name}_examples.py")
        fixed = NETS.replace("max(y.sum(), -1.0)", f"jnp.maximum(y.sum(), -1.0){offset}")
        fixed = fixed.replace(
            "max(self.lin(x).sum(), -1.0)", f"jnp.maximum(self.lin(x).sum(), -1.0){offset}"
        )
        works.append(Work(plan_module(f"{name}.py", NETS, fixed, []), path))
    results = {
        (r.path, r.function): r for r in verify(works, Options(tmp_path, examples, None, 240))
    }
    how = {
        "Dense.__call__": "jax.jit over Module.apply",
        "HkNet.__call__": "jax.jit over hk.transform's apply",
        "NxNet.__call__": "nnx.jit",
        "EqNet.__call__": "eqx.filter_jit",
    }
    for function, compiled_with in how.items():
        right = results[("right.py", function)]
        assert right.status == "verified", right.line_text()
        assert right.detail == (
            f"compiled with {compiled_with}, 1 example matches eager "
            "(declared examples; instance from <lambda>())"
        )
        wrong = results[("wrong.py", function)]
        assert wrong.status == "failed", wrong.line_text()
        assert "example 1 differs from the original run eagerly" in wrong.detail
    assert not list(scratch.iterdir())


STEP = textwrap.dedent(
    """\
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames="axes")
    def total(x, axes):
        if x.sum() > 0:
            return x.sum(axis=axes)
        return -x.sum(axis=axes)


    def main():
        return total(jnp.ones((2, 3)), axes=[0, 1])
    """
)


def test_fix_verify_writes_a_safe_fix_beside_an_unfixed_finding(tmp_path, scratch, monkeypatch):
    """`total` gets JIT110's safe fix at its call site but keeps the `if` on a tracer (JIT101,
    whose fix is unsafe): it cannot compile either way. That is not the safe fix's fault, so
    `--fix --verify` writes it."""
    (tmp_path / "step.py").write_text(STEP)
    (tmp_path / "inputs.py").write_text(
        "import jax.numpy as jnp\nEXAMPLES = {'step:total': [((jnp.ones((2, 3)), (0, 1)), {})]}\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jitlint.verify]\nexamples = ["inputs.py"]\ntimeout = 240\n'
    )
    monkeypatch.chdir(tmp_path)
    _, out, err = run_cli("--fix", "--verify", "--no-cache", "step.py")
    assert _lines(out)["step.py total"].startswith(
        "skipped (not verified: it still does not compile with jax.jit, as JIT101 at line 9 "
        "predicts, and its fix is unsafe and was not applied"
    ), out
    assert "axes=(0, 1)" in (tmp_path / "step.py").read_text()
    assert "failed verification" not in err


HELPER = "def shrink(x, limit):\n    if x.mean() > limit:\n        return x / limit\n    return x\n"
CALLER = (
    "import jax\n\nfrom tpkg.util import shrink\n\n\n@jax.jit\ndef step(x):\n"
    "    return shrink(x, 2.0) * 3\n"
)


def test_a_helper_in_another_file_is_verified_through_its_caller(tmp_path, scratch, monkeypatch):
    """`shrink` is traced only because `step` in another file calls it under jax.jit: its fix
    is compiled and compared through `step`, with the fixed helper in place; a wrong fix of
    it fails there and is not written."""
    (tmp_path / "tpkg").mkdir()
    (tmp_path / "tpkg" / "__init__.py").write_text("")
    (tmp_path / "tpkg" / "util.py").write_text(HELPER)
    (tmp_path / "tpkg" / "train.py").write_text(CALLER)
    (tmp_path / "inputs.py").write_text(
        "import jax.numpy as jnp\n"
        "EXAMPLES = {'tpkg.train:step': [((jnp.arange(6.0),), {}), ((jnp.ones(3),), {})]}\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jitlint.verify]\nexamples = ["inputs.py"]\ntimeout = 240\n'
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = run_cli("verify", "--unsafe-fixes", "--no-cache", "tpkg")
    assert _lines(out)["tpkg/util.py shrink"] == (
        "verified (through step (tpkg/train.py:8): compiled with jax.jit, 2 examples match "
        "eager (declared examples))"
    ), out
    assert "JIT101 at line 2: confirmed (TracerBoolConversionError" in out
    assert status == 0

    from jitlint.engine.fixloop import runner

    real = runner.fix_text

    def wrong_helper(text, path, *args, **kwargs):
        outcome = real(text, path, *args, **kwargs)
        if path.endswith("util.py"):
            outcome.source = outcome.source.replace("x / limit", "x * limit")
        return outcome

    monkeypatch.setattr(runner, "fix_text", wrong_helper)
    _, out, err = run_cli("--fix", "--unsafe-fixes", "--verify", "--no-cache", "tpkg")
    assert _lines(out)["tpkg/util.py shrink"].startswith(
        "failed (through step (tpkg/train.py:8): compiles with jax.jit, but example 1 differs "
        "from the original run eagerly"
    ), out
    assert (tmp_path / "tpkg" / "util.py").read_text() == HELPER
    assert "the fixes for shrink failed verification and were not written" in err
