"""Ruff's commands and the settings the command line reads from the environment:
`jitlint rule CODE` / `jitlint rule --all`, `jitlint clean`, `--show-files`, `--isolated`,
`JITLINT_OUTPUT_FORMAT` and `JITLINT_CACHE_DIR`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from jitlint.config import ConfigResolver

if TYPE_CHECKING:
    from jitlint.engine.runner import Task

EXIT_CLEAN, EXIT_ERROR = 0, 2
OUTPUT_FORMAT_VARIABLE = "JITLINT_OUTPUT_FORMAT"
CACHE_DIR_VARIABLE = "JITLINT_CACHE_DIR"
# `jitlint clean` removes a folder only when jitlint made it: its cache writes this file.
_CACHE_MARKER = ".gitignore"
_MARKER_TEXT = "# created by jitlint"


def output_format(given: str | None, choices: Sequence[str]) -> str:
    """`--output-format`, else `JITLINT_OUTPUT_FORMAT`, else `full`; a bad variable is a
    usage error, as a bad option is."""
    if given is not None:
        return given
    value = os.environ.get(OUTPUT_FORMAT_VARIABLE, "").strip()
    if not value:
        return "full"
    if value not in choices:
        raise ValueError(
            f"{OUTPUT_FORMAT_VARIABLE}={value!r} is not a format (choose from {', '.join(choices)})"
        )
    return value


def cache_dir(given: Path | None) -> Path | None:
    """`--cache-dir`, else `JITLINT_CACHE_DIR`, else None (`.jitlint_cache/` in the project
    root). A relative folder is relative to the working directory."""
    if given is None:
        value = os.environ.get(CACHE_DIR_VARIABLE, "")
        given = Path(value) if value else None
    return None if given is None else Path(os.path.abspath(given))


class IsolatedResolver(ConfigResolver):
    """`--isolated`: no config file is found, so every file gets what a project without one
    gets (the defaults, rooted at the working directory), under the command line's options."""

    def _config_for(self, directory: Path) -> Path | None:
        return None


def show_files(tasks: Iterable[Task]) -> int:
    """`--show-files`: the files a run would lint, absolute and sorted, as ruff lists them."""
    paths = sorted(os.path.abspath(task.path) for task in tasks if task.path is not None)
    sys.stdout.write("".join(f"{path}\n" for path in paths))
    return EXIT_CLEAN


# ---- jitlint rule -------------------------------------------------------------------------
def rule_command(argv: Sequence[str], format_choices: Sequence[str]) -> int:
    """`jitlint rule CODE` and `jitlint rule --all`: a rule's page (Markdown), or every rule's;
    with `--output-format json`, `--explain`'s object, or an array of them."""
    parser = argparse.ArgumentParser(
        prog="jitlint rule", description="Show the documentation of a rule, or of every rule."
    )
    parser.add_argument("code", nargs="?", metavar="CODE", help="a rule code, e.g. JIT110")
    parser.add_argument("--all", action="store_true", help="every rule")
    parser.add_argument(
        "--output-format", "--format", dest="format", choices=("text", "json"), default=None
    )
    args = parser.parse_args(argv)
    if (args.code is None) == (not args.all):
        parser.error("name one rule CODE, or --all")
    try:
        fmt = args.format or output_format(None, ("text", *format_choices))
    except ValueError as exc:
        parser.error(str(exc))
    as_json = fmt == "json"
    from jitlint import catalogue
    from jitlint.rules import all_rules

    rules = all_rules()
    if args.all:
        if as_json:
            entries = [catalogue.explain_json(rule) for rule in rules.values()]
            print(json.dumps(entries, indent=2))
        else:
            print("\n".join(catalogue.render_page(rule) for rule in rules.values()), end="")
        return EXIT_CLEAN
    rule = rules.get(args.code.strip().upper())
    if rule is None:
        print(
            f"jitlint: error: unknown rule code {args.code!r} (see `jitlint --list-rules`)",
            file=sys.stderr,
        )
        return EXIT_ERROR
    if as_json:
        print(json.dumps(catalogue.explain_json(rule), indent=2))
    else:
        print(catalogue.render_page(rule), end="")
    return EXIT_CLEAN


# ---- jitlint clean ------------------------------------------------------------------------
def _made_by_jitlint(directory: Path) -> bool:
    try:
        head = (directory / _CACHE_MARKER).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return head.startswith(_MARKER_TEXT)


def _cache_folders(start: Path) -> list[Path]:
    from jitlint.engine.cache import CACHE_DIR

    found = []
    for directory, subdirectories, _ in os.walk(start):  # symlinks are not followed
        if CACHE_DIR in subdirectories:
            found.append(Path(directory) / CACHE_DIR)
            subdirectories.remove(CACHE_DIR)
    return sorted(found)


def clean_command(argv: Sequence[str]) -> int:
    """`jitlint clean`: remove every `.jitlint_cache/` under the working directory, and the
    `--cache-dir` / `JITLINT_CACHE_DIR` folder; a folder without the file jitlint's cache
    writes in it (`.gitignore`, `# created by jitlint`) is left alone and named."""
    parser = argparse.ArgumentParser(
        prog="jitlint clean",
        description="Remove the cache folders under the working directory.",
    )
    parser.add_argument("--cache-dir", type=Path, metavar="DIR", help="also remove this cache")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing")
    args = parser.parse_args(argv)
    folders = _cache_folders(Path("."))
    extra = cache_dir(args.cache_dir)
    if extra is not None and extra.is_dir():
        folders.append(extra)
    import shutil  # `jitlint clean` alone removes folders

    status = EXIT_CLEAN
    for folder in folders:
        if not _made_by_jitlint(folder):
            print(f"jitlint: warning: {folder}: not a jitlint cache; left as is", file=sys.stderr)
            continue
        if not args.quiet:
            print(f"Removing cache at: {folder}", file=sys.stderr)
        try:
            shutil.rmtree(folder)
        except OSError as exc:
            print(f"jitlint: error: {folder}: {exc.strerror or exc}", file=sys.stderr)
            status = EXIT_ERROR
    return status
