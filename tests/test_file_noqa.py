"""File-level `# jitlint: noqa[: CODES]`, and JIT002 (unused-suppression) with its fix."""

from __future__ import annotations

import textwrap

import pytest
from helpers import run_cli

from jitlint import fix_source, lint_source
from jitlint.selection import resolve

BAD = "g = jax.jit(lambda x: x, static_argnums=3)"  # JIT112
BRANCH = """\
import jax


@jax.jit
def step(x):
    if x > 0:{comment}
        return x
    return -x
"""


def codes_and_lines(source: str, select: list[str] | None) -> list[tuple[str, int]]:
    return [(d.code, d.line) for d in lint_source(textwrap.dedent(source), select=select)]


# ---- file-level `# jitlint: noqa` ------------------------------------------------------------


@pytest.mark.parametrize(
    "comment",
    ["# jitlint: noqa", "# jitlint: noqa: JIT112", "# jitlint: noqa: JIT1", "#jitlint:noqa"],
)
def test_file_level_jitlint_noqa_suppresses_the_whole_file(comment):
    source = f"import jax\n{BAD}\n{comment}\n{BAD}\n"
    assert codes_and_lines(source, ["JIT112"]) == []


def test_file_level_jitlint_noqa_with_other_codes_keeps_the_finding():
    source = f"# jitlint: noqa: JIT110, JIT2\nimport jax\n{BAD}\n"
    assert codes_and_lines(source, ["JIT112"]) == [("JIT112", 3)]


def test_file_level_noqa_inside_a_string_is_not_a_comment():
    source = f'import jax\ns = "# jitlint: noqa"\n{BAD}\n'
    assert codes_and_lines(source, ["JIT112"]) == [("JIT112", 3)]


def test_flake8_plugin_path_keeps_the_file_level_comment():
    # flake8 applies its own `# noqa`; jitlint's file-level comment still applies there.
    from jitlint.engine.linter import lint_text

    source = f"import jax\n{BAD}\n# jitlint: noqa: JIT112\n"
    assert lint_text(source, "case.py", {"JIT112"}, noqa=False).diagnostics == []
    assert lint_text(f"import jax\n{BAD}\n", "case.py", {"JIT112"}, noqa=False).diagnostics


# ---- JIT002: what counts as unused -----------------------------------------------------------


def test_jit002_is_off_by_default():
    assert "JIT002" not in resolve(None)
    source = "import jax\nx = 1  # noqa: JIT101\n"
    assert codes_and_lines(source, None) == []
    assert codes_and_lines(source, ["JIT002"]) == [("JIT002", 2)]


def test_a_used_code_is_not_reported():
    source = BRANCH.format(comment="  # noqa: JIT101")
    assert codes_and_lines(source, ["JIT101", "JIT002"]) == []


def test_a_used_prefix_is_not_reported():
    source = BRANCH.format(comment="  # noqa: JIT1")
    assert codes_and_lines(source, ["JIT101", "JIT002"]) == []


def test_a_used_directive_on_another_line_of_the_statement_is_not_reported():
    source = (
        "import jax\ng = jax.jit(\n    lambda x: x,\n    static_argnums=3,\n)  # noqa: JIT112\n"
    )
    assert codes_and_lines(source, ["JIT112", "JIT002"]) == []


def test_a_dead_code_beside_a_used_one_is_reported_alone():
    source = BRANCH.format(comment="  # noqa: JIT101, JIT102")
    diagnostics = lint_source(source, select=["JIT101", "JIT102", "JIT002"])
    assert [(d.code, d.line) for d in diagnostics] == [("JIT002", 6)]
    assert "`JIT102` (no finding here)" in diagnostics[0].message
    assert "JIT101" not in diagnostics[0].message


@pytest.mark.parametrize(
    ("comment", "reason"),
    [
        ("# noqa: JIT999", "unknown code"),
        ("# noqa: JIT1010", "unknown code"),
        ("# noqa: JIT213", "rule not enabled"),
        ("# noqa: JIT101", "no finding here"),
        ("# jitlint: ignore[JIT101]", "no finding here"),
    ],
)
def test_the_reason_is_named(comment, reason):
    source = f"import jax\nx = 1  {comment}\n"
    diagnostics = lint_source(source, select=["JIT1", "JIT002"])
    assert [d.code for d in diagnostics] == ["JIT002"]
    assert reason in diagnostics[0].message


@pytest.mark.parametrize(
    "comment",
    ["# noqa", "# noqa: E501", "# noqa:E501,W291", "# NOQA", "# noqa: JIT002", "# type: ignore"],
)
def test_other_tools_codes_and_bare_noqa_are_never_reported(comment):
    assert codes_and_lines(f"import jax\nx = 1  {comment}\n", ["ALL"]) == []


def test_a_bare_jitlint_ignore_without_findings_is_reported():
    assert codes_and_lines("import jax\nx = 1  # jitlint: ignore\n", ["ALL"]) == [("JIT002", 2)]
    used = BRANCH.format(comment="  # jitlint: ignore")
    assert codes_and_lines(used, ["ALL"]) == []


def test_file_level_comments_are_not_judged_but_do_suppress_jit002():
    source = "# jitlint: noqa: JIT213\n# ruff: noqa: JIT110\nimport jax\n"
    assert codes_and_lines(source, ["ALL"]) == []
    hushed = "# jitlint: noqa: JIT002\nimport jax\nx = 1  # noqa: JIT101\n"
    assert codes_and_lines(hushed, ["ALL"]) == []


def test_a_directive_naming_jit002_silences_its_own_finding():
    source = "import jax\nx = 1  # noqa: JIT101, JIT002\n"
    assert codes_and_lines(source, ["ALL"]) == []


def test_a_noqa_inside_a_string_is_not_reported():
    assert codes_and_lines('import jax\ns = "# noqa: JIT101"\n', ["ALL"]) == []


def test_jit002_in_a_file_without_comments_costs_nothing_and_finds_nothing():
    assert codes_and_lines(f"import jax\n{BAD}\n", ["JIT002"]) == []


# ---- JIT002's fix ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ("x = 1  # noqa: JIT101\n", "x = 1\n"),
        ("x = 1  # noqa: E501, JIT101\n", "x = 1  # noqa: E501\n"),
        ("x = 1  # noqa: JIT101, E501\n", "x = 1  # noqa: E501\n"),
        ("x = 1  # noqa:JIT101,JIT999\n", "x = 1\n"),
        ("x = 1  # noqa: JIT101  # why\n", "x = 1  # why\n"),
        ("x = 1  # noqa: JIT101 because\n", "x = 1  # because\n"),
        ("x = 1  # type: ignore  # noqa: JIT101\n", "x = 1  # type: ignore\n"),
        ("x = 1  # jitlint: ignore[JIT101, JIT102]\n", "x = 1\n"),
        ("x = 1  # jitlint: ignore\n", "x = 1\n"),
        ("    # noqa: JIT101\n", "\n"),
        ("x = 1  # noqa: JIT101\r\n", "x = 1\r\n"),
    ],
)
def test_the_fix_removes_only_the_dead_codes(line, fixed):
    result = fix_source("import jax\n" + line, select=["JIT002"])
    assert result.source == "import jax\n" + fixed
    assert [d.code for d in result.applied] == ["JIT002"]
    assert result.remaining == []


def test_the_fix_keeps_used_codes():
    source = BRANCH.format(comment="  # noqa: JIT102, JIT101, JIT110")
    result = fix_source(source, select=["JIT101", "JIT102", "JIT110", "JIT002"])
    assert result.source == BRANCH.format(comment="  # noqa: JIT101")
    assert [d.code for d in result.remaining] == []


def test_the_fix_is_safe():
    (diagnostic,) = lint_source("import jax\nx = 1  # noqa: JIT101\n", select=["JIT002"])
    assert diagnostic.fix is not None and diagnostic.fix.applicability == "safe"
    assert (diagnostic.line, diagnostic.column, diagnostic.end_column) == (2, 8, 22)


# ---- the command line ------------------------------------------------------------------------


def test_cli_fix_and_add_noqa(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("import jax\nx = 1  # noqa: E501, JIT107\n")
    status, out, _ = run_cli(
        "--no-cache", "--extend-select", "JIT002", "m.py", "--format", "concise"
    )
    assert status == 1 and "m.py:2:8: JIT002" in out
    # --add-noqa leaves a JIT002 finding alone: the fix is to edit the comment.
    status, _, err = run_cli("--no-cache", "--extend-select", "JIT002", "--add-noqa", "m.py")
    assert status == 0 and "Added 0 noqa directives" in err
    status, _, _ = run_cli("--no-cache", "--extend-select", "JIT002", "--fix", "m.py")
    assert status == 0
    assert (tmp_path / "m.py").read_text() == "import jax\nx = 1  # noqa: E501\n"


def test_explain_and_list_rules_know_jit002():
    status, out, _ = run_cli("--explain", "JIT002")
    assert status == 0 and "unused-suppression" in out
    status, out, _ = run_cli("--list-rules")
    line = next(row for row in out.splitlines() if row.startswith("JIT002"))
    assert "*o" in line  # a fix, off by default


def test_another_comment_on_the_statement_silences_jit002():
    assert codes_and_lines("import jax\nx = 1  # noqa  # jitlint: ignore[JIT101]\n", ["ALL"]) == []
    silenced = "import jax\nx = (1,  # jitlint: ignore[JIT101]\n     2)  # noqa: JIT002\n"
    assert codes_and_lines(silenced, ["ALL"]) == []


def test_a_notebook_cell_gets_the_finding_and_the_fix():
    import json

    cells = [["import jax\n", "%matplotlib inline"], ["x = 1  # noqa: E501, JIT101\n", "y = 2"]]
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": cell, "outputs": [],
             "execution_count": None}
            for cell in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    text = json.dumps(notebook, indent=1)
    (diagnostic,) = lint_source(text, "n.ipynb", select=["JIT002"])
    assert (diagnostic.cell, diagnostic.line, diagnostic.column) == (2, 1, 8)
    fixed = json.loads(fix_source(text, "n.ipynb", select=["JIT002"]).source)
    assert fixed["cells"][1]["source"] == ["x = 1  # noqa: E501\n", "y = 2"]
    assert fixed["cells"][0]["source"] == cells[0]


def test_nothing_is_judged_where_the_tokenizer_fails():
    from jitlint.python import suppression

    # An unterminated string: the `#` is guessed to start a comment, but may be inside it.
    found = suppression.collect('s = """text  # noqa: JIT101\n')
    assert found is not None and not found.tokenized
    assert suppression.unused_directives(found, [], {"JIT101"}, {"JIT101"}) == []
    good = suppression.collect("x = 1  # noqa: JIT101\n")
    assert good is not None and good.tokenized
    assert suppression.unused_directives(good, [], {"JIT101"}, {"JIT101"}) != []


@pytest.mark.parametrize("comment", ["# noqa: E501", "# NOQA", "# noqa: F401, W291"])
def test_jit002_does_not_tokenize_a_clean_file_whose_comments_name_no_jit_code(
    comment, monkeypatch
):
    # Another tool's noqa cannot be a JIT002 finding, so the file's comments are not read.
    import jitlint.python.suppression as suppression

    def refuse(source: str) -> None:
        raise AssertionError("tokenized a file JIT002 has nothing to say about")

    monkeypatch.setattr(suppression, "collect", refuse)
    assert codes_and_lines(f"import jax\nx = 1  {comment}\n", ["ALL"]) == []


@pytest.mark.parametrize("comment", ["# NOQA: jit101", "# noqa:E501,jit1", "# noqa: JIT9"])
def test_jit002_still_reads_a_jit_code_in_any_case(comment):
    assert codes_and_lines(f"import jax\nx = 1  {comment}\n", ["ALL"]) == [("JIT002", 2)]


@pytest.mark.parametrize(
    "text",
    [
        "x = 1  # NOQA: Jit101\n", "x = 1  # noqa\njit = 2\n", "# JitLint: ignore\n",
        "x = 1\n", "# noqa: E501\n", "s = 'é'  # noqa: jit101\n", "s = 'é'  # noqa\n",
        "# j\u0130tlint: ignore\n", "# noqa: \u212a\n", "# NOQA j\u0131t\n",
    ],
)  # fmt: skip
def test_the_comment_prefilter_is_the_case_insensitive_pattern(text):
    # The fast path lowers an ASCII text; any other text is searched as it is.
    from jitlint.engine.linter import _JIT_DIRECTIVE, _may_name_jit_code

    assert _may_name_jit_code(text) == bool(_JIT_DIRECTIVE.search(text))
