"""Recall and precision of jitlint on the recall cases (bench/cases/), and the fix check.

Usage: python bench/recall.py [--framework jax|tf] [--no-fix-check] [-j N] [--timeout S]
                              [--json OUT] [--cases DIR] [--case TEXT ...]

Each case is linted as the CLI lints it, in its own process, with the default rules and no
cache: `python -m jitlint --format json <group>/<name>.py`, or `<group>/<name>` for a package
(linted as a project). A finding matches a `hazard:` label when it is in the same file, its
code is one of the label's codes, and it starts on the label's line or spans at most three
lines that include it. A hazard with a matching finding is found (TP); a finding that matches
no label is a false positive (FP; every finding on a negative is one). Precision is
TP / (TP + FP), recall TP / hazards.

The fix check copies each positive to a temporary folder, runs
`python -m jitlint --fix --unsafe-fixes` there, and runs it as bench/truth.py does. It runs
clean when the fix changed it and it now exits 0 without printing the `observed:` line its
label names. It also counts fixed files that no longer parse and fixes that a second `--fix`
changes again (both must be 0), prints a per-rule table (positives labelled with a rule and
how many of them run clean), and runs `--fix` (safe fixes only) on every negative: a safe fix
that changes a negative is reported and fails the run, like an unparsable or unstable fix.

Output is deterministic (timings go to stderr). The last line is
    cases=N positives=P class_shaped=C precision=X recall=Y fixed_run=F
with F = positives that run clean after fixing / P (`-` with --no-fix-check).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases_format import CASES_DIR, Case, Hazard, load_cases  # bench/ is not a package
from truth import DEFAULT_TIMEOUT, describe, parallel_map, run_program

REPO = Path(__file__).resolve().parent.parent
LINT_TIMEOUT = 300.0


@dataclass(frozen=True, order=True)
class Finding:
    file: str  # relative to the case root, as Hazard.file
    line: int
    end_line: int
    code: str
    message: str


def matches(finding: Finding, hazard: Hazard) -> bool:
    if finding.file != hazard.file or finding.code not in hazard.codes:
        return False
    end = max(finding.end_line, finding.line)
    return finding.line == hazard.line or (
        finding.line <= hazard.line <= end and end - finding.line <= 2
    )


@dataclass
class Linted:
    case: Case
    findings: list[Finding] = field(default_factory=list)
    error: str = ""

    def found_by(self, hazard: Hazard) -> list[Finding]:
        return [f for f in self.findings if matches(f, hazard)]

    def false_positives(self) -> list[Finding]:
        return [f for f in self.findings if not any(matches(f, h) for h in self.case.hazards)]


# The checkout this script is in, first on the path: a worktree's bench measures its own
# jitlint, not whichever copy is installed.
CHECKOUT = Path(__file__).resolve().parents[1]


def jitlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "jitlint", "--no-cache", "--jobs", "1", *args]
    path = os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH")]))
    try:
        return subprocess.run(
            command, cwd=cwd, capture_output=True, text=True, timeout=LINT_TIMEOUT,
            env={**os.environ, "PYTHONPATH": path},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, 124, "", f"timed out after {LINT_TIMEOUT} s")


def lint_case(case: Case) -> Linted:
    """Lint from the cases folder (whose entries are not importable names, so nothing there
    shadows a module jitlint imports); the repository's config applies, as for a user."""
    linted = Linted(case)
    cases_dir = case.path.parent.parent
    proc = jitlint("--format", "json", f"{case.group}/{case.path.name}", cwd=cases_dir)
    if proc.returncode not in (0, 1):
        linted.error = f"jitlint exited {proc.returncode}: {proc.stderr.strip()[-500:]}"
        return linted
    root = case.root.resolve()
    try:
        items = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        linted.error = f"jitlint printed no JSON: {proc.stdout[:300]!r}"
        return linted
    for item in items:
        path = (cases_dir / item["path"]).resolve()
        file = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        end_line = item.get("end_line") or item["line"]
        linted.findings.append(Finding(file, item["line"], end_line, item["code"], item["message"]))
    linted.findings.sort()
    return linted


@dataclass
class Fixed:
    case: Case
    changed: bool = False
    clean: bool = False
    unparsable: list[str] = field(default_factory=list)
    idempotent: bool = True
    ran: str = ""
    error: str = ""


def snapshot(root: Path, files: list[str]) -> dict[str, str]:
    return {name: (root / name).read_text(encoding="utf-8") for name in files}


def safe_fix_changes(case: Case) -> bool:
    """Whether `--fix` (safe fixes only) changes a copy of a negative case: it must not."""
    files = case.files()
    with tempfile.TemporaryDirectory(prefix="jitlint-recall-") as tmp:
        group = Path(tmp) / case.group
        for name in files:
            (group / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(case.path.parent / name, group / name)
        before = snapshot(group, files)
        jitlint("--fix", "--format", "json", f"{case.group}/{case.path.name}", cwd=Path(tmp))
        return snapshot(group, files) != before


def fix_table(fixes: list[Fixed]) -> dict[str, dict[str, int]]:
    """Per rule: positives labelled with it (any hazard) and how many of them run clean."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: {"positives": 0, "clean": 0})
    for fixed in fixes:
        for code in sorted({code for h in fixed.case.hazards for code in h.codes}):
            table[code]["positives"] += 1
            table[code]["clean"] += fixed.clean
    return dict(sorted(table.items()))


def fix_case(case: Case, timeout: float) -> Fixed:
    """Fix a copy of the case with `--fix --unsafe-fixes`, run it, fix it again."""
    result = Fixed(case)
    files = case.files()
    with tempfile.TemporaryDirectory(prefix="jitlint-recall-") as tmp:
        group = Path(tmp) / case.group  # not importable: nothing shadows jitlint's imports
        for name in files:
            (group / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(case.path.parent / name, group / name)
        before = snapshot(group, files)
        target = f"{case.group}/{case.path.name}"
        first = jitlint("--fix", "--unsafe-fixes", "--format", "json", target, cwd=Path(tmp))
        if first.returncode not in (0, 1):
            result.error = f"--fix exited {first.returncode}: {first.stderr.strip()[-300:]}"
        fixed = snapshot(group, files)
        result.changed = fixed != before
        if not result.changed:
            return result  # not clean, and nothing to parse, run or fix again
        for name, text in fixed.items():
            try:
                ast.parse(text, name)
            except SyntaxError:
                result.unparsable.append(name)
        run = run_program(group, case.command, timeout)
        result.ran = describe(run)
        label = case.expect.partition(" ")[2] if case.expect.startswith("observed ") else None
        result.clean = (
            result.changed
            and not result.unparsable
            and run.outcome == "ok"
            and (label is None or label not in run.observed)
        )
        jitlint("--fix", "--unsafe-fixes", "--format", "json", target, cwd=Path(tmp))
        result.idempotent = snapshot(group, files) == fixed
    return result


@dataclass
class Tally:
    hazards: int = 0  # labelled hazards (a hazard with two codes counts in both rows)
    found: int = 0  # of those, found by any of their codes
    tp: int = 0  # hazards matched by a finding of this row (overall: = found)
    fp: int = 0  # findings of this row that match no label

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.found / self.hazards if self.hazards else None

    def row(self) -> dict[str, Any]:
        rates = {"precision": self.precision, "recall": self.recall}
        return asdict(self) | {k: None if v is None else round(v, 4) for k, v in rates.items()}


def ratio(value: float | None, width: int = 0) -> str:
    return f"{'-' if value is None else f'{value:.2f}':>{width}}"


def tally(results: list[Linted]) -> tuple[Tally, dict[str, Tally], dict[str, Tally]]:
    overall, rules, frameworks = Tally(), defaultdict(Tally), defaultdict(Tally)
    for linted in results:
        framework = frameworks[linted.case.framework]
        for hazard in linted.case.hazards:
            hits = linted.found_by(hazard)
            for tallied in (overall, framework):
                tallied.hazards += 1
                tallied.found += bool(hits)
                tallied.tp += bool(hits)
            for code in hazard.codes:
                rules[code].hazards += 1
                rules[code].found += bool(hits)
                rules[code].tp += any(f.code == code for f in hits)
        for finding in linted.false_positives():
            overall.fp += 1
            framework.fp += 1
            rules[finding.code].fp += 1
    return overall, dict(sorted(rules.items())), dict(sorted(frameworks.items()))


def print_table(title: str, rows: dict[str, Tally]) -> None:
    print(f"{title:<10} {'hazards':>7} {'found':>6} {'recall':>7} {'TP':>5} {'FP':>5} {'prec.':>6}")
    for key, t in rows.items():
        print(
            f"{key:<10} {t.hazards:>7} {t.found:>6} {ratio(t.recall, 7)} "
            f"{t.tp:>5} {t.fp:>5} {ratio(t.precision, 6)}"
        )


def commit() -> str | None:
    proc = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    )
    return proc.stdout.strip() or None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", choices=("jax", "tf"))
    parser.add_argument("--no-fix-check", action="store_true")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="cases at once (default 2)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per run")
    parser.add_argument("--json", type=Path, help="write the tables as JSON here")
    parser.add_argument("--cases", type=Path, default=CASES_DIR, help="the cases folder")
    parser.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="TEXT",
        help="only cases whose `<group>/<name>` contains TEXT (repeatable)",
    )
    args = parser.parse_args()

    started = time.perf_counter()
    cases = [
        c for c in load_cases(args.cases)
        if args.framework in (None, c.framework)
        and (not args.case or any(text in c.name for text in args.case))
    ]  # fmt: skip
    invalid = [c for c in cases if c.problems]
    results = parallel_map(lint_case, cases, args.jobs)
    positives = [c for c in cases if c.positive]
    class_shaped = sum(c.class_shaped for c in cases)
    overall, rules, frameworks = tally(results)
    hazards = sum(len(c.hazards) for c in cases)

    print(f"cases: {len(cases)} ({len(positives)} positives with {hazards} hazards, "
          f"{class_shaped} class-shaped; {len(cases) - len(positives)} negatives)")  # fmt: skip
    for case in invalid:
        print(f"INVALID {case.name}: {'; '.join(case.problems)}")
    for linted in results:
        if linted.error:
            print(f"LINT ERROR {linted.case.name}: {linted.error}")
    print()
    print_table("rule", rules)
    print()
    print_table("framework", frameworks | {"overall": overall})

    misses = [
        (linted.case.name, h) for linted in results for h in linted.case.hazards
        if not linted.found_by(h)
    ]  # fmt: skip
    print(f"\nmisses ({len(misses)}):")
    for name, h in misses:
        print(f"  {name}  {h.file}:{h.line}  {'|'.join(h.codes)}  {h.reason}")
    fps = [(linted.case.name, f) for linted in results for f in linted.false_positives()]
    print(f"\nfalse positives ({len(fps)}):")
    for name, f in fps:
        print(f"  {name}  {f.file}:{f.line}  {f.code}  {f.message}")

    fixed_run = "-"
    fix_summary: dict[str, Any] | None = None
    if not args.no_fix_check:
        fixes = parallel_map(lambda c: fix_case(c, args.timeout), positives, args.jobs)
        clean = sum(f.clean for f in fixes)
        unparsable = [f for f in fixes if f.unparsable]
        unstable = [f for f in fixes if not f.idempotent]
        print(f"\nfix check: {clean} of {len(fixes)} positives run clean after "
              f"--fix --unsafe-fixes; {len(unparsable)} unparsable, "
              f"{len(unstable)} not idempotent")  # fmt: skip
        for f in fixes:
            if not f.clean:
                why = "unchanged" if not f.changed else f"ran: {f.ran}"
                print(f"  not clean  {f.case.name}  {why}{'  ' + f.error if f.error else ''}")
        for f in unparsable:
            print(f"  UNPARSABLE {f.case.name}  {', '.join(f.unparsable)}")
        for f in unstable:
            print(f"  NOT IDEMPOTENT {f.case.name}")
        per_rule = fix_table(fixes)
        print(f"\n{'rule':<10} {'positives':>9} {'clean':>6} {'rate':>6}")
        for code, row in per_rule.items():
            rate = row["clean"] / row["positives"]
            print(f"{code:<10} {row['positives']:>9} {row['clean']:>6} {rate:>6.2f}")
        negatives = [c for c in cases if not c.positive and not c.problems]
        moved = parallel_map(safe_fix_changes, negatives, args.jobs)
        changed = [c for c, m in zip(negatives, moved, strict=True) if m]
        print(f"\nsafe fixes on negatives: {len(changed)} of {len(negatives)} changed")
        for case in changed:
            print(f"  SAFE FIX CHANGED NEGATIVE {case.name}")
        fixed_run = f"{clean / len(fixes):.2f}" if fixes else "0.00"
        fix_summary = {
            "positives": len(fixes),
            "clean": clean,
            "unparsable": len(unparsable),
            "not_idempotent": len(unstable),
            "negatives_changed_by_safe_fixes": len(changed),
            "rules": per_rule,
        }

    if args.json:
        table = {
            "commit": commit(),
            "framework": args.framework,
            "cases": len(cases),
            "positives": len(positives),
            "class_shaped": class_shaped,
            "hazards": hazards,
            "overall": overall.row(),
            "frameworks": {k: t.row() for k, t in frameworks.items()},
            "rules": {k: t.row() for k, t in rules.items()},
            "fix_check": fix_summary,
        }
        args.json.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"elapsed {time.perf_counter() - started:.1f} s wall, -j {args.jobs}", file=sys.stderr)
    print(
        f"cases={len(cases)} positives={len(positives)} class_shaped={class_shaped} "
        f"precision={overall.precision or 0:.2f} recall={overall.recall or 0:.2f} "
        f"fixed_run={fixed_run}"
    )
    broken = invalid or any(r.error for r in results)
    if fix_summary and (
        fix_summary["unparsable"]
        or fix_summary["not_idempotent"]
        or fix_summary["negatives_changed_by_safe_fixes"]
    ):
        broken = True
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
