"""Which jax, TensorFlow and Keras versions each file is linted for, and where each came from.

In order: the file's config (`jax-version`, `tensorflow-version`, `keras-version`, inherited
through `extend`); else what the project declares: the nearest directory at or above the
file that has a `pyproject.toml` with dependencies (`[project] dependencies`,
`[project.optional-dependencies]`, `[dependency-groups]`, Poetry's tables) or a
`requirements*.txt`; a Keras version not found follows the TensorFlow one when that was
found (`tf.keras` is Keras 3 from TensorFlow 2.16 on), unless the project sets
`TF_USE_LEGACY_KERAS` (its CI workflows, `tox.ini`, `setup.cfg`), which makes `tf.keras` the
Keras 2 of tf-keras on any TensorFlow; else the versions jitlint's facts were generated for.
A requirement names a version by its lower bound (`jax>=0.4.30,<0.5` is 0.4.30, `==2.15.*`
is 2.15, Poetry's `^0.4.30` is 0.4.30); one with only an upper bound, or none, declares no
version. The first declaration with a version wins, in the order above.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jitlint.config import ConfigError, Settings, nearest_up, read_toml
from jitlint.model.library.versions import (
    FRAMEWORKS,
    facts_versions,
    keras_for_tensorflow,
    parse_version,
)
from jitlint.python.guards import DEFAULT_MAX_FILE_SIZE
from jitlint.system.reading import TooLarge, Unreadable, read_regular_file

# Distribution names (normalized as pip does) that install each framework.
_DISTRIBUTIONS = {
    "jax": "jax",
    "tensorflow": "tensorflow",
    "tensorflow-cpu": "tensorflow",
    "tensorflow-gpu": "tensorflow",
    "tensorflow-macos": "tensorflow",
    "tensorflow-intel": "tensorflow",
    "keras": "keras",
}
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*)")
_SPECIFIER = re.compile(r"(===|==|~=|>=|<=|!=|>|<|\^|~)?\s*v?([0-9][0-9A-Za-z.*+!-]*)")
_LOWER_BOUNDS = ("===", "==", "~=", ">=", ">", "^", "~", "")


@dataclass(frozen=True)
class Resolved:
    """One framework's version for a file and where it came from."""

    framework: str
    version: str
    # "config", "requirements", "tensorflow" (Keras from it), "legacy-keras" or "facts"
    source: str
    file: Path | None = None  # the config or requirements file
    detail: str = ""  # the key or requirement, as written

    def to_json(self) -> dict[str, str | None]:
        return {
            "version": self.version,
            "source": self.source,
            "file": str(self.file) if self.file is not None else None,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Declared:
    """A framework version a requirement file declares."""

    version: str
    file: Path
    detail: str


class VersionResolver:
    """Each file's versions; the requirements of each directory are read once."""

    def __init__(self) -> None:
        self._declared: dict[Path, dict[str, Declared] | None] = {}
        self._legacy_keras: dict[Path, Path | None] = {}

    def options(self, path: Path, settings: Settings) -> dict[str, str]:
        """What goes into the file's rule options (engine: `ctx.versions`): the versions
        configured or declared. The facts' versions are left out: `FrameworkVersions`
        falls back to them, so a run with none declared reads no facts until a rule asks."""
        found = self.for_file(path, settings, with_facts=False)
        return {name: resolved.version for name, resolved in found.items()}

    def for_file(
        self, path: Path, settings: Settings, *, with_facts: bool = True
    ) -> dict[str, Resolved]:
        directory = Path(os.path.abspath(path)).parent
        return self.for_directory(directory, settings, with_facts=with_facts)

    def for_directory(
        self, directory: Path, settings: Settings, *, with_facts: bool = True
    ) -> dict[str, Resolved]:
        declared = self._nearest(Path(os.path.abspath(directory)))
        resolved: dict[str, Resolved] = {}
        for framework in FRAMEWORKS:
            configured = settings.framework_versions.get(framework)
            found = declared.get(framework)
            if configured is not None:
                version, config = configured
                key = f"{framework}-version"
                detail = f"`tool.jitlint.{key}`" if config.name == "pyproject.toml" else f"`{key}`"
                resolved[framework] = Resolved(framework, version, "config", config, detail)
            elif found is not None:
                resolved[framework] = Resolved(
                    framework, found.version, "requirements", found.file, found.detail
                )
        if "keras" not in resolved:
            # A project that sets TF_USE_LEGACY_KERAS runs tf.keras as tf-keras (Keras 2)
            # whatever its TensorFlow; precision first, that beats the TensorFlow's own Keras.
            setting = nearest_up(directory, self._legacy_keras, legacy_keras_setting)
            if setting is not None:
                detail = "`TF_USE_LEGACY_KERAS`"
                resolved["keras"] = Resolved("keras", "2", "legacy-keras", setting, detail)
        if "keras" not in resolved and "tensorflow" in resolved:
            tensorflow = resolved["tensorflow"].version
            keras = keras_for_tensorflow(parse_version(tensorflow) or ())
            resolved["keras"] = Resolved("keras", keras, "tensorflow", None, tensorflow)
        if not with_facts:
            return resolved
        for framework in FRAMEWORKS:
            if framework not in resolved:
                version = facts_versions()[framework]
                resolved[framework] = Resolved(framework, version, "facts")
        return {framework: resolved[framework] for framework in FRAMEWORKS}

    def _nearest(self, directory: Path) -> dict[str, Declared]:
        """The declarations of the nearest directory that declares requirements at all."""
        return nearest_up(directory, self._declared, declared_in) or {}


def declared_in(directory: Path) -> dict[str, Declared] | None:
    """The framework versions the requirement files in `directory` declare; None when it
    has no requirement file (the search goes on upwards)."""
    sources: list[tuple[Path, str, str]] = []  # (file, where, requirement)
    has_requirements = False
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file():
        tables = _pyproject_requirements(pyproject)
        if tables is not None:
            has_requirements = True
            sources.extend((pyproject, where, text) for where, text in tables)
    for path in sorted(directory.glob("requirements*.txt")):
        if not path.is_file():
            continue
        has_requirements = True
        sources.extend((path, where, text) for where, text in _requirements_txt(path))
    if not has_requirements:
        return None
    declared: dict[str, Declared] = {}
    for file, where, text in sources:
        parsed = _requirement(text)
        if parsed is None:
            continue
        framework, version = parsed
        if framework not in declared:
            declared[framework] = Declared(version, file, f"{text.strip()} in {where}")
    return declared


# Where a project sets the environment its tests run in; a `TF_USE_LEGACY_KERAS` there says
# the project targets tf-keras (Keras 2) even on a TensorFlow whose own `tf.keras` is Keras 3.
_ENVIRONMENT_FILES = ("tox.ini", "setup.cfg", ".github/workflows/*.yml", ".github/workflows/*.yaml")
_LEGACY_KERAS = re.compile(rb"\bTF_USE_LEGACY_KERAS\b")


def legacy_keras_setting(directory: Path) -> Path | None:
    """The first file of `directory` that sets up an environment with `TF_USE_LEGACY_KERAS`,
    or None (the search goes on upwards)."""
    for pattern in _ENVIRONMENT_FILES:
        for path in sorted(directory.glob(pattern)):
            try:
                text = read_regular_file(str(path), DEFAULT_MAX_FILE_SIZE)
            except (Unreadable, TooLarge):
                continue
            if _LEGACY_KERAS.search(text):
                return path
    return None


def _requirement(text: str) -> tuple[str, str] | None:
    """(framework, lower bound) of a PEP 508 requirement (or a Poetry `name = spec` entry
    given as `name spec`), or None when it is not a framework or names no lower bound."""
    match = _REQUIREMENT.match(text.split(";", 1)[0])
    if match is None:
        return None
    framework = _DISTRIBUTIONS.get(re.sub(r"[-_.]+", "-", match.group(1)).lower())
    if framework is None:
        return None
    bounds = []
    for part in match.group(2).split(","):
        spec = _SPECIFIER.fullmatch(part.strip())
        if spec is None or (spec.group(1) or "") not in _LOWER_BOUNDS:
            continue
        version = spec.group(2).removesuffix(".*")
        if parse_version(version) is not None:
            bounds.append(version)
    if not bounds:
        return None
    return framework, max(bounds, key=lambda v: parse_version(v) or ())


def _pyproject_requirements(path: Path) -> list[tuple[str, str]] | None:
    """(table, requirement) pairs of a pyproject.toml; None when it declares none."""
    try:
        data = read_toml(path)
    except ConfigError:
        return None  # a broken pyproject.toml is the config's concern, not this one's
    found: list[tuple[str, str]] = []
    has_tables = False
    project = data.get("project")
    if isinstance(project, dict):
        if isinstance(project.get("dependencies"), list):
            has_tables = True
            found += _strings("project.dependencies", project["dependencies"])
        optional = project.get("optional-dependencies")
        if isinstance(optional, dict):
            has_tables = True
            for group in sorted(optional):
                found += _strings(f"project.optional-dependencies.{group}", optional[group])
    groups = data.get("dependency-groups")
    if isinstance(groups, dict):
        has_tables = True
        for group in sorted(groups):
            found += _strings(f"dependency-groups.{group}", groups[group])
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    if isinstance(poetry, dict) and isinstance(poetry.get("dependencies"), dict):
        has_tables = True
        for name, spec in poetry["dependencies"].items():
            if isinstance(spec, dict):
                spec = spec.get("version", "")
            if isinstance(spec, str):
                found.append(("tool.poetry.dependencies", f"{name} {spec}"))
    return found if has_tables else None


def _strings(where: str, values: Any) -> list[tuple[str, str]]:
    return [(where, v) for v in values if isinstance(v, str)] if isinstance(values, list) else []


def _requirements_txt(path: Path) -> list[tuple[str, str]]:
    try:  # a regular file only, and a bounded read, as for the files linted
        text = read_regular_file(str(path), DEFAULT_MAX_FILE_SIZE).decode("utf-8", "replace")
    except (Unreadable, TooLarge):
        return []
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        # A comment, per-requirement options (`--hash=...`) and a continuation go.
        requirement = re.split(r"\s#|\s--", line, maxsplit=1)[0].strip().rstrip("\\").strip()
        if requirement and not requirement.startswith(("-", "#")):  # options, -r, -e
            found.append((f"{path.name} line {number}", requirement))
    return found
