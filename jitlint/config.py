"""Settings from `[tool.jitlint]` in pyproject.toml or a top-level table in jitlint.toml.

The nearest file upwards from the start directory wins; in one directory, jitlint.toml beats
pyproject.toml, and a pyproject.toml without `[tool.jitlint]` is passed over (as ruff does).
Paths in the file (exclude, per-file-ignores) are relative to the file's directory.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitlint.engine.guards import DEFAULT_MAX_FILE_SIZE
from jitlint.rules import code_for_name, rule_class
from jitlint.selection import UnknownSelector, check_selector
from jitlint.system.budget import DEFAULT_MEMORY, DEFAULT_SECONDS


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""


_LISTS = ("select", "extend-select", "ignore", "exclude", "extend-exclude", "fixable", "unfixable")
_BOOLS = ("force-exclude", "respect-gitignore", "unsafe-fixes")
_CODE_LISTS = ("select", "extend-select", "ignore", "fixable", "unfixable")
_PATTERN_LISTS = ("exclude", "extend-exclude")


@dataclass
class Settings:
    root: Path
    config_path: Path | None = None
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] | None = None
    extend_exclude: list[str] = field(default_factory=list)
    force_exclude: bool = False
    respect_gitignore: bool = True
    fixable: list[str] | None = None
    unfixable: list[str] = field(default_factory=list)
    unsafe_fixes: bool = False
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    max_file_seconds: float = DEFAULT_SECONDS
    max_file_memory: int = DEFAULT_MEMORY
    rule_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    verify: VerifyConfig = field(default_factory=lambda: VerifyConfig())


@dataclass
class VerifyConfig:
    """`[tool.jitlint.verify]`: inputs and limits of the runtime verifier (paths absolute)."""

    examples: list[Path] = field(default_factory=list)
    timeout: float = 120.0  # seconds per module
    record_file: Path | None = None  # where the pytest plugin records; None: the default


def find_config(start: Path) -> Path | None:
    start = start.resolve()
    for directory in (start, *start.parents):
        candidate = directory / "jitlint.toml"
        if candidate.is_file():
            return candidate
        candidate = directory / "pyproject.toml"
        if (
            candidate.is_file()
            and "jitlint" in _read_text(candidate)
            and "jitlint" in _load(candidate).get("tool", {})
        ):
            return candidate
    return None


def load_settings(config_path: Path | None = None, start: Path | None = None) -> Settings:
    """Settings from `config_path`, or from the nearest config above `start` (default: cwd)."""
    path = config_path or find_config(start or Path.cwd())
    if path is None:
        return Settings(root=(start or Path.cwd()).resolve())
    data = _load(path)
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("jitlint", {})
        prefix = "tool.jitlint"
    else:
        table, prefix = data, ""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `{prefix}` must be a table")
    return settings_from_table(table, path, prefix)


def settings_from_table(table: dict[str, Any], path: Path, prefix: str = "") -> Settings:
    settings = Settings(root=path.parent.resolve(), config_path=path)

    def where(key: str) -> str:
        return f"{path}: `{prefix + '.' if prefix else ''}{key}`"

    for key, value in table.items():
        attr = key.replace("-", "_")
        if key in _LISTS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where(key)} must be a list of strings, got {value!r}")
            if key in _CODE_LISTS:
                value = [_selector(v, where(key)) for v in value]
            if key in _PATTERN_LISTS:
                for pattern in value:
                    _check_pattern(pattern, where(key))
            setattr(settings, attr, value)
        elif key in _BOOLS:
            if not isinstance(value, bool):
                raise ConfigError(f"{where(key)} must be true or false, got {value!r}")
            setattr(settings, attr, value)
        elif key == "max-file-size":
            if type(value) is not int or value < 0:
                raise ConfigError(f"{where(key)} must be a number of bytes (0: no limit)")
            settings.max_file_size = value
        elif key == "max-file-memory":
            if type(value) is not int or value < 0:
                raise ConfigError(f"{where(key)} must be a number of bytes (0: no limit)")
            settings.max_file_memory = value
        elif key == "max-file-seconds":
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigError(f"{where(key)} must be a number of seconds (0: no limit)")
            settings.max_file_seconds = float(value)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where(key)} must be a table of pattern = [codes]")
            for pattern, codes in value.items():
                _check_pattern(pattern, where(key))
                if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                    raise ConfigError(f"{where(key)}.{pattern} must be a list of codes")
                settings.per_file_ignores[pattern] = [_selector(c, where(key)) for c in codes]
        elif key == "verify":
            settings.verify = _verify_table(value, settings.root, where(key))
        elif (code := code_for_name(key)) is not None:
            rule = rule_class(code)
            if not isinstance(value, dict):
                raise ConfigError(f"{where(key)} must be a table of options")
            options: dict[str, Any] = {}
            for name, option_value in value.items():
                option = rule.options.get(name)
                if option is None:
                    known = ", ".join(rule.options) or "none"
                    raise ConfigError(
                        f"{where(key + '.' + name)}: unknown option (known options: {known})"
                    )
                if not isinstance(option_value, option.type):
                    raise ConfigError(
                        f"{where(key + '.' + name)} must be a {option.type.__name__}, "
                        f"got {option_value!r}"
                    )
                options[name] = option_value
            settings.rule_options[rule.code] = options
        else:
            raise ConfigError(f"{where(key)}: unknown key")
    return settings


def _verify_table(value: Any, root: Path, table: str) -> VerifyConfig:
    """`table` is "file: `tool.jitlint.verify`", as the messages name it."""
    if not isinstance(value, dict):
        raise ConfigError(f"{table} must be a table")

    def where(key: str) -> str:
        return f"{table[:-1]}.{key}`"

    config = VerifyConfig()
    for key, item in value.items():
        if key == "examples":
            if not isinstance(item, list) or not all(isinstance(v, str) for v in item):
                raise ConfigError(f"{where('examples')} must be a list of paths, got {item!r}")
            config.examples = [root / v for v in item]
        elif key == "timeout":
            # bool is an int subclass; `timeout = true` is a mistake, not one second.
            if isinstance(item, bool) or not isinstance(item, int | float) or item <= 0:
                raise ConfigError(f"{where('timeout')} must be a positive number of seconds")
            config.timeout = float(item)
        elif key == "record-file":
            if not isinstance(item, str) or not item:
                raise ConfigError(f"{where('record-file')} must be a path, got {item!r}")
            config.record_file = root / item
        else:
            raise ConfigError(
                f"{where(key)}: unknown key (known keys: examples, timeout, record-file)"
            )
    return config


def _check_pattern(pattern: str, where: str) -> None:
    """An invalid pattern is a configuration error up front, not a crash mid-run."""
    from jitlint.engine.discovery import pattern_problem

    problem = pattern_problem(pattern)
    if problem is not None:
        raise ConfigError(f"{where}: invalid pattern {pattern!r}: {problem}")


def _selector(value: str, where: str) -> str:
    try:
        return check_selector(value)
    except UnknownSelector as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _load(path: Path) -> dict[str, Any]:
    try:
        return _toml().loads(_read_text(path))
    except _toml().TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _toml() -> Any:
    # Imported on first use: a run with no config file never needs a TOML parser.
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    import tomli  # pragma: no cover

    return tomli  # pragma: no cover
