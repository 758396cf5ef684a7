"""Precision on research code nobody tuned the rules on: lint pinned research repositories.

Usage: python bench/research.py [--mirror DIR] [--cache DIR] [--repo TEXT] [-j N]

For each repository of bench/research-pins.tsv, writes the *.py files of its pinned commit (and
the `pyproject.toml`/`requirements*.txt` files that declare its framework versions) into
CACHE/<owner>+<name>/ (from a git mirror folder holding `<owner>+<name>` git directories, or by
`git clone` when --mirror is not given), lints that folder as one project with the default
rules (`python -m jitlint --no-cache --format json`), and prints every finding with its verdict
from bench/research-reviewed.tsv (`true`, `false` or `unreviewed`; matched on repository, path,
line and code). Then one line per repository, one per framework, and a last line
`repos=R lines=L findings=F errors=E true=T false=X unreviewed=U cpu_s=S lines_per_cpu_s=V`
(JIT001, a file that does not parse, is counted apart: it says nothing about the rules; the CPU
time is user+sys of the lint runs alone). Exits 1 when a finding reviewed false is reported
again: that false positive is still there. The sources never enter the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

from research_reviews import Review, Tally, read_pins, read_reviews, tally, verdict_of
from snapshots import declares_versions

REPO = Path(__file__).resolve().parent.parent
MARKER = ".jitlint-bench-research"


def git_dir(repo: str, commit: str, mirror: Path | None, cache: Path) -> Path:
    name = repo.replace("/", "+")
    if mirror is not None:
        for candidate in (mirror / name / "repo", mirror / name):
            if (candidate / "HEAD").is_file() or (candidate / ".git").is_dir():
                return candidate
        sys.exit(f"research: no git directory for {repo} under {mirror}")
    clone = cache / ".git" / name
    if not clone.exists():
        url = f"https://github.com/{repo}.git"
        subprocess.run(["git", "clone", "--bare", "--quiet", url, str(clone)], check=True)
    return clone


def materialize(repo: str, commit: str, git: Path, out: Path) -> int:
    """Write the commit's *.py files, and the files that declare its framework versions,
    under `out`; the number of Python lines written."""
    listed = subprocess.run(
        ["git", "--git-dir", str(git), "ls-tree", "-r", "--name-only", commit],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    lines = 0
    for path in listed:
        python = path.endswith(".py")
        if not python and not declares_versions(path):
            continue
        shown = subprocess.run(
            ["git", "--git-dir", str(git), "show", f"{commit}:{path}"], capture_output=True
        )
        if shown.returncode != 0:
            continue  # an object the snapshot lacks
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(shown.stdout)
        lines += shown.stdout.count(b"\n") if python else 0
    return lines


def lint(folder: Path, jobs: int) -> tuple[list[dict], float]:
    """jitlint's findings on `folder` and the user+sys CPU seconds the run took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", "-j", str(jobs)]
    done = subprocess.run([*command, "."], cwd=folder, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        sys.exit(f"{folder.name}: jitlint exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout or "[]"), cpu


def counts_text(counts: Tally) -> str:
    return (f"findings={counts.findings} true={counts.true} false={counts.false} "
            f"unreviewed={counts.unreviewed}")  # fmt: skip


def report(repo: str, found: list[dict], reviews: dict[tuple, Review]) -> list[str]:
    """Print each decided finding with its verdict; the lines of those reviewed false."""
    came_back = []
    for f in found:
        key = (repo, f["path"], f["line"], f["code"])
        verdict = verdict_of(key, reviews)
        where = f"{repo} {f['path']}:{f['line']} {f['code']}"
        print(f"{where} [{verdict}] {f['message'][:160]}")
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
    args = parser.parse_args()
    cache = args.cache.resolve()
    if cache.is_relative_to(REPO):
        parser.error(f"{cache}: the cache must be outside the repository")
    if cache.exists() and any(cache.iterdir()) and not (cache / MARKER).is_file():
        parser.error(f"{cache} is not empty and was not made by this script; pick --cache")
    cache.mkdir(parents=True, exist_ok=True)
    (cache / MARKER).write_text("rebuilt by bench/research.py\n")
    reviews: dict[tuple, Review] = {review.key: review for review in read_reviews()}
    pins = [pin for pin in read_pins() if args.repo in pin.repo]
    total, by_framework = Tally(), {"jax": Tally(), "tf": Tally()}
    lines = {"jax": 0, "tf": 0}
    errors, cpu = 0, 0.0
    summary, came_back, seen = [], [], set()
    for pin in pins:
        out = cache / pin.repo.replace("/", "+")
        if out.exists():
            shutil.rmtree(out)
        out.mkdir()
        git = git_dir(pin.repo, pin.commit, args.mirror, cache)
        repo_lines = materialize(pin.repo, pin.commit, git, out)
        found, seconds = lint(out, args.j)
        decided = [f for f in found if f["code"] != "JIT001"]
        came_back += report(pin.repo, decided, reviews)
        keys = [(pin.repo, f["path"], f["line"], f["code"]) for f in decided]
        seen.update(keys)
        counts = tally(keys, reviews)
        unparsed = len(found) - len(decided)
        head = f"{pin.repo}@{pin.commit[:7]} {pin.framework} lines={repo_lines}"
        summary.append(f"{head} {counts_text(counts)} unparsable={unparsed} cpu_s={seconds:.1f}")
        total.add(counts)
        by_framework[pin.framework].add(counts)
        lines[pin.framework] += repo_lines
        cpu += seconds
        errors += sum(1 for f in decided if f.get("severity") == "error")
    run = {pin.repo for pin in pins}
    gone = [r for key, r in reviews.items() if r.repo in run and key not in seen]
    for review in gone:
        print(f"no longer reported, reviewed {review.verdict}: {review.repo} "
              f"{review.path}:{review.line} {review.code}")  # fmt: skip
    for line in came_back:
        print(f"reviewed false and reported again: {line}")
    print("\n".join(summary))
    for framework, counts in by_framework.items():
        print(f"framework={framework} lines={lines[framework]} {counts_text(counts)}")
    all_lines = sum(lines.values())
    speed = all_lines / cpu if cpu else 0.0
    print(f"repos={len(pins)} lines={all_lines} errors={errors} {counts_text(total)} "
          f"gone={len(gone)} cpu_s={cpu:.1f} lines_per_cpu_s={speed:.0f}")  # fmt: skip
    return 1 if came_back else 0


if __name__ == "__main__":
    sys.exit(main())
