"""The real-project benchmark: whole public projects at the commit before their users' JIT failure.

Usage:
    python bench/projects.py --list-repos [--half dev|held-out]
    python bench/projects.py --mirror DIR [--cache DIR] [--half dev|held-out] [--repo TEXT]
                             [--show-held-out] [-j N]

For each recipe of bench/projects/<half>/ (bench/projects/README.md), writes the *.py files of its
`paths` at its `commit` into CACHE/<owner>+<name>@<commit12>/ (from DIR, which holds one git
directory per repository named `owner+name`, or what the fetch tool leaves there,
`owner+name/repo`; without --mirror, by `git clone --bare`), lints that folder as one project
with the default selection (this checkout's jitlint: `sys.executable -m jitlint`, the checkout
first on PYTHONPATH), and scores it: a hazard is found when a finding of its kind's codes covers
its line; every other finding is reviewed true, reviewed false, or unexpected.

Prints a row per project (dev only, unless --show-held-out: the held-out half is scored as totals
and its misses are not read while the model changes), then last
    projects=N repos=R hazards=H tf_hazards=T found_dev=A/B found_heldout=C/D unexpected=U false=F
Exit status 1 when a finding reviewed false came back (F > 0), 2 when a project could not be
linted. The sources never enter the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import projects_format as fmt
from snapshots import git_dir, write_snapshot

REPO = Path(__file__).resolve().parent.parent
MARKER = ".jitlint-bench-projects"
DONE = ".materialized"
# An empty config passed with --config: every project is linted with the default selection,
# whatever pyproject.toml or jitlint.toml lies above the cache.
DEFAULTS = "jitlint.toml"


def materialize(recipe: fmt.Recipe, git_dir: Path, out: Path) -> int:
    """Write the *.py files under the recipe's paths at its commit into `out`, with the files
    that declare the project's framework versions (`pyproject.toml`, `requirements*.txt`,
    at the root or under the paths); how many Python files."""
    wanted = "\n".join([*recipe.data["paths"], "+declared-versions"])
    done = out / DONE
    if done.is_file() and done.read_text(encoding="utf-8") == wanted:
        return sum(1 for _ in out.rglob("*.py"))
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    written, _ = write_snapshot(git_dir, recipe.commit, out, recipe.data["paths"])
    if not written:
        raise LookupError(f"{recipe.name}: no *.py under {recipe.data['paths']} at {recipe.commit}")
    done.write_text(wanted, encoding="utf-8")
    return written


def lint(out: Path, defaults: Path, jobs: int) -> list[dict]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", "--exit-zero"]
    command += ["--config", str(defaults)]
    done = subprocess.run(
        [*command, "-j", str(jobs), "."], cwd=out, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"jitlint exited {done.returncode}: {done.stderr.strip()[-300:]}")
    findings = json.loads(done.stdout or "[]")
    for f in findings:
        path = Path(f["path"])
        f["path"] = (path.relative_to(out) if path.is_absolute() else path).as_posix()
    return findings


def report(recipe: fmt.Recipe, files: int, findings: list[dict], scored: fmt.Score) -> None:
    hazards = len(fmt.scored_hazards(recipe))
    print(
        f"{recipe.half} {recipe.name} {recipe.repo}@{recipe.commit[:7]} files={files} "
        f"found={len(scored.found)}/{hazards} findings={len(findings)} "
        f"true={len(scored.reviewed_true)} false={len(scored.reviewed_false)} "
        f"unexpected={len(scored.unexpected)}"
    )
    for h in scored.missed:
        print(f"  missed {h['path']}:{h['line']} {h['kind']} ({h['error']})")
    for h in scored.not_on_target:
        print(f"  not on target {h['path']}:{h['line']} {h['kind']} (not scored)")
    for f in scored.reviewed_false:
        print(f"  false {f['path']}:{f['line']} {f['code']} {f['message'][:120]}")
    for f in scored.unexpected:
        print(f"  unexpected {f['path']}:{f['line']} {f['code']} {f['message'][:120]}")
    for r in scored.gone:
        print(f"  gone {r['path']}:{r['line']} {r['code']} (reviewed {r['verdict']})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list-repos", action="store_true", help="print the repositories needed")
    parser.add_argument("--mirror", type=Path, default=os.environ.get("JITLINT_PROJECTS_MIRROR"))
    base = Path(os.environ.get("JITLINT_BENCH_CACHE", Path.home() / ".cache" / "jitlint-bench"))
    parser.add_argument("--cache", type=Path, default=base / "projects")
    parser.add_argument("--half", choices=fmt.HALVES, help="only this half")
    parser.add_argument("--recipes", type=Path, default=fmt.PROJECTS, help=argparse.SUPPRESS)
    parser.add_argument("--repo", default="", help="only recipes whose repository contains this")
    parser.add_argument(
        "--show-held-out", action="store_true", help="print the held-out half's rows too"
    )
    parser.add_argument("-j", type=int, default=1, help="jitlint's -j")
    args = parser.parse_args()
    recipes = [r for r in fmt.load_recipes(args.recipes, half=args.half) if args.repo in r.repo]
    if args.list_repos:
        print("\n".join(sorted({r.repo for r in recipes})))
        return 0
    cache = args.cache.resolve()
    if cache.is_relative_to(REPO):
        parser.error(f"{cache}: the cache must be outside the repository")
    if cache.exists() and any(cache.iterdir()) and not (cache / MARKER).is_file():
        parser.error(f"{cache} is not empty and was not made by this script; pick --cache")
    cache.mkdir(parents=True, exist_ok=True)
    (cache / MARKER).write_text("rebuilt by bench/projects.py\n")
    defaults = cache / DEFAULTS
    defaults.write_text("# empty: bench/projects.py lints with the default selection\n")
    found = {half: [0, 0] for half in fmt.HALVES}
    unexpected = false = failed = 0
    for recipe in recipes:
        out = cache / f"{recipe.repo.replace('/', '+')}@{recipe.commit[:12]}"
        try:
            files = materialize(recipe, git_dir(recipe.repo, args.mirror, cache), out)
            findings = lint(out, defaults, args.j)
        except (LookupError, RuntimeError, subprocess.CalledProcessError) as error:
            print(f"{recipe.half} {recipe.name}: not linted: {error}")
            failed += 1
            continue
        scored = fmt.score(recipe, findings)
        found[recipe.half][0] += len(scored.found)
        found[recipe.half][1] += len(fmt.scored_hazards(recipe))
        unexpected += len(scored.unexpected)
        false += len(scored.reviewed_false)
        if recipe.half == "dev" or args.show_held_out:
            report(recipe, files, findings, scored)
    held = found["held-out"]
    if recipes and args.half != "dev":
        print(f"held-out: found={held[0]}/{held[1]}")
    hazards = [h for r in recipes for h in fmt.scored_hazards(r)]
    tf = sum(len(fmt.scored_hazards(r)) for r in recipes if r.data["framework"] == "tensorflow")
    print(
        f"projects={len(recipes)} repos={len({r.repo for r in recipes})} hazards={len(hazards)} "
        f"tf_hazards={tf} found_dev={found['dev'][0]}/{found['dev'][1]} "
        f"found_heldout={held[0]}/{held[1]} unexpected={unexpected} false={false}"
    )
    if failed:
        return 2
    return 1 if false else 0


if __name__ == "__main__":
    sys.exit(main())
