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
    framework = pytest.importorskip(_MODULE[rule.framework])
    # Examples may flip process-wide settings (JIT302's turns on x64); later tests in this
    # process must not inherit them.
    x64 = framework.config.jax_enable_x64 if rule.framework == "jax" else None
    try:
        exec(compile(source, "<example>", "exec"), {"__name__": "__example__"})
    finally:
        if x64 is not None:
            framework.config.update("jax_enable_x64", x64)


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


@pytest.mark.tensorflow
def test_varying_shape_dataset_example_retraces_and_its_fix_does_not():
    """JIT207's dataset example: each padded batch traces the plain tf.function again;
    after the fix (`reduce_retracing=True`) the second shape's relaxed trace serves the
    rest."""
    pytest.importorskip("tensorflow")
    from jitlint.rules.tf.jit207_retracing import Retracing

    bad = catalogue.section_code(Retracing, "Example: a dataset whose batches vary in shape")
    assert bad is not None
    fixed = fix_source(bad, select=["JIT207"], unsafe=True)
    assert "reduce_retracing=True" in fixed.source and not fixed.remaining

    def traces(source: str) -> int:
        namespace = {"__name__": "__example__"}
        exec(compile(source, "<example>", "exec"), namespace)
        return namespace["step"].experimental_get_tracing_count()

    assert traces(bad) == 4  # four batches, four padded lengths
    assert traces(fixed.source) <= 2
