"""No crash on real code: every .py file of the installed jax, tensorflow, numpy and libcst
through every rule, with unsafe fixes applied in memory and the result re-parsed.

It reads ~1.3M lines, so it runs when JITLINT_SITE_PACKAGES=1 (CI sets it); the counts are
printed in the terminal summary.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import libcst as cst
import pytest
from helpers import installed_sources

from jitlint.engine.fixloop.passes import fix_text
from jitlint.engine.linter import lint_text
from jitlint.engine.source import DecodeProblem, decode_source
from jitlint.rules import all_rules

PACKAGES = ("jax", "tensorflow", "numpy", "libcst")
COUNTS: dict[str, int] = {}


def _check(path: Path) -> tuple[str, int, int, str | None]:
    """(path, findings, fixes applied, problem or None) for one file."""
    codes = set(all_rules())
    data = path.read_bytes()
    try:
        result = lint_text(data, str(path), codes)
        if result.errors:
            return str(path), 0, 0, "; ".join(result.errors)
        try:
            text = decode_source(data).text
        except DecodeProblem:
            return str(path), len(result.diagnostics), 0, None
        outcome = fix_text(text, str(path), codes, unsafe=True)
        if outcome.errors:
            return str(path), len(result.diagnostics), 0, "; ".join(outcome.errors)
        if outcome.applied:
            cst.parse_module(outcome.source)
        return str(path), len(result.diagnostics), len(outcome.applied), None
    except Exception as exc:  # the point of the test: report, don't stop
        return str(path), 0, 0, f"{type(exc).__name__}: {exc}"


@pytest.mark.skipif(
    os.environ.get("JITLINT_SITE_PACKAGES") != "1", reason="set JITLINT_SITE_PACKAGES=1"
)
@pytest.mark.parametrize("package", PACKAGES)
def test_no_crash_on_installed_package(package):
    files = installed_sources(package)
    if not files:
        pytest.skip(f"{package} is not installed")
    # Spawned workers: this process may have loaded jax or TF, which forking can deadlock.
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1, mp_context=spawn) as pool:
        results = list(pool.map(_check, files, chunksize=8))
    problems = [(path, problem) for path, _, _, problem in results if problem]
    COUNTS[package] = len(results)
    COUNTS[f"{package} findings"] = sum(r[1] for r in results)
    COUNTS[f"{package} fixes applied"] = sum(r[2] for r in results)
    assert not problems, problems[:10]
