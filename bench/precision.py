"""Precision of jitlint on real library code: findings per rule and per package.

Usage: python bench/precision.py [--cache DIR] [--select CODES] [--framework jax|tensorflow|any]
                                 [--one-file] [--json OUT] [NAME ...]

Builds (or reuses) the pinned corpus with bench/corpus.py, lints every kept .py file with the
selected rules (default: every registered rule; `--framework jax` keeps the JAX rules), each
package as one project, as `jitlint PACKAGE_DIR` does (traced calls into helpers imported from
other files of the package are followed; with `--one-file`, each file alone, as flake8,
pre-commit on one staged file and the editor's first lint see it), and prints, per package
and per rule: files, lines, findings, findings per 1,000 and per 10,000 lines, then every
finding as `path:line: CODE message`. Library code is mostly correct, so nearly every
finding is either a real bug or a false positive to fix at its root; read them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpus  # bench/ is not a package

from jitlint.api import lint_source
from jitlint.engine.runner import Task, run
from jitlint.rules import all_rules


@dataclass
class PackageResult:
    name: str
    version: str
    files: int = 0
    lines: int = 0
    findings: list[tuple[str, int, str, str]] = field(default_factory=list)  # path, line, code, msg
    errors: list[str] = field(default_factory=list)


def lint_package(
    pin: corpus.Pin, root: Path, codes: set[str], one_file: bool = False
) -> PackageResult:
    result = PackageResult(pin.name, pin.version)
    tasks = []
    for path in corpus.python_files(root):
        result.files += 1
        text = path.read_bytes()
        result.lines += text.count(b"\n")
        display = str(path.relative_to(root.parent))
        if one_file:  # no project pass: what the file's imports define is unknown
            for d in lint_source(text, path=display, select=sorted(codes)):
                result.findings.append((d.path, d.line, d.code, d.message))
            continue
        tasks.append(Task(display, str(path), frozenset(codes), {}))
    if one_file:
        return result
    # The CLI's path without the cache: one process, the whole package as one project.
    linted = run(tasks, jobs=1, project_root=root)
    result.errors.extend(linted.errors)
    result.findings.extend((d.path, d.line, d.code, d.message) for d in linted.diagnostics)
    return result


def rate(count: int, lines: int, per: int) -> str:
    return f"{count * per / lines:.2f}" if lines else "-"


def report(results: list[PackageResult], codes: set[str]) -> None:
    header = f"{'package':<32} {'files':>6} {'lines':>8} {'findings':>8} {'/1k':>6} {'/10k':>6}"
    print(header)
    print("-" * len(header))
    for r in results:
        n = len(r.findings)
        print(
            f"{r.name + ' ' + r.version:<32} {r.files:>6} {r.lines:>8} {n:>8} "
            f"{rate(n, r.lines, 1000):>6} {rate(n, r.lines, 10000):>6}"
        )
    files = sum(r.files for r in results)
    lines = sum(r.lines for r in results)
    total = sum(len(r.findings) for r in results)
    print(
        f"{'total':<32} {files:>6} {lines:>8} {total:>8} "
        f"{rate(total, lines, 1000):>6} {rate(total, lines, 10000):>6}"
    )

    print()
    by_rule = Counter(code for r in results for (_, _, code, _) in r.findings)
    print(f"{'rule':<8} {'findings':>8} {'/1k':>6} {'/10k':>6}   (over {lines} lines)")
    for code in sorted(codes):
        n = by_rule.get(code, 0)
        print(f"{code:<8} {n:>8} {rate(n, lines, 1000):>6} {rate(n, lines, 10000):>6}")

    print()
    print("per package and rule (non-zero only):")
    for r in results:
        counts = Counter(code for (_, _, code, _) in r.findings)
        if counts:
            cells = ", ".join(f"{code} {n}" for code, n in sorted(counts.items()))
            print(f"  {r.name}: {cells}")

    print()
    print("findings:")
    for r in results:
        for path, line, code, message in sorted(r.findings):
            print(f"{path}:{line}: {code} {message}")
    errors = [e for r in results for e in r.errors]
    if errors:
        print()
        print(f"internal errors ({len(errors)}):")
        for error in errors:
            print(f"  {error}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=corpus.default_cache())
    parser.add_argument("--select", help="comma-separated rule codes (default: all rules)")
    parser.add_argument("--framework", choices=("jax", "tensorflow", "any"))
    parser.add_argument("--one-file", action="store_true", help="lint each file alone")
    parser.add_argument("--json", type=Path, help="also write the findings as JSON here")
    parser.add_argument("names", nargs="*", help="packages (default: every pin)")
    args = parser.parse_args()

    rules = all_rules()
    codes = set(rules)
    if args.select:
        codes = {c.strip() for c in args.select.split(",") if c.strip()}
        unknown = codes - set(rules)
        if unknown:
            parser.error(f"unknown rule codes: {', '.join(sorted(unknown))}")
    if args.framework:
        codes = {c for c in codes if rules[c].framework == args.framework}
    codes.discard("JIT001")  # parse errors say nothing about precision

    started = time.perf_counter()
    results = []
    for pin in corpus.read_pins():
        if args.names and pin.name not in args.names:
            continue
        root = corpus.ensure(pin, args.cache)
        results.append(lint_package(pin, root, codes, args.one_file))
    elapsed = time.perf_counter() - started

    print(f"rules: {', '.join(sorted(codes))}")
    print(f"linted in {elapsed:.1f} s\n")
    report(results, codes)
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {"package": r.name, "version": r.version, "files": r.files, "lines": r.lines,
                     "findings": [
                         {"path": p, "line": line, "code": c, "message": m}
                         for (p, line, c, m) in r.findings
                     ]}
                    for r in results
                ],
                indent=1,
            )
        )  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
