"""The catalogue's examples under the real compilers: bad ones fail as the rule says, good
ones run, and fixed bad ones run. Skipped where the framework is not installed; CI installs
both."""

from __future__ import annotations

import re

import pytest

from jitlint import catalogue, fix_source
from jitlint.rules import all_rules

_MODULE = {"jax": "jax", "tensorflow": "tensorflow"}


def _params(wanted) -> list[object]:
    """One param per rule that `wanted` selects, marked with its framework."""
    return [
        pytest.param(rule, id=code, marks=getattr(pytest.mark, rule.framework))
        for code, rule in all_rules().items()
        if rule.framework in _MODULE and wanted(rule)
    ]


def _run(rule, source: str) -> None:
    pytest.importorskip(_MODULE[rule.framework])
    exec(compile(source, "<example>", "exec"), {"__name__": "__example__"})


@pytest.mark.parametrize("rule", _params(lambda rule: rule.runtime_error is not None))
def test_bad_example_fails_and_good_example_runs(rule):
    bad = catalogue.section_code(rule, "Example")
    good = catalogue.section_code(rule, "Use instead")
    with pytest.raises(Exception) as failure:
        _run(rule, bad)
    assert re.search(rule.runtime_error, str(failure.value)), str(failure.value)
    _run(rule, good)


@pytest.mark.parametrize("rule", _params(lambda rule: rule.fix_availability != "none"))
def test_fixed_bad_example_runs(rule):
    bad = catalogue.section_code(rule, "Example")
    result = fix_source(bad, select=[rule.code], unsafe=True)
    assert result.applied, f"{rule.code}: the fix did not apply to its own bad example"
    assert not [d for d in result.remaining if d.code == rule.code]
    _run(rule, result.source)
