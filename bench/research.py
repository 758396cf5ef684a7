"""Precision on research code nobody tuned the rules on: lint pinned research repositories.

Usage: python bench/research.py [--mirror DIR] [--cache DIR] [--repo TEXT] [-j N]
                                [--held-out [--show]] [--one-file]

For each repository of bench/research-pins.tsv, writes the *.py files of its pinned commit (and
the `pyproject.toml`/`requirements*.txt` files that declare its framework versions) into
CACHE/<owner>+<name>/ (from a git mirror folder holding `<owner>+<name>` git directories, or by
`git clone` when --mirror is not given), lints that folder as one project with the default
rules (`python -m jitlint --no-cache --format json`), and prints every finding with its verdict
from bench/research-reviewed.tsv (`true`, `false` or `unreviewed`; matched on repository, path,
line and code). Then one line per repository, one per framework (also how many repositories
had a finding, and how many a false one), and a last line
`repos=R lines=L errors=E findings=F true=T false=X unreviewed=U gone=G crashed=C cpu_s=S
lines_per_cpu_s=V` (JIT001, a file that does not parse, is counted apart: it says nothing about
the rules; the CPU time is user+sys of the lint runs alone). The repositories pinned under the
held-out comment of research-pins.tsv are left out; `--held-out` runs only them and prints only
totals (per framework, of the findings in code traced only by a framework's contract, and the
false findings per rule code), so that whoever changes the model
does not tune to them; `--held-out --show` prints everything, for whoever reviews them. Exits 1
when a finding reviewed false is reported again (that false positive is still there) or when
jitlint crashed on a repository (its error is printed, the other repositories still run). The
sources never enter the repository.

`--one-file` lints each file alone through the flake8 plugin (its options built as the
command line builds them; no project pass, so what other files define is unknown; a `# noqa`
finding still counts, flake8 would drop it) instead of the folder as one project. The verdicts
are the project run's, matched on the same keys: a finding only this mode reports comes out
unreviewed, and is a candidate false positive of one-file runs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

from research_reviews import (
    Review,
    Tally,
    held_out_repos,
    read_pins,
    read_reviews,
    tally,
    verdict_of,
)
from snapshots import git_dir, write_snapshot

REPO = Path(__file__).resolve().parent.parent
MARKER = ".jitlint-bench-research"


def lint(folder: Path, jobs: int) -> tuple[list[dict], float, str | None]:
    """jitlint's findings on `folder`, the user+sys CPU seconds the run took, and jitlint's
    error when it crashed (then no findings): one repository that breaks jitlint is reported
    and counted, and the others still run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", "-j", str(jobs)]
    done = subprocess.run([*command, "."], cwd=folder, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        return [], cpu, f"jitlint exited {done.returncode}: {done.stderr.strip()[-300:]}"
    return json.loads(done.stdout or "[]"), cpu, None


# Every file alone through the flake8 plugin (frontends/flake8_plugin.py), default rules.
ONE_FILE = """
import json
from pathlib import Path
from jitlint.frontends.flake8_plugin import JitlintChecker
from jitlint.rules import default_codes
JitlintChecker.codes = frozenset(default_codes())
found = []
for path in sorted(p for p in Path(".").rglob("*.py") if p.is_file()):
    text = path.read_text(encoding="utf-8", errors="replace")
    checker = JitlintChecker(None, text.splitlines(keepends=True), path.as_posix())
    for line, _column, message, _ in checker.run():
        code, _, message = message.partition(" ")
        found.append({"path": path.as_posix(), "line": line, "code": code, "message": message})
print(json.dumps(found))
"""


def lint_each_file(folder: Path) -> tuple[list[dict], float, str | None]:
    """As `lint`, each file of `folder` linted alone."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-c", ONE_FILE], cwd=folder, capture_output=True, text=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        return [], cpu, f"one-file lint exited {done.returncode}: {done.stderr.strip()[-300:]}"
    return json.loads(done.stdout or "[]"), cpu, None


def counts_text(counts: Tally) -> str:
    return (f"findings={counts.findings} true={counts.true} false={counts.false} "
            f"unreviewed={counts.unreviewed}")  # fmt: skip


def report(
    repo: str, found: list[dict], reviews: dict[tuple, Review], show: bool = True
) -> list[str]:
    """Print each decided finding with its verdict (when `show`); the lines of those reviewed
    false."""
    came_back = []
    for f in found:
        key = (repo, f["path"], f["line"], f["code"])
        verdict = verdict_of(key, reviews)
        where = f"{repo} {f['path']}:{f['line']} {f['code']}"
        if show:
            by = " (contract)" if f.get("traced_by") == "contract" else ""
            print(f"{where} [{verdict}]{by} {f['message'][:160]}")
        if verdict == "false":
            came_back.append(f"{where}: {reviews[key].reason}")
    return came_back


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("JITLINT_RESEARCH_MIRROR"))
    base = Path(os.environ.get("JITLINT_BENCH_CACHE", Path.home() / ".cache" / "jitlint-bench"))
    parser.add_argument("--cache", type=Path, default=base / "research")
    parser.add_argument("--repo", default="", help="only repositories whose name contains this")
    parser.add_argument("-j", type=int, default=1, help="jitlint's -j")
    parser.add_argument("--framework", choices=("jax", "tf"), help="only this framework's pins")
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="only the held-out repositories (left out otherwise), and only their totals",
    )
    parser.add_argument(
        "--show", action="store_true", help="with --held-out: every finding too (its reviewer)"
    )
    parser.add_argument(
        "--one-file", action="store_true", help="lint each file alone, as the flake8 plugin"
    )
    args = parser.parse_args()
    cache = args.cache.resolve()
    if cache.is_relative_to(REPO):
        parser.error(f"{cache}: the cache must be outside the repository")
    if cache.exists() and any(cache.iterdir()) and not (cache / MARKER).is_file():
        parser.error(f"{cache} is not empty and was not made by this script; pick --cache")
    cache.mkdir(parents=True, exist_ok=True)
    (cache / MARKER).write_text("rebuilt by bench/research.py\n")
    reviews: dict[tuple, Review] = {review.key: review for review in read_reviews()}
    held_out = held_out_repos()
    pins = [pin for pin in read_pins() if args.repo in pin.repo]
    pins = [pin for pin in pins if (pin.repo in held_out) == args.held_out]
    pins = [pin for pin in pins if args.framework in (None, pin.framework)]
    show = args.show or not args.held_out
    total, by_framework = Tally(), {"jax": Tally(), "tf": Tally()}
    lines = {"jax": 0, "tf": 0}
    # Repositories with a finding, and with a false one: a few repositories that repeat one
    # false shape can outweigh the rest in the per-finding totals.
    with_findings, with_false = Counter[str](), Counter[str]()
    errors, cpu = 0, 0.0
    summary, came_back, seen, crashed = [], [], set(), []
    false_codes: Counter[str] = Counter()
    true_codes: Counter[str] = Counter()
    # Findings in code traced only by a framework's contract (no jitted caller in the run),
    # counted apart: the contract is an assumption, and this says how often it holds.
    by_contract: dict[str, Tally] = {}
    contract_false: dict[str, list[int]] = {}  # per framework, per repository with any
    for pin in pins:
        out = cache / pin.repo.replace("/", "+")
        if out.exists():
            shutil.rmtree(out)
        out.mkdir()
        try:
            git = git_dir(pin.repo, args.mirror, cache)
        except LookupError as error:
            sys.exit(f"research: {error}")
        _, repo_lines = write_snapshot(git, pin.commit, out)
        found, seconds, crash = lint_each_file(out) if args.one_file else lint(out, args.j)
        if crash is not None:
            crashed.append(f"{pin.repo}: {crash}")
        decided = [f for f in found if f["code"] != "JIT001"]
        came_back += report(pin.repo, decided, reviews, show)
        keys = [(pin.repo, f["path"], f["line"], f["code"]) for f in decided]
        seen.update(keys)
        false_codes.update(key[3] for key in keys if verdict_of(key, reviews) == "false")
        true_codes.update(key[3] for key in keys if verdict_of(key, reviews) == "true")
        counts = tally(keys, reviews)
        contract = [
            k for k, f in zip(keys, decided, strict=True) if f.get("traced_by") == "contract"
        ]
        contract_counts = tally(contract, reviews)
        by_contract.setdefault(pin.framework, Tally()).add(contract_counts)
        if contract_counts.false:
            contract_false.setdefault(pin.framework, []).append(contract_counts.false)
        unparsed = len(found) - len(decided)
        head = f"{pin.repo}@{pin.commit[:7]} {pin.framework} lines={repo_lines}"
        summary.append(f"{head} {counts_text(counts)} unparsable={unparsed} cpu_s={seconds:.1f}")
        total.add(counts)
        by_framework[pin.framework].add(counts)
        with_findings[pin.framework] += counts.findings > 0
        with_false[pin.framework] += counts.false > 0
        lines[pin.framework] += repo_lines
        cpu += seconds
        errors += sum(1 for f in decided if f.get("severity") == "error")
    run = {pin.repo for pin in pins}
    gone = [r for key, r in reviews.items() if r.repo in run and key not in seen]
    if show:
        print_details(gone, came_back, crashed, summary)
    else:  # held out: verdicts counted per rule code, and no file names
        for verdict, codes in (("false", false_codes), ("true", true_codes)):
            print(f"{verdict}_by_code=" + ",".join(f"{c}:{n}" for c, n in sorted(codes.items())))
    for framework, counts in by_framework.items():
        repos = sum(1 for pin in pins if pin.framework == framework)
        print(
            f"framework={framework} repos={repos} lines={lines[framework]} {counts_text(counts)}"
            f" repos_with_findings={with_findings[framework]}"
            f" repos_with_false={with_false[framework]}"
        )
    # Findings in code traced (JAX) or graph code (TF) only by a framework's contract.
    for framework, counts in sorted(by_contract.items()):
        spread = sorted(contract_false.get(framework, []), reverse=True)
        print(
            f"traced_by=contract framework={framework} {counts_text(counts)}"
            f" repos_with_false={len(spread)} false_per_repo={','.join(map(str, spread))}"
        )
    all_lines = sum(lines.values())
    speed = all_lines / cpu if cpu else 0.0
    print(f"repos={len(pins)} lines={all_lines} errors={errors} {counts_text(total)} "
          f"gone={len(gone)} crashed={len(crashed)} cpu_s={cpu:.1f} "
          f"lines_per_cpu_s={speed:.0f}")  # fmt: skip
    return 1 if came_back or crashed else 0


def print_details(
    gone: list[Review], came_back: list[str], crashed: list[str], summary: list[str]
) -> None:
    for review in gone:
        print(f"no longer reported, reviewed {review.verdict}: {review.repo} "
              f"{review.path}:{review.line} {review.code}")  # fmt: skip
    for line in came_back:
        print(f"reviewed false and reported again: {line}")
    for line in crashed:
        print(f"crashed, no findings: {line}")
    print("\n".join(summary))


if __name__ == "__main__":
    sys.exit(main())
