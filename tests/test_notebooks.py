"""Jupyter notebooks: code cells linted and fixed together, reported per cell as ruff does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli

from jitlint import fix_source, lint_source
from jitlint.notebook.document import read_notebook
from jitlint.notebook.joined import Joined

IF_ON_TRACER = "@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
OUTPUT = {
    "name": "stdout",
    "output_type": "stream",
    "text": ["héllo 1.0e-05 \u00e9\n"],
}
IMAGE = {
    "data": {"image/png": "iVBORw0KGgo=\n", "text/plain": ["<Figure>"]},
    "metadata": {"needs_background": "light"},
    "output_type": "display_data",
}


def code(source: str | list[str], **extra: Any) -> dict[str, Any]:
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": []}
    cell.update(extra)
    cell["source"] = source if isinstance(source, list) else _lines(source)
    return cell


def markdown(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(text)}


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def notebook(*cells: dict[str, Any], language: str = "python") -> dict[str, Any]:
    return {
        "cells": list(cells),
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": language, "name": "python3"},
            "language_info": {"name": language, "version": "3.11.7"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def write(path: Path, document: dict[str, Any], indent: int = 1) -> bytes:
    # nbformat's own layout: indent 1, keys sorted, raw UTF-8, a final newline.
    data = (json.dumps(document, indent=indent, ensure_ascii=False) + "\n").encode("utf-8")
    path.write_bytes(data)
    return data


@pytest.fixture
def analysis(tmp_path, monkeypatch):
    """A notebook: markdown, imports with magics, a jitted `if`, a shell cell, a call."""
    monkeypatch.chdir(tmp_path)
    document = notebook(
        markdown("# Analysis\n\nSome text."),
        code("%matplotlib inline\nimport jax\n!pip install jax"),
        code(IF_ON_TRACER + "\nf(1.0)", outputs=[OUTPUT, IMAGE], metadata={"tags": ["x"]}),
        code("%%bash\nif x > 0; then echo hi; fi\n"),
    )
    data = write(tmp_path / "analysis.ipynb", document)
    return tmp_path / "analysis.ipynb", document, data


# ---- finding and reporting --------------------------------------------------------------------
def test_hazard_in_code_cell_is_reported_in_its_cell(analysis):
    status, out, err = run_cli("--no-cache", "--format", "concise", "analysis.ipynb")
    assert status == 1, err
    # Cell 3 counting the markdown cell (as Jupyter and ruff number them), line 3 in the cell.
    assert out.splitlines()[0].startswith("analysis.ipynb:cell 3:3:8: JIT101 ")
    assert "Found 1 error." in out


def test_full_format_frames_the_cell_line(analysis):
    status, out, _ = run_cli("--no-cache", "analysis.ipynb")
    assert status == 1
    assert "analysis.ipynb:cell 3:3:8: JIT101" in out
    lines = out.splitlines()
    frame = next(line for line in lines if line.startswith("3 |"))
    assert frame == "3 |     if x > 0:"
    assert lines[lines.index(frame) + 1].endswith("^^^^^ JIT101")


def test_json_carries_the_cell_for_the_finding_and_its_edits(analysis):
    status, out, _ = run_cli("--no-cache", "--format", "json", "analysis.ipynb")
    assert status == 1
    [finding] = json.loads(out)
    assert (finding["path"], finding["cell"], finding["line"], finding["column"]) == (
        "analysis.ipynb",
        3,
        3,
        8,
    )
    [edit] = finding["fix"]["edits"]
    assert (edit["cell"], edit["line"], edit["end_line"]) == (3, 3, 5)
    assert edit["content"] == "return jax.numpy.where(x > 0, x, -x)"


def test_json_of_a_plain_file_has_no_cell_key(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mod.py").write_text("import jax\n\n\n" + IF_ON_TRACER)
    _, out, _ = run_cli("--no-cache", "--format", "json", "mod.py")
    [finding] = json.loads(out)
    assert "cell" not in finding
    assert all("cell" not in edit for edit in finding["fix"]["edits"])


def test_sarif_region_names_the_cell_and_is_valid(analysis):
    jsonschema = pytest.importorskip("jsonschema")
    schema_path = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
    schema = json.loads(schema_path.read_text())
    status, out, _ = run_cli("--no-cache", "--format", "sarif", "analysis.ipynb")
    assert status == 1
    log = json.loads(out)
    jsonschema.Draft4Validator(schema).validate(log)
    [result] = log["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["properties"]) == (3, {"cell": 3})
    replacement = result["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["deletedRegion"]["properties"] == {"cell": 3}


def test_github_annotation_names_the_cell(analysis):
    _, out, _ = run_cli("--no-cache", "--format", "github", "analysis.ipynb")
    assert out.startswith("::error file=analysis.ipynb,line=3,")
    assert "::cell 3, line 3: this `if` converts" in out


def test_messages_name_lines_of_other_cells_by_cell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    body = "def g(x):\n    if x > 0:\n        return x\n    return -x\n"
    write(tmp_path / "nb.ipynb", notebook(code("import jax\n"), code(body), code("h = jax.jit(g)")))
    _, out, _ = run_cli("--no-cache", "--format", "json", "nb.ipynb")
    [finding] = json.loads(out)
    assert finding["cell"] == 2
    # The joined text's line 7 is cell 3's first line.
    assert finding["message"].endswith("which `jax.jit` compiles at cell 3, line 1")


# ---- IPython syntax ---------------------------------------------------------------------------
def test_magics_and_shell_escapes_are_skipped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    document = notebook(
        code(
            "import jax\n%load_ext autoreload\n!pip install jax\nfiles = !ls\n"
            "t = %timeit -o f(1)\njax.jit?\n%time if x > 0: pass\n"
        ),
        code("%%bash\nfor x in 1 2; do echo $x; done\n"),
        code("%%writefile helper.py\nimport jax\n@jax.jit\ndef h(x):\n    return float(x)\n"),
        code("@jax.jit\ndef f(x):\n    for i in range(3):\n        !echo {i}\n    return x\n"),
    )
    write(tmp_path / "nb.ipynb", document)
    status, out, err = run_cli("--no-cache", "nb.ipynb")
    assert (status, out) == (0, "All checks passed!\n"), err


def test_python_cell_magics_are_linted_below_the_magic_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    document = notebook(code("import jax\n"), code("%%time\n" + IF_ON_TRACER))
    write(tmp_path / "nb.ipynb", document)
    _, out, _ = run_cli("--no-cache", "--format", "concise", "nb.ipynb")
    assert out.startswith("nb.ipynb:cell 2:4:8: JIT101 ")


def test_a_percent_sign_inside_brackets_is_python_not_a_magic():
    cells = read_notebook(
        json.dumps(notebook(code('y = (a\n     % b)\ns = """\n!not a shell line\n"""\n%who\n')))
    ).cells
    joined = Joined.build(cells)
    lines = joined.text.splitlines()
    assert lines[:5] == ["y = (a", "     % b)", 's = """', "!not a shell line", '"""']
    assert lines[5] == "pass  # jitlint-magic 1"


def test_noqa_in_a_cell_suppresses(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = IF_ON_TRACER.replace("if x > 0:", "if x > 0:  # noqa: JIT101")
    write(tmp_path / "nb.ipynb", notebook(code("import jax\n"), code(source)))
    assert run_cli("--no-cache", "nb.ipynb")[:2] == (0, "All checks passed!\n")


def test_other_languages_are_not_linted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "r.ipynb", notebook(code("import jax\n" + IF_ON_TRACER), language="R"))
    assert run_cli("--no-cache", "r.ipynb")[:2] == (0, "All checks passed!\n")


def test_a_file_that_is_no_notebook_is_a_parse_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.ipynb").write_text('{\n "cells": [\n  {"cell_type": "code",,}\n ]\n}\n')
    (tmp_path / "old.ipynb").write_text('{"worksheets": [], "nbformat": 3}')
    status, out, _ = run_cli("--no-cache", "--format", "concise", "bad.ipynb", "old.ipynb")
    assert status == 1
    assert out.splitlines()[:2] == [
        "bad.ipynb:3:24: JIT001 not a notebook: invalid JSON: Expecting property name enclosed "
        "in double quotes",
        "old.ipynb:1:1: JIT001 not a notebook: no `cells` list (jitlint reads nbformat 4)",
    ]


def test_a_cell_that_does_not_parse_is_reported_in_that_cell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "nb.ipynb", notebook(code("import jax\n"), code("x = 1\ndef f(:\n")))
    _, out, _ = run_cli("--no-cache", "--format", "concise", "nb.ipynb")
    assert out.startswith("nb.ipynb:cell 2:2:")
    assert " JIT001 " in out.splitlines()[0]


# ---- discovery --------------------------------------------------------------------------------
def test_directories_include_notebooks_but_not_checkpoints(analysis):
    path, document, _ = analysis
    checkpoints = path.parent / ".ipynb_checkpoints"
    checkpoints.mkdir()
    write(checkpoints / "analysis-checkpoint.ipynb", document)
    status, out, _ = run_cli("--no-cache", "--format", "concise", ".")
    assert status == 1
    assert [line.split(": ")[0] for line in out.splitlines()[:-2]] == ["analysis.ipynb:cell 3:3:8"]


def test_large_outputs_do_not_count_against_the_size_limit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\nmax-file-size = 1000\n")
    picture = dict(IMAGE, data={"image/png": "A" * 5000})
    write(tmp_path / "nb.ipynb", notebook(code("import jax\n" + IF_ON_TRACER, outputs=[picture])))
    _, out, _ = run_cli("--no-cache", "--format", "concise", "nb.ipynb")
    assert out.startswith("nb.ipynb:cell 1:4:8: JIT101 ")


def test_the_cache_keeps_the_cell(analysis):
    first = run_cli("--format", "json", "analysis.ipynb")
    assert (Path(".jitlint_cache")).is_dir()
    second = run_cli("--format", "json", "analysis.ipynb")
    assert first == second
    assert json.loads(second[1])[0]["cell"] == 3


def test_stdin_with_a_notebook_name(analysis):
    _, _, data = analysis
    status, out, _ = run_cli("--format", "concise", "--stdin-filename", "x.ipynb", "-", stdin=data)
    assert status == 1
    assert out.startswith("x.ipynb:cell 3:3:8: JIT101 ")


# ---- fixing -----------------------------------------------------------------------------------
def test_fix_changes_only_the_code_cell_source(analysis):
    path, document, data = analysis
    status, out, err = run_cli("--no-cache", "--fix", "--unsafe-fixes", "analysis.ipynb")
    assert status == 0, out + err
    after = path.read_bytes()
    fixed = json.loads(after)
    # Outputs, metadata, execution counts, other cells: all as they were.
    assert fixed["metadata"] == document["metadata"]
    for old, new in zip(document["cells"], fixed["cells"], strict=True):
        assert {k: v for k, v in new.items() if k != "source"} == {
            k: v for k, v in old.items() if k != "source"
        }
    assert fixed["cells"][2]["source"] == [
        "@jax.jit\n",
        "def f(x):\n",
        "    return jax.numpy.where(x > 0, x, -x)\n",
        "\n",
        "f(1.0)",  # still no final newline, as the cell had none
    ]
    assert fixed["cells"][1]["source"] == document["cells"][1]["source"]  # magics kept
    # Byte for byte, only the lines of that source list changed (same indent, raw UTF-8).
    expected = data.decode().replace(
        '    "    if x > 0:\\n",\n    "        return x\\n",\n    "    return -x\\n",\n',
        '    "    return jax.numpy.where(x > 0, x, -x)\\n",\n',
    )
    assert after.decode() == expected != data.decode()
    assert run_cli("--no-cache", "analysis.ipynb")[:2] == (0, "All checks passed!\n")


@pytest.mark.parametrize("indent", [2, 4])
def test_fix_keeps_another_indent_and_crlf(tmp_path, monkeypatch, indent):
    monkeypatch.chdir(tmp_path)
    document = notebook(code("from jax import jit\n"), code(IF_ON_TRACER.replace("jax.jit", "jit")))
    text = json.dumps(document, indent=indent).replace("\n", "\r\n")
    (tmp_path / "nb.ipynb").write_bytes(text.encode())
    assert run_cli("--no-cache", "--fix", "--unsafe-fixes", "nb.ipynb")[0] == 0
    after = (tmp_path / "nb.ipynb").read_bytes().decode()
    fixed = json.loads(after)
    # The import the fix needs goes to the top of the first code cell.
    assert fixed["cells"][0]["source"] == ["import jax.numpy as jnp\n", "from jax import jit\n"]
    assert "    return jnp.where(x > 0, x, -x)\n" in fixed["cells"][1]["source"]
    assert after == json.dumps(fixed, indent=indent).replace("\n", "\r\n")


def test_fix_of_a_source_given_as_one_string_keeps_a_string(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    document = notebook(code("import jax\n"), code(""))
    document["cells"][1]["source"] = "import jax\nf = jax.jit(lambda x, a: x, static_argnums=1)\n"
    document["cells"][1]["source"] += "f(1.0, [0, 1])\n"
    write(tmp_path / "nb.ipynb", document)
    status, _, err = run_cli("--no-cache", "--fix", "nb.ipynb")  # safe: list -> tuple
    assert status == 0, err
    assert json.loads((tmp_path / "nb.ipynb").read_text())["cells"][1]["source"].endswith(
        "f(1.0, (0, 1))\n"
    )


def test_diff_is_per_cell_and_writes_nothing(analysis):
    path, _, data = analysis
    status, out, err = run_cli("--no-cache", "--diff", "--unsafe-fixes", "analysis.ipynb")
    assert status == 1
    assert out.startswith("--- a/analysis.ipynb:cell 3\n+++ b/analysis.ipynb:cell 3\n")
    assert "-    if x > 0:\n" in out and "+    return jax.numpy.where(x > 0, x, -x)\n" in out
    assert "Would fix 1 finding (1 unsafe)." in err
    assert path.read_bytes() == data


def test_remaining_findings_after_a_fix_are_in_cells(analysis):
    path, _, data = analysis
    status, out, _ = run_cli("--no-cache", "--fix", "--format", "concise", "analysis.ipynb")
    assert status == 1  # only an unsafe fix exists: nothing written
    assert out.startswith("analysis.ipynb:cell 3:3:8: JIT101 ")
    assert path.read_bytes() == data


def test_api_lints_and_fixes_notebook_text(analysis):
    _, _, data = analysis
    [finding] = lint_source(data, path="analysis.ipynb")
    assert (finding.cell, finding.line, finding.code) == (3, 3, "JIT101")
    result = fix_source(data.decode(), path="analysis.ipynb", unsafe=True)
    assert not result.remaining and len(result.applied) == 1
    assert "jax.numpy.where" in "".join(json.loads(result.source)["cells"][2]["source"])


# ---- the join and split ----------------------------------------------------------------------
def test_split_refuses_a_text_whose_boundaries_or_markers_moved():
    document = notebook(code("import jax\n%time x = 1\n"), code("y = 2"))
    joined = Joined.build(read_notebook(json.dumps(document)).cells)
    assert joined.split(joined.text) == {1: "import jax\n%time x = 1\n", 2: "y = 2"}
    merged = joined.text.replace("# jitlint-cell 1\n", "")
    assert joined.split(merged) is None
    lost_magic = joined.text.replace("pass  # jitlint-magic 1\n", "")
    assert joined.split(lost_magic) is None
    doubled = joined.text.replace("y = 2", "pass  # jitlint-magic 1\ny = 2")
    assert joined.split(doubled) is None


def test_user_text_that_looks_like_a_marker_changes_the_marker():
    document = notebook(code("# jitlint-cell 7\nx = 1\n"))
    joined = Joined.build(read_notebook(json.dumps(document)).cells)
    assert joined.boundary != "jitlint-cell"
    assert joined.split(joined.text) == {1: "# jitlint-cell 7\nx = 1\n"}


# ---- the project pass -------------------------------------------------------------------------
def test_a_notebook_calling_a_module_is_named_with_its_cell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "helpers.py").write_text(
        "def loss(x):\n    if x > 0:\n        return x\n    return -x\n"
    )
    cells = (code("import jax\nfrom helpers import loss\n"), code("\nstep = jax.jit(loss)\n"))
    write(tmp_path / "nb.ipynb", notebook(*cells))
    _, out, _ = run_cli("--no-cache", "--format", "json", ".")
    [finding] = json.loads(out)
    assert (finding["path"], finding["line"]) == ("helpers.py", 2)
    assert "nb.ipynb:cell 2:2" in finding["message"]


def test_fix_with_verify_writes_notebook_fixes_unverified(analysis):
    path, _, data = analysis
    status, _, err = run_cli("--no-cache", "--fix", "--unsafe-fixes", "--verify", "analysis.ipynb")
    assert status == 0, err
    assert "analysis.ipynb: notebooks are not verified" in err
    assert path.read_bytes() != data
    assert "jax.numpy.where" in "".join(json.loads(path.read_bytes())["cells"][2]["source"])


def test_an_edit_up_to_the_boundary_ends_the_cell_only_if_the_cell_ends_a_line():
    from jitlint.diagnostics import Edit

    document = notebook(code("import jax\nx = 1\n"), code("y = 2"), code("z = 3"))
    joined = Joined.build(read_notebook(json.dumps(document)).cells)
    cells = joined.cell_map(joined.text)
    # Joined lines: 1-2 cell 1, 3 boundary, 4 cell 2, 5 boundary, 6 cell 3, 7 boundary.
    whole_line = cells.edit(Edit(2, 1, 3, 1, ""))
    assert whole_line == Edit(2, 1, 3, 1, "", cell=1)
    assert cells.edit(Edit(4, 1, 5, 1, "")) is None  # "y = 2" has no newline to delete
    assert cells.edit(Edit(2, 1, 4, 1, "")) is None  # across the boundary
    assert cells.edit(Edit(6, 5, 6, 6, "4")) == Edit(1, 5, 1, 6, "4", cell=3)
