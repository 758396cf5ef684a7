"""The catalogue's examples under the real compilers: bad ones fail as the rule says, good
ones run. Skipped where the framework is not installed; CI installs both."""

from __future__ import annotations

import re

import pytest

from jitlint import catalogue
from jitlint.rules import all_rules


def _rules(framework: str) -> list[object]:
    return [
        pytest.param(rule, id=code)
        for code, rule in all_rules().items()
        if rule.framework == framework and rule.runtime_error is not None
    ]


def _run(source: str) -> None:
    exec(compile(source, "<example>", "exec"), {"__name__": "__example__"})


@pytest.mark.jax
@pytest.mark.parametrize("rule", _rules("jax"))
def test_jax_bad_example_fails_and_good_example_runs(rule):
    pytest.importorskip("jax")
    bad = catalogue.section_code(rule, "Example")
    good = catalogue.section_code(rule, "Use instead")
    with pytest.raises(Exception) as failure:
        _run(bad)
    assert re.search(rule.runtime_error, str(failure.value)), str(failure.value)
    _run(good)


@pytest.mark.tensorflow
@pytest.mark.parametrize("rule", _rules("tensorflow"))
def test_tf_bad_example_fails_and_good_example_runs(rule):
    pytest.importorskip("tensorflow")
    bad = catalogue.section_code(rule, "Example")
    good = catalogue.section_code(rule, "Use instead")
    with pytest.raises(Exception) as failure:
        _run(bad)
    assert re.search(rule.runtime_error, str(failure.value)), str(failure.value)
    _run(good)
