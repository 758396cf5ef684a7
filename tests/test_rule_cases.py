"""Every rule's inline VALID/INVALID cases (Fixit style), with `# error: CODE` marks."""

from __future__ import annotations

import textwrap

import pytest
from helpers import expected, found

from jitlint.rules import all_rules

CASES = [
    pytest.param(rule, kind, index, source, id=f"{code}-{kind}-{index}")
    for code, rule in all_rules().items()
    for kind, sources in (("valid", rule.VALID), ("invalid", rule.INVALID))
    for index, source in enumerate(sources)
]


@pytest.mark.parametrize(("rule", "kind", "index", "source"), CASES)
def test_case(rule, kind, index, source):
    source = textwrap.dedent(source)
    got = {hit for hit in found(source, {rule.code}) if hit[1] == rule.code}
    want = {mark for mark in expected(source) if mark[1] == rule.code}
    if kind == "valid":
        assert not want, "a VALID case must not carry `# error:` marks"
        assert got == set()
    else:
        assert want, "an INVALID case must mark its flagged lines"
        assert got == want


def test_every_rule_but_jit001_has_both_kinds_of_case():
    for code, rule in all_rules().items():
        if code == "JIT001":
            continue
        assert rule.VALID, f"{code} has no VALID cases"
        assert rule.INVALID, f"{code} has no INVALID cases"


def test_sequence_concatenation_holding_tracers_is_not_an_array():
    # jax/experimental/jet.py: a list of per-order terms, filled in place; fine under jit.
    source = textwrap.dedent(
        """
        import jax
        from jax import lax

        @jax.jit
        def series(x):
            v = [lax.exp(x)] + [None] * 3
            v[1] = v[0] * 2
            return v[1]
        """
    )
    assert found(source, {"JIT106"}) == set()


def test_axis_size_is_a_python_int():
    source = textwrap.dedent(
        """
        import math
        import jax
        from jax import lax

        @jax.jit
        def f(x):
            n = lax.axis_size("i")
            return x * math.prod((n, 2))
        """
    )
    assert found(source, {"JIT101", "JIT102", "JIT103"}) == set()
