"""The static path imports no jax, tensorflow or numpy (they cost 0.6-3.4 s per process)."""

from __future__ import annotations

import ast
import gc
import subprocess
import sys
from pathlib import Path

import pytest

from jitlint.catalogue import section_code
from jitlint.rules import all_rules

HEAVY = ("jax", "jaxlib", "tensorflow", "numpy", "keras", "torch")


def _imported(*args: str, cwd: Path) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    modules = set()
    for line in proc.stderr.splitlines():
        # "import time:       self [us] |  cumulative | imported package"
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                modules.add(name)
    assert "libcst" in modules, "importtime output not understood"
    return modules


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in HEAVY}


@pytest.fixture
def examples(tmp_path: Path) -> list[str]:
    names = []
    for code, rule in all_rules().items():
        source = section_code(rule, "Example")
        if source:
            (tmp_path / f"ex_{code}.py").write_text(source, encoding="utf-8")
            names.append(f"ex_{code}.py")
    assert names
    return names


@pytest.mark.parametrize(
    "options",
    [(), ("--select", "ALL"), ("--select", "ALL", "--format", "sarif")],
    ids=["default", "all-rules", "sarif"],
)
def test_cli_imports_no_framework(tmp_path, examples, options):
    modules = _imported("-m", "jitlint", "--no-cache", "-j1", *options, *examples, cwd=tmp_path)
    assert any(m.startswith("jitlint.rules.") for m in modules)
    assert _heavy(modules) == set()


def test_flake8_plugin_imports_no_framework(tmp_path, examples):
    pytest.importorskip("flake8")
    modules = _imported("-m", "flake8", "--select=JIT", *examples, cwd=tmp_path)
    assert any(m.startswith("jitlint.engine") for m in modules)  # the plugin was loaded
    assert _heavy(modules) == set()


def test_a_jax_file_loads_no_tensorflow_model(tmp_path):
    # A one-file run pays for what its text can trigger (rules/_index.py's gates): a JAX-only
    # file with no class loads neither the TF rules nor the TF model. (Rule modules come
    # through importlib, which -X importtime does not list: sys.modules is read instead.)
    (tmp_path / "step.py").write_text(
        "import jax\n\n@jax.jit\ndef step(x):\n    if x > 0:\n        return x\n    return -x\n",
        encoding="utf-8",
    )
    script = (
        "import sys\n"
        "from jitlint.frontends.cli import main\n"
        "code = main(['--no-cache', '-j1', 'step.py'])\n"
        "print('LOADED', code, *sorted(m for m in sys.modules if m.startswith('jitlint.')))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    code, *loaded = proc.stdout.rpartition("LOADED ")[2].split()
    assert code == "1"  # the JIT101 finding: the rules did run
    assert "jitlint.rules.jax.jit101_traced_bool" in loaded
    tf_parts = {m for m in loaded if m.startswith(("jitlint.rules.tf.", "jitlint.model.tf."))}
    assert tf_parts == set()


def test_a_clean_one_file_run_loads_only_what_it_uses(tmp_path):
    # A one-file run (pre-commit's) pays for what it uses: with no finding it loads no fix
    # builder, no output format but the one it writes, no diagnostics nor their positions,
    # no result cache (nor hashlib) under --no-cache, no project pass (one file has no other
    # file to call it), no parser of suppression comments, and reads the shipped facts
    # without importlib.resources.
    (tmp_path / "step.py").write_text(
        "import jax\n\n@jax.jit\ndef step(x):\n    return x + 1\n\nprint(step(1))\n",
        encoding="utf-8",
    )
    script = (
        "import sys\n"
        "from jitlint.frontends.cli import main\n"
        "code = main(['--no-cache', '-j1', 'step.py'])\n"
        "print('LOADED', code, *sorted(sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    code, *loaded = proc.stdout.rpartition("LOADED ")[2].split()
    assert code == "0"
    assert "jitlint.rules.jax.jit101_traced_bool" in loaded  # the JAX rules did run
    assert "jitlint.model.library.jax_facts" in loaded
    fixes = {m for m in loaded if m.startswith("jitlint.fixes.")}
    assert fixes == {"jitlint.fixes.node_fix"}  # the type of every rule's fix (rules/base.py)
    formats = {m for m in loaded if m.startswith("jitlint.reporting.")}
    assert formats == {
        "jitlint.reporting.options",
        "jitlint.reporting.style",
        "jitlint.reporting.text",
    }
    late = {
        "jitlint.diagnostics",  # findings, and their positions and edits
        "jitlint.engine.positions",
        "jitlint.engine.fixloop.edits",
        "jitlint.model.project.files",  # resolving another file's records
        "jitlint.engine.cache",
        "jitlint.engine.project",
        "jitlint.python.suppression",
        "hashlib",
        "configparser",
        "importlib.resources",
        "shutil",
        "traceback",
    }
    assert late & set(loaded) == set()


def test_dataclasses_have_docstrings():
    # Without one, `dataclass` computes `inspect.signature` of the class for its __doc__: a
    # cost paid at import by every process, ~0.1 ms a class.
    package = Path(__file__).resolve().parents[1] / "jitlint"
    missing = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ClassDef)
                and any("dataclass" in ast.unparse(d) for d in node.decorator_list)
                and ast.get_docstring(node) is None
            ):
                missing.append(f"{path.relative_to(package)}: {node.name}")
    assert missing == []


def test_the_command_line_collects_only_after_its_imports(tmp_path):
    # `python -m jitlint` keeps the garbage collector off while a command imports what it
    # needs (libcst, the models, the engine), then freezes what the imports made and lints
    # with the collector on.
    (tmp_path / "step.py").write_text("import jax\n\nstep = jax.jit(abs)\n", encoding="utf-8")
    script = (
        "import gc, sys\n"
        "from jitlint.__main__ import run\n"
        "early = []\n"
        "def noted(phase, info):\n"
        "    if phase == 'start' and 'jitlint.engine.linter' not in sys.modules:\n"
        "        early.append(info['generation'])\n"
        "gc.callbacks.append(noted)\n"
        "sys.argv = ['jitlint', '--no-cache', 'step.py']\n"
        "code = run()\n"
        "print('STATE', code, len(early), gc.isenabled(), gc.get_freeze_count())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    code, early, enabled, frozen = proc.stdout.rpartition("STATE ")[2].split()
    assert (code, early, enabled) == ("0", "0", "True")  # no pass while importing
    assert int(frozen) > 10_000  # the imports' objects, out of every later pass
    # The lint itself runs with the collector on.
    script = (
        "import gc, sys\n"
        "import jitlint.engine.runner as runner\n"
        "from jitlint.frontends.cli import main\n"
        "from jitlint.system import collector\n"
        "seen = []\n"
        "original = runner.run_task\n"
        "def run_task(task):\n"
        "    seen.append(gc.isenabled())\n"
        "    return original(task)\n"
        "runner.run_task = run_task\n"
        "collector.pause()\n"
        "code = main(['--no-cache', 'step.py'])\n"
        "print('STATE', code, seen)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert proc.stdout.rpartition("STATE ")[2].split() == ["0", "[True]"]


def test_the_collector_resumes_only_its_own_pause():
    from jitlint.system import collector

    assert gc.isenabled()
    try:
        gc.disable()  # a caller's own choice stands
        collector.pause()
        collector.resume()
        assert not gc.isenabled()
        gc.enable()
        collector.pause()
        assert not gc.isenabled()
        collector.resume()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.enable()
