"""Settings from `[tool.jitlint]` in pyproject.toml or a top-level table in jitlint.toml.

Each file is linted with the configuration nearest to it (`ConfigResolver`, as ruff does):
the nearest file upwards from the file's directory wins; in one directory, jitlint.toml beats
pyproject.toml, and a pyproject.toml without `[tool.jitlint]` is passed over. Paths in a file
(exclude, per-file-ignores) are relative to that file's directory. `extend = "../pyproject.toml"`
inherits another file's settings: this file's values override them, its selectors apply after
the inherited ones, and the inherited patterns stay relative to the file that wrote them.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from jitlint.model.jax.frameworks.contracts import assumption_problem
from jitlint.model.library.versions import FRAMEWORKS, parse_version
from jitlint.python.guards import DEFAULT_MAX_FILE_SIZE
from jitlint.rules import code_for_name, rule_class
from jitlint.rules._index import INDEX
from jitlint.selection import Layer, UnknownSelector, check_selector
from jitlint.system.budget import DEFAULT_MEMORY, DEFAULT_SECONDS
from jitlint.system.discovery import DEFAULT_EXCLUDE

T = TypeVar("T")


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""


_LISTS = ("select", "extend-select", "ignore", "exclude", "extend-exclude", "fixable", "unfixable")
_BOOLS = ("force-exclude", "respect-gitignore", "unsafe-fixes")
_CODE_LISTS = ("select", "extend-select", "ignore", "fixable", "unfixable")
_PATTERN_LISTS = ("exclude", "extend-exclude")
# `jax-version = "0.4.30"`: the framework versions to lint for (model/library/versions.py).
_VERSION_KEYS = tuple(f"{framework}-version" for framework in FRAMEWORKS)
_OTHER_KEYS = (
    "assume-traced",
    "extend",
    "max-file-size",
    "max-file-memory",
    "max-file-seconds",
    "per-file-ignores",
    "verify",
    *_VERSION_KEYS,
)
_VERIFY_KEYS = ("examples", "timeout", "record-file")

# Gitignore-style patterns and the directory they are relative to.
PatternGroup = tuple[Path, list[str]]


@dataclass
class Settings:
    """One configuration file's settings (or the defaults), as read from it."""

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
    # More entry points to trace by contract (model/jax/frameworks/contracts.py).
    assume_traced: list[str] = field(default_factory=list)
    # `jax-version` and the like: framework -> (version, the config file that set it).
    framework_versions: dict[str, tuple[str, Path]] = field(default_factory=dict)
    # The settings of the file named by `extend`; the fields above already hold the merged
    # values, except the selectors and patterns, which keep their own file's meaning.
    base: Settings | None = None

    def selection_layers(self) -> list[Layer]:
        """The selectors of the `extend` chain, outermost first, then this file's."""
        inherited = self.base.selection_layers() if self.base is not None else []
        return [*inherited, Layer(self.select, self.extend_select, self.ignore)]

    def exclude_groups(self) -> list[PatternGroup]:
        """`exclude` (this file's, else the inherited one, else the defaults), then every
        `extend-exclude` of the chain."""
        extended = self.base.exclude_groups()[1:] if self.base is not None else []
        return [self._exclude(), *extended, (self.root, self.extend_exclude)]

    def _exclude(self) -> PatternGroup:
        if self.exclude is not None:
            return (self.root, self.exclude)
        if self.base is not None:
            return self.base._exclude()
        return (self.root, list(DEFAULT_EXCLUDE))

    def per_file_ignore_groups(self) -> list[tuple[Path, dict[str, list[str]]]]:
        """The inherited per-file-ignores still apply, each relative to its own file."""
        inherited = self.base.per_file_ignore_groups() if self.base is not None else []
        return [*inherited, (self.root, self.per_file_ignores)]


@dataclass
class VerifyConfig:
    """`[tool.jitlint.verify]`: inputs and limits of the runtime verifier (paths absolute)."""

    examples: list[Path] = field(default_factory=list)
    timeout: float = 120.0  # seconds per module
    record_file: Path | None = None  # where the pytest plugin records; None: the default


def nearest_up(
    directory: Path, memo: dict[Path, T | None], probe: Callable[[Path], T | None]
) -> T | None:
    """What `probe` finds in `directory` or the nearest of its parents, memoized in `memo`
    along the chain: a tree of many directories costs one probe per directory, not one per
    directory and file. A loop, not recursion: a path may be deeper than the recursion limit."""
    unknown: list[Path] = []
    found: T | None = None
    current = directory
    while True:
        if current in memo:
            found = memo[current]
            break
        unknown.append(current)
        found = probe(current)
        if found is not None or current.parent == current:
            break
        current = current.parent
    for seen in unknown:
        memo[seen] = found
    return found


def find_config(start: Path) -> Path | None:
    start = start.resolve()
    for directory in (start, *start.parents):
        found = _config_in(directory)
        if found is not None:
            return found
    return None


def load_settings(config_path: Path | None = None, start: Path | None = None) -> Settings:
    """Settings from `config_path`, or from the nearest config above `start` (default: cwd)."""
    path = config_path or find_config(start or Path.cwd())
    if path is None:
        return Settings(root=(start or Path.cwd()).resolve())
    return _load_file(path, ())


class ConfigResolver:
    """The settings each file is linted with: those of the config nearest to it, as ruff
    does, or of `override` (`--config`) for every file. Each config is read once; a file
    with no config above it gets the config that governs `cwd` (as ruff falls back to it),
    else the defaults, rooted at `cwd`."""

    def __init__(self, override: Path | None = None, cwd: Path | None = None) -> None:
        self.cwd = Path(os.path.abspath(cwd or Path.cwd()))
        if override is not None and override.is_dir():  # the config that directory holds
            found = _config_in(override)
            if found is None:
                raise ConfigError(
                    f"{override}: a directory with no jitlint.toml, nor a pyproject.toml "
                    "with a [tool.jitlint] table"
                )
            override = found
        if override is not None and not override.is_file():
            raise ConfigError(f"{override}: no such config file")
        self._override = load_settings(override) if override is not None else None
        self._nearest: dict[Path, Path | None] = {}
        self._loaded: dict[Path, Settings] = {}
        self._default: Settings | None = None

    def for_file(self, path: Path) -> Settings:
        return self.for_directory(Path(os.path.abspath(path)).parent)

    def for_directory(self, directory: Path) -> Settings:
        if self._override is not None:
            return self._override
        config = self._config_for(Path(os.path.abspath(directory)))
        if config is None:
            config = self._config_for(self.cwd)
        if config is None:
            if self._default is None:
                self._default = Settings(root=self.cwd)
            return self._default
        if config not in self._loaded:
            self._loaded[config] = _load_file(config, ())
        return self._loaded[config]

    def _config_for(self, directory: Path) -> Path | None:
        return nearest_up(directory, self._nearest, _config_in)


def _config_in(directory: Path) -> Path | None:
    candidate = directory / "jitlint.toml"
    if candidate.is_file():
        return candidate
    candidate = directory / "pyproject.toml"
    if (
        candidate.is_file()
        and "jitlint" in _read_text(candidate)
        and "jitlint" in read_toml(candidate).get("tool", {})
    ):
        return candidate
    return None


def _never_matches(pattern: str, root: Path) -> str | None:
    """Why a per-file-ignores pattern can match no file, if it cannot (patterns are
    gitignore-style, relative to the config's directory)."""
    if not pattern.strip():
        return "is empty"
    if pattern.startswith("#"):
        return "is a comment in gitignore syntax"
    if pattern.startswith("!"):
        return "only negates (a `!` pattern re-includes what another pattern matched)"
    absolute = Path(pattern)
    if absolute.is_absolute() and (
        absolute.exists() or os.path.commonpath([str(absolute), str(root)]) != os.sep
    ):
        return f"is an absolute path; patterns are relative to {root}"
    return None


def _load_file(path: Path, chain: tuple[Path, ...]) -> Settings:
    """The settings of one file; `chain` is the files that `extend` it, to catch a cycle."""
    data = read_toml(path)
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("jitlint", {})
        prefix = "tool.jitlint"
    else:
        table, prefix = data, ""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `{prefix}` must be a table")
    return settings_from_table(table, path, prefix, _chain=chain)


def _extended(value: Any, path: Path, where: str, chain: tuple[Path, ...]) -> Settings:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where} must be the path of a pyproject.toml or jitlint.toml")
    target = Path(os.path.abspath(path.parent / os.path.expanduser(value)))
    if not target.is_file():
        raise ConfigError(f"{where}: {target}: no such file")
    chain = (*chain, Path(os.path.abspath(path)))
    if target in chain:
        raise ConfigError(f"{where}: {value} extends back to this file (a cycle)")
    return _load_file(target, chain)


def _inherit(base: Settings, path: Path) -> Settings:
    """A new file's settings starting from `base`'s values; selectors and patterns are the
    new file's own (the base's are reached through `base`)."""
    return dataclasses.replace(
        base,
        root=path.parent.resolve(),
        config_path=path,
        select=None,
        extend_select=[],
        ignore=[],
        exclude=None,
        extend_exclude=[],
        per_file_ignores={},
        rule_options={code: dict(options) for code, options in base.rule_options.items()},
        verify=dataclasses.replace(base.verify, examples=list(base.verify.examples)),
        framework_versions=dict(base.framework_versions),
        base=base,
    )


def settings_from_table(
    table: dict[str, Any], path: Path, prefix: str = "", *, _chain: tuple[Path, ...] = ()
) -> Settings:
    def where(key: str) -> str:
        return f"{path}: `{prefix + '.' if prefix else ''}{key}`"

    if "extend" in table:
        settings = _inherit(_extended(table["extend"], path, where("extend"), _chain), path)
    else:
        settings = Settings(root=path.parent.resolve(), config_path=path)

    for key, value in table.items():
        if key == "extend":
            continue
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
                never = _never_matches(pattern, settings.root)
                if never is not None:
                    print(
                        f"jitlint: warning: {where(key)}: {pattern!r} {never}; it applies to "
                        "no file",
                        file=sys.stderr,
                    )
                if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                    raise ConfigError(f"{where(key)}.{pattern} must be a list of codes")
                settings.per_file_ignores[pattern] = [_selector(c, where(key)) for c in codes]
        elif key == "assume-traced":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where(key)} must be a list of strings, got {value!r}")
            for pattern in value:
                problem = assumption_problem(pattern)
                if problem is not None:
                    raise ConfigError(f"{where(key)}: {problem}")
            settings.assume_traced = list(value)
        elif key in _VERSION_KEYS:
            if not isinstance(value, str) or parse_version(value) is None:
                raise ConfigError(f'{where(key)} must be a version string, e.g. "0.4.30"')
            settings.framework_versions[key.removesuffix("-version")] = (value.strip(), path)
        elif key == "verify":
            settings.verify = _verify_table(value, settings.root, where(key), settings.verify)
        elif (code := code_for_name(key)) is not None:
            rule = rule_class(code)
            if not isinstance(value, dict):
                raise ConfigError(f"{where(key)} must be a table of options")
            options: dict[str, Any] = dict(settings.rule_options.get(rule.code, {}))
            for name, option_value in value.items():
                option = rule.options.get(name)
                if option is None:
                    known = ", ".join(rule.options) or "none"
                    hint = did_you_mean(name, rule.options)
                    raise ConfigError(
                        f"{where(key + '.' + name)}: unknown option{hint} (known options: {known})"
                    )
                if not isinstance(option_value, option.type):
                    raise ConfigError(
                        f"{where(key + '.' + name)} must be a {option.type.__name__}, "
                        f"got {option_value!r}"
                    )
                options[name] = option_value
            settings.rule_options[rule.code] = options
        else:
            raise ConfigError(f"{where(key)}: unknown key{did_you_mean(key, known_keys())}")
    return settings


def known_keys() -> list[str]:
    """Every key `[tool.jitlint]` accepts: the settings and one table per rule name."""
    return [*_LISTS, *_BOOLS, *_OTHER_KEYS, *(entry[1] for entry in INDEX.values())]


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """` (did you mean `x`?)` for the nearest known key (a typo, `_` for `-`), else ""."""
    candidates = list(known)
    normalized = key.replace("_", "-").lower()
    if normalized in candidates and normalized != key:
        return f" (did you mean `{normalized}`?)"
    import difflib  # only a typo needs it

    close = difflib.get_close_matches(normalized, candidates, n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _verify_table(
    value: Any, root: Path, table: str, inherited: VerifyConfig | None = None
) -> VerifyConfig:
    """`table` is "file: `tool.jitlint.verify`", as the messages name it."""
    if not isinstance(value, dict):
        raise ConfigError(f"{table} must be a table")

    def where(key: str) -> str:
        return f"{table[:-1]}.{key}`"

    config = dataclasses.replace(inherited) if inherited is not None else VerifyConfig()
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
                f"{where(key)}: unknown key{did_you_mean(key, _VERIFY_KEYS)} "
                f"(known keys: {', '.join(_VERIFY_KEYS)})"
            )
    return config


def _check_pattern(pattern: str, where: str) -> None:
    """An invalid pattern is a configuration error up front, not a crash mid-run."""
    from jitlint.system.discovery import pattern_problem

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


def read_toml(path: Path) -> dict[str, Any]:
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
