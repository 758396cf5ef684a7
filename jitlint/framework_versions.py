"""Which jax, TensorFlow and Keras versions each file is linted for, and where each came from.

In order: the file's config (`jax-version`, `tensorflow-version`, `keras-version`, inherited
through `extend`); else what the project declares: the nearest directory at or above the
file that has a `pyproject.toml` with dependencies (`[project] dependencies`,
`[project.optional-dependencies]`, `[dependency-groups]`, Poetry's tables) or a
`requirements*.txt`, or a `setup.cfg`/`setup.py` with `install_requires`/`extras_require`
(setup.py is read as a syntax tree, never run), or a Dockerfile there or in its `docker/`
folder that starts from the official TensorFlow image (`FROM tensorflow/tensorflow:2.3.1-gpu`
is `tensorflow==2.3.1`; several such images, the range from the oldest to the newest); a
Keras version not found follows the
TensorFlow one when that was found (`tf.keras` is Keras 3 from TensorFlow 2.16 on), unless
the project sets `TF_USE_LEGACY_KERAS` (its CI workflows, `tox.ini`, `setup.cfg`), which makes
`tf.keras` the Keras 2 of tf-keras on any TensorFlow; else the versions jitlint's facts were
generated for. A requirement names a version by its lower bound (`jax>=0.4.30,<0.5` is
0.4.30, `==2.15.*` is 2.15, Poetry's `^0.4.30` is 0.4.30); the first declaration with a
version wins, in the order above. The Keras major follows the whole TensorFlow range, not
its lower bound: `tensorflow<=2.11`, `<2.16` or `~=2.15.0` allow only TensorFlows whose
`tf.keras` is Keras 2 (and `keras<3` only Keras 2); `>=2.16` only Keras 3; a range with
both (`tensorflow>=2.6`, `~=2.10`, `<3`) leaves it open. A project (a directory that
declares requirements) whose declarations leave the Keras major open, or say nothing about
TensorFlow or Keras, is *undecided*: its code decides (model/library/keras_evidence.py: a
Keras 2 API that Keras 3 removed, `self.add_metric(...)`, or `TF_USE_LEGACY_KERAS` set true
in code, says 2; a module only Keras 3 has, `keras.ops`, `keras.random`, says 3), read only
when a TensorFlow rule asks; else no finding that needs Keras 3 semantics is reported there.
`keras-version` in the config decides it. A file outside any declaring project (a lone script,
stdin) is linted for the facts' Keras, unless the code of its package (the topmost folder of
its chain of `__init__.py` folders; for a module in no package, its own folder's `*.py`
files) shows Keras 2 the same way: then Keras 2 (read only when a TensorFlow rule asks).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jitlint.config import ConfigError, Settings, nearest_up, read_toml
from jitlint.model.library.keras_evidence import (
    directory_scope,
    forget_evidence,
    project_evidence,
)
from jitlint.model.library.versions import (
    CODE_OR_FACTS,
    FRAMEWORKS,
    KERAS_3_SINCE_TENSORFLOW,
    PROJECT_KEY,
    UNDECIDED,
    UPPER_KEY,
    Version,
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
# The Keras 2 distribution that TF_USE_LEGACY_KERAS makes `tf.keras`: declared beside a Keras 3,
# it leaves the project's Keras major open.
TF_KERAS = "tf-keras"
# Patterns as text, compiled by `re` (and kept in its cache) when a project's files are first
# read: a file in no project reads none.
_REQUIREMENT = r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*)"
_SPECIFIER = r"(===|==|~=|>=|<=|!=|>|<|\^|~)?\s*v?([0-9][0-9A-Za-z.*+!-]*)"
_LOWER_BOUNDS = ("===", "==", "~=", ">=", ">", "^", "~", "")
# The first version of each framework's next major line that a declared upper bound can put
# out of reach: TensorFlow's `tf.keras` is Keras 3 from 2.16 on, Keras 3 is Keras 3.
_KERAS_3_FROM = {"tensorflow": KERAS_3_SINCE_TENSORFLOW, "keras": (3,)}


@dataclass(frozen=True)
class Resolved:
    """One framework's version for a file and where it came from."""

    framework: str
    version: str
    # "config", "requirements", "tensorflow" (Keras from it), "legacy-keras", "undecided"
    # (a declaring project whose declarations and code leave the Keras major open: the file
    # is its root; in the options, its code is not read yet), "code-or-facts" (only in the
    # options: a file in no declaring project, the file its package's scope), "code" (code of
    # the project that runs on one Keras major only) or "facts"
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
class Bound:
    """A declared upper bound: every version allowed is below `version` (or at it, when
    `inclusive`)."""

    version: Version
    inclusive: bool

    def below(self, limit: Version) -> bool:
        """Whether every version this bound allows is below `limit`."""
        version, limit = _trimmed(self.version), _trimmed(limit)
        return version < limit if self.inclusive else version <= limit


@dataclass(frozen=True)
class Declared:
    """A framework's version range a requirement file declares: its lower bound (None when
    it has only an upper bound) and its upper bound, if any."""

    version: str | None
    file: Path
    detail: str
    upper: Bound | None = None

    def keras_2(self, framework: str) -> bool:
        """Whether every version allowed has Keras 2 (`tf.keras` of a TensorFlow, or Keras)."""
        limit = _KERAS_3_FROM.get(framework)
        return limit is not None and self.upper is not None and self.upper.below(limit)


class VersionResolver:
    """Each file's versions; the requirements of each directory are read once."""

    def __init__(self) -> None:
        self._declared: dict[Path, dict[str, Declared] | None] = {}
        self._legacy_keras: dict[Path, Path | None] = {}
        self._roots: dict[Path, Path | None] = {}
        self._here: dict[Path, dict[str, Declared] | None] = {}  # declared_in, by directory
        # The code scans are the process's (engine workers ask them too); a new resolver (a
        # run, the editor's settings read again) reads the code as it is now.
        forget_evidence()

    def options(self, path: Path, settings: Settings) -> dict[str, str]:
        """What goes into the file's rule options (engine: `ctx.versions`): the versions
        configured or declared. The facts' versions are left out: `FrameworkVersions`
        falls back to them, so a run with none declared reads no facts until a rule asks."""
        found = self.for_file(path, settings, with_facts=False)
        options = {name: resolved.version for name, resolved in found.items()}
        keras = found.get("keras")
        if keras is not None and keras.source in ("undecided", "code-or-facts"):
            options[PROJECT_KEY] = str(keras.file)
        jax = found.get("jax")
        if jax is not None and jax.source == "requirements":
            # The newest jax the declared range allows: an API removed after it cannot fail
            # where the project is installed as it says (`jax==0.4.7`).
            upper = self._nearest(Path(os.path.abspath(path)).parent)["jax"].upper
            if upper is not None:
                operator = "<=" if upper.inclusive else "<"
                options[UPPER_KEY.format("jax")] = operator + ".".join(map(str, upper.version))
        return options

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
            elif found is not None and found.version is not None:
                resolved[framework] = Resolved(
                    framework, found.version, "requirements", found.file, found.detail
                )
            elif found is not None and framework == "keras" and found.keras_2(framework):
                resolved[framework] = Resolved(
                    framework, "2", "requirements", found.file, found.detail
                )
        if "keras" not in resolved:
            # A project that sets TF_USE_LEGACY_KERAS runs tf.keras as tf-keras (Keras 2)
            # whatever its TensorFlow; precision first, that beats the TensorFlow's own Keras.
            setting = nearest_up(directory, self._legacy_keras, legacy_keras_setting)
            if setting is not None:
                detail = "`TF_USE_LEGACY_KERAS`"
                resolved["keras"] = Resolved("keras", "2", "legacy-keras", setting, detail)
        requirement = declared.get("tensorflow")
        open_range = False
        if "keras" not in resolved and requirement is not None:
            keras_2 = requirement.keras_2("tensorflow")
            lower = parse_version(requirement.version or "")
            if keras_2 and requirement.version is None:
                # No TensorFlow version, but its upper bound is below 2.16: tf.keras is Keras 2.
                detail = requirement.detail
                resolved["keras"] = Resolved("keras", "2", "tensorflow", requirement.file, detail)
            else:
                # `tensorflow>=2.6`: the range holds TensorFlows with either Keras. Its lower
                # bound does not decide it.
                open_range = (
                    "tensorflow" in resolved
                    and resolved["tensorflow"].source == "requirements"
                    and not keras_2
                    and (lower is None or lower < KERAS_3_SINCE_TENSORFLOW)
                )
        if "keras" not in resolved and ("tensorflow" not in resolved or open_range):
            undecided = self._undecided(Path(os.path.abspath(directory)), requirement, with_facts)
            if undecided is not None:
                resolved["keras"] = undecided
        if "keras" not in resolved and "tensorflow" in resolved:
            tensorflow = resolved["tensorflow"].version
            keras = keras_for_tensorflow(parse_version(tensorflow) or ())
            resolved["keras"] = Resolved("keras", keras, "tensorflow", None, tensorflow)
        keras = resolved.get("keras")
        if (
            TF_KERAS in declared
            and keras is not None
            and keras.source in ("requirements", "tensorflow")
            and (parse_version(keras.version) or (0,)) >= (3,)
        ):
            # The project installs tf-keras beside a Keras 3 (a `keras==3.x` pin is often only
            # a lock of TensorFlow's own): which one `tf.keras` is depends on
            # TF_USE_LEGACY_KERAS at run time, so the declarations leave the major open.
            undecided = self._undecided(
                Path(os.path.abspath(directory)), declared[TF_KERAS], with_facts
            )
            if undecided is not None:
                resolved["keras"] = undecided
        if not with_facts:
            return resolved
        for framework in FRAMEWORKS:
            if framework not in resolved:
                version = facts_versions()[framework]
                resolved[framework] = Resolved(framework, version, "facts")
        return {framework: resolved[framework] for framework in FRAMEWORKS}

    def _undecided(
        self, directory: Path, requirement: Declared | None, with_facts: bool
    ) -> Resolved | None:
        """The Keras of a project whose declarations leave the major open: "undecided", its
        root the file, for the options (the code scan waits until a TF rule asks: see
        model/library/versions.py); with the facts (`--show-settings`), what the project's
        code shows, scanned now. None outside any declaring project: the facts' Keras."""
        root = nearest_up(directory, self._roots, self._declaring_root)
        if root is None:
            return self._outside_projects(directory, with_facts)
        if with_facts:
            found = project_evidence(str(root))
            if found is not None:
                return Resolved("keras", str(found.major), "code", found.file, found.detail)
        detail = requirement.detail if requirement is not None else ""
        return Resolved("keras", UNDECIDED, "undecided", root, detail)

    @staticmethod
    def _outside_projects(directory: Path, with_facts: bool) -> Resolved | None:
        """The Keras of a file in no declaring project: Keras 2 where the code of its package
        shows it (a repository of the TF 2.0-2.5 era often declares nothing; its Keras 2 code
        says which Keras it ran), else the facts' (None with the facts; "code-or-facts" in the
        options, the scan waiting until a TF rule asks)."""
        package = directory
        while (package / "__init__.py").is_file() and package.parent != package:
            if not (package.parent / "__init__.py").is_file():
                break
            package = package.parent
        scope = str(package) if (package / "__init__.py").is_file() else directory_scope(directory)
        if not with_facts:
            return Resolved("keras", CODE_OR_FACTS, "code-or-facts", Path(scope))
        found = project_evidence(scope)
        if found is not None and found.major == 2:
            return Resolved("keras", "2", "code", found.file, found.detail)
        return None

    def _nearest(self, directory: Path) -> dict[str, Declared]:
        """The declarations of the nearest directory that declares requirements at all."""
        return nearest_up(directory, self._declared, self._declared_in) or {}

    def _declared_in(self, directory: Path) -> dict[str, Declared] | None:
        """`declared_in`, read once per directory: the nearest declarations and the
        declaring root of an undecided Keras probe the same directories."""
        if directory not in self._here:
            self._here[directory] = declared_in(directory)
        return self._here[directory]

    def _declaring_root(self, directory: Path) -> Path | None:
        return directory if self._declared_in(directory) is not None else None


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
    for name in _names(directory):  # requirements*.txt
        path = directory / name
        if not (name.startswith("requirements") and name.endswith(".txt") and path.is_file()):
            continue
        has_requirements = True
        sources.extend((path, where, text) for where, text in _requirements_txt(path))
    for name, reader in (
        ("setup.cfg", _setup_cfg_requirements),
        ("setup.py", _setup_py_requirements),
    ):
        path = directory / name
        found = reader(path) if path.is_file() else None
        if found is not None:
            has_requirements = True
            sources.extend((path, where, text) for where, text in found)
    image = _tensorflow_image(directory)
    if image is not None:
        has_requirements = True
        sources.append(image)
    if not has_requirements:
        return None
    declared: dict[str, Declared] = {}
    for file, where, text in sources:
        if TF_KERAS not in declared and _distribution(text) == TF_KERAS:
            declared[TF_KERAS] = Declared(None, file, f"{text.strip()} in {where}")
        parsed = _requirement(text)
        if parsed is None:
            continue
        framework, version, upper = parsed
        known = declared.get(framework)
        # The first lower bound names the version; before one is seen, the first upper bound
        # stands in (it may still decide the Keras major).
        if known is None or (known.version is None and version is not None):
            declared[framework] = Declared(version, file, f"{text.strip()} in {where}", upper)
    return declared


# Where a project sets the environment its tests run in (tox.ini, setup.cfg, the workflows of
# .github/workflows/); a `TF_USE_LEGACY_KERAS` there says the project targets tf-keras
# (Keras 2) even on a TensorFlow whose own `tf.keras` is Keras 3.
_ENVIRONMENT_FILES = ("tox.ini", "setup.cfg")
_WORKFLOW_SUFFIXES = (".yml", ".yaml")
_LEGACY_KERAS = rb"\bTF_USE_LEGACY_KERAS\b"


def _names(directory: Path) -> list[str]:
    """The names in `directory`, sorted; none where it is not a directory that can be
    listed. (What the probes above read of each directory, as a glob would list them: every
    one-file run probes every directory above its file, and pathlib's globs cost several
    times as much.)"""
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


def legacy_keras_setting(directory: Path) -> Path | None:
    """The first file of `directory` that sets up an environment with `TF_USE_LEGACY_KERAS`,
    or None (the search goes on upwards)."""
    workflows = directory / ".github" / "workflows"
    listed = _names(workflows)
    paths = [directory / name for name in _ENVIRONMENT_FILES]
    for suffix in _WORKFLOW_SUFFIXES:
        paths += [workflows / name for name in listed if name.endswith(suffix)]
    for path in paths:
        try:
            text = read_regular_file(str(path), DEFAULT_MAX_FILE_SIZE)
        except (Unreadable, TooLarge):
            continue
        if re.search(_LEGACY_KERAS, text):
            return path
    return None


def _distribution(text: str) -> str | None:
    """The distribution a requirement names, normalized as pip does (`tf_keras` is `tf-keras`)."""
    match = re.match(_REQUIREMENT, text.split(";", 1)[0])
    return _normalized(match.group(1)) if match is not None else None


def _normalized(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


def _requirement(text: str) -> tuple[str, str | None, Bound | None] | None:
    """(framework, lower bound, upper bound) of a PEP 508 requirement (or a Poetry
    `name = spec` entry given as `name spec`), or None when it is not a framework or bounds
    its version neither way."""
    match = re.match(_REQUIREMENT, text.split(";", 1)[0])
    if match is None:
        return None
    framework = _DISTRIBUTIONS.get(_normalized(match.group(1)))
    if framework is None:
        return None
    lower: list[str] = []
    upper: list[Bound] = []
    for part in match.group(2).split(","):
        spec = re.fullmatch(_SPECIFIER, part.strip())
        if spec is None:
            continue
        operator, version = spec.group(1) or "", spec.group(2)
        parsed = parse_version(version.removesuffix(".*"))
        if parsed is None:
            continue
        if operator in _LOWER_BOUNDS:
            lower.append(version.removesuffix(".*"))
        bound = _upper_bound(operator, version, parsed)
        if bound is not None:
            upper.append(bound)
    if not lower and not upper:
        return None
    version = max(lower, key=lambda v: parse_version(v) or ()) if lower else None
    # The tightest upper bound: the one whose every allowed version the others allow too.
    tightest = min(upper, key=lambda b: (_trimmed(b.version), b.inclusive)) if upper else None
    return framework, version, tightest


def _upper_bound(operator: str, version: str, parsed: Version) -> Bound | None:
    """The upper bound one specifier sets: `<X`, `<=X`, `==X` and `==X.*`, `~=X.Y` (below
    the next X), Poetry's `^X.Y` (below the next X, or the next Y for 0.Y) and `~X.Y`."""
    if operator == "<":
        return Bound(parsed, False)
    if operator == "<=":
        return Bound(parsed, True)
    if operator in ("==", "===", ""):  # a bare version is Poetry's `==`
        if version.endswith(".*"):
            return Bound(_next(parsed, len(parsed) - 1), False)  # 2.15.* is below 2.16
        return Bound(parsed, True)
    if operator == "~=" and len(parsed) >= 2:
        return Bound(_next(parsed, len(parsed) - 2), False)
    if operator == "~":
        return Bound(_next(parsed, min(1, len(parsed) - 1)), False)
    if operator == "^":
        nonzero = next((i for i, part in enumerate(parsed) if part != 0), len(parsed) - 1)
        return Bound(_next(parsed, nonzero), False)
    return None


def _next(version: Version, index: int) -> Version:
    """The first version after every version that starts with `version[: index + 1]`."""
    return (*version[:index], version[index] + 1)


def _trimmed(version: Version) -> Version:
    """`(2, 16, 0)` -> `(2, 16)`: equal versions compare equal."""
    end = len(version)
    while end > 1 and version[end - 1] == 0:
        end -= 1
    return version[:end]


# The official TensorFlow image a project's container starts from names the TensorFlow it runs
# in (`FROM tensorflow/tensorflow:2.3.1-gpu`); research code of the TF 2.x era often declares
# its versions nowhere else. Other images (python, ubuntu, a vendor's) say nothing.
_TENSORFLOW_IMAGE = (
    r"(?im)^[ \t]*FROM[ \t]+(?:--platform=\S+[ \t]+)?(?:docker\.io/)?tensorflow/tensorflow:"
    r"v?([0-9]+\.[0-9]+(?:\.[0-9]+)?)"
)
_DOCKER_FOLDERS = (".", "docker")


def _tensorflow_image(directory: Path) -> tuple[Path, str, str] | None:
    """(file, where, requirement) for the TensorFlow images the Dockerfiles of `directory`
    (`Dockerfile*`, `*.dockerfile`, any case) and of its `docker/` folder start from: one
    version is `tensorflow==V`; several, the range from the oldest to the newest (the
    project runs on each). None when no Dockerfile names one."""
    found: list[tuple[Version, str, Path, str]] = []
    for folder in _DOCKER_FOLDERS:
        base = directory / folder
        for name in _names(base):
            lowered = name.lower()
            if not (lowered.startswith("dockerfile") or lowered.endswith(".dockerfile")):
                continue
            path = base / name
            try:
                text = read_regular_file(str(path), DEFAULT_MAX_FILE_SIZE).decode(
                    "utf-8", "replace"
                )
            except (Unreadable, TooLarge):
                continue
            for match in re.finditer(_TENSORFLOW_IMAGE, text):
                parsed = parse_version(match.group(1))
                if parsed is not None:
                    where = f"{path.relative_to(directory).as_posix()} `{match.group().strip()}`"
                    found.append((parsed, match.group(1), path, where))
    if not found:
        return None
    oldest = min(found, key=lambda item: item[0])
    newest = max(found, key=lambda item: item[0])
    if oldest[0] == newest[0]:
        return oldest[2], oldest[3], f"tensorflow=={oldest[1]}"
    return oldest[2], oldest[3], f"tensorflow>={oldest[1]},<={newest[1]}"


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


def _setup_cfg_requirements(path: Path) -> list[tuple[str, str]] | None:
    """(section, requirement) pairs of a setup.cfg's `[options] install_requires` and
    `[options.extras_require]`; None when it has neither."""
    import configparser  # only a project with a setup.cfg pays for it

    try:
        text = read_regular_file(str(path), DEFAULT_MAX_FILE_SIZE).decode("utf-8", "replace")
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(text)
    except (Unreadable, TooLarge, configparser.Error):
        return None
    found: list[tuple[str, str]] = []
    has_tables = False
    if parser.has_option("options", "install_requires"):
        has_tables = True
        found += _lines("setup.cfg install_requires", parser.get("options", "install_requires"))
    if parser.has_section("options.extras_require"):
        has_tables = True
        for group, value in parser.items("options.extras_require"):
            found += _lines(f"setup.cfg extras_require.{group}", value)
    return found if has_tables else None


def _lines(where: str, value: str) -> list[tuple[str, str]]:
    lines = (line.split("#", 1)[0].strip() for line in value.splitlines())
    return [(where, line) for line in lines if line and not line.startswith("file:")]


def _setup_py_requirements(path: Path) -> list[tuple[str, str]] | None:
    """(keyword, requirement) pairs of the `install_requires` and `extras_require` of a
    setup.py's `setup(...)` calls, read from its syntax tree (never run): literal lists and
    dicts, a name bound to one in the file, an entry of such a dict (`reqs["install"]`),
    and `+` of those. None when no `setup(...)` call has either keyword."""
    try:
        text = read_regular_file(str(path), DEFAULT_MAX_FILE_SIZE).decode("utf-8", "replace")
        tree = ast.parse(text, str(path))
    except (Unreadable, TooLarge, SyntaxError, ValueError):
        return None
    bound: dict[str, ast.expr] = {}  # a module-level name's last plain assignment
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = statement.value
        elif (
            isinstance(statement, ast.AnnAssign)
            and statement.value is not None
            and isinstance(statement.target, ast.Name)
        ):
            bound[statement.target.id] = statement.value
    found: list[tuple[str, str]] = []
    has_tables = False
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _callee(node.func) != "setup":
            continue
        for keyword in node.keywords:
            if keyword.arg == "install_requires":
                has_tables = True
                where = "setup.py install_requires"
                found += [(where, r) for r in _literal_strings(keyword.value, bound)]
            elif keyword.arg == "extras_require":
                has_tables = True
                extras = _resolved(keyword.value, bound)
                if not isinstance(extras, ast.Dict):
                    continue
                for key, value in zip(extras.keys, extras.values, strict=True):
                    group = key.value if isinstance(key, ast.Constant) else "?"
                    where = f"setup.py extras_require.{group}"
                    found += [(where, r) for r in _literal_strings(value, bound)]
    return found if has_tables else None


def _callee(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _resolved(node: ast.expr, bound: dict[str, ast.expr], depth: int = 0) -> ast.expr:
    """A name bound at module level is its value (a chain of names is followed, once each);
    `table["install"]` of a literal dict (through names) is that entry's value."""
    seen: set[str] = set()
    while isinstance(node, ast.Name) and node.id in bound and node.id not in seen:
        seen.add(node.id)
        node = bound[node.id]
    if isinstance(node, ast.Subscript) and depth < 4:
        key = node.slice
        table = _resolved(node.value, bound, depth + 1)
        if isinstance(table, ast.Dict) and isinstance(key, ast.Constant):
            for name, value in zip(table.keys, table.values, strict=True):
                if isinstance(name, ast.Constant) and name.value == key.value:
                    return _resolved(value, bound, depth + 1)
    return node


def _literal_strings(node: ast.expr, bound: dict[str, ast.expr]) -> list[str]:
    """The string elements of a literal list or tuple (through names and `+`); what is not
    a literal declares nothing."""
    node = _resolved(node, bound)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal_strings(node.left, bound) + _literal_strings(node.right, bound)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]  # setuptools takes one requirement as a string too
    return []
