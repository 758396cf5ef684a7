"""Capture the tracebacks of the recall cases that raise, for `jitlint explain-error`'s tests.

Usage: python bench/tracebacks.py [--case NAME ...] [-j N] [--timeout S] [--out DIR]

Runs every positive case whose `expect:` is `error <Class>` the way bench/truth.py does (CPU,
its own process, from its group folder) and stores what it wrote to stderr in
tests/data/tracebacks/<group>/<name>.txt. JAX cases run twice: with jax's filtered traceback
(the default) and with JAX_TRACEBACK_FILTERING=off, stored as <name>.unfiltered.txt. TF cases
whose label is `observed traces=N` are run too; where TF logged its retracing warning, the
stderr is kept as <name>.retracing.txt.

Paths are made relative, so the files hold nothing of this machine: the repository's folder
becomes the repository-relative path (`bench/cases/...`, which the tests run from), the
interpreter's environment becomes `venv/` and its installation `python/`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases_format import CASES_DIR, Case, load_cases  # bench/ is not a package
from truth import DEFAULT_TIMEOUT, case_env, parallel_map, select

REPO = Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "tests" / "data" / "tracebacks"
RETRACING = "triggered tf.function retracing"


def relative(text: str) -> str:
    """`text` without this machine's folders (longest first: the venv may sit in the repo)."""
    prefixes = [
        (str(REPO) + os.sep, ""),
        (sys.prefix + os.sep, "venv/"),
        (sys.base_prefix + os.sep, "python/"),
        (str(Path.home()) + os.sep, "home/"),
    ]
    for prefix, replacement in sorted(prefixes, key=lambda pair: -len(pair[0])):
        text = text.replace(prefix, replacement)
    # TF's "Stack trace for op definition" cuts the prefix its paths share (with its own
    # install's): what is left of the repository's folder goes too.
    parts = REPO.parts[1:]
    for start in range(len(parts)):
        text = text.replace('File "' + "/".join(parts[start:]) + "/", 'File "')
    return text


def run(case: Case, extra_env: dict[str, str], timeout: float) -> str | None:
    """The case's stderr, or None when it timed out."""
    try:
        proc = subprocess.run(
            [sys.executable, *case.command],
            cwd=case.path.parent,
            env={**case_env(), **extra_env},
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    return proc.stderr


def capture(case: Case, timeout: float, out_dir: Path) -> list[str]:
    """Write the case's files; one line per file (or problem) for the summary."""
    target = out_dir / case.group
    target.mkdir(parents=True, exist_ok=True)
    variants: list[tuple[str, dict[str, str]]] = []
    if case.expect.startswith("error "):
        variants.append(("", {}))
        if case.framework == "jax":
            variants.append((".unfiltered", {"JAX_TRACEBACK_FILTERING": "off"}))
    elif case.framework == "tf" and case.expect.startswith("observed traces="):
        variants.append((".retracing", {"TF_CPP_MIN_LOG_LEVEL": "0"}))
    lines = []
    for suffix, env in variants:
        stderr = run(case, env, timeout)
        name = f"{case.stem}{suffix}.txt"
        if stderr is None:
            lines.append(f"{case.name}{suffix}: timed out")
            continue
        if suffix == ".retracing" and RETRACING not in stderr:
            lines.append(f"{case.name}{suffix}: no retracing warning")
            continue
        (target / name).write_text(relative(stderr), encoding="utf-8")
        lines.append(f"{case.name}{suffix}: {len(stderr.splitlines())} lines")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", default=[], help="only this case (repeatable)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per run")
    parser.add_argument("--cases", type=Path, default=CASES_DIR, help="the cases folder")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="where the files go")
    args = parser.parse_args()
    cases = [case for case in load_cases(args.cases) if case.positive and not case.problems]
    if args.case:
        cases = select(cases, args.case)
    for lines in parallel_map(lambda case: capture(case, args.timeout, args.out), cases, args.jobs):
        for line in lines:
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
