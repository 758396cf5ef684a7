"""The recall benchmark's cases (bench/cases/): find them, parse their headers, validate them.

The format is bench/cases/README.md. Each case becomes a `Case`; `Case.problems` lists what is
wrong with it (empty for a valid case). Standard library only: the other scripts of the
benchmark and the tests import it.

Usage: python bench/cases_format.py [--cases DIR]   (prints every problem; exit 1 if any)
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parent / "cases"

FRAMEWORKS = ("jax", "tf")
SHAPES = ("function", "class", "multi-file")
KEYS = ("source", "framework", "shape", "expect", "hazard", "gpu-only")
CLASS_SHAPED = ("class", "multi-file")

_KEY_LINE = re.compile(r"#\s*([a-z][a-z-]*):\s*(.*?)\s*$")
_CODES = re.compile(r"JIT\d{3}(\|JIT\d{3})*")
_URL = re.compile(r"https?://[^\s/]+\.[^\s/]+(/\S*)?")
_EXPECT = re.compile(r"ok|error ([A-Za-z_]\w*)|observed ([A-Za-z_]\w*)=(\d+)")
_HAZARD = re.compile(r"(?:(\S+\.py):)?(\d+)\s+(\S+)\s*(.*)")


@dataclass(frozen=True)
class Hazard:
    file: str  # relative to the case root: `name.py`, or `helpers.py` inside a package
    line: int
    codes: tuple[str, ...]
    reason: str


@dataclass
class Case:
    name: str  # `<group>/<name>`
    group: str
    path: Path  # the .py file, or the package folder
    package: bool
    framework: str = ""
    shape: str = ""
    sources: list[str] = field(default_factory=list)
    expect: str = ""  # `ok`, `error <Class>` or `observed <key>=<int>`
    gpu_only: str | None = None
    hazards: list[Hazard] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def stem(self) -> str:
        return self.name.split("/", 1)[1]

    @property
    def root(self) -> Path:
        """The folder the case runs in and its hazard files are relative to."""
        return self.path.parent if not self.package else self.path

    @property
    def header_file(self) -> Path:
        return self.path / "__main__.py" if self.package else self.path

    @property
    def command(self) -> list[str]:
        """How the case runs, from its group folder (after the interpreter)."""
        return ["-m", self.stem] if self.package else [self.path.name]

    @property
    def positive(self) -> bool:
        return bool(self.hazards)

    @property
    def class_shaped(self) -> bool:
        return self.positive and self.shape in CLASS_SHAPED

    def files(self) -> list[str]:
        """The case's .py files, relative to its group folder (what is copied and linted)."""
        if not self.package:
            return [self.path.name]
        return sorted(
            p.relative_to(self.path.parent).as_posix()
            for p in self.path.rglob("*.py")
            if "__pycache__" not in p.parts
        )


def discover(cases_dir: Path = CASES_DIR) -> Iterator[tuple[str, Path, bool]]:
    """(group, path, is_package) for every case, sorted by group then name."""
    for group in sorted(p for p in cases_dir.iterdir() if p.is_dir() and _visible(p)):
        for entry in sorted(group.iterdir()):
            if not _visible(entry):
                continue
            if entry.is_dir():
                yield group.name, entry, True
            elif entry.suffix == ".py":
                yield group.name, entry, False


def _visible(path: Path) -> bool:
    return not path.name.startswith(".") and path.name != "__pycache__"


def load_cases(cases_dir: Path = CASES_DIR) -> list[Case]:
    return [parse_case(group, path, package) for group, path, package in discover(cases_dir)]


def parse_case(group: str, path: Path, package: bool) -> Case:
    name = path.stem if not package else path.name
    case = Case(f"{group}/{name}", group, path, package)
    problems = case.problems
    if package:
        if not name.isidentifier():
            problems.append(f"package name {name!r} is not a Python identifier (`python -m`)")
        for required in ("__init__.py", "__main__.py"):
            if not (path / required).is_file():
                problems.append(f"package without {required}")
        if problems:
            return case
    lines = _read_lines(case.header_file, problems)
    if lines is None:
        return case
    values: dict[str, list[str]] = {key: [] for key in KEYS}
    header_end = 0
    while header_end < len(lines) and lines[header_end].lstrip().startswith("#"):
        match = _KEY_LINE.fullmatch(lines[header_end].strip())
        if match and match.group(1) in KEYS:
            values[match.group(1)].append(match.group(2))
        elif match and not match.group(1).startswith(("coding", "vim", "pylint", "noqa")):
            problems.append(f"line {header_end + 1}: unknown header key {match.group(1)!r}")
        header_end += 1
    for number, text in enumerate(lines[header_end:], header_end + 1):
        match = _KEY_LINE.fullmatch(text.strip())
        if match and match.group(1) in KEYS:
            problems.append(f"line {number}: `{match.group(1)}:` below the header comment block")

    _parse_single(case, values, "framework", FRAMEWORKS)
    _parse_single(case, values, "shape", SHAPES)
    _parse_expect(case, values["expect"])
    _parse_sources(case, values["source"])
    if len(values["gpu-only"]) > 1:
        problems.append("more than one `gpu-only:`")
    elif values["gpu-only"]:
        case.gpu_only = values["gpu-only"][0]
        if not case.gpu_only:
            problems.append("`gpu-only:` needs a reason")
    for text in values["hazard"]:
        hazard = _parse_hazard(case, text)
        if hazard is not None:
            case.hazards.append(hazard)
    _check_consistency(case, declared=bool(values["hazard"]))
    return case


def _read_lines(path: Path, problems: list[str]) -> list[str] | None:
    try:
        # Lines as Python numbers them (str.splitlines also splits on \f, \v, \x1c, ...).
        return [line.rstrip("\r") for line in path.read_text(encoding="utf-8").split("\n")]
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"cannot read {path.name}: {exc}")
        return None


def _parse_single(case: Case, values: dict[str, list[str]], key: str, allowed: tuple) -> None:
    found = values[key]
    if len(found) != 1:
        case.problems.append(f"needs exactly one `{key}:` line, has {len(found)}")
    elif found[0] not in allowed:
        case.problems.append(f"`{key}: {found[0]}` is not one of {', '.join(allowed)}")
    else:
        setattr(case, key, found[0])


def _parse_expect(case: Case, found: list[str]) -> None:
    if len(found) != 1:
        case.problems.append(f"needs exactly one `expect:` line, has {len(found)}")
    elif not _EXPECT.fullmatch(found[0]):
        case.problems.append(
            f"`expect: {found[0]}` is not `ok`, `error <Class>` or `observed <key>=<int>`"
        )
    else:
        case.expect = found[0]


def _parse_sources(case: Case, found: list[str]) -> None:
    if not found:
        case.problems.append("no `source:` line")
    for url in found:
        if _URL.fullmatch(url):
            case.sources.append(url)
        else:
            case.problems.append(f"`source: {url}` is not one http(s) URL")


def _parse_hazard(case: Case, text: str) -> Hazard | None:
    match = _HAZARD.fullmatch(text)
    if not match:
        case.problems.append(f"`hazard: {text}` is not `[file:]<line> <CODE[|CODE]> <reason>`")
        return None
    file, line, codes, reason = match.groups()
    where = f"`hazard: {text}`"
    if not _CODES.fullmatch(codes):
        case.problems.append(f"{where}: codes {codes!r} do not match JIT###[|JIT###]")
        return None
    if not reason:
        case.problems.append(f"{where}: no reason")
    if not case.package:
        if file is not None:
            case.problems.append(f"{where}: a one-file case's hazard is `<line>`, without a file")
            return None
        rel, target = case.path.name, case.path
    else:
        rel = file or "__main__.py"  # a bare line is in the file with the header
        target = case.path / rel
        if ".." in Path(rel).parts or Path(rel).is_absolute():
            case.problems.append(f"{where}: {rel} is outside the package")
            return None
    lines = _read_lines(target, case.problems) if target.is_file() else None
    if lines is None:
        case.problems.append(f"{where}: no file {rel} in the case")
        return None
    number = int(line)
    if not 1 <= number <= len(lines):
        case.problems.append(f"{where}: line {number} is outside {rel} ({len(lines)} lines)")
        return None
    content = lines[number - 1].strip()
    if not content or content.startswith("#"):
        case.problems.append(f"{where}: line {number} of {rel} is blank or a comment")
        return None
    return Hazard(rel, number, tuple(codes.split("|")), reason)


def _check_consistency(case: Case, declared: bool) -> None:
    """Rules between keys; `declared`: the case has `hazard:` lines (valid or not)."""
    problems = case.problems
    if case.shape == "multi-file" and not case.package:
        problems.append("`shape: multi-file` needs a package case (a folder)")
    if case.package and case.shape and case.shape != "multi-file":
        problems.append(f"a package case must have `shape: multi-file`, not {case.shape!r}")
    for prefix, framework in (("jax", "jax"), ("tf", "tf")):
        if case.group.startswith(prefix) and case.framework and case.framework != framework:
            problems.append(f"group {case.group} holds {framework} cases, not {case.framework}")
    if case.expect == "ok" and declared and case.gpu_only is None:
        problems.append("a positive with `expect: ok` needs `gpu-only:`")
    if case.gpu_only is not None and case.expect and case.expect != "ok":
        problems.append("a `gpu-only:` case must have `expect: ok`")
    if case.gpu_only is not None and not declared:
        problems.append("a `gpu-only:` case needs a `hazard:`")
    if not declared and case.expect and case.expect != "ok":
        problems.append(f"a negative (no `hazard:`) must have `expect: ok`, not {case.expect!r}")
    seen: set[tuple[str, int]] = set()
    for hazard in case.hazards:
        if (hazard.file, hazard.line) in seen:
            problems.append(f"two hazards on {hazard.file}:{hazard.line}; join their codes")
        seen.add((hazard.file, hazard.line))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=CASES_DIR)
    args = parser.parse_args()
    cases = load_cases(args.cases)
    bad = [case for case in cases if case.problems]
    for case in bad:
        for problem in case.problems:
            print(f"{case.name}: {problem}")
    positives = [case for case in cases if case.positive]
    print(
        f"cases={len(cases)} positives={len(positives)} "
        f"class_shaped={sum(case.class_shaped for case in cases)} invalid={len(bad)}"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
