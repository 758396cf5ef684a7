"""Peak memory (max RSS) and CPU time of linting one large file, in a fresh process.

    python bench/memory.py                      # the generated 50,000-line file
    python bench/memory.py --lines 10000        # a smaller one
    python bench/memory.py FILE [FILE...]       # files of your own
    python bench/memory.py --jitlint-path DIR   # another checkout (PYTHONPATH=DIR), to compare
    python bench/memory.py --before-budgets --jitlint-path DIR   # one from before issue #19

Each file is linted by `python -m jitlint --no-cache -j1` in its own child process, run from a
temporary directory whose jitlint.toml lifts the size limit and the per-file budgets (so the
whole lint is measured; `--defaults` keeps them, to see what a default run does with the
file; `--limits TEXT` sets the file's text). The child's max RSS comes from
`getrusage(RUSAGE_CHILDREN)` of a wrapper process that runs only that child. See
bench/README.md, "Memory and limits".
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BLOCK = """@jax.jit
def step_{i:05d}(x, y):
    z = x * 2 + y
    if z.ndim == 2:
        z = z.sum(axis=0)
    if z > 0:
        z = -z
    return jnp.where(z > 0, z, -z)

"""

MEASURE = """
import resource, subprocess, sys, time
start = time.monotonic()
done = subprocess.run(sys.argv[2:], cwd=sys.argv[1], capture_output=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
print(peak, usage.ru_utime + usage.ru_stime, time.monotonic() - start, done.returncode)
sys.stdout.write(done.stdout.decode("utf-8", "replace")[-400:])
"""

UNLIMITED = "max-file-size = 0\nmax-file-seconds = 0\nmax-file-memory = 0\n"


def generated(lines: int) -> str:
    """Dense jitted functions (a finding in each), `lines` lines long: ~18 bytes a line."""
    out = ["import jax\nimport jax.numpy as jnp\n\n"]
    count, index = 3, 0
    while count < lines:
        out.append(BLOCK.format(i=index))
        count += 9
        index += 1
    return "".join(out)


def measure(path: Path, jitlint_path: str | None, limits: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        shutil.copyfile(path, work / path.name)
        (work / "jitlint.toml").write_text(limits)
        env = dict(os.environ)
        if jitlint_path:
            env["PYTHONPATH"] = jitlint_path
        command = [sys.executable, "-m", "jitlint", "--no-cache", "-j1", "-q"]
        command += ["--format", "json", path.name]
        done = subprocess.run(
            [sys.executable, "-c", MEASURE, str(work), *command],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    first, _, tail = done.stdout.partition("\n")
    peak, cpu, wall, status = first.split()
    size = path.stat().st_size
    return {
        "file": path.name,
        "bytes": size,
        "lines": path.read_bytes().count(b"\n"),
        "max_rss_mib": round(int(peak) / 2**20, 1),
        "rss_bytes_per_source_byte": round(int(peak) / size),
        "cpu_s": round(float(cpu), 1),
        "wall_s": round(float(wall), 1),
        "exit": int(status),
        "output_tail": tail.strip()[-200:],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--jitlint-path", help="PYTHONPATH of the jitlint to measure")
    parser.add_argument("--defaults", action="store_true", help="keep the default limits")
    parser.add_argument(
        "--limits", help="jitlint.toml text instead (e.g. 'max-file-memory = 268435456')"
    )
    parser.add_argument(
        "--before-budgets",
        action="store_true",
        help="a checkout without the max-file-seconds/max-file-memory keys (before #19)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        files = list(args.files)
        if not files:
            path = Path(scratch) / f"generated_{args.lines}.py"
            path.write_text(generated(args.lines))
            files = [path]
        for path in files:
            limits = UNLIMITED.splitlines()[0] + "\n" if args.before_budgets else UNLIMITED
            if args.defaults or args.limits is not None:
                limits = (args.limits or "").replace("\\n", "\n") + "\n"
            result = measure(path, args.jitlint_path, limits)
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
