"""The runner's hold on Python's cycle collector: full passes spaced out for a run, the
collector's own settings given back afterwards (engine/runner.py)."""

from __future__ import annotations

import gc

import pytest

from jitlint.engine.runner import collector_paused, full_passes_spaced


def test_full_passes_are_rarer_during_the_run_and_restored_after() -> None:
    before = gc.get_threshold()
    with full_passes_spaced():
        young, middle, old = gc.get_threshold()
        assert (young, middle) == before[:2]
        assert old == before[2] * 10
    assert gc.get_threshold() == before


def test_threshold_restored_when_the_run_fails() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), full_passes_spaced():
        raise RuntimeError("lint failed")
    assert gc.get_threshold() == before


def test_collector_paused_per_file_and_enabled_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
