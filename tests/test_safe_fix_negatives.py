"""No safe fix changes behaviour (#17): every negative case of the recall benchmark is fixed
with safe fixes only (`jitlint --fix`, no `--unsafe-fixes`), and a case the fix changed is run
fixed and unfixed and must end the same way (outcome, message, `observed:` lines).

Only cases a safe fix actually changes are run (running a program costs seconds; fixing one
costs a fraction of a second in this process), so the test stays fast while the negatives stay
clean, and grows with every safe fix that touches one.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import cases_format  # noqa: E402  (bench/ is not a package)
import truth  # noqa: E402
from helpers import run_cli  # noqa: E402

NEGATIVES = [c for c in cases_format.load_cases() if not c.positive]


def copy_case(case: cases_format.Case, into: Path) -> Path:
    """The case's files under `into/<group>/`, as bench/recall.py's fix check lays them out."""
    group = into / case.group
    for name in case.files():
        (group / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(case.path.parent / name, group / name)
    return group


def safe_fixed(case: cases_format.Case, into: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the case fixed by `jitlint --fix` (safe fixes only), run in this process."""
    group = copy_case(case, into)
    monkeypatch.chdir(into)
    status, _, err = run_cli("--no-cache", "--jobs", "1", "--fix", f"{case.group}/{case.path.name}")
    assert status in (0, 1), err
    return group


def changed_files(case: cases_format.Case, group: Path) -> list[str]:
    return [
        name
        for name in case.files()
        if (group / name).read_text(encoding="utf-8")
        != (case.path.parent / name).read_text(encoding="utf-8")
    ]


def behaviour_differs(case: cases_format.Case, fixed_group: Path) -> str | None:
    """Run the fixed copy and the case itself; say how they differ, or None."""
    fixed = truth.run_program(fixed_group, case.command)
    original = truth.run_program(case.path.parent, case.command)
    if fixed.record() == original.record():
        return None
    return f"unfixed: {truth.describe(original)}; safe-fixed: {truth.describe(fixed)}"


def test_there_are_negatives_to_check():
    assert len(NEGATIVES) >= 40, len(NEGATIVES)


@pytest.mark.jax
@pytest.mark.tensorflow
@pytest.mark.parametrize("case", NEGATIVES, ids=[c.name for c in NEGATIVES])
def test_a_safe_fix_keeps_a_negative_case_running_as_before(case, tmp_path, monkeypatch):
    pytest.importorskip("jax" if case.framework == "jax" else "tensorflow")
    group = safe_fixed(case, tmp_path, monkeypatch)
    if not changed_files(case, group):
        return  # nothing was fixed: the program is the same program
    difference = behaviour_differs(case, group)
    assert difference is None, f"{case.name}: {difference}"


@pytest.mark.jax
def test_the_comparison_sees_a_fix_that_changes_behaviour(tmp_path, monkeypatch):
    """The check above can fail: on a positive case whose safe fix makes it run (JIT106's
    `.at[]` on a JAX array), the fixed program no longer ends as the original did."""
    pytest.importorskip("jax")
    [case] = [c for c in cases_format.load_cases() if c.name == "jax-functions/warp_boxes_setitem"]
    group = safe_fixed(case, tmp_path, monkeypatch)
    assert changed_files(case, group) == [case.path.name]
    difference = behaviour_differs(case, group)
    assert difference is not None and "TypeError" in difference, difference
