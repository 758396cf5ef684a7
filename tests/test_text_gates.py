"""The text gates are shortcuts, not filters: with them off, every file gives the same findings.

A rule runs only on files containing one of its `requires` tokens, and a TensorFlow rule only
on files mentioning TensorFlow or Keras (`jitlint.rules.may_apply`). Skipping is sound only if
no finding could come from a skipped file; these tests lint the same sources with the gates on
and off and compare.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from helpers import installed_sources

from jitlint import catalogue
from jitlint.engine.linter import lint_text
from jitlint.rules import all_rules, may_apply
from jitlint.rules._index import INDEX

ROOT = Path(__file__).resolve().parents[1]
EVERY_CODE = frozenset(all_rules())


def _found(source: str, gates: bool) -> list[tuple[str, int, int]]:
    result = lint_text(source, "gated.py", EVERY_CODE, text_gates=gates)
    assert not result.errors, result.errors
    return [(d.code, d.line, d.column) for d in result.diagnostics]


def _sources() -> list[tuple[str, str]]:
    out = []
    for code, rule in all_rules().items():
        cases = (*rule.INVALID, *rule.VALID)
        out += [(f"{code} case {i}", textwrap.dedent(c)) for i, c in enumerate(cases)]
        for heading in ("Example", "Use instead"):
            example = catalogue.section_code(rule, heading)
            if example:
                out.append((f"{code} {heading}", example))
    out += [(p.name, p.read_text(encoding="utf-8")) for p in sorted(ROOT.glob("examples/*.py"))]
    return out


SOURCES = _sources()


def test_the_index_matches_the_rule_classes() -> None:
    rules = all_rules()
    assert set(INDEX) == set(rules)
    for code, (module, name, default, requires, framework, traces) in INDEX.items():
        rule = rules[code]
        assert rule.__module__ == f"jitlint.rules.{module}"
        assert (name, default, requires, framework, traces) == (
            rule.name,
            rule.default_enabled,
            tuple(rule.requires),
            rule.framework,
            rule.uses_tracing,
        )


def test_the_gates_skip_something() -> None:
    # Without this the comparison below could pass because the gates never close.
    jax_only = "import jax\n\n@jax.jit\ndef f(x):\n    return x\n"
    assert not may_apply("JIT205", jax_only)
    assert not may_apply("JIT207", "def function(x):\n    return x\n")
    assert may_apply("JIT101", jax_only)


@pytest.mark.parametrize(("label", "source"), SOURCES, ids=[s[0] for s in SOURCES])
def test_rule_cases_give_the_same_findings_without_gates(label: str, source: str) -> None:
    assert _found(source, gates=True) == _found(source, gates=False)


@pytest.mark.parametrize("package", ["jax", "tensorflow"])
def test_real_sources_give_the_same_findings_without_gates(package: str) -> None:
    files = installed_sources(package)[::40]
    if not files:
        pytest.skip(f"{package} is not installed")
    compared = 0
    for path in files:
        source = path.read_text(encoding="utf-8", errors="replace")
        if len(source) > 200_000:
            continue
        assert _found(source, gates=True) == _found(source, gates=False), path
        compared += 1
    assert compared > 10
