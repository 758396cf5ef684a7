"""The research corpus's pins and reviews: bench/research-pins.tsv and bench/research-reviewed.tsv.

A review says whether one finding on a pinned research repository is a real JIT/XLA hazard on a
path that is really traced or compiled (`true`) or not (`false`), and why. A finding and a
review match on repository, path, line and code. `validate` checks both files' format; CI runs
it (tests/test_bench_research.py) without the network or the repositories.

Whoever changes the model reads reviews through this module's command, which prints only the
dev rows (never grep the file: its held-out rows are mixed in):

    python bench/research_reviews.py [--code JIT107] [--verdict false]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PINS = BENCH / "research-pins.tsv"
REVIEWED = BENCH / "research-reviewed.tsv"
PIN_COLUMNS = ("repo", "commit", "framework")
REVIEW_COLUMNS = ("repo", "path", "line", "code", "verdict", "reason")
FRAMEWORKS = ("jax", "tf")
VERDICTS = ("true", "false")
REPO_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
COMMIT = re.compile(r"^[0-9a-f]{40}$")
CODE = re.compile(r"^JIT\d{3}$")
# The pins below this comment line are the held-out set: whoever changes the model reads only
# their totals (bench/research.py --held-out), so that they stay a measure on unseen code.
HELD_OUT = "# round 3 session 2 held-out"


@dataclass(frozen=True)
class Pin:
    repo: str
    commit: str
    framework: str


@dataclass(frozen=True)
class Review:
    repo: str
    path: str
    line: int
    code: str
    verdict: str
    reason: str

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.repo, self.path, self.line, self.code)


def data_rows(path: Path, columns: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """(line number, cells) of each data row; comments, blank lines and the header are skipped."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#") or line == "\t".join(columns):
            continue
        rows.append((number, line.split("\t")))
    return rows


def read_pins(path: Path = PINS) -> list[Pin]:
    return [Pin(*cells) for _, cells in data_rows(path, PIN_COLUMNS)]


def held_out_repos(path: Path = PINS) -> set[str]:
    """The repositories pinned below the HELD_OUT comment line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(HELD_OUT)), len(lines))
    return {line.split("\t")[0] for line in lines[start + 1 :] if line and line[0] != "#"}


def read_reviews(path: Path = REVIEWED) -> list[Review]:
    reviews = []
    for _, cells in data_rows(path, REVIEW_COLUMNS):
        repo, file, line, code, verdict, reason = cells
        reviews.append(Review(repo, file, int(line), code, verdict, reason))
    return reviews


def pin_problems(path: Path = PINS) -> list[str]:
    problems = []
    seen: set[str] = set()
    for number, cells in data_rows(path, PIN_COLUMNS):
        where = f"{path.name}:{number}"
        if len(cells) != len(PIN_COLUMNS):
            problems.append(f"{where}: {len(cells)} columns, expected {len(PIN_COLUMNS)}")
            continue
        repo, commit, framework = cells
        if not REPO_NAME.match(repo):
            problems.append(f"{where}: {repo!r} is not owner/name")
        if repo in seen:
            problems.append(f"{where}: {repo} is pinned twice")
        seen.add(repo)
        if not COMMIT.match(commit):
            problems.append(f"{where}: {commit!r} is not a full commit id")
        if framework not in FRAMEWORKS:
            problems.append(f"{where}: framework {framework!r} is not one of {FRAMEWORKS}")
    return problems


def review_problems(pinned: Iterable[str], path: Path = REVIEWED) -> list[str]:
    """What is wrong with the reviewed file: columns, verdicts, reasons, unpinned repos, twins."""
    pinned = set(pinned)
    problems = []
    seen: set[tuple[str, str, str, str]] = set()
    for number, cells in data_rows(path, REVIEW_COLUMNS):
        where = f"{path.name}:{number}"
        if len(cells) != len(REVIEW_COLUMNS):
            problems.append(f"{where}: {len(cells)} columns, expected {len(REVIEW_COLUMNS)}")
            continue
        repo, file, line, code, verdict, reason = cells
        if repo not in pinned:
            problems.append(f"{where}: {repo} is not pinned in {PINS.name}")
        if not file or file.startswith(("/", "./")) or "\\" in file or ".." in file.split("/"):
            problems.append(f"{where}: {file!r} is not a path relative to the repository root")
        if not file.endswith((".py", ".pyi", ".ipynb")):
            problems.append(f"{where}: {file!r} is not a Python file")
        if not line.isdigit() or int(line) < 1:
            problems.append(f"{where}: line {line!r} is not a positive number")
        if not CODE.match(code):
            problems.append(f"{where}: code {code!r} is not JITnnn")
        if verdict not in VERDICTS:
            problems.append(f"{where}: verdict {verdict!r} is not one of {VERDICTS}")
        if len(reason.strip()) < 10:
            problems.append(f"{where}: the reason is empty or too short to say why")
        key = (repo, file, line, code)
        if key in seen:
            problems.append(f"{where}: {repo} {file}:{line} {code} is reviewed twice")
        seen.add(key)
    return problems


def validate() -> list[str]:
    pins = read_pins() if not pin_problems() else []
    return pin_problems() + review_problems(pin.repo for pin in pins)


@dataclass
class Tally:
    """One repository's (or a total's) findings by verdict."""

    findings: int = 0
    true: int = 0
    false: int = 0
    unreviewed: int = 0

    def add(self, other: Tally) -> None:
        self.findings += other.findings
        self.true += other.true
        self.false += other.false
        self.unreviewed += other.unreviewed


def verdict_of(key: tuple[str, str, int, str], reviews: dict[tuple, Review]) -> str:
    review = reviews.get(key)
    return review.verdict if review is not None else "unreviewed"


def tally(keys: Iterable[tuple[str, str, int, str]], reviews: dict[tuple, Review]) -> Tally:
    counts = Tally()
    for key in keys:
        verdict = verdict_of(key, reviews)
        counts.findings += 1
        if verdict == "true":
            counts.true += 1
        elif verdict == "false":
            counts.false += 1
        else:
            counts.unreviewed += 1
    return counts


def dev_reviews(
    code: str | None = None, verdict: str | None = None, pins: Path = PINS, path: Path = REVIEWED
) -> list[Review]:
    """The reviews of repositories pinned above the held-out line, optionally of one rule code
    and verdict."""
    held_out = held_out_repos(pins)
    return [
        review
        for review in read_reviews(path)
        if review.repo not in held_out
        and (code is None or review.code == code)
        and (verdict is None or review.verdict == verdict)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Print the dev set's reviews (no held-out row).")
    parser.add_argument("--code", help="only this rule code, e.g. JIT107")
    parser.add_argument("--verdict", choices=VERDICTS)
    args = parser.parse_args(argv)
    for review in dev_reviews(args.code, args.verdict):
        cells = (review.repo, review.path, str(review.line), review.code, review.verdict)
        sys.stdout.write("\t".join((*cells, review.reason)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
