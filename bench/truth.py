"""Runtime truth of the recall cases: run each one and record what really happens.

Usage: python bench/truth.py [--write | --check] [--case NAME ...] [-j N] [--timeout S]
                             [--cases DIR] [--truth FILE] [--framework jax|tf]
                             [--accelerator]

Each case runs in its own process from its group folder (`python <name>.py`, or
`python -m <name>` for a package) on CPU (JAX_PLATFORMS=cpu, CUDA_VISIBLE_DEVICES="",
TF_CPP_MIN_LOG_LEVEL=3; inherited JAX_*/XLA_FLAGS/TF_XLA_FLAGS are dropped). Its outcome is
`ok` (exit 0), `error <Class>` (the last traceback's exception, last dotted component, with
its first message line), `exit <N>` (non-zero without a traceback) or `timeout`, plus every
`observed: <key>=<int>` line it printed.

Without options it prints each outcome and whether it agrees with the case's `expect:`.
`--write` stores the outcomes and the framework versions in bench/cases/truth.json (with
`--case`, only those entries change). `--check` fails (exit 1, listing each) when a case's
outcome disagrees with its `expect:` label or with the stored outcome (outcome and observed
lines; the message may change), when a case is invalid or missing from the file, or when the
file names a case that no longer exists. CI runs `--check`. `--accelerator` keeps the GPU
visible, to see where a GPU (and the jax there) gives another outcome than the stored CPU truth.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases_format import CASES_DIR, FRAMEWORKS, Case, load_cases  # bench/ is not a package

DEFAULT_TIMEOUT = 300.0
DISTRIBUTIONS = {
    "jax": ("jax",),
    "jaxlib": ("jaxlib",),
    "tensorflow": ("tensorflow", "tensorflow-cpu"),
    "keras": ("keras",),
    "equinox": ("equinox",),
    "flax": ("flax",),
    "dm-haiku": ("dm-haiku",),
    "optax": ("optax",),
}

_OBSERVED = re.compile(r"observed:\s*([A-Za-z_]\w*)\s*=\s*(-?\d+)\s*")
_EXCEPTION = re.compile(r"([A-Za-z_][\w.]*)(?::\s?(.*))?")
_CARETS = re.compile(r"[\s^~]+")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Run:
    outcome: str  # `ok`, `error <Class>`, `exit <N>` or `timeout`
    message: str = ""  # the exception's first message line
    observed: tuple[str, ...] = ()  # `key=N`, in the order printed
    seconds: float = 0.0

    def record(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "message": self.message, "observed": list(self.observed)}


def case_env(accelerator: bool = False) -> dict[str, str]:
    """The cases' environment: CPU only, unless `accelerator` keeps the GPU visible (then
    each process takes GPU memory as it needs it, so that several cases share the GPU)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("JAX_") and key not in ("XLA_FLAGS", "TF_XLA_FLAGS")
    }
    env.update(
        TF_CPP_MIN_LOG_LEVEL="3",
        PYTHONDONTWRITEBYTECODE="1",  # no __pycache__ in bench/cases/
        PYTHONHASHSEED="0",
    )
    if accelerator:
        env.update(XLA_PYTHON_CLIENT_PREALLOCATE="false", TF_FORCE_GPU_ALLOW_GROWTH="true")
    else:
        env.update(JAX_PLATFORMS="cpu", CUDA_VISIBLE_DEVICES="")
    return env


def run_program(
    cwd: Path, command: list[str], timeout: float = DEFAULT_TIMEOUT, accelerator: bool = False
) -> Run:
    """Run `python <command>` in `cwd` under the case environment and classify the result."""
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, *command],
            cwd=cwd,
            env=case_env(accelerator),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return Run("timeout", seconds=time.perf_counter() - started)
    seconds = time.perf_counter() - started
    observed = tuple(
        f"{m.group(1)}={int(m.group(2))}"
        for line in proc.stdout.splitlines()
        if (m := _OBSERVED.fullmatch(line.strip()))
    )
    if proc.returncode == 0:
        return Run("ok", "", observed, seconds)
    exception = last_exception(proc.stderr)
    if exception is None:  # the message: stderr's last line (a signal, sys.exit, no file)
        last = next((line for line in reversed(proc.stderr.splitlines()) if line.strip()), "")
        return Run(f"exit {proc.returncode}", _clean(last, cwd), observed, seconds)
    name, message = exception
    return Run(f"error {name}", _clean(message, cwd), observed, seconds)


def _clean(message: str, cwd: Path) -> str:
    """Without the run's folder and object addresses, which change from run to run."""
    return _ADDRESS.sub("0x?", message.replace(str(cwd), ".")).strip()


_CHAIN = {
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
}


def last_exception(stderr: str) -> tuple[str, str] | None:
    """(class name, first message line) of the last traceback in `stderr`, if any."""
    lines = stderr.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call")]
    if not starts:
        return None
    # A chained exception's traceback follows one of Python's separator sentences. A traceback
    # copied into an exception's message (jax does this for a failing __hash__) does not: the
    # uncaught exception is the one after the last traceback that starts a chain link.
    links = [starts[0]] + [
        i for i in starts[1:] if any(lines[j].strip() in _CHAIN for j in range(max(0, i - 2), i))
    ]
    for line in lines[links[-1] + 1 :]:
        if not line or line[0].isspace() or _CARETS.fullmatch(line):
            continue  # a frame, its source line or a caret line (unindented for long lines)
        match = _EXCEPTION.fullmatch(line.rstrip())
        if match is None:
            return None
        return match.group(1).rsplit(".", 1)[-1], (match.group(2) or "").strip()
    return None


def agrees(expect: str, run: Run) -> bool:
    """Whether a run shows what `expect:` says (bench/cases/README.md)."""
    if expect == "ok":
        return run.outcome == "ok"
    kind, _, value = expect.partition(" ")
    if kind == "error":
        return run.outcome == f"error {value}"
    if kind == "observed":
        return run.outcome == "ok" and value in run.observed
    return False


def run_case(case: Case, timeout: float = DEFAULT_TIMEOUT, accelerator: bool = False) -> Run:
    return run_program(case.path.parent, case.command, timeout, accelerator)


def parallel_map(function: Callable[[T], R], items: Iterable[T], jobs: int) -> list[R]:
    """`function` over `items` on `jobs` threads (each starts processes), in order."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(function, items))


def versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {"python": platform.python_version()}
    for key, names in DISTRIBUTIONS.items():
        found[key] = None
        for name in names:
            try:
                found[key] = metadata.version(name)
                break
            except metadata.PackageNotFoundError:
                continue
    return found


def load_truth(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {"versions": {}, "cases": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def dump_truth(truth: dict[str, Any]) -> str:
    return json.dumps(truth, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def select(cases: list[Case], names: list[str]) -> list[Case]:
    """The cases named `group/name` or, where unique, `name`; exits on an unknown name."""
    chosen = []
    for name in names:
        hits = [case for case in cases if name in (case.name, case.stem)]
        if len(hits) != 1:
            sys.exit(f"truth: {'no' if not hits else 'more than one'} case named {name!r}")
        chosen.extend(hits)
    return chosen


def check(cases: list[Case], runs: list[Run], truth: dict[str, Any], full: bool) -> list[str]:
    """Every disagreement: label vs runtime, runtime vs stored truth, invalid or stale cases."""
    failures = []
    stored = truth.get("cases", {})
    for case, run in zip(cases, runs, strict=True):
        for problem in case.problems:
            failures.append(f"{case.name}: invalid: {problem}")
        if case.expect and not agrees(case.expect, run):
            failures.append(f"{case.name}: expect {case.expect!r}, but ran: {describe(run)}")
        record = stored.get(case.name)
        if record is None:
            failures.append(f"{case.name}: not in truth.json (run bench/truth.py --write)")
        elif (record["outcome"], record["observed"]) != (run.outcome, list(run.observed)):
            was = describe(Run(record["outcome"], record["message"], tuple(record["observed"])))
            failures.append(f"{case.name}: truth.json has {was}, but ran: {describe(run)}")
    if full:
        names = {case.name for case in cases}
        failures.extend(
            f"{name}: in truth.json, but there is no such case"
            for name in stored
            if name not in names
        )
    return failures


def describe(run: Run) -> str:
    text = run.outcome + (f": {run.message}" if run.message else "")
    return text + (f" [observed {', '.join(run.observed)}]" if run.observed else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="store the outcomes in truth.json")
    mode.add_argument("--check", action="store_true", help="fail on any disagreement")
    parser.add_argument("--case", action="append", default=[], help="only this case (repeatable)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per case")
    parser.add_argument("--cases", type=Path, default=CASES_DIR, help="the cases folder")
    parser.add_argument("--truth", type=Path, help="default: <cases>/truth.json")
    parser.add_argument("--framework", choices=FRAMEWORKS, help="only this framework's cases")
    parser.add_argument(
        "--accelerator",
        action="store_true",
        help="keep the GPU visible (compare with the stored CPU truth; never with --write)",
    )
    args = parser.parse_args()
    if args.accelerator and args.write:
        parser.error("--write stores the CPU truth; --accelerator runs only compare with it")
    truth_path = args.truth or args.cases / "truth.json"

    cases = load_cases(args.cases)
    if args.case:
        cases = select(cases, args.case)
    if args.framework:
        cases = [case for case in cases if case.framework == args.framework]
    started = time.perf_counter()
    runs = parallel_map(
        lambda case: run_case(case, args.timeout, args.accelerator), cases, args.jobs
    )
    elapsed = time.perf_counter() - started

    for case, run in zip(cases, runs, strict=True):
        verdict = (
            "" if not case.expect or agrees(case.expect, run) else f"  != expect {case.expect}"
        )
        print(f"{case.name:<60} {run.seconds:6.1f}s  {describe(run)}{verdict}")
    print(f"{len(cases)} cases in {elapsed:.1f} s wall, -j {args.jobs}")

    truth = load_truth(truth_path)
    now = versions()
    if truth.get("versions") and truth["versions"] != now:
        changed = ", ".join(
            f"{key} {truth['versions'].get(key)} -> {value}"
            for key, value in now.items()
            if truth["versions"].get(key) != value
        )
        print(f"note: versions differ from {truth_path.name}: {changed}")

    if args.write:
        stored = truth.get("cases", {}) if args.case else {}
        stored.update({case.name: run.record() for case, run in zip(cases, runs, strict=True)})
        truth = {"versions": now, "cases": stored}
        truth_path.write_text(dump_truth(truth), encoding="utf-8")
        print(f"wrote {truth_path} ({len(stored)} cases)")
    failures = check(cases, runs, truth, full=not (args.case or args.framework))
    if failures:
        print(f"\n{len(failures)} problem(s):")
        for failure in failures:
            print(f"  {failure}")
    if args.check or args.write:
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
