"""Precision on research code nobody tuned the rules on: lint pinned research repositories.

Usage: python bench/research.py [--mirror DIR] [--cache DIR] [--repo TEXT] [-j N]

For each repository of bench/research-pins.tsv, writes the *.py files of its pinned commit into
CACHE/<owner>+<name>/ (from a git mirror folder holding `<owner>+<name>` git directories, or by
`git clone` when --mirror is not given), lints that folder as one project with the default
rules (`python -m jitlint --no-cache --format json`), and prints every finding, then one line
per repository and a last line `repos=R lines=L findings=F errors=E` (JIT001, a file that does
not parse, is counted apart: it says nothing about the rules). Read every finding: the review
lives in bench/README.md. The sources never enter the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PINS = REPO / "bench" / "research-pins.tsv"
MARKER = ".jitlint-bench-research"


def read_pins() -> list[tuple[str, str, str]]:
    rows = []
    for line in PINS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("repo\t"):
            continue
        repo, commit, framework = line.split("\t")
        rows.append((repo, commit, framework))
    return rows


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
    """Write the commit's *.py files under `out`; the number of lines written."""
    listed = subprocess.run(
        ["git", "--git-dir", str(git), "ls-tree", "-r", "--name-only", commit],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    lines = 0
    for path in listed:
        if not path.endswith(".py"):
            continue
        shown = subprocess.run(
            ["git", "--git-dir", str(git), "show", f"{commit}:{path}"], capture_output=True
        )
        if shown.returncode != 0:
            continue  # an object the snapshot lacks
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(shown.stdout)
        lines += shown.stdout.count(b"\n")
    return lines


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
    totals = {"repos": 0, "lines": 0, "findings": 0, "errors": 0}
    summary = []
    for repo, commit, framework in read_pins():
        if args.repo not in repo:
            continue
        out = cache / repo.replace("/", "+")
        if out.exists():
            shutil.rmtree(out)
        out.mkdir()
        lines = materialize(repo, commit, git_dir(repo, commit, args.mirror, cache), out)
        command = [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json"]
        done = subprocess.run(
            [*command, "-j", str(args.j), "."], cwd=out, capture_output=True, text=True
        )
        if done.returncode not in (0, 1):
            print(f"{repo}: jitlint exited {done.returncode}: {done.stderr.strip()[-300:]}")
            return 2
        found = json.loads(done.stdout or "[]")
        unparsed = [f for f in found if f["code"] == "JIT001"]
        decided = [f for f in found if f["code"] != "JIT001"]
        for f in decided:
            print(f"{repo} {f['path']}:{f['line']} {f['code']} {f['message'][:160]}")
        summary.append(f"{repo}@{commit[:7]} {framework} lines={lines} findings={len(decided)} "
                       f"unparsable={len(unparsed)}")  # fmt: skip
        totals["repos"] += 1
        totals["lines"] += lines
        totals["findings"] += len(decided)
        totals["errors"] += sum(1 for f in decided if f.get("severity") == "error")
    print("\n".join(summary))
    print(" ".join(f"{k}={v}" for k, v in totals.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
