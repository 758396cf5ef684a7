"""The README: its two fresh-machine commands ("Try it"): the first installs jitlint and runs it
on examples/, then prints the fixes as a diff; the second installs the test extras and runs
the suite. The installs need a package index (tests/test_precommit_hooks.py pip-installs the
package from a clone, as the first command does); here the jitlint commands run as the README
spells them, on a copy of examples/, and the extras the second names exist. And what the
README must document: every option, every configuration key, the server and its editors."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]


def _try_it_commands() -> list[list[list[str]]]:
    """The commands of each ```sh block under "## Try it", split at `&&` and `;`."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Try it", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    commands = []
    for block in blocks:
        words = shlex.split(block.replace(";", " ; "))
        parts: list[list[str]] = [[]]
        for word in words:
            if word in ("&&", ";"):
                parts.append([])
            else:
                parts[-1].append(word)
        commands.append([part for part in parts if part])
    return commands


def test_the_first_command_installs_and_runs_jitlint_on_the_examples(tmp_path):
    first, _ = _try_it_commands()
    assert ["pip", "install", "."] in first
    runs = [command for command in first if command[0] == "jitlint"]
    assert [run[-1] for run in runs] == ["examples/", "examples/"]
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    before = {p: p.read_bytes() for p in (tmp_path / "examples").iterdir()}
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    outputs = []
    for run in runs:
        proc = subprocess.run(
            [sys.executable, "-m", "jitlint", "--no-cache", *run[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
        )
        # Both exit 1, as the README says: the examples contain hazards.
        assert proc.returncode == 1, proc.stderr
        assert "Traceback" not in proc.stderr
        outputs.append(proc.stdout)
    check, diff = outputs
    assert re.search(r"^examples/\S+\.py:\d+:\d+: JIT\d{3} ", check, re.M), check
    assert "--- a/examples/" in diff and "+++ b/examples/" in diff
    # "nothing is written"
    assert {p: p.read_bytes() for p in (tmp_path / "examples").iterdir()} == before


def test_the_second_command_names_extras_the_package_has():
    _, second = _try_it_commands()
    [install] = [c for c in second if c[:2] == ["pip", "install"]]
    [target] = [word for word in install if word.startswith(".[")]
    assert install[2] == "-e"
    extras = set(target[2:-1].split(","))
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert extras <= set(settings["project"]["optional-dependencies"])
    assert ["python", "-m", "pytest"] in second


# ---- what the README documents (#18: "README documents all of it") -----------------------------
def test_every_command_line_option_and_config_key_is_in_the_readme():
    from jitlint.config import _VERIFY_KEYS, known_keys
    from jitlint.frontends.cli import build_parser

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    flags = [
        flag
        for action in build_parser()._actions
        for flag in action.option_strings
        if flag.startswith("--") and flag != "--help"
    ]
    assert "--force-exclude" in flags and "--add-noqa" in flags
    assert [flag for flag in flags if f"`{flag}" not in readme] == []
    keys = [*known_keys(), *_VERIFY_KEYS]
    assert [key for key in keys if key not in readme] == []


def test_the_readme_documents_the_server_notebooks_colour_and_hooks():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for needed in (
        "jitlint server",
        "'jitlint[server]'",
        "*VS Code*",
        "*Neovim*",
        "*Helix*",
        "source.fixAll.jitlint",
        "### Notebooks",
        "NO_COLOR",
        "FORCE_COLOR",
        "--color auto|always|never".replace("|", "\\|"),
        "no Python files found",
        "# ruff: noqa: JIT110",
        "# flake8: noqa",
        'extend = "../pyproject.toml"',
        "Both pass `--force-exclude`",
    ):
        assert needed in readme, needed
