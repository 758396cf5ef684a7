"""The rule pages' examples on an accelerator: does each bad example fail there as the rule
says, and does its "Use instead" (and the fixed bad example) run?

The CPU tests (`tests/test_examples_runtime.py`) prove this on the CPU. Some hazards depend on
the device (donation, compile-time constants, XLA's kernels), so the same examples are run
where a GPU is lent. Two steps, because the GPU machine has the framework but not jitlint:

    python bench/device_examples.py prepare examples.json    # here: pages -> sources (+ fixes)
    python bench/device_examples.py run examples.json result.json   # there: only jax/TF needed

`run` execs each source in a fresh subprocess (process-wide settings such as x64 do not leak)
and records whether it raised, the error's first line, whether it matched the rule's expected
error, and the wall time.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

_ERROR_LINE = re.compile(r"^[\w.]+(Error|Exception)\b")


def prepare(path: Path, frameworks: set[str]) -> None:
    from jitlint import catalogue, fix_source
    from jitlint.rules import all_rules

    examples = []
    for code, rule in all_rules().items():
        if rule.framework not in frameworks:
            continue
        bad = catalogue.section_code(rule, "Example")
        good = catalogue.section_code(rule, "Use instead")
        if bad is None:
            continue
        entry = {
            "code": code,
            "framework": rule.framework,
            "runtime_error": rule.runtime_error,
            "bad": bad,
            "good": good,
            "fixed": None,
        }
        if rule.fix_availability != "none":
            result = fix_source(bad, select=[code], unsafe=True)
            if result.applied:
                entry["fixed"] = result.source
        examples.append(entry)
    path.write_text(json.dumps(examples, indent=1))
    print(f"{len(examples)} rules' examples written to {path}")


def _exec(source: str, timeout: float) -> dict[str, object]:
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", source],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"raised": None, "error": "timeout", "seconds": timeout}
    seconds = round(time.perf_counter() - started, 2)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    # The exception's own line; jax adds a note about filtered frames after it.
    errors = [line for line in lines if _ERROR_LINE.match(line)]
    error = (errors or lines or [""])[-1] if done.returncode != 0 else ""
    return {
        "raised": done.returncode != 0,
        "error": error,
        "stderr_tail": lines[-6:],
        "seconds": seconds,
    }


def run(path: Path, out: Path, timeout: float) -> None:
    results = []
    for entry in json.loads(path.read_text()):
        row: dict[str, object] = {"code": entry["code"]}
        for kind in ("bad", "good", "fixed"):
            if entry[kind] is None:
                continue
            outcome = _exec(entry[kind], timeout)
            if kind == "bad" and entry["runtime_error"] and outcome["raised"]:
                stderr = "\n".join(outcome["stderr_tail"])
                outcome["matches"] = re.search(entry["runtime_error"], stderr) is not None
            row[kind] = outcome
        results.append(row)
        bad = row.get("bad", {})
        outcomes = [f"bad {'raised' if bad.get('raised') else 'ran'}"]
        if "matches" in bad:
            outcomes.append(f"expected error: {'yes' if bad['matches'] else 'NO'}")
        for kind in ("good", "fixed"):
            if kind in row:
                outcomes.append(f"{kind} {'raised' if row[kind]['raised'] else 'ran'}")
        print(entry["code"], ", ".join(outcomes), flush=True)
    out.write_text(json.dumps(results, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    make = steps.add_parser("prepare")
    make.add_argument("examples", type=Path)
    make.add_argument("--framework", action="append", default=None)
    use = steps.add_parser("run")
    use.add_argument("examples", type=Path)
    use.add_argument("result", type=Path)
    use.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    if args.step == "prepare":
        prepare(args.examples, set(args.framework or ["jax", "tensorflow"]))
    else:
        run(args.examples, args.result, args.timeout)


if __name__ == "__main__":
    main()
