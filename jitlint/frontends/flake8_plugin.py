"""The flake8 plugin: the same engine, codes, messages and positions as `jitlint`.

flake8 owns selection, `# noqa`, `--disable-noqa` and per-file-ignores: the plugin reports
every finding of the rules flake8 would keep and lets flake8 filter. Only jitlint's own
comments (`# jitlint: ignore[...]`, `# jitlint: file-ignore[...]`), which flake8 does not
know, are applied here. Lint only: flake8 has no fixes.

Rule options are flake8 options named `--jitlint-<rule-name>-<option>` (in a config file:
`jitlint-<rule-name>-<option> = ...`), the same names as `[tool.jitlint.<rule-name>]`.
What the project says of each file is read as the command line reads it (profiles.py): the
framework versions it declares (a Keras 2 project gets no Keras-3-only finding), the nearest
jitlint config's version keys, `assume-traced` and rule options; flake8's rule options win.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

from jitlint.config import ConfigError, ConfigResolver
from jitlint.engine.linter import lint_text
from jitlint.profiles import Overrides, Profiles
from jitlint.rules import all_rules
from jitlint.version import __version__

# flake8 prints what a plugin yields as "CODE message"; the type slot is unused.
_Result = tuple[int, int, str, type]


def _option_flag(rule_name: str, option: str) -> str:
    return f"--jitlint-{rule_name}-{option}"


def _option_dest(rule_name: str, option: str) -> str:
    return f"jitlint_{rule_name}_{option}".replace("-", "_")


class JitlintChecker:
    name = "jitlint"
    version = __version__

    # Filled once per run by `parse_options` (flake8 calls it before any file is checked).
    codes: ClassVar[frozenset[str] | None] = None
    rule_settings: ClassVar[dict[str, dict[str, Any]]] = {}
    # Each config and each directory's requirements are read once per flake8 process.
    profiles: ClassVar[Profiles | None] = None

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str) -> None:
        # flake8 classifies plugins by their parameters; `tree` marks an AST plugin. The
        # ast tree is of no use to a libcst engine: the lines are parsed once, by libcst.
        del tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, manager: Any) -> None:
        rules = all_rules()
        # Off-by-default rules stay off until `extend-select`ed, as on the command line.
        off = [code for code, rule in rules.items() if not rule.default_enabled]
        if off:
            manager.extend_default_ignore(off)
        for rule in rules.values():
            for option_name, option in rule.options.items():
                kwargs: dict[str, Any] = {"parse_from_config": True, "help": option.help}
                if option.type is list:
                    kwargs["comma_separated_list"] = True
                elif option.type is bool:
                    kwargs["action"] = "store_true"
                elif option.type in (int, float, str):
                    kwargs["type"] = option.type
                else:  # no sensible flake8 spelling (e.g. a table): config file only
                    continue
                manager.add_option(
                    _option_flag(rule.name, option_name),
                    dest=_option_dest(rule.name, option_name),
                    default=None,
                    **kwargs,
                )

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        rules = all_rules()
        cls.codes = _codes_flake8_keeps(options, rules)
        settings: dict[str, dict[str, Any]] = {}
        for code, rule in rules.items():
            for option_name in rule.options:
                value = getattr(options, _option_dest(rule.name, option_name), None)
                if value is not None:
                    settings.setdefault(code, {})[option_name] = value
        cls.rule_settings = settings

    def run(self) -> Iterator[_Result]:
        codes = self.codes if self.codes is not None else frozenset(all_rules())
        if not codes:
            return
        result = lint_text("".join(self.lines), self.filename, codes, self._settings(), noqa=False)
        for error in result.errors:
            # flake8 would abort the whole run on an exception; say it and go on.
            print(f"jitlint: error: {error}", file=sys.stderr)
        for d in result.diagnostics:
            # flake8 takes 0-based columns from plugins and prints them 1-based.
            yield d.line, d.column - 1, f"{d.code} {d.message}", type(self)

    def _settings(self) -> dict[str, Any]:
        """The file's options as the command line builds them, under flake8's own."""
        if JitlintChecker.profiles is None:
            JitlintChecker.profiles = Profiles(ConfigResolver(), Overrides())
        profiles = JitlintChecker.profiles
        path = Path(self.filename)
        try:
            options = dict(profiles.rule_options(path, profiles.for_file(path).settings))
        except ConfigError as error:  # flake8 would abort the run: say it, lint with defaults
            print(f"jitlint: error: {error}", file=sys.stderr)
            options = {}
        for code, values in self.rule_settings.items():
            options[code] = {**options.get(code, {}), **values}
        return options


def _codes_flake8_keeps(options: argparse.Namespace, rules: dict[str, Any]) -> frozenset[str]:
    """Rules whose findings flake8's select/ignore would keep somewhere: skip the others.

    flake8 still makes every decision (and per-file-ignores apply later); this only avoids
    running rules whose every finding flake8 would throw away.
    """
    try:
        from flake8.style_guide import Decision, DecisionEngine

        engine = DecisionEngine(options)
        kept = {code for code in rules if engine.decision_for(code) is Decision.Selected}
    except Exception:  # another flake8 version: run everything and let flake8 filter
        return frozenset(rules)
    # per-file-ignores can only remove codes, never add them, so `kept` is a superset.
    return frozenset(kept)
