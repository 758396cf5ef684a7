"""What each file is linted with: its nearest config's settings under the command line's
overrides (selectors, excludes, per-file ignores), built once per config file, and the
framework versions it is linted for (jitlint/framework_versions.py)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitlint import selection
from jitlint.config import ConfigError, ConfigResolver, Settings
from jitlint.engine.linter import ENGINE_OPTIONS
from jitlint.engine.runner import RuleSets, Task, display_path
from jitlint.framework_versions import VersionResolver
from jitlint.model.jax.frameworks.contracts import ASSUME_KEY
from jitlint.model.library.versions import OPTIONS_KEY
from jitlint.system.discovery import Exclusion
from jitlint.system.reading import real_path


@dataclass(frozen=True)
class Overrides:
    """The command line's settings; they apply to every config's files. Patterns are
    relative to the working directory."""

    layer: selection.Layer = field(default_factory=selection.Layer)
    exclude: list[str] | None = None
    extend_exclude: list[str] = field(default_factory=list)
    force_exclude: bool | None = None
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    unsafe_fixes: bool | None = None  # --unsafe-fixes / --no-unsafe-fixes
    ignore_noqa: bool = False  # --ignore-noqa
    assume_traced: list[str] | None = None  # --assume-traced, replacing the config's
    # Added to whichever applies (explain-error's traceback frames).
    extend_assume_traced: list[str] = field(default_factory=list)
    cwd: Path = field(default_factory=lambda: Path(os.path.abspath(Path.cwd())))


def parse_per_file_ignores(entries: list[str]) -> dict[str, list[str]]:
    """`PATTERN:CODES` entries (flake8's and ruff's spelling) as a table."""
    table: dict[str, list[str]] = {}
    for entry in entries:
        pattern, sep, codes = entry.rpartition(":")
        if not sep or not pattern.strip():
            raise ConfigError(f"--per-file-ignores: expected PATTERN:CODES, got {entry!r}")
        parts = [c.strip() for c in codes.split(",") if c.strip()]
        if not parts:
            raise ConfigError(f"--per-file-ignores: {entry!r} names no code")
        table.setdefault(pattern.strip(), []).extend(
            selection.check_selector(code) for code in parts
        )
    return table


@dataclass
class Profile:
    """One configuration's settings with the command line's overrides applied."""

    settings: Settings
    rule_sets: RuleSets
    fixable: frozenset[str]
    exclusion: Exclusion


class Profiles:
    def __init__(self, resolver: ConfigResolver, overrides: Overrides) -> None:
        self.resolver = resolver
        self.overrides = overrides
        self._by_settings: dict[int, Profile] = {}
        self.versions = VersionResolver()

    def for_directory(self, directory: Path) -> Profile:
        return self._profile(self.resolver.for_directory(directory))

    def for_file(self, path: Path) -> Profile:
        return self._profile(self.resolver.for_file(path))

    def exclusion_for(self, directory: Path) -> Exclusion:
        return self.for_directory(directory).exclusion

    def task(self, path: Path, *, display: str | None = None, source: bytes | None = None) -> Task:
        """The task of a file on disk, or (with `source`) of stdin named `path`."""
        profile = self.for_file(path)
        settings = profile.settings
        return Task(
            display if display is not None else display_path(path),
            None if source is not None else str(path),
            profile.rule_sets.codes_for(path),
            (
                {**self.rule_options(path, settings), ENGINE_OPTIONS: {"ignore-noqa": True}}
                if self.overrides.ignore_noqa
                else self.rule_options(path, settings)
            ),
            source,
            settings.max_file_size,
            settings.max_file_seconds,
            settings.max_file_memory,
            fixable=profile.fixable,
            unsafe_fixes=(
                settings.unsafe_fixes
                if self.overrides.unsafe_fixes is None
                else self.overrides.unsafe_fixes
            ),
        )

    def rule_options(self, path: Path, settings: Settings) -> dict[str, Any]:
        """The config's rule options, the framework versions the file is linted for, and
        the patterns of `assume-traced`."""
        options = {**settings.rule_options, OPTIONS_KEY: self.versions.options(path, settings)}
        assumed = self.overrides.assume_traced
        assumed = settings.assume_traced if assumed is None else assumed
        assumed = [*assumed, *self.overrides.extend_assume_traced]
        if assumed:
            options[ASSUME_KEY] = list(assumed)
        return options

    def _profile(self, settings: Settings) -> Profile:
        # Settings objects live as long as the resolver, so their ids are stable keys.
        profile = self._by_settings.get(id(settings))
        if profile is None:
            profile = self._by_settings[id(settings)] = self._build(settings)
        return profile

    def _build(self, settings: Settings) -> Profile:
        cli = self.overrides
        enabled = selection.resolve_layers([*settings.selection_layers(), cli.layer])
        extra_ignores = [(cli.cwd, cli.per_file_ignores)] if cli.per_file_ignores else []
        fixable = selection.resolve_layers(
            [selection.Layer(settings.fixable or ["ALL"], [], settings.unfixable)]
        )
        groups = settings.exclude_groups()
        if cli.exclude is not None:
            groups = [(cli.cwd, cli.exclude), *groups[1:]]
        if cli.extend_exclude:
            groups = [*groups, (cli.cwd, cli.extend_exclude)]
        force = settings.force_exclude if cli.force_exclude is None else cli.force_exclude
        exclusion = Exclusion(
            Path(real_path(settings.root)), groups, settings.respect_gitignore, force
        )
        return Profile(
            settings, RuleSets(settings, enabled, extra_ignores), frozenset(fixable), exclusion
        )
