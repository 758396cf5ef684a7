"""The verifier's static side (no jax, no subprocess): config, planning, reverting, the
no-examples path of the command line, and that none of it imports a framework."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli

from jitlint.config import ConfigError, settings_from_table
from jitlint.verify.apply import narrowed_text
from jitlint.verify.inputs import from_annotations
from jitlint.verify.plan import plan_module
from jitlint.verify.runner import aliases, module_name

STEP = textwrap.dedent(
    """\
    from functools import partial

    import jax


    @partial(jax.jit, static_argnames="axes")
    def total(x, axes):
        return x.sum(axis=axes)


    @jax.jit
    def double(x):
        return x * 2


    def main(x):
        y = double(x)
        return total(y, axes=[0, 1])
    """
)


def test_verify_table_is_validated(tmp_path):
    where = tmp_path / "pyproject.toml"
    settings = settings_from_table(
        {"verify": {"examples": ["t/ex.py"], "timeout": 5, "record-file": "r.json"}}, where
    )
    assert settings.verify.examples == [tmp_path / "t/ex.py"]
    assert settings.verify.timeout == 5.0
    assert settings.verify.record_file == tmp_path / "r.json"
    for bad, message in [
        ({"verify": {"exampels": []}}, "verify.exampels`: unknown key"),
        ({"verify": {"timeout": 0}}, "timeout` must be a positive number"),
        ({"verify": {"timeout": True}}, "timeout` must be a positive number"),
        ({"verify": {"examples": "x.py"}}, "examples` must be a list of paths"),
        ({"verify": []}, "verify` must be a table"),
    ]:
        with pytest.raises(ConfigError, match=message):
            settings_from_table(bad, where, "tool.jitlint")


def test_a_call_site_fix_belongs_to_the_jitted_callee():
    fixed = STEP.replace("axes=[0, 1]", "axes=(0, 1)")
    from jitlint import fix_source

    outcome = fix_source(STEP, "step.py")
    assert outcome.source == fixed
    plan = plan_module("step.py", STEP, fixed, outcome.applied)
    assert [t.qualname for t in plan.targets] == ["total"]
    target = plan.targets[0]
    assert target.recipe is not None and target.recipe.static_argnames == ("axes",)
    assert [d.code for d in target.fixes] == ["JIT110"]
    assert plan.hunks[0].owners == ["total"]
    # The eager reference is the def without its jit decorator, on its own line numbers.
    assert target.reference_source is not None
    reference_lines = target.reference_source.splitlines()
    assert reference_lines[6] == "def total(x, axes):"
    assert "jax.jit" not in target.reference_source


def test_a_failed_function_gets_its_hunks_back_and_only_those():
    fixed = STEP.replace("axes=[0, 1]", "axes=(0, 1)").replace("x * 2", "x + x")
    plan = plan_module("step.py", STEP, fixed, [])
    assert {o for h in plan.hunks for o in h.owners} == {"total", "double"}
    partly = narrowed_text(plan, {"double"})
    assert "axes=(0, 1)" in partly and "x * 2" in partly
    # Every owned hunk reverted: the file comes back byte for byte.
    assert narrowed_text(plan, {"double", "total"}) == STEP


def test_module_names_and_example_aliases(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for init in ("pkg/__init__.py", "pkg/sub/__init__.py"):
        (tmp_path / init).write_text("")
    mod = tmp_path / "pkg" / "sub" / "mod.py"
    mod.write_text("")
    name, root, top, is_package = module_name(mod)
    assert (name, root, top, is_package) == ("pkg.sub.mod", tmp_path, tmp_path / "pkg", False)
    lone = tmp_path / "scripts" / "run.py"
    lone.parent.mkdir()
    lone.write_text("")
    assert module_name(lone)[:3] == ("run", tmp_path / "scripts", None)
    assert aliases(lone, tmp_path) == ["run", "scripts.run"]


def test_jaxtyping_annotations_become_specs():
    example = from_annotations(
        [
            ("x", 'Float[Array, "batch n"]', False),
            ("w", 'Float32[Array, "n"]', False),
            ("scale", "float", True),
            ("k", 'Int[Array, ""]', False),
        ]
    )
    assert isinstance(example, dict)
    shapes = [a["__spec__"]["shape"] for a in example["args"]]
    assert shapes == [[3, 4], [4]]
    assert example["kwargs"]["k"]["__spec__"] == {"shape": [], "dtype": "int32", "framework": "jax"}
    assert from_annotations([("x", None, False)]) == "parameter `x` has no annotation"


def _project(tmp_path: Path, config: str = "") -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.jitlint]\n{config}", encoding="utf-8")
    (tmp_path / "step.py").write_text(STEP, encoding="utf-8")
    return tmp_path


def test_without_examples_the_fix_is_skipped_never_verified(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path))
    status, out, err = run_cli("--fix", "--verify", "--no-cache", "step.py")
    assert (
        "step.py:6 total: skipped (no example inputs for total (declare them in "
        "[tool.jitlint.verify] or record them with the pytest plugin))" in out
    ), out
    assert "Verification: 0 verified, 0 compiled, 0 failed, 1 skipped." in out
    assert "verified" not in out.replace("0 verified", "")
    # Skipped is not failed: the fix is written, as plain --fix would.
    assert "axes=(0, 1)" in (tmp_path / "step.py").read_text()
    assert status == 0, err


def test_verify_command_writes_nothing_and_reports_json(tmp_path, monkeypatch):
    import json

    monkeypatch.chdir(_project(tmp_path))
    status, out, _ = run_cli("verify", "--format", "json", "--no-cache", "step.py")
    document = json.loads(out)
    assert [f["function"] for f in document["functions"]] == ["total"]
    assert document["functions"][0]["status"] == "skipped"
    assert document["fixes"][0]["verification"]["status"] == "skipped"
    assert document["summary"] == {"verified": 0, "compiled": 0, "failed": 0, "skipped": 1}
    assert (tmp_path / "step.py").read_text() == STEP
    assert status == 0


def test_verify_usage_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path))
    status, _, err = run_cli("--verify", "step.py")
    assert status == 2 and "--verify needs --fix" in err
    status, _, err = run_cli("--fix", "--diff", "--verify", "step.py")
    assert status == 2 and "--verify needs --fix" in err


def test_fix_verify_without_examples_imports_no_framework(tmp_path):
    _project(tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "jitlint",
            "--fix",
            "--verify",
            "--no-cache",
            "step.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "libcst" in imported
    assert not imported & {"jax", "jaxlib", "tensorflow", "numpy"}


def test_output_comparison_rules():
    np = pytest.importorskip("numpy")
    from jitlint.verify.compare import compare

    # float(loss) -> loss: a Python scalar and a 0-d array of the same value agree.
    assert compare({"loss": 0.25}, {"loss": np.float32(0.25)}) is None
    assert compare((1.0, [np.ones(3)]), (np.array(1.0), [np.ones(3, np.float32)])) is None
    # float32 noise within tolerance passes; a real difference does not.
    assert compare(np.float32([1.0, 2.0]), np.float32([1.0, 2.0 + 1e-6])) is None
    assert "1 of 2 elements differ" in compare(np.float32([1, 2]), np.float32([1, 2.1]))
    # Shapes must match exactly, integers exactly, and the structure too.
    assert compare(np.ones((2, 1)), np.ones(2)) == "output: shape (2, 1) vs (2,)"
    assert compare(np.int32([1, 2]), np.int32([1, 3])) is not None
    assert "structure differs" in compare((1.0, 2.0), [1.0, 2.0, 3.0])
    assert compare({"a": 1}, {"b": 1}) is not None
    assert compare(np.int32(1), np.float32(1)) == "output: dtype int32 vs float32"


def test_how_a_function_is_compiled_is_read_from_its_binding():
    source = textwrap.dedent(
        """\
        import jax
        import tensorflow as tf


        def scale(x, n):
            return x * n


        fast_scale = jax.jit(scale, static_argnums=(1,))


        def body(x):
            return x + 1


        xla_body = tf.function(body, jit_compile=True)


        @tf.function
        def plain(x):
            return x


        class Model:
            @jax.jit
            def apply(self, x):
                return x
        """
    )
    from jitlint.verify.plan import analyse

    facts = analyse(source, "m.py")
    scale = facts.by_qualname["scale"].recipe
    assert scale is not None and not scale.decorated
    assert (scale.framework, scale.static_argnums) == ("jax", (1,))
    body = facts.by_qualname["body"].recipe
    assert body is not None and (body.framework, body.xla, body.decorated) == (
        "tensorflow",
        True,
        False,
    )
    plain = facts.by_qualname["plain"].recipe
    assert plain is not None and (plain.how, plain.decorated) == ("tf.function", True)
    method = facts.by_qualname["Model.apply"]
    assert method.recipe is not None and method.in_class and not method.top_level


METHODS = textwrap.dedent(
    """\
    from functools import partial

    import equinox as eqx
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    import keras


    class Gate(eqx.Module):
        w: jax.Array

        @eqx.filter_jit
        def __call__(self, x):
            return x * self.w


    class Dense(nn.Module):
        @nn.compact
        def __call__(self, x):
            return nn.Dense(2)(x)


    class Counter:
        def __init__(self, scale):
            self.scale = scale
            self.offset = 1.0

        @partial(jax.jit, static_argnums=0)
        def total(self, x):
            return x.sum() * self.scale

        def describe(self):
            return "counter"


    class Project(keras.layers.Layer):
        def call(self, x):
            return x


    @eqx.filter_jit
    def loss(model, x):
        return model(x)
    """
)


def test_methods_are_compiled_as_their_source_or_framework_says():
    from jitlint.verify.plan import analyse

    facts = analyse(METHODS, "m.py")

    def recipe(name):
        found = facts.by_qualname[name].recipe
        assert found is not None, name
        return found.framework, found.how, found.decorated, found.method, found.implied

    assert recipe("Gate.__call__") == ("jax", "eqx.filter_jit", True, True, False)
    # A linen module's __call__ only ever runs inside a transformation.
    assert recipe("Dense.__call__") == ("jax", "jax.jit", False, True, True)
    assert recipe("Counter.total") == ("jax", "jax.jit", True, True, False)
    assert facts.by_qualname["Counter.total"].recipe.static_argnums == (0,)
    # Keras compiles a layer's call itself; the verifier uses XLA, without autograph.
    keras_call = facts.by_qualname["Project.call"].recipe
    assert recipe("Project.call") == (
        "tensorflow",
        "tf.function(jit_compile=True)",
        False,
        True,
        True,
    )
    assert keras_call.xla and not keras_call.autograph
    assert recipe("loss") == ("jax", "eqx.filter_jit", True, False, False)
    assert facts.by_qualname["Counter.__init__"].recipe is None
    assert facts.by_qualname["Counter.describe"].recipe is None
    kinds = {f.qualname: f.class_kind for f in facts.functions if f.in_class}
    assert kinds["Gate.__call__"] == "equinox"
    assert kinds["Dense.__call__"] == "flax.linen"
    assert kinds["Project.call"] == "keras"
    assert kinds["Counter.total"] is None


def test_a_change_in_init_or_a_helper_method_belongs_to_the_compiled_methods():
    """A fix that creates something once in `__init__` (or changes a helper method) is
    verified through the compiled methods of the class, which run with it."""
    fixed = METHODS.replace("self.offset = 1.0", "self.offset = 2.0").replace(
        'return "counter"', 'return "Counter"'
    )
    plan = plan_module("m.py", METHODS, fixed, [])
    assert [t.qualname for t in plan.targets] == ["Counter.total"]
    target = plan.targets[0]
    assert target.in_class and not target.top_level and target.callable
    assert len(target.hunks) == 2 and target.class_qualname == "Counter"
    assert not plan.unowned


def test_findings_left_unfixed_are_told_from_findings_a_fix_brought_in():
    from jitlint.diagnostics import Diagnostic

    original = STEP
    fixed = STEP.replace("x * 2", "x + x")

    def finding(code, line):
        return Diagnostic(code, "name", "message", "step.py", line, 5, line, 9)

    # The original had a JIT101 in `double` (line 13); the fixed text still has it, on the
    # same line, and a new JIT104 the fix brought in: only the JIT101 is paired.
    plan = plan_module(
        "step.py",
        original,
        fixed,
        [],
        findings=[finding("JIT101", 13)],
        remaining=[finding("JIT101", 13), finding("JIT104", 13)],
    )
    (target,) = plan.targets
    assert [(d.code, line) for d, line in target.unfixed] == [("JIT101", 13)]
