"""The catalogue's examples under the real compilers: bad ones fail as the rule says, good
ones run. Skipped where the framework is not installed; CI installs both."""

from __future__ import annotations

import re

import pytest

from jitlint import catalogue, fix_source
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


def _fixable(framework: str) -> list[object]:
    return [
        pytest.param(rule, id=code)
        for code, rule in all_rules().items()
        if rule.framework == framework and rule.fix_availability != "none"
    ]


def _fixed_bad_example(rule) -> str:
    bad = catalogue.section_code(rule, "Example")
    result = fix_source(bad, select=[rule.code], unsafe=True)
    assert result.applied, f"{rule.code}: the fix did not apply to its own bad example"
    assert not [d for d in result.remaining if d.code == rule.code]
    return result.source


@pytest.mark.jax
@pytest.mark.parametrize("rule", _fixable("jax"))
def test_jax_fixed_bad_example_runs(rule):
    pytest.importorskip("jax")
    _run(_fixed_bad_example(rule))


@pytest.mark.tensorflow
@pytest.mark.parametrize("rule", _fixable("tensorflow"))
def test_tf_fixed_bad_example_runs(rule):
    pytest.importorskip("tensorflow")
    _run(_fixed_bad_example(rule))
