"""The verifier against the real compilers: rule examples, a wrong fix, hostile modules, the
pytest plugin, annotations and the repository's own examples. Each test runs one jitlint
process over many modules, so the worker subprocesses run side by side."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import libcst as cst
import pytest
from helpers import run_cli

from jitlint import catalogue, fix_source
from jitlint.rules import all_rules

pytestmark = pytest.mark.jax
REPO = Path(__file__).resolve().parents[1]
SAMPLES = Path(__file__).parent / "verify_samples"


@pytest.fixture(autouse=True)
def _needs_jax():
    pytest.importorskip("jax")


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """The verifier's temporary directories go here, so a test can see they are removed."""
    where = tmp_path / "scratch"
    where.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    return where


def _calls_of(statement: cst.CSTNode, defs: set[str]) -> list[cst.Call]:
    found: list[cst.Call] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value in defs:
                found.append(node)

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False  # a call in a lambda's body reads the lambda's own parameters

    statement.visit(Calls())
    return found


def _first_call(source: str) -> tuple[str, str] | None:
    """(function, "((args,), {kwargs})") of the first module-level call of a module def."""
    module = cst.parse_module(source)
    defs = {s.name.value for s in module.body if isinstance(s, cst.FunctionDef)}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            continue
        found = _calls_of(statement, defs)
        if found:
            call = found[0]
            code = cst.Module([]).code_for_node
            args = "".join(code(a.value) + ", " for a in call.args if a.keyword is None)
            kwargs = ", ".join(
                f"{a.keyword.value!r}: {code(a.value)}" for a in call.args if a.keyword
            )
            return call.func.value, f"(({args}), {{{kwargs}}})"  # type: ignore[attr-defined]
    return None


# Unsafe fixes documented to change results (rules/JIT206.md: a variable made once keeps its
# value between calls, where the original started from zero on each one).
_CHANGES_VALUES = frozenset({"JIT206"})

# What the examples module imports; a call's arguments may use only these.
_EXAMPLE_NAMES = frozenset({"jax", "jnp", "np", "tf"})


def _names_in(expression: str) -> set[str]:
    """The plain names an expression reads (not attributes or keywords)."""
    tree = cst.parse_expression(expression)
    names: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    tree.visit(_Names())
    return names


def _rule_project(root: Path, framework: str) -> dict[str, str]:
    """Every fixable rule's bad example as ex_CODE.py, with examples taken from the fixed
    example's own call. Returns {code: function or "<module>"}."""
    entries, expected = [], {}
    for code, rule in all_rules().items():
        if rule.framework != framework or rule.fix_availability == "none":
            continue
        if not rule.default_enabled:
            continue  # the run below lints with the default selection
        bad = catalogue.section_code(rule, "Example")
        if bad is None or not fix_source(bad, select=[code], unsafe=True).applied:
            continue
        call = _first_call(fix_source(bad, select=[code], unsafe=True).source)
        if call is not None and not _names_in(call[1]) <= _EXAMPLE_NAMES:
            # The call passes values the example itself makes (a loop variable, JIT207's):
            # the examples module cannot name them, so this rule is verified elsewhere.
            continue
        (root / f"ex_{code}.py").write_text(bad, encoding="utf-8")
        if call is not None:
            entries.append(f"    'ex_{code}:{call[0]}': [{call[1]}],")
        expected[code] = call[0] if call else "<module>"
    imports = "import jax\nimport jax.numpy as jnp\nimport numpy as np\n"
    if framework == "tensorflow":
        imports = "import tensorflow as tf\n"
    (root / "inputs.py").write_text(
        imports + "EXAMPLES = {\n" + "\n".join(entries) + "\n}\n", encoding="utf-8"
    )
    (root / "pyproject.toml").write_text(
        '[tool.jitlint.verify]\nexamples = ["inputs.py"]\ntimeout = 240\n', encoding="utf-8"
    )
    return expected


def _lines(out: str) -> dict[str, str]:
    """{"path function": "status (detail)"} from the text report."""
    found = {}
    for line in out.splitlines():
        head, sep, rest = line.partition(": ")
        if (
            sep
            and " " in head
            and ":" in head
            and rest.split(" ")[0] in ("verified", "compiled", "failed", "skipped")
        ):
            path, function = head.split(" ", 1)
            found[f"{path.split(':')[0]} {function}"] = rest
    return found


def _fix_verify(root: Path, monkeypatch, *paths: str) -> tuple[int, str, str]:
    monkeypatch.chdir(root)
    return run_cli("--fix", "--unsafe-fixes", "--verify", "--no-cache", "-j2", *paths)


# Rules whose page example is fixed by calling the function without its jit.
_FIXED_BY_RUNNING_EAGERLY = frozenset({"JIT108"})


def test_fixed_rule_examples_verify_under_jax(tmp_path, scratch, monkeypatch):
    expected = _rule_project(tmp_path, "jax")
    assert expected, "no fixable jax rule example"
    status, out, err = _fix_verify(tmp_path, monkeypatch, *(f"ex_{c}.py" for c in expected))
    lines = _lines(out)
    for code, function in expected.items():
        got = lines.get(f"ex_{code}.py {function}")
        if got is None:
            # A fix of the code that applies the transformation (JIT119 names the axis on
            # the `pmap` call) edits no compiled body: said so under the flagged function.
            skipped = f"skipped (uncompiled-code fix ({code})"
            found = [v for k, v in lines.items() if k.startswith(f"ex_{code}.py ")]
            if code in _FIXED_BY_RUNNING_EAGERLY:
                # The fix takes the jit away (JIT108: a tracer stored on the object): nothing
                # compiled is left to compare, and the verifier must say so, not verify.
                eager = "is not compiled in the fixed source"
                assert found and all(v.startswith("skipped (") and eager in v for v in found), (
                    code,
                    out,
                )
                continue
            assert found and all(v.startswith(skipped) for v in found), (code, out)
            continue
        if function == "<module>":
            # A module-level fix touches no compiled function: said so, never "verified".
            assert got.startswith("skipped (module-level fix"), (code, got)
        elif got.startswith("compiled"):
            # e.g. JIT106: the original raises eagerly too, so there is nothing to compare with.
            assert "not compared with eager: the original raises" in got, (code, got)
        else:
            assert got.startswith("verified (compiled with jax.jit, 1 example matches eager"), (
                code,
                got,
            )
    assert not list(scratch.iterdir()), "temporary directories left behind"
    assert status in (0, 1), err


@pytest.mark.tensorflow
def test_fixed_rule_examples_verify_under_tensorflow(tmp_path, scratch, monkeypatch):
    pytest.importorskip("tensorflow")
    expected = _rule_project(tmp_path, "tensorflow")
    status, out, err = _fix_verify(tmp_path, monkeypatch, *(f"ex_{c}.py" for c in expected))
    lines = _lines(out)
    for code, function in expected.items():
        got = lines.get(f"ex_{code}.py {function}", "")
        if function == "<module>":
            # A fix in a Keras layer (JIT213's) is the layer method's: without an instance
            # to build, it is skipped and says why.
            got = got or next((v for k, v in lines.items() if k.startswith(f"ex_{code}.py ")), "")
            assert got.startswith(("skipped (module-level fix", "skipped (no example inputs")), (
                code,
                got,
            )
        elif code in _CHANGES_VALUES:
            # The verifier must catch what the fix's safety note says it changes.
            assert got.startswith("failed (compiles with tf.function, but example"), (code, got)
        else:
            assert got.startswith("verified (compiled with tf.function"), (code, got)
    assert status in (0, 1), err


WRONG = textwrap.dedent(
    """\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def wave(x):
        return jnp.sin(x) * 2


    @jax.jit
    def peak(x):
        return jnp.max(x)


    def main():
        return wave(jnp.arange(3.0)), peak(jnp.arange(3.0))
    """
)


def test_a_wrong_fix_fails_and_is_not_written(tmp_path, scratch, monkeypatch):
    """Inject fixes: one changes the values (sin→cos), one no longer compiles (float())."""
    from jitlint.diagnostics import Diagnostic
    from jitlint.engine.fixloop import runner
    from jitlint.engine.fixloop.passes import FixOutcome

    (tmp_path / "wave.py").write_text(WRONG, encoding="utf-8")
    (tmp_path / "inputs.py").write_text(
        "import jax.numpy as jnp\nEXAMPLES = {'wave:wave': [((jnp.arange(3.0),), {})],\n"
        "            'wave:peak': [((jnp.arange(3.0),), {})]}\n",
        encoding="utf-8",
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jitlint.verify]\nexamples = ["inputs.py"]\ntimeout = 120\n', encoding="utf-8"
    )
    wrong = WRONG.replace("jnp.sin(x)", "jnp.cos(x)").replace("jnp.max(x)", "float(jnp.max(x))")
    claimed = Diagnostic("JIT104", "numpy-on-tracer", "injected", "wave.py", 7, 12, 7, 22)

    def inject(text, path, *args, **kwargs):
        return FixOutcome(wrong, [claimed], [], [])

    monkeypatch.setattr(runner, "fix_text", inject)
    _, out, err = _fix_verify(tmp_path, monkeypatch, "wave.py")
    lines = _lines(out)
    assert lines["wave.py wave"].startswith(
        "failed (compiles with jax.jit, but example 1 differs from the original run eagerly"
    ), out
    assert lines["wave.py peak"].startswith("failed (does not compile with jax.jit"), out
    assert "ConcretizationTypeError" in lines["wave.py peak"]
    assert (tmp_path / "wave.py").read_text() == WRONG
    assert "failed verification and were not written" in err
    # --force writes them anyway, and says so; JSON carries each fix's verification.
    _, out, err = run_cli(
        "--fix",
        "--unsafe-fixes",
        "--verify",
        "--force",
        "--no-cache",
        "--format",
        "json",
        "wave.py",
    )
    assert (tmp_path / "wave.py").read_text() == wrong
    assert "written with --force" in err
    document = json.loads(out)
    assert document["summary"] == {"verified": 0, "compiled": 0, "failed": 2, "skipped": 0}
    (fix,) = document["fixes"]
    assert fix["code"] == "JIT104"
    assert fix["verification"]["function"] == "wave"
    assert fix["verification"]["status"] == "failed"


HOSTILE_TAIL = textwrap.dedent(
    """
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames="axes")
    def total(x, axes):
        return x.sum(axis=axes)


    def main():
        return total(jnp.ones((2, 3)), axes=[0, 1])
    """
)


def _ended(pid: int, wait: float = 10.0) -> bool:
    """Whether process `pid` is gone or a zombie. A killed orphan stays a zombie until the
    init process reaps it, which in some containers takes a while."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            if stat.rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except OSError:
            pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


HOSTILE = {
    "exits": "import sys\nsys.exit(3)\n",
    "raises": "raise RuntimeError('no config file')\n",
    "segfaults": "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
    "forks": (
        "import os, time\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    time.sleep(120)\n"
        "    os._exit(0)\n"
        "open({pids!r}, 'a').write(f'{{child}}\\n')\n"
    ),
    "json": "",  # a module named like one the worker has already imported
    "threads": (
        "import atexit, threading, time\n"
        "threading.Thread(target=time.sleep, args=(600,)).start()\n"
        "atexit.register(lambda: open('atexit.txt', 'w').write('x'))\n"
    ),
    "writes": (
        "from pathlib import Path\n"
        "Path('relative.txt').write_text('x')\n"
        "Path(__file__).with_name('beside.txt').write_text('x')\n"
        "print('noise on stdout')\n"
    ),
}


def test_hostile_modules_are_contained(tmp_path, scratch, monkeypatch):
    pids = tmp_path / "pids.txt"
    project = tmp_path / "project"
    project.mkdir()
    for name, head in HOSTILE.items():
        (project / f"{name}.py").write_text(head.format(pids=str(pids)) + HOSTILE_TAIL)
    (project / "inputs.py").write_text(
        "import jax.numpy as jnp\nEXAMPLES = {"
        + ", ".join(f"'{n}:total': [((jnp.ones((2, 3)),), {{'axes': (0, 1)}})]" for n in HOSTILE)
        + "}\n"
    )
    (project / "pyproject.toml").write_text(
        '[tool.jitlint.verify]\nexamples = ["inputs.py"]\ntimeout = 120\n'
    )
    before = {p.name for p in project.iterdir()}
    started = time.monotonic()
    status, out, err = _fix_verify(project, monkeypatch, *(f"{n}.py" for n in HOSTILE))
    # Under the 120 s timeout: the never-ending thread did not hold its worker.
    assert time.monotonic() - started < 120
    lines = _lines(out)
    assert lines["exits.py total"] == (
        "skipped (the module fails at import, before and after the fix: SystemExit(3): the "
        "code called sys.exit())"
    ), out
    assert lines["raises.py total"].startswith(
        "skipped (the module fails at import, before and after the fix: RuntimeError: no "
        "config file"
    ), out
    assert lines["segfaults.py total"] == (
        "skipped (the worker crashed (SIGSEGV) while importing the original module)"
    ), out
    assert lines["json.py total"].startswith(
        "skipped (the module fails at import, before and after the fix: the module name json "
        "is taken by an installed module"
    ), out
    # Forking and writing do not stop verification; the writes land in temporary copies.
    assert lines["forks.py total"].startswith("verified"), out
    assert lines["writes.py total"].startswith("verified"), out
    # A thread that never ends does not hold the worker until the timeout.
    assert lines["threads.py total"].startswith("verified"), out
    assert {p.name for p in project.iterdir()} - before == set()
    assert "noise on stdout" not in out
    # Skipped fixes are written (as plain --fix would); verified ones too.
    for name in HOSTILE:
        assert "axes=(0, 1)" in (project / f"{name}.py").read_text(), name
    for pid in pids.read_text().split():
        assert _ended(int(pid)), pid  # the forked child was killed with the worker's group
    assert not list(scratch.iterdir())
    assert status in (0, 1), err


def test_a_module_that_hangs_times_out(tmp_path, scratch, monkeypatch):
    (tmp_path / "hangs.py").write_text("import time\ntime.sleep(600)\n" + HOSTILE_TAIL)
    (tmp_path / "inputs.py").write_text("EXAMPLES = {'hangs:total': [((1.0,), {'axes': 0})]}\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jitlint.verify]\nexamples = ["inputs.py"]\ntimeout = 3\n'
    )
    _, out, _ = _fix_verify(tmp_path, monkeypatch, "hangs.py")
    assert _lines(out)["hangs.py total"] == (
        "skipped (timed out after 3 s while importing the original module)"
    ), out
    assert not list(scratch.iterdir())


def _record(tmp_path: Path, sample: str, tests: str) -> tuple[Path, str]:
    """Copy a sample project and run its tests with the recording plugin."""
    project = tmp_path / sample
    shutil.copytree(SAMPLES / sample, project)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "TF_CPP_MIN_LOG_LEVEL": "2"}
    env["PYTHONPATH"] = os.pathsep.join([str(project), str(REPO)])
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "jitlint.pytest_plugin",
        "--jitlint-record",
        "-p",
        "no:cacheprovider",
        tests,
    ]
    proc = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return project, proc.stdout


def test_recorded_specs_from_the_pytest_plugin_are_used(tmp_path, scratch, monkeypatch):
    # check_ops.py, not test_*.py: the main suite must not collect the sample's tests.
    project, _ = _record(tmp_path, "recorded", "tests/check_ops.py")
    recorded = json.loads((project / "specs" / "recorded.json").read_text())
    calls = recorded["calls"]["pkg.ops:total"]
    assert len(calls) == 2
    assert calls[0]["args"][0] == {
        "__spec__": {"shape": [2, 3], "dtype": "float32", "framework": "jax"}
    }
    assert calls[0]["kwargs"] == {"axes": {"__tuple__": [0, 1]}}
    _, out, _ = _fix_verify(project, monkeypatch, "pkg/ops.py")
    assert _lines(out)["pkg/ops.py total"] == (
        "verified (compiled with jax.jit, 2 examples match eager (recorded specs))"
    ), out
    assert "axes=(0, 1)" in (project / "pkg" / "ops.py").read_text()


@pytest.mark.tensorflow
def test_recorded_tf_function_specs_are_used(tmp_path, scratch, monkeypatch):
    pytest.importorskip("tensorflow")
    project, _ = _record(tmp_path, "recorded_tf", "tests/check_steps.py")
    recorded = json.loads((project / ".jitlint" / "verify-specs.json").read_text())
    assert recorded["calls"]["tfpkg.steps:step"] == [
        {
            "args": [
                {"__spec__": {"shape": [2], "dtype": "float32", "framework": "tensorflow"}},
                2.0,
            ],
            "kwargs": {},
        }
    ]
    _, out, _ = _fix_verify(project, monkeypatch, "tfpkg/steps.py")
    assert _lines(out)["tfpkg/steps.py step"] == (
        "verified (compiled with tf.function, 1 example matches eager (recorded specs))"
    ), out
    assert 'tf.print("x:", x)' in (project / "tfpkg" / "steps.py").read_text()


def test_jaxtyping_annotations_give_inputs(tmp_path, scratch, monkeypatch):
    source = textwrap.dedent(
        """\
        from __future__ import annotations

        import jax
        import jax.numpy as jnp


        import numpy as np


        @jax.jit
        def scaled(x: Float[Array, "batch n"], w: Float[Array, "n"]) -> Float[Array, "batch"]:
            return np.sin(x) @ w
        """
    )
    (tmp_path / "typed.py").write_text(source)
    (tmp_path / "pyproject.toml").write_text("[tool.jitlint.verify]\ntimeout = 120\n")
    _, out, _ = _fix_verify(tmp_path, monkeypatch, "typed.py")
    assert _lines(out)["typed.py scaled"] == (
        "verified (compiled with jax.jit, 1 example matches eager (annotations))"
    ), out


def test_repository_examples_verify(tmp_path, scratch, monkeypatch):
    """Acceptance: the two scenarios in examples/ end verified with the repository's config."""
    needed = {
        "train_step.py": {"JIT102", "JIT110"},
        "clipping.py": {"JIT101"},
    }
    for name, codes in needed.items():
        source = (REPO / "examples" / name).read_text()
        applied = {d.code for d in fix_source(source, name, unsafe=True).applied}
        if not codes <= applied:
            pytest.skip(f"examples/{name} needs the fixes of {sorted(codes - applied)}")
    project = tmp_path / "repo"
    shutil.copytree(REPO / "examples", project / "examples")
    shutil.copy(REPO / "pyproject.toml", project / "pyproject.toml")
    _, out, _ = _fix_verify(project, monkeypatch, "examples/train_step.py", "examples/clipping.py")
    lines = _lines(out)
    for key in ("train_step.py train_step", "clipping.py soft_clip", "clipping.py normalise"):
        assert lines[f"examples/{key}"].startswith("verified (compiled with jax.jit, 2 examples")


def test_repository_examples_verify_with_hand_written_fixes(scratch):
    """The same scenarios with the JIT101/JIT102 rewrites written by hand, so the verifier's
    side of the acceptance is checked whatever state those fixes are in."""
    from jitlint.verify.plan import plan_module
    from jitlint.verify.runner import Options, Work, verify

    step = (REPO / "examples" / "train_step.py").read_text()
    step_fixed = (
        step.replace('("reduce_axes", "learning_rate")', '("reduce_axes",)')
        .replace("reduce_axes=[0, 1]", "reduce_axes=(0, 1)")
        .replace("float(loss)", "loss")
    )
    clip = (REPO / "examples" / "clipping.py").read_text()
    clip_fixed = clip.replace(
        "    if limit > 0:\n        return jnp.tanh(x / limit) * limit\n    return x",
        "    return jnp.where(limit > 0, jnp.tanh(x / limit) * limit, x)",
    ).replace("x / norm if norm > 1e-6 else x", "jnp.where(norm > 1e-6, x / norm, x)")
    assert step_fixed.count("float(") == 0 and "learning_rate" not in step_fixed
    assert clip_fixed != clip
    works = [
        Work(
            plan_module("examples/train_step.py", step, step_fixed, []),
            REPO / "examples" / "train_step.py",
        ),
        Work(
            plan_module("examples/clipping.py", clip, clip_fixed, []),
            REPO / "examples" / "clipping.py",
        ),
    ]
    options = Options(REPO, [REPO / "examples" / "jit_examples.py"], None, 240)
    results = {r.function: r for r in verify(works, options)}
    assert set(results) == {"train_step", "soft_clip", "normalise"}
    for result in results.values():
        assert result.status == "verified", result.line_text()
        assert "2 examples match eager (declared examples)" in result.detail
    # The original train_step does not import (JIT112), and the report says what ran instead.
    assert "the original definition ran in the fixed module's namespace" in (
        results["train_step"].detail
    )
    assert not list(scratch.iterdir())


CONFIRM = textwrap.dedent(
    """\
    from functools import partial

    import jax
    import jax.numpy as jnp


    @jax.jit
    def clip(x, limit):
        if limit > 0:
            return jnp.minimum(x, limit)
        return x


    @jax.jit
    def noisy(x):
        print("tracing", x)
        return x * 2


    @partial(jax.jit, static_argnames=("num_steps",))
    def integrate(state, dt, steps):
        for _ in range(steps):
            state = state + dt * jnp.sin(state)
        return state
    """
)


def test_verify_confirms_findings_and_writes_nothing(tmp_path, scratch, monkeypatch):
    (tmp_path / "mod.py").write_text(CONFIRM)
    (tmp_path / "inputs.py").write_text(
        "import jax.numpy as jnp\nEXAMPLES = {\n"
        "    'mod:clip': [((jnp.arange(3.0), 1.0), {})],\n"
        "    'mod:noisy': [((jnp.arange(3.0),), {})],\n"
        "    'mod:integrate': [((jnp.ones(3), 0.1, 3), {})],\n}\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jitlint.verify]\nexamples = ["inputs.py"]\ntimeout = 240\n'
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = run_cli("verify", "--no-cache", "--format", "json", "mod.py")
    document = json.loads(out)
    functions = {f["function"]: f for f in document["functions"]}
    checks = {
        (c["code"], c["line"]): (c["status"], c["detail"])
        for f in document["functions"]
        for c in f["findings"]
    }
    # The if on a traced value: the original fails exactly as JIT101 predicts.
    assert checks[("JIT101", 9)][0] == "confirmed"
    assert "TracerBoolConversionError" in checks[("JIT101", 9)][1]
    # A print costs nothing to compile: JIT107 predicts no error, so none is claimed.
    assert checks[("JIT107", 16)][0] == "not checked"
    # The bad static name stops jit itself; range() on a traced value is never reached.
    assert checks[("JIT112", 20)][0] == "confirmed"
    assert checks[("JIT102", 22)] == (
        "not reproduced",
        "the original fails differently: ValueError: Jitted function has invalid argnames "
        "{'num_steps'} in static_argnames. Function does not take these args.",
    )
    # With unsafe fixes off, JIT107's fix is not applied, and nothing fixes clip: it still
    # fails as its unfixed JIT101 predicts, which is not a failed fix.
    assert functions["clip"]["status"] == "skipped"
    assert functions["clip"]["detail"].startswith(
        "not verified: it still does not compile with jax.jit, as JIT101 at line 9 predicts, "
        "and its fix is unsafe and was not applied (--unsafe-fixes applies it): "
        "TracerBoolConversionError"
    )
    assert functions["noisy"]["status"] == "verified"
    assert functions["noisy"]["detail"].endswith("; no fix changed it")
    # JIT112's safe fix is applied; the range() on a tracer (JIT102) is left, and fails.
    assert functions["integrate"]["status"] == "skipped"
    assert "as JIT102 at line 22 predicts" in functions["integrate"]["detail"]
    assert (tmp_path / "mod.py").read_text() == CONFIRM
    assert status == 0  # no fix failed


XLA = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function(jit_compile=True)
    def shift(x):
        y = tf.cast(x, tf.float64)
        return y + tf.constant(0.5)


    @tf.function(jit_compile=True)
    def scale(x):
        return x * 2.0
    """
)


@pytest.mark.tensorflow
def test_tf_xla_functions_compile_to_hlo(tmp_path, scratch, monkeypatch):
    """jit_compile=True goes through experimental_get_compiler_ir(...)(stage="hlo"): the real
    JIT201 fix compiles; a tf.print injected into an XLA function fails with XLA's message."""
    pytest.importorskip("tensorflow")
    (tmp_path / "xla.py").write_text(XLA)
    (tmp_path / "inputs.py").write_text(
        "import tensorflow as tf\nEXAMPLES = {\n"
        "    'xla:shift': [((tf.TensorSpec((3,), tf.float32),), {})],\n"
        "    'xla:scale': [((tf.constant([1.0, 2.0]),), {})],\n}\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jitlint.verify]\nexamples = ["inputs.py"]\ntimeout = 240\n'
    )
    from jitlint.engine.fixloop import passes, runner

    real = passes.fix_text

    def with_wrong_scale(text, path, *args, **kwargs):
        outcome = real(text, path, *args, **kwargs)
        outcome.source = outcome.source.replace(
            "return x * 2.0", 'tf.print("x", x)\n    return x * 2.0'
        )
        return outcome

    monkeypatch.setattr(runner, "fix_text", with_wrong_scale)
    _, out, _ = _fix_verify(tmp_path, monkeypatch, "xla.py")
    lines = _lines(out)
    # The original adds float32 to float64 and raises eagerly too: compiled, nothing to compare.
    assert lines["xla.py shift"].startswith(
        "compiled (compiled with tf.function(jit_compile=True) on 1 example (declared "
        "examples); not compared with eager: the original raises when run eagerly"
    ), out
    assert lines["xla.py scale"].startswith(
        "failed (does not compile with tf.function(jit_compile=True) (example 1 of 1)"
    ), out
    assert "OpKernel for XLA_CPU_JIT" in lines["xla.py scale"]
    written = (tmp_path / "xla.py").read_text()
    assert "tf.constant(0.5, dtype=tf.float64)" in written
    assert "tf.print" not in written
