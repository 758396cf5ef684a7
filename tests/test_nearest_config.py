"""Each file is linted with the config nearest to it (#18), as ruff does; `--config`
overrides them all; `extend` inherits another file's settings."""

from __future__ import annotations

import json
import textwrap

import pytest
from helpers import run_cli

from jitlint.config import ConfigError, ConfigResolver

HAZARD = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"  # JIT112
UNHASHABLE = textwrap.dedent(
    """\
    import jax
    import mylib

    f = jax.jit(lambda x, c: x, static_argnums=1)
    f(1.0, mylib.make_config())
    """
)  # JIT110 only when mylib.make_config is declared unhashable


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def codes_by_path(*args):
    status, out, err = run_cli("--format", "json", *args)
    assert status in (0, 1), err
    found: dict[str, list[str]] = {}
    for finding in json.loads(out):
        found.setdefault(finding["path"], []).append(finding["code"])
    return found


@pytest.fixture
def nested(tmp_path, monkeypatch):
    """A root project that ignores JIT112, with a sub-project that has its own config."""
    write(tmp_path / "pyproject.toml", '[tool.jitlint]\nignore = ["JIT112"]\n')
    write(tmp_path / "top.py", HAZARD)
    write(tmp_path / "sub" / "jitlint.toml", 'select = ["JIT1"]\n')
    write(tmp_path / "sub" / "inner.py", HAZARD)
    write(tmp_path / "sub" / "deeper" / "leaf.py", HAZARD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_each_file_uses_the_nearest_config(nested):
    assert codes_by_path(".") == {"sub/deeper/leaf.py": ["JIT112"], "sub/inner.py": ["JIT112"]}


def test_the_same_answer_from_inside_the_sub_project_and_for_named_files(nested, monkeypatch):
    assert codes_by_path("top.py", "sub/inner.py") == {"sub/inner.py": ["JIT112"]}
    monkeypatch.chdir(nested / "sub")
    assert codes_by_path("..") == {"deeper/leaf.py": ["JIT112"], "inner.py": ["JIT112"]}


def test_config_flag_overrides_every_nearest_config(nested):
    write(nested / "strict.toml", 'select = ["ALL"]\n')
    assert set(codes_by_path("--config", "strict.toml", ".")) == {
        "top.py",
        "sub/inner.py",
        "sub/deeper/leaf.py",
    }
    write(nested / "lax.toml", 'ignore = ["ALL"]\n')
    assert codes_by_path("--config", "lax.toml", ".") == {}


def test_command_line_selectors_apply_on_top_of_every_config(nested):
    assert codes_by_path("--ignore", "JIT112", ".") == {}
    assert set(codes_by_path("--extend-select", "JIT112", ".")) == {
        "top.py",
        "sub/inner.py",
        "sub/deeper/leaf.py",
    }


def test_nested_excludes_are_relative_to_their_own_config(nested):
    write(nested / "sub" / "jitlint.toml", 'select = ["JIT1"]\nextend-exclude = ["deeper"]\n')
    write(nested / "deeper" / "kept.py", HAZARD)
    write(nested / "pyproject.toml", "[tool.jitlint]\n")
    assert codes_by_path(".") == {
        "deeper/kept.py": ["JIT112"],
        "sub/inner.py": ["JIT112"],
        "top.py": ["JIT112"],
    }


def test_rule_options_per_config_and_the_cache_keeps_them_apart(tmp_path, monkeypatch):
    write(tmp_path / "pyproject.toml", "[tool.jitlint]\n")
    write(tmp_path / "plain" / "a.py", UNHASHABLE)
    write(
        tmp_path / "declared" / "jitlint.toml",
        '[unhashable-static-arg]\nunhashable-calls = ["mylib.make_config"]\n',
    )
    write(tmp_path / "declared" / "a.py", UNHASHABLE)
    monkeypatch.chdir(tmp_path)
    want = {"declared/a.py": ["JIT110"]}
    assert codes_by_path(".") == want
    assert (tmp_path / ".jitlint_cache").is_dir()
    assert codes_by_path(".") == want  # answered from the cache


def test_extend_inherits_and_overrides(tmp_path, monkeypatch):
    write(
        tmp_path / "pyproject.toml",
        """\
        [tool.jitlint]
        ignore = ["JIT112"]
        extend-exclude = ["generated"]

        [tool.jitlint.per-file-ignores]
        "*_test.py" = ["JIT110"]

        [tool.jitlint.unhashable-static-arg]
        unhashable-calls = ["mylib.make_config"]
        """,
    )
    write(
        tmp_path / "svc" / "pyproject.toml",
        """\
        [tool.jitlint]
        extend = "../pyproject.toml"
        extend-select = ["JIT112"]
        """,
    )
    write(tmp_path / "svc" / "a.py", HAZARD + UNHASHABLE.replace("import jax\n", "", 1))
    write(tmp_path / "svc" / "b_test.py", UNHASHABLE)
    write(tmp_path / "svc" / "generated" / "c.py", HAZARD)
    monkeypatch.chdir(tmp_path / "svc")
    # JIT112 is back (this file's selector comes after the inherited ignore); the rule option,
    # the per-file ignore and the exclude are inherited, patterns matched from the root.
    assert codes_by_path(".") == {"a.py": ["JIT112", "JIT110"]}


def test_extend_errors_name_the_file_and_key(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a.py", HAZARD)
    write(tmp_path / "jitlint.toml", 'extend = "missing.toml"\n')
    status, _, err = run_cli("a.py")
    assert status == 2 and "jitlint.toml: `extend`" in err and "no such file" in err
    write(tmp_path / "jitlint.toml", 'extend = "other/jitlint.toml"\n')
    write(tmp_path / "other" / "jitlint.toml", 'extend = "../jitlint.toml"\n')
    status, _, err = run_cli("a.py")
    assert status == 2 and "a cycle" in err
    write(tmp_path / "jitlint.toml", "extend = 3\n")
    status, _, err = run_cli("a.py")
    assert status == 2 and "`extend` must be the path" in err


def test_a_bad_nested_config_is_an_error_even_when_found_late(nested):
    write(nested / "sub" / "deeper" / "jitlint.toml", "selekt = []\n")
    status, out, err = run_cli(".")
    assert status == 2 and out == ""
    assert "deeper/jitlint.toml: `selekt`: unknown key (did you mean `select`?)" in err


def test_resolver_reads_each_config_once_and_defaults_to_the_working_directory(nested):
    resolver = ConfigResolver(cwd=nested)
    inner = resolver.for_file(nested / "sub" / "inner.py")
    assert inner is resolver.for_file(nested / "sub" / "deeper" / "leaf.py")
    assert inner.config_path == nested / "sub" / "jitlint.toml"
    assert resolver.for_file(nested / "top.py").config_path == nested / "pyproject.toml"
    with pytest.raises(ConfigError, match="no such config file"):
        ConfigResolver(nested / "nope.toml")


def test_the_python_api_honours_an_extended_config(tmp_path):
    from jitlint import lint_source
    from jitlint.config import load_settings

    write(tmp_path / "pyproject.toml", '[tool.jitlint]\nignore = ["JIT112"]\n')
    write(tmp_path / "svc" / "jitlint.toml", 'extend = "../pyproject.toml"\n')
    settings = load_settings(tmp_path / "svc" / "jitlint.toml")
    assert lint_source(HAZARD, "svc/a.py", settings=settings) == []
    assert [d.code for d in lint_source(HAZARD, "svc/a.py")] == ["JIT112"]
