"""Generated programs through lint_source and fix_source with every rule and unsafe fixes.

No exception, the output parses, fixing twice equals fixing once, and a program without
findings comes back byte-identical. JITLINT_FUZZ_EXAMPLES sets the number of composed
programs and JITLINT_FUZZ_GRAMMAR_EXAMPLES the number of grammar-generated ones (hypothesmith
is slow to generate: ~0.3 s a program); CI runs 2,000 and 500. The counts are printed in the
terminal summary.
"""

from __future__ import annotations

import os
import textwrap

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jitlint import fix_source, lint_source
from jitlint.rules import all_rules

COUNTS: dict[str, int] = {}


def fuzz_settings(variable: str, default: int) -> settings:
    return settings(
        max_examples=int(os.environ.get(variable, default)),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        derandomize=True,
    )


try:
    import hypothesmith

    PROGRAMS = hypothesmith.from_grammar()
except ImportError:  # pragma: no cover - the test extra installs it
    PROGRAMS = st.nothing()


def check(source: str, kind: str) -> None:
    COUNTS[kind] = COUNTS.get(kind, 0) + 1
    lint_source(source, select=["ALL"])
    first = fix_source(source, select=["ALL"], unsafe=True)
    assert not [e for e in first.errors if "internal error" in e], first.errors
    cst.parse_module(first.source)
    if not first.applied:
        assert first.source == source
    second = fix_source(first.source, select=["ALL"], unsafe=True)
    assert second.source == first.source


CASES = [
    textwrap.dedent(case) for rule in all_rules().values() for case in (*rule.INVALID, *rule.VALID)
]
NOISE = st.sampled_from(["", "  # note", "  # noqa: E501", "\n", "\n\n"])


@st.composite
def composed(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(CASES), min_size=1, max_size=4))
    lines = []
    for part in parts:
        for line in part.splitlines():
            noise = draw(NOISE)
            lines.append(line + noise if noise.startswith("  ") and line.strip() else line)
            if noise.startswith("\n"):
                lines.append("")
    text = "\n".join(lines) + "\n"
    return text.replace("\n", "\r\n") if draw(st.booleans()) else text


@pytest.mark.fuzz
@fuzz_settings("JITLINT_FUZZ_EXAMPLES", 20)
@given(composed())
def test_composed_rule_cases(source):
    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError:
        return  # a comment glued after a line continuation; not a program
    check(source, "composed rule cases")


@pytest.mark.fuzz
@fuzz_settings("JITLINT_FUZZ_GRAMMAR_EXAMPLES", 10)
@given(PROGRAMS)
def test_grammar_generated_programs(source):
    check(source, "grammar-generated programs")
