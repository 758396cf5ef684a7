"""bench/device_examples.py: the rule pages' examples packed for a machine without jitlint,
and run there one subprocess each."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import device_examples  # noqa: E402


def test_prepare_packs_each_jax_rules_examples_and_fix(tmp_path):
    packed = tmp_path / "examples.json"
    device_examples.prepare(packed, {"jax"})
    entries = {entry["code"]: entry for entry in json.loads(packed.read_text())}
    assert entries and all(entry["framework"] == "jax" for entry in entries.values())
    bool_branch = entries["JIT101"]
    assert "@jax.jit" in bool_branch["bad"] and bool_branch["good"]
    assert bool_branch["runtime_error"] and bool_branch["fixed"] != bool_branch["bad"]


def test_run_records_what_raised_and_whether_it_was_the_expected_error(tmp_path):
    packed = tmp_path / "examples.json"
    packed.write_text(
        json.dumps(
            [
                {
                    "code": "X1",
                    "runtime_error": "expected words",
                    "bad": "raise ValueError('the expected words')",
                    "good": "x = 1",
                    "fixed": None,
                },
                {
                    "code": "X2",
                    "runtime_error": "expected words",
                    "bad": "raise KeyError('other')",
                    "good": None,
                    "fixed": "raise SystemExit(3)",
                },
            ]
        )
    )
    result = tmp_path / "result.json"
    device_examples.run(packed, result, timeout=60)
    first, second = json.loads(result.read_text())
    assert first["bad"]["raised"] and first["bad"]["matches"]
    assert first["bad"]["error"].startswith("ValueError: the expected words")
    assert first["good"]["raised"] is False and "fixed" not in first
    assert second["bad"]["raised"] and second["bad"]["matches"] is False
    assert second["fixed"]["raised"] and "good" not in second
