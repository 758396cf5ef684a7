"""Build the pinned real-code corpus: PyPI wheels, sha256-checked, unpacked to a cache.

Usage: python bench/corpus.py [--cache DIR] [NAME ...]
The cache defaults to $JITLINT_BENCH_CACHE or ~/.cache/jitlint-bench (outside the repository).
Prints the directory of each package's unpacked .py files.
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import hashlib
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

PINS = Path(__file__).with_name("corpus-pins.tsv")


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    wheel: str
    sha256: str
    include: str
    exclude: str

    def keeps(self, member: str) -> bool:
        if not member.endswith(".py"):
            return False
        if not any(fnmatch.fnmatch(member, p) for p in self.include.split(",") if p):
            return False
        return not any(fnmatch.fnmatch(member, p) for p in self.exclude.split(",") if p)


def read_pins(path: Path = PINS) -> list[Pin]:
    rows = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    return [
        Pin(**{k: (v or "") for k, v in row.items()})
        for row in csv.DictReader(rows, delimiter="\t")
    ]


def default_cache() -> Path:
    return Path(os.environ.get("JITLINT_BENCH_CACHE", Path.home() / ".cache" / "jitlint-bench"))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ensure(pin: Pin, cache: Path) -> Path:
    """The directory holding the pin's kept .py files, downloading and unpacking if needed."""
    target = cache / "src" / f"{pin.name}-{pin.version}"
    done = target / ".complete"
    if done.exists():
        return target
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = wheels / pin.wheel
    if not wheel.exists() or _sha256(wheel) != pin.sha256:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
             "--dest", str(wheels), f"{pin.name}=={pin.version}"],
            check=True,
        )  # fmt: skip
    actual = _sha256(wheel)
    if actual != pin.sha256:
        raise SystemExit(f"{pin.wheel}: sha256 {actual} does not match the pin {pin.sha256}")
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            if pin.keeps(member):
                archive.extract(member, target)
    done.write_text(pin.sha256)
    return target


def python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("names", nargs="*", help="packages to build (default: all pins)")
    args = parser.parse_args()
    for pin in read_pins():
        if args.names and pin.name not in args.names:
            continue
        root = ensure(pin, args.cache)
        files = python_files(root)
        lines = sum(p.read_bytes().count(b"\n") for p in files)
        print(f"{pin.name}\t{pin.version}\t{len(files)} files\t{lines} lines\t{root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
