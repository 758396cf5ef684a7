"""ruff's and flake8's command-line conventions (#18): exclude flags, per-file ignores,
--output-file, --show-fixes, --add-noqa, and file-level noqa comments."""

from __future__ import annotations

import json
import textwrap

import pytest
from helpers import run_cli

from jitlint import lint_source
from jitlint.frontends.noqa import with_noqa

SAFE_FIX = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"  # JIT112, safe fix
TRACED_IF = textwrap.dedent(
    """\
    import jax


    @jax.jit
    def f(x):
        if x > 0:
            return x
        return -x
    """
)  # JIT101 at 6:8, unsafe fix


@pytest.fixture
def tree(tmp_path, monkeypatch):
    for name in ("src/a.py", "build/b.py", "gen/c.py", "tests/test_d.py"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SAFE_FIX)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def paths(*args: str) -> list[str]:
    status, out, err = run_cli("--format", "json", *args)
    assert status in (0, 1), err
    return sorted({finding["path"] for finding in json.loads(out)})


def test_exclude_and_extend_exclude(tree):
    # `build` is a default exclude; --exclude replaces the defaults, --extend-exclude adds.
    assert paths(".") == ["gen/c.py", "src/a.py", "tests/test_d.py"]
    assert paths("--exclude", "gen", ".") == ["build/b.py", "src/a.py", "tests/test_d.py"]
    assert paths("--extend-exclude", "gen,tests", ".") == ["src/a.py"]
    assert paths("--extend-exclude", "gen", "--extend-exclude", "src/", ".") == ["tests/test_d.py"]


def test_extend_ignore_and_per_file_ignores(tree):
    assert paths("--extend-ignore", "JIT112", ".") == []
    assert paths("--per-file-ignores", "tests/*:JIT112 gen/*:JIT1", ".") == ["src/a.py"]
    assert paths("--per-file-ignores", "src/*:JIT110,JIT112", ".") == [
        "gen/c.py",
        "tests/test_d.py",
    ]
    status, _, err = run_cli("--per-file-ignores", "src/*", ".")
    assert status == 2 and "PATTERN:CODES" in err
    status, _, err = run_cli("--per-file-ignores", "src/*:JIT999", ".")
    assert status == 2 and "JIT999" in err


def test_output_file_gets_the_report(tree):
    status, out, _ = run_cli("--output-file", "report.json", "--format", "json", "src")
    assert (status, out) == (1, "")
    assert [f["code"] for f in json.loads((tree / "report.json").read_text())] == ["JIT112"]
    status, out, _ = run_cli("-o", "report.txt", "src")
    assert out == ""
    assert "Found 1 error." in (tree / "report.txt").read_text()


def test_output_file_with_fix(tree):
    status, out, _ = run_cli("--fix", "-o", "report.txt", "src")
    assert (status, out) == (0, "")
    assert "Fixed 1 finding; 0 remain." in (tree / "report.txt").read_text()


def test_show_fixes_in_a_check_shows_the_edits(tree):
    _, out, _ = run_cli("--show-fixes", "src")
    assert "  = fix (safe):\n2 | - g = jax.jit(lambda x: x, static_argnums=3)\n" in out
    assert "  | + g = jax.jit(lambda x: x)\n" in out
    assert "= fix" not in run_cli("src")[1]


def test_show_fixes_of_a_fix_over_several_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(TRACED_IF)
    _, out, _ = run_cli("--show-fixes", "--unsafe-fixes", "a.py")
    preview = out[out.index("= fix (unsafe):") : out.index("Found")]
    assert preview.splitlines() == [
        "= fix (unsafe):",
        "6 | -     if x > 0:",
        "7 | -         return x",
        "8 | -     return -x",
        "  | +     return jax.numpy.where(x > 0, x, -x)",
        "",
    ]


def test_show_fixes_with_fix_lists_what_was_fixed(tree):
    status, out, _ = run_cli("--fix", "--show-fixes", "src", "gen")
    assert status == 0
    assert (
        "Fixed 2 findings:\n- gen/c.py:\n    1 x JIT112 (bad-static-spec)\n"
        "- src/a.py:\n    1 x JIT112 (bad-static-spec)\n" in out
    )


def test_add_noqa_then_the_files_are_clean(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(TRACED_IF)
    (tmp_path / "b.py").write_bytes(SAFE_FIX.replace("\n", "\r\n").encode())
    status, out, err = run_cli("--add-noqa", ".")
    assert (status, out) == (0, "")
    assert err == "Added 2 noqa directives.\n"
    assert "    if x > 0:  # noqa: JIT101\n" in (tmp_path / "a.py").read_text()
    assert (
        (tmp_path / "b.py").read_bytes().endswith(b"static_argnums=3)  # noqa: JIT112\r\n")
    )  # line endings kept
    assert run_cli(".")[0] == 0


def test_add_noqa_refuses_to_combine_with_fixing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(SAFE_FIX)
    for extra in ("--fix", "--diff"):
        status, _, err = run_cli("--add-noqa", extra, "a.py")
        assert status == 2 and "--add-noqa" in err
    assert (tmp_path / "a.py").read_text() == SAFE_FIX


@pytest.mark.parametrize(
    ("source", "lines", "expected"),
    [
        # An existing noqa comment gets the code added.
        ("x = 1  # noqa: E501\n", {1: {"JIT101"}}, "x = 1  # noqa: E501, JIT101\n"),
        ("x = 1  # keep me\n", {1: {"JIT101"}}, "x = 1  # keep me  # noqa: JIT101\n"),
        # A line ending inside a multi-line string: after the string.
        ('f("""a\nb""", x)\n', {1: {"JIT101"}}, 'f("""a\nb""", x)  # noqa: JIT101\n'),
        # A backslash continuation: on the next line.
        ("y = a + \\\n    b\n", {1: {"JIT101"}}, "y = a + \\\n    b  # noqa: JIT101\n"),
        # Two findings on one line: one comment.
        ("z = 1\n", {1: {"JIT112", "JIT101"}}, "z = 1  # noqa: JIT101, JIT112\n"),
    ],
)
def test_noqa_placement(source, lines, expected):
    text, count = with_noqa(source, lines)
    assert text == expected
    assert count == 1
    compile(text, "<noqa>", "exec")


BAD = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"


@pytest.mark.parametrize(
    "comment",
    [
        "# flake8: noqa",
        "# ruff: noqa",
        "# ruff: noqa: JIT112",
        "# ruff: noqa: E501, JIT1",
        "# flake8: noqa: JIT112",
        "# RUFF: NOQA: JIT112",
    ],
)
def test_file_level_noqa_of_flake8_and_ruff(comment):
    assert lint_source(f"{comment}\n{BAD}", select=["JIT112"]) == []
    assert lint_source(f"{BAD}\n\nx = 1\n{comment}\n", select=["JIT112"]) == []


@pytest.mark.parametrize(
    "comment", ["# ruff: noqa: JIT110", "# ruff: noqa: E501", "# jitlint rocks"]
)
def test_file_level_noqa_of_other_codes_keeps_the_finding(comment):
    assert [d.code for d in lint_source(f"{comment}\n{BAD}", select=["JIT112"])] == ["JIT112"]


def test_the_flake8_plugin_respects_ruffs_file_level_noqa(tmp_path):
    from jitlint.engine.linter import lint_text

    source = "# ruff: noqa: JIT112\n" + BAD
    # The plugin's mode (noqa=False) leaves flake8's own line comments to flake8.
    assert lint_text(source, "a.py", {"JIT112"}, noqa=False).diagnostics == []
    line_noqa = BAD.rstrip("\n") + "  # noqa: JIT112\n"
    assert [d.code for d in lint_text(line_noqa, "a.py", {"JIT112"}, noqa=False).diagnostics] == [
        "JIT112"
    ]
