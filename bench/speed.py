"""Speed of jitlint on the pinned corpus, against the libcst parse floor measured in the same run.

Usage: python bench/speed.py [--sample K] [--rounds N] [--small-runs N] [--json OUT]
       python bench/speed.py --flake8-only [--sample K] [--rounds N]

Every figure is whole-process CPU time (user + sys, children included, from wait4), one
process unless stated, so other load on the machine moves it less than wall time would:
  floor      libcst.parse_module on every corpus file
  cold       jitlint --select ALL --no-cache -j1 (every rule)
  flake8     flake8 -j1 with and without the jitlint plugin (every JIT code selected)
  jobs       jitlint --select ALL -j2 vs the cold -j1 run: identical output, CPU and wall
             time (this run also fills the cache)
  rerun      jitlint --select ALL -j1 again, unchanged files, answered from the cache
  one file   jitlint on one small file, whole process, wall and CPU ms (median), as
             pre-commit runs it, alternating with a process that only imports libcst and
             parses the file (the floor of any libcst-based tool)
jitlint runs from a copy of jitlint/ taken at the start and byte-compiled, as an installed
package is, so edits to the checkout during the run cannot change what is measured (and a
PYTHONDONTWRITEBYTECODE environment does not make every process recompile jitlint).
Budgets: cold <= 2x floor; flake8 with the plugin <= 2.5x flake8 alone (and the plugin's
own share <= 2.5x floor); rerun <= 10% of cold; one file < 300 ms. The corpus comes from
bench/corpus.py (built once into a cache outside the repository).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpus  # bench/ is not a package

ENV = dict(os.environ)
SMALL_FILE = "jraph-0.0.6.dev0/jraph/examples/game_of_life.py"

FLOOR = """
import sys, libcst
for name in sys.stdin.read().splitlines():
    with open(name, "rb") as handle:
        libcst.parse_module(handle.read())
"""

# flake8 finds plugins through package metadata; hide jitlint's to measure flake8 alone.
FLAKE8 = """
import sys
import flake8.plugins.finder as finder
from flake8.main.cli import main
if sys.argv[1] == "without":
    found = finder._find_importlib_plugins
    finder._find_importlib_plugins = lambda: (p for p in found() if p.package != "jitlint")
sys.exit(main(sys.argv[2:]))
"""


@dataclass
class Run:
    cpu: float  # seconds, user + sys, the process and its children
    wall: float  # seconds
    status: int
    stdout: bytes


def run(argv: list[str], *, cwd: Path | None = None, stdin: bytes = b"") -> Run:
    # Files, not pipes: nothing reads a pipe while wait4 waits, so a full one would hang.
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as errs,
        tempfile.TemporaryFile() as inp,
    ):
        inp.write(stdin)
        inp.seek(0)
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=ENV, stdin=inp, stdout=out, stderr=errs)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        data = out.read()
        errs.seek(0)
        err = errs.read()
    text = err.decode(errors="replace")
    if code == 2 and data and "internal error" in text:
        # A crashing rule is a bug to report, not a reason to lose the timing.
        crashes = text.count("internal error")
        print(f"WARNING: {crashes} internal errors, e.g. {text.splitlines()[0]}", file=sys.stderr)
    elif code not in (0, 1):
        raise SystemExit(f"{argv[:4]}... exited {code}:\n{text[-3000:]}")
    return Run(usage.ru_utime + usage.ru_stime, wall, code, data)


def jitlint(*args: str) -> list[str]:
    return [sys.executable, "-m", "jitlint", *args]


def corpus_files(sample: int) -> tuple[list[str], int]:
    files: list[Path] = []
    cache = corpus.default_cache()
    for pin in corpus.read_pins():
        files.extend(corpus.python_files(corpus.ensure(pin, cache)))
    files = files[::sample]
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    return [str(p) for p in files], lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=1, help="every K-th file (default: all)")
    parser.add_argument("--rounds", type=int, default=1, help="repeat floor and cold N times")
    parser.add_argument("--small-runs", type=int, default=9, help="runs of the one-file case")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--cold-only", action="store_true", help="only the floor and cold runs (the 2x budget)"
    )
    parser.add_argument(
        "--flake8-only",
        action="store_true",
        help="only flake8 without and with the plugin, alternating N rounds (the 2.5x budget)",
    )
    args = parser.parse_args()

    files, lines = corpus_files(args.sample)
    file_list = "\n".join(files).encode()
    figures: dict[str, float] = {}
    work = Path(tempfile.mkdtemp(prefix="jitlint-speed-"))
    try:
        # Measure a snapshot of the source tree: a checkout being edited during the run
        # would change the results (and the cache key) from one measurement to the next.
        package = Path(__file__).resolve().parents[1] / "jitlint"
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(package, work / "snapshot" / "jitlint", ignore=ignore)
        # pip compiles an installed package's modules; without .pyc files every process would
        # spend ~130 ms compiling jitlint's sources (CPython does not write them back when
        # PYTHONDONTWRITEBYTECODE is set, as it is in some CI and container images).
        compileall.compile_dir(work / "snapshot", quiet=1)
        ENV["PYTHONPATH"] = str(work / "snapshot")
        all_codes = json.loads(run(jitlint("--list-rules", "--format", "json")).stdout)
        codes = ",".join(rule["code"] for rule in all_codes)
        print(f"corpus: {len(files)} files, {lines} lines; {len(all_codes)} rules", flush=True)
        if args.flake8_only:
            return flake8_only(files, codes, args.rounds)
        # Floor and cold alternate, so drifting machine load hits both alike.
        floors, colds = [], []
        cold = None
        for _ in range(args.rounds):
            floors.append(run([sys.executable, "-c", FLOOR], stdin=file_list).cpu)
            cold = run(jitlint("--select", "ALL", "--no-cache", "-j1", "--format", "json", *files))
            colds.append(cold.cpu)
        assert cold is not None
        figures["floor_cpu_s"] = floor = statistics.median(floors)
        figures["cold_cpu_s"] = statistics.median(colds)
        found = sorted(d["code"] for d in json.loads(cold.stdout))
        print(f"floor {floors}  cold {colds}  findings: {' '.join(found)}", flush=True)
        if args.cold_only:
            print(f"cold / floor: {figures['cold_cpu_s'] / floor:.2f}x (budget 2x)")
            return 0

        base = [sys.executable, "-c", FLAKE8]
        f8_args = ["-j1", f"--extend-select={codes}", *files]
        without = run([*base, "without", *f8_args])
        with_plugin = run([*base, "with", *f8_args])
        figures["flake8_cpu_s"] = without.cpu
        figures["flake8_with_plugin_cpu_s"] = with_plugin.cpu
        jit = sorted(
            x.split(b": ")[1].split()[0].decode()
            for x in with_plugin.stdout.splitlines()
            if b": JIT" in x
        )
        print(f"flake8 without {without.cpu:.1f}s, with plugin {with_plugin.cpu:.1f}s; "
              f"findings: {' '.join(jit)}", flush=True)  # fmt: skip

        # -j2 without --no-cache also fills the cache (in the config root: with no config, the
        # working directory) for the unchanged re-run that follows.
        two = run(jitlint("--select", "ALL", "-j2", "--format", "json", *files), cwd=work)
        rerun = run(jitlint("--select", "ALL", "-j1", "--format", "json", *files), cwd=work)
        figures["rerun_cpu_s"] = rerun.cpu
        figures["rerun_identical"] = float(rerun.stdout == cold.stdout)
        figures["j1_wall_s"], figures["j2_wall_s"] = cold.wall, two.wall
        figures["j1_cpu_s"], figures["j2_cpu_s"] = cold.cpu, two.cpu
        figures["jobs_identical"] = float(two.stdout == cold.stdout)

        small = corpus.default_cache() / "src" / SMALL_FILE
        parse_only = f"import libcst; libcst.parse_module(open({str(small)!r}, 'rb').read())"
        smalls, small_floors = [], []
        for _ in range(args.small_runs):
            smalls.append(run(jitlint("--no-cache", str(small)), cwd=work))
            small_floors.append(run([sys.executable, "-c", parse_only], cwd=work))
        figures["one_file_floor_ms"] = 1000 * statistics.median(r.wall for r in small_floors)
        figures["one_file_ms"] = 1000 * statistics.median(r.wall for r in smalls)
        figures["one_file_min_ms"] = 1000 * min(r.wall for r in smalls)
        figures["one_file_cpu_ms"] = 1000 * statistics.median(r.cpu for r in smalls)
        empty = run([sys.executable, "-c", "pass"], cwd=work)
        figures["python_startup_ms"] = 1000 * empty.wall
    finally:
        shutil.rmtree(work, ignore_errors=True)

    report(figures, floor, len(files), lines)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def flake8_only(files: list[str], codes: str, rounds: int) -> int:
    """flake8 alone and with the plugin, alternating, so drifting load hits both alike."""
    base = [sys.executable, "-c", FLAKE8]
    f8_args = ["-j1", f"--extend-select={codes}", *files]
    withouts, withs = [], []
    for _ in range(rounds):
        withouts.append(run([*base, "without", *f8_args]).cpu)
        withs.append(run([*base, "with", *f8_args]).cpu)
        print(f"flake8 alone {withouts[-1]:.1f} s, with the plugin {withs[-1]:.1f} s CPU: "
              f"{withs[-1] / withouts[-1]:.2f}x", flush=True)  # fmt: skip
    ratio = statistics.median(withs) / statistics.median(withouts)
    print(f"median: flake8 alone {statistics.median(withouts):.1f} s, with the plugin "
          f"{statistics.median(withs):.1f} s: {ratio:.2f}x flake8 alone (budget 2.5x)")  # fmt: skip
    return 0


def report(f: dict[str, float], floor: float, files: int, lines: int) -> None:
    plugin = f["flake8_with_plugin_cpu_s"] - f["flake8_cpu_s"]
    rows = [
        ("libcst parse floor", f"{floor:.1f} s", "1.00x", ""),
        ("cold, all rules, -j1", f"{f['cold_cpu_s']:.1f} s",
         f"{f['cold_cpu_s'] / floor:.2f}x", "<= 2x floor"),
        ("flake8 alone -j1", f"{f['flake8_cpu_s']:.1f} s", f"{f['flake8_cpu_s'] / floor:.2f}x", ""),
        ("flake8 + jitlint plugin -j1", f"{f['flake8_with_plugin_cpu_s']:.1f} s",
         f"{f['flake8_with_plugin_cpu_s'] / floor:.2f}x floor, "
         f"{f['flake8_with_plugin_cpu_s'] / f['flake8_cpu_s']:.2f}x flake8 alone",
         "<= 2.5x flake8 alone"),
        ("plugin on top of flake8", f"{plugin:.1f} s", f"{plugin / floor:.2f}x", "<= 2.5x floor"),
        ("unchanged re-run (cache)", f"{f['rerun_cpu_s']:.2f} s",
         f"{f['rerun_cpu_s'] / f['cold_cpu_s']:.1%} of cold", "<= 10% of cold"),
        ("-j1 (wall / CPU)", f"{f['j1_wall_s']:.1f} / {f['j1_cpu_s']:.1f} s", "", ""),
        ("-j2 (wall / CPU)", f"{f['j2_wall_s']:.1f} / {f['j2_cpu_s']:.1f} s",
         f"{f['j1_wall_s'] / f['j2_wall_s']:.2f}x faster (wall)",
         "identical output" if f["jobs_identical"] else "OUTPUT DIFFERS"),
        ("one small file, whole process",
         f"{f['one_file_ms']:.0f} ms (min {f['one_file_min_ms']:.0f}, "
         f"CPU {f['one_file_cpu_ms']:.0f})",
         f"{f['one_file_ms'] / f['one_file_floor_ms']:.2f}x the parse-only process "
         f"({f['one_file_floor_ms']:.0f} ms); python -c pass: {f['python_startup_ms']:.0f} ms",
         "< 300 ms"),
    ]  # fmt: skip
    print(f"\n{files} files, {lines} lines; CPU seconds unless stated\n")
    print("| measure | time | ratio | budget |\n|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if not f["rerun_identical"]:
        print("\nWARNING: the cached re-run's output differs from the cold run's")


if __name__ == "__main__":
    raise SystemExit(main())
