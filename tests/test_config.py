"""Configuration: discovery, every key, and clear errors for bad files (exit 2)."""

from __future__ import annotations

import json
import textwrap

import pytest
from helpers import run_cli

HAZARD = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"
UNHASHABLE = textwrap.dedent(
    """\
    import jax
    import mylib

    f = jax.jit(lambda x, c: x, static_argnums=1)
    f(1.0, mylib.make_config())
    """
)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "a.py").write_text(HAZARD)
    (tmp_path / "tests" / "test_a.py").write_text(HAZARD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes_by_path(*args):
    status, out, err = run_cli("--format", "json", *args)
    assert status in (0, 1), err
    found: dict[str, list[str]] = {}
    for finding in json.loads(out):
        found.setdefault(finding["path"], []).append(finding["code"])
    return found


def write_pyproject(root, body):
    (root / "pyproject.toml").write_text("[tool.jitlint]\n" + textwrap.dedent(body))


def test_no_config_uses_the_defaults(tree):
    assert codes_by_path(".") == {"src/a.py": ["JIT112"], "tests/test_a.py": ["JIT112"]}


def test_per_file_ignores_and_exclude(tree):
    write_pyproject(tree, '[tool.jitlint.per-file-ignores]\n"tests/*" = ["JIT1"]\n')
    assert codes_by_path(".") == {"src/a.py": ["JIT112"]}
    write_pyproject(tree, 'extend-exclude = ["tests"]\n')
    assert codes_by_path(".") == {"src/a.py": ["JIT112"]}


def test_select_and_ignore_from_config(tree):
    write_pyproject(tree, 'ignore = ["JIT112"]\n')
    assert codes_by_path(".") == {}
    # The command line's --select replaces the configured selection.
    assert codes_by_path("--select", "JIT112", ".") == {
        "src/a.py": ["JIT112"],
        "tests/test_a.py": ["JIT112"],
    }


def test_config_is_found_from_a_subdirectory(tree, monkeypatch):
    write_pyproject(tree, 'ignore = ["JIT112"]\n')
    monkeypatch.chdir(tree / "src")
    assert codes_by_path(".") == {}


def test_jitlint_toml_beats_pyproject(tree):
    write_pyproject(tree, 'ignore = ["JIT112"]\n')
    (tree / "jitlint.toml").write_text('select = ["JIT112"]\n')
    assert "src/a.py" in codes_by_path(".")


def test_pyproject_without_a_jitlint_table_is_passed_over(tree):
    (tree / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert "src/a.py" in codes_by_path(".")


def test_explicit_config_flag(tree):
    (tree / "other.toml").write_text('ignore = ["JIT1"]\n')
    assert codes_by_path("--config", "other.toml", ".") == {}


def test_gitignore_is_honoured(tree):
    (tree / ".gitignore").write_text("tests/\n")
    assert codes_by_path(".") == {"src/a.py": ["JIT112"]}
    write_pyproject(tree, "respect-gitignore = false\n")
    assert "tests/test_a.py" in codes_by_path(".")


def test_rule_options_reach_the_rule(tree):
    (tree / "src" / "a.py").write_text(UNHASHABLE)
    assert codes_by_path("src") == {}
    write_pyproject(
        tree, '[tool.jitlint.unhashable-static-arg]\nunhashable-calls = ["mylib.make_config"]\n'
    )
    assert codes_by_path("src") == {"src/a.py": ["JIT110"]}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("colour = true\n", "`tool.jitlint.colour`: unknown key"),
        ('select = ["JIT999"]\n', "unknown rule selector 'JIT999'"),
        ('select = "JIT110"\n', "`tool.jitlint.select` must be a list of strings"),
        ("force-exclude = 1\n", "`tool.jitlint.force-exclude` must be true or false"),
        ('[tool.jitlint.per-file-ignores]\n"x.py" = "JIT1"\n', "must be a list of codes"),
        ("[tool.jitlint.unhashable-static-arg]\nnope = 1\n", "unknown option"),
        (
            '[tool.jitlint.unhashable-static-arg]\nunhashable-calls = "x"\n',
            "unhashable-calls` must be a list",
        ),
    ],
)
def test_bad_config_is_a_clear_error(tree, body, message):
    write_pyproject(tree, body)
    status, out, err = run_cli(".")
    assert status == 2
    assert message in err
    assert "pyproject.toml" in err
    assert out == ""


def test_invalid_toml_is_a_clear_error(tree):
    (tree / "pyproject.toml").write_text("[tool.jitlint\nselect = [\n")
    status, _, err = run_cli(".")
    assert status == 2
    assert "pyproject.toml: not valid TOML" in err


def test_missing_config_file(tree):
    status, _, err = run_cli("--config", "nope.toml", ".")
    assert status == 2 and "nope.toml: no such config file" in err


def test_cli_extend_select_re_enables_what_the_config_ignores(tree):
    write_pyproject(tree, 'ignore = ["JIT112"]\n')
    assert "src/a.py" in codes_by_path("--extend-select", "JIT112", ".")
