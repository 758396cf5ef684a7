"""How well `jitlint explain-error` explains the runtime errors of the recall cases.

Usage: python bench/explanations.py [--case NAME ...] [-v]     (from anywhere; it runs from the
                                                           repository's root)

Reads the tracebacks bench/tracebacks.py stored in tests/data/tracebacks/ (paths relative to
the repository, so it explains them from there) and, for each, compares the explaining
finding with the case's `hazard:` labels (same file, one of the label's codes, the label's
line or a short span holding it: bench/recall.py's `matches`):

- right: the finding matches a label; wrong: it matches none (a confident wrong answer);
  silent: nothing explains it (the output says why: that is allowed).
- A traceback counts towards the rate when the static lint (the case linted as a project,
  as bench/recall.py lints it) finds one of the case's hazards: an error whose hazard the
  lint misses cannot be explained. Rate = right / counted.

The last line is `tracebacks=N counted=C right=R wrong=W silent=S rate=X`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases_format import Case, load_cases  # bench/ is not a package
from recall import Finding, matches

REPO = Path(__file__).resolve().parent.parent
TRACEBACKS = REPO / "tests" / "data" / "tracebacks"


@dataclass
class Outcome:
    case: Case
    traceback: str  # its file, relative to TRACEBACKS
    counted: bool  # the lint finds one of the case's hazards
    verdict: str  # right | wrong | silent
    detail: str


def _finding(case: Case, path: str, line: int, end_line: int, code: str) -> Finding:
    absolute = (REPO / path).resolve()
    root = case.root.resolve()
    file = absolute.relative_to(root).as_posix() if absolute.is_relative_to(root) else path
    return Finding(file, line, end_line, code, "")


def evaluate(names: Sequence[str] = ()) -> list[Outcome]:
    """Every stored traceback of a positive case (retracing warnings aside), explained from
    the repository's root. Lint results are shared between a case's tracebacks."""
    sys.path.insert(0, str(REPO))
    from jitlint.explain.command import project_lint
    from jitlint.explain.explainer import explain
    from jitlint.explain.match import choose
    from jitlint.explain.parse import find_all

    lint = _memoized(project_lint(use_cache=False))
    outcomes = []
    previous = Path.cwd()
    os.chdir(REPO)
    try:
        for case in load_cases():
            if not case.positive or (names and case.name not in names and case.stem not in names):
                continue
            folder = TRACEBACKS / case.group
            stored = sorted(folder.glob(f"{case.stem}.txt")) + sorted(
                folder.glob(f"{case.stem}.unfiltered.txt")
            )
            if not stored:
                continue
            files = [case.path.parent / name for name in case.files()]
            found = [_finding(case, d.path, d.line, d.end_line, d.code) for d in lint(files, ())]
            for path in stored:
                reported = choose(find_all(path.read_text(encoding="utf-8")))
                name = path.relative_to(TRACEBACKS).as_posix()
                if reported is None:
                    outcomes.append(Outcome(case, name, False, "silent", "no traceback"))
                    continue
                explanation = explain(reported, REPO, lint)
                # An error is counted when the lint finds a hazard of a rule that causes it
                # (of any rule when jitlint does not recognise the error: that counts against).
                codes = explanation.known.codes if explanation.known else None
                counted = any(
                    matches(f, h) and (codes is None or f.code in codes)
                    for f in found
                    for h in case.hazards
                )
                d = explanation.finding
                if d is None:
                    detail = "; ".join(explanation.why_not)
                    outcomes.append(Outcome(case, name, counted, "silent", detail))
                    continue
                finding = _finding(case, d.path, d.line, d.end_line, d.code)
                right = any(matches(finding, h) for h in case.hazards)
                detail = f"{d.code} at {finding.file}:{d.line}"
                outcomes.append(Outcome(case, name, counted, "right" if right else "wrong", detail))
    finally:
        os.chdir(previous)
    return outcomes


def _memoized(lint: Callable) -> Callable:
    results: dict[tuple, list] = {}

    def memo(paths: Sequence[Path], codes: tuple[str, ...], hints: Sequence[str] = ()) -> list:
        key = (tuple(str(Path(p).resolve()) for p in paths), codes, tuple(hints))
        if key not in results:
            results[key] = lint(paths, codes, hints)
        return results[key]

    return memo


def summary(outcomes: list[Outcome]) -> dict[str, float | int]:
    counted = [o for o in outcomes if o.counted]
    right = sum(o.verdict == "right" for o in counted)
    return {
        "tracebacks": len(outcomes),
        "counted": len(counted),
        "right": right,
        "wrong": sum(o.verdict == "wrong" for o in outcomes),
        "silent": sum(o.verdict == "silent" for o in outcomes),
        "rate": right / len(counted) if counted else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", default=[], help="only this case")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per traceback")
    args = parser.parse_args()
    outcomes = evaluate(args.case)
    for outcome in outcomes:
        if (
            args.verbose
            or outcome.verdict == "wrong"
            or (outcome.counted and outcome.verdict == "silent")
        ):
            mark = "" if outcome.counted else " (lint misses the hazard)"
            print(f"{outcome.verdict:<6} {outcome.traceback}{mark}: {outcome.detail}")
    numbers = summary(outcomes)
    print(
        " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in numbers.items())
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
