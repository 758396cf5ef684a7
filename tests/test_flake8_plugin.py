"""The flake8 plugin, run through the real flake8, against the real `jitlint` CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli

from jitlint.catalogue import section_code
from jitlint.rules import all_rules

pytest.importorskip("flake8")

_FORMAT = "%(path)s\t%(row)d\t%(col)d\t%(code)s\t%(text)s"


def flake8(cwd: Path, *args: str) -> list[tuple[str, int, int, str, str]]:
    """(file name, line, column, code, message) as the real flake8 prints them."""
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", f"--format={_FORMAT}", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "jitlint: error" not in proc.stderr, proc.stderr
    rows = []
    for line in proc.stdout.splitlines():
        path, row, col, code, text = line.split("\t", 4)
        rows.append((Path(path).name, int(row), int(col), code, text))
    return rows


def jitlint_json(cwd: Path, *args: str) -> list[dict[str, object]]:
    """`jitlint --format json ARGS` run in `cwd`, in this process."""
    before = os.getcwd()
    os.chdir(cwd)
    try:
        status, out, err = run_cli("--format", "json", "--no-cache", *args)
    finally:
        os.chdir(before)
    assert status in (0, 1), err
    return json.loads(out)


def _examples(tmp_path: Path) -> dict[str, Path]:
    written = {}
    for code, rule in all_rules().items():
        source = section_code(rule, "Example")
        if source is None:
            continue
        path = tmp_path / f"example_{code.lower()}.py"
        path.write_text(source, encoding="utf-8")
        written[code] = path
    return written


def _python_parses(path: Path) -> bool:
    try:
        compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


def test_flake8_matches_cli_on_every_rule_example(tmp_path):
    examples = _examples(tmp_path)
    assert examples, "no rule has an Example section"
    names = [p.name for p in examples.values()]
    every_code = ",".join(all_rules())
    cli = jitlint_json(tmp_path, "--select", "ALL", *names)
    # flake8 itself must select every JIT code, off-by-default ones included.
    hits = flake8(tmp_path, "--select=JIT,E999", f"--extend-select={every_code}", *names)

    # flake8 reports a file Python cannot parse as E999 and runs no plugin on it; jitlint
    # reports JIT001 at the same line. Everything else must be the same finding.
    unparsable = {p.name for p in examples.values() if not _python_parses(p)}
    want = sorted(
        (Path(str(d["path"])).name, d["line"], d["column"], d["code"], d["message"])
        for d in cli
        if Path(str(d["path"])).name not in unparsable
    )
    got = sorted(
        (name, row, col, code, text.removeprefix(f"{code} "))
        for name, row, col, code, text in hits
        if code != "E999"
    )
    assert got == want
    for name in unparsable:
        cli_lines = {d["line"] for d in cli if Path(str(d["path"])).name == name}
        e999_lines = {row for n, row, _, code, _ in hits if n == name and code == "E999"}
        assert e999_lines and e999_lines <= cli_lines, name
    # The comparison is not vacuous: every rule's example is flagged with its own code.
    for code, path in examples.items():
        if path.name not in unparsable:
            assert any(d[0] == path.name and d[3] == code for d in got), code


def _jit110_example(tmp_path: Path) -> str:
    rule = all_rules().get("JIT110")
    source = section_code(rule, "Example") if rule else None
    if source is None:
        pytest.skip("JIT110 has no example")
    return source


def test_flake8_noqa_and_disable_noqa(tmp_path):
    source = _jit110_example(tmp_path)
    flagged = next(i for i, line in enumerate(source.splitlines()) if "# error: JIT110" in line)
    lines = source.splitlines()
    lines[flagged] = lines[flagged].replace("# error: JIT110", "# noqa: JIT110")
    (tmp_path / "a.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert flake8(tmp_path, "--select=JIT", "a.py") == []
    assert [h[3] for h in flake8(tmp_path, "--select=JIT", "--disable-noqa", "a.py")] == ["JIT110"]


def test_flake8_per_file_ignores_and_extend_select(tmp_path):
    source = _jit110_example(tmp_path)
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(source, encoding="utf-8")
    hits = flake8(tmp_path, "--select=JIT", "--per-file-ignores=a.py:JIT110", "a.py", "b.py")
    assert {(h[0], h[3]) for h in hits} == {("b.py", "JIT110")}
    # A narrow --select drops JIT codes; --extend-select brings one back.
    assert [h for h in flake8(tmp_path, "--select=E9", "a.py") if h[3].startswith("JIT")] == []
    hits = flake8(tmp_path, "--select=E9", "--extend-select=JIT110", "a.py")
    assert [h[3] for h in hits] == ["JIT110"]


def test_flake8_off_by_default_rules_need_extend_select(tmp_path):
    off = [code for code, rule in all_rules().items() if not rule.default_enabled]
    if not off:
        pytest.skip("every rule is enabled by default")
    examples = _examples(tmp_path)
    names = [examples[code].name for code in off if code in examples]
    by_default = {h[3] for h in flake8(tmp_path, *names)}
    assert not by_default & set(off)
    extended = {h[3] for h in flake8(tmp_path, f"--extend-select={','.join(off)}", *names)}
    assert extended & set(off)


def test_flake8_rule_option_from_config(tmp_path):
    rule = all_rules().get("JIT110")
    if rule is None or "unhashable-calls" not in rule.options:
        pytest.skip("JIT110 has no unhashable-calls option")
    (tmp_path / "a.py").write_text(
        "from functools import partial\n"
        "import jax\n"
        "import mylib\n\n\n"
        '@partial(jax.jit, static_argnames="axes")\n'
        "def total(x, axes):\n"
        "    return x\n\n\n"
        "total(1, axes=mylib.make_axes())\n",
        encoding="utf-8",
    )
    assert flake8(tmp_path, "--select=JIT", "a.py") == []
    (tmp_path / "setup.cfg").write_text(
        "[flake8]\njitlint-unhashable-static-arg-unhashable-calls = mylib.make_axes\n",
        encoding="utf-8",
    )
    # --isolated would skip the config file: this run reads it.
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--select=JIT", "a.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "JIT110" in proc.stdout, proc.stdout + proc.stderr
    assert jitlint_json(tmp_path, "a.py") == []  # the CLI reads [tool.jitlint] instead


def test_flake8_reads_the_frameworks_the_project_declares(tmp_path):
    # The same facts as the CLI (profiles.py): a project pinned to Keras 2 gets no finding
    # that needs Keras 3's auto-jit, under flake8 too.
    source = section_code(all_rules()["JIT213"], "Example")
    assert source is not None
    (tmp_path / "a.py").write_text(source, encoding="utf-8")
    before = {row[3] for row in flake8(tmp_path, "--select=JIT", "a.py")}
    assert "JIT213" in before
    assert "JIT213" in {d["code"] for d in jitlint_json(tmp_path, "a.py")}
    (tmp_path / "requirements.txt").write_text("tensorflow==2.15.0\n", encoding="utf-8")
    assert "JIT213" not in {row[3] for row in flake8(tmp_path, "--select=JIT", "a.py")}
    assert "JIT213" not in {d["code"] for d in jitlint_json(tmp_path, "a.py")}
