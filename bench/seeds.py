"""Score jitlint on the five seed systems (../shared/seeds/): real pre-fix code of public projects.

Usage: python bench/seeds.py [--mirror DIR] [--seeds-dir DIR] [--cache DIR]

Rebuilds the seeds' third-party sources into a cache outside the repository with
`materialize.py --mirror MIRROR --out CACHE` (MIRROR: a folder of git snapshots named
`<owner>+<name>`; `--mirror`, default $JITLINT_SEED_MIRROR; `materialize.py --list-repos`
names the repositories), then runs `score.py --seeds CACHE -- python -m jitlint`, prints its
report, and last a line `seeds=S hazards=H found=F`. The exit status is score.py's (1 when
fewer than 80% of the hazards are found). Seed sources never enter the repository.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SEEDS_DIR = REPO.parent / "shared" / "seeds"
MARKER = ".jitlint-bench-seeds"  # written into the cache: only such a folder is ever emptied
_TOTAL = re.compile(r"seeds: found=(\d+)/(\d+)")


def default_cache() -> Path:
    base = os.environ.get("JITLINT_BENCH_CACHE", Path.home() / ".cache" / "jitlint-bench")
    return Path(base) / "seeds"


def prepare(cache: Path) -> None:
    """Empty the cache (so files of older recipes do not linger and get linted)."""
    if cache.exists():
        if any(cache.iterdir()) and not (cache / MARKER).is_file():
            sys.exit(f"seeds: {cache} is not empty and was not made by this script; pick --cache")
        shutil.rmtree(cache)
    cache.mkdir(parents=True)
    (cache / MARKER).write_text("rebuilt by bench/seeds.py; deleted on every run\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mirror = os.environ.get("JITLINT_SEED_MIRROR") or None
    parser.add_argument("--mirror", type=Path, default=mirror, help="default: $JITLINT_SEED_MIRROR")
    parser.add_argument("--seeds-dir", type=Path, default=SEEDS_DIR)
    parser.add_argument("--cache", type=Path, default=default_cache())
    args = parser.parse_args()
    if args.mirror is None:
        parser.error("give --mirror DIR or set JITLINT_SEED_MIRROR (a folder of <owner>+<name>)")
    seeds_dir, cache = args.seeds_dir.resolve(), args.cache.resolve()
    if not (seeds_dir / "materialize.py").is_file():
        parser.error(f"no materialize.py in {seeds_dir} (--seeds-dir)")
    if cache.is_relative_to(REPO) or cache.is_relative_to(seeds_dir):
        parser.error(f"{cache}: the cache must be outside the repository and the seeds folder")

    prepare(cache)
    built = subprocess.run(
        [sys.executable, str(seeds_dir / "materialize.py"), "--mirror", str(args.mirror),
         "--out", str(cache)],
    )  # fmt: skip
    if built.returncode != 0:
        print(f"seeds: materialize.py failed (exit {built.returncode})", file=sys.stderr)
        return 2
    scored = subprocess.run(
        [sys.executable, str(seeds_dir / "score.py"), "--seeds", str(cache), "--",
         sys.executable, "-m", "jitlint"],
        capture_output=True, text=True,
    )  # fmt: skip
    sys.stdout.write(scored.stdout)
    sys.stderr.write(scored.stderr)
    total = _TOTAL.search(scored.stdout)
    if total is None:
        print(f"seeds: score.py printed no total (exit {scored.returncode})", file=sys.stderr)
        return 2
    count = sum((p / "expected.json").is_file() for p in cache.iterdir())
    print(f"seeds={count} hazards={total.group(2)} found={total.group(1)}")
    return scored.returncode


if __name__ == "__main__":
    raise SystemExit(main())
