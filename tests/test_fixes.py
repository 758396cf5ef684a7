"""Fixes: expected outputs, idempotence, re-lint, and never an unparsable result.

Each `tests/fixtures/fixes/CODE_name.in.py` is fixed with that rule and unsafe fixes on, and
compared with `CODE_name.out.py`. After changing a fix, run
`python -m pytest tests/test_fixes.py --update-fixtures` and review the .out.py diff.
"""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import pytest

from jitlint import fix_source, lint_source
from jitlint.rules import all_rules

FIXTURES = Path(__file__).parent / "fixtures" / "fixes"
PAIRS = sorted(FIXTURES.glob("*.in.py"))


def _key(diagnostic) -> tuple[str, str]:
    # Messages may cite line numbers, which a fix above them shifts.
    return diagnostic.code, re.sub(r"line \d+", "line N", diagnostic.message)


def _code(path: Path) -> str:
    return path.name.split("_", 1)[0]


@pytest.mark.parametrize("source_path", PAIRS, ids=lambda p: p.name[: -len(".in.py")])
def test_fix_output_matches_the_expectation(source_path, request):
    code = _code(source_path)
    result = fix_source(source_path.read_text(), str(source_path), select=[code], unsafe=True)
    assert not result.errors, result.errors
    assert result.applied, "the fixture has nothing to fix"
    expected_path = source_path.with_name(source_path.name.replace(".in.py", ".out.py"))
    if request.config.getoption("--update-fixtures"):
        expected_path.write_text(result.source)
    assert result.source == expected_path.read_text()


@pytest.mark.parametrize("source_path", PAIRS, ids=lambda p: p.name[: -len(".in.py")])
def test_fixed_output_is_idempotent_parses_and_relints_clean(source_path):
    code = _code(source_path)
    first = fix_source(source_path.read_text(), select=[code], unsafe=True)
    cst.parse_module(first.source)
    second = fix_source(first.source, select=[code], unsafe=True)
    assert second.source == first.source
    assert not second.applied
    # The fixed findings are gone and no rule finds anything new that was not there before.
    before = {_key(d) for d in lint_source(source_path.read_text(), select=["ALL"])}
    after = {_key(d) for d in lint_source(first.source, select=["ALL"])}
    assert after <= before
    assert not [d for d in first.remaining if d.fix is not None]


def test_every_rule_with_a_fix_has_a_fixture():
    covered = {_code(p) for p in PAIRS}
    with_fix = {code for code, rule in all_rules().items() if rule.fix_availability != "none"}
    assert with_fix <= covered, f"no fixture pair for {sorted(with_fix - covered)}"


def test_safe_mode_leaves_unsafe_fixes_alone():
    source = (FIXTURES / "JIT110_literal_list.in.py").read_text()
    result = fix_source(source, select=["JIT110"])
    assert "axes=axes" in result.source  # the unsafe tuple(axes) fix was not applied
    assert "axes=(0, 1)" in result.source  # the safe literal fix was
    assert [d.line for d in result.remaining] == [25]


def test_source_without_findings_comes_back_identical():
    source = "import jax\r\n\r\nf = jax.jit(lambda x: x)  # clean\r\n"
    result = fix_source(source, select=["ALL"], unsafe=True)
    assert result.source is source or result.source == source
    assert not result.applied


def test_a_fix_that_breaks_the_syntax_is_not_applied(monkeypatch):
    from jitlint.rules import base

    source = "import jax\ng = jax.jit(lambda x: x, static_argnums=3)\n"
    original_report = base.Rule.report

    def broken_report(self, node, message, **kwargs):
        fix = kwargs.get("fix")
        if fix is not None:
            kwargs["fix"] = base.NodeFix(fix.applicability, fix.message, ((node, "3 +"),))
        original_report(self, node, message, **kwargs)

    monkeypatch.setattr(base.Rule, "report", broken_report)
    result = fix_source(source, select=["JIT112"], unsafe=True)
    assert result.source == source
    assert not result.applied
    assert "does not parse" in result.errors[0] and "JIT112" in result.errors[0]
    assert [d.code for d in result.remaining] == ["JIT112"]


def test_imports_a_fix_needs_are_added_once(monkeypatch):
    from jitlint.rules import base

    source = '"""Doc."""\nfrom __future__ import annotations\nimport jax\n' + (
        "g = jax.jit(lambda x: x, static_argnums=3)\nh = jax.jit(lambda x: x, static_argnums=4)\n"
    )
    original_report = base.Rule.report

    def with_import(self, node, message, **kwargs):
        fix = kwargs.get("fix")
        if fix is not None:
            kwargs["fix"] = base.NodeFix(
                fix.applicability, fix.message, fix.replacements, ("import jax.numpy as jnp",)
            )
        original_report(self, node, message, **kwargs)

    monkeypatch.setattr(base.Rule, "report", with_import)
    result = fix_source(source, select=["JIT112"], unsafe=True)
    assert result.source.count("import jax.numpy as jnp") == 1
    assert result.source.splitlines()[:4] == [
        '"""Doc."""',
        "from __future__ import annotations",
        "import jax.numpy as jnp",
        "import jax",
    ]


@pytest.mark.parametrize(
    ("imports", "spelled", "added"),
    [
        ("import jax\nfrom jax import lax\n", "lax.cond(", False),
        ("import jax\nimport jax.lax as L\n", "L.cond(", False),
        ("import jax\n", "jax.lax.cond(", False),
        ("from jax import jit as jax_jit\n", "lax.cond(", True),
    ],
)
def test_jit101_cond_spells_lax_as_the_module_does(imports, spelled, added):
    decorator = "@jax_jit" if "jax_jit" in imports else "@jax.jit"
    source = (
        f"{imports}def f(x):\n    return x\n{decorator}\ndef g(x):\n"
        "    if x.sum() > 0:\n        y = f(x)\n    else:\n        y = -f(x)\n    return y\n"
    )
    result = fix_source(source, select=["JIT101"], unsafe=True)
    assert f"    y = {spelled}x.sum() > 0, lambda: f(x), lambda: -f(x))\n" in result.source
    assert ("from jax import lax\n" in result.source) == (added or "from jax import lax" in imports)


def test_jit107_keeps_jit_where_the_method_is_traced_another_way_too():
    source = (
        "import jax\n"
        "class Tally:\n"
        "    def __init__(self):\n"
        "        self.calls = 0\n"
        "    def record(self, x):\n"
        "        self.calls += 1\n"
        "        return x * self.calls\n"
        "tally = Tally()\n"
        "doubled = jax.jit(tally.record)\n"
        "@jax.jit\n"
        "def twice(x):\n"
        "    return tally.record(x)\n"
        "doubled(1.0)\n"
        "twice(1.0)\n"
    )
    found = [d for d in lint_source(source, select=["JIT107"]) if d.line == 6]
    assert found and all(d.fix is None for d in found)
    alone = source.replace("@jax.jit\ndef twice", "def twice")
    fixed = [d for d in lint_source(alone, select=["JIT107"]) if d.line == 6]
    assert fixed and fixed[0].fix is not None


def test_jit110_the_last_static_array_parameter_leaves_a_plain_jit():
    source = (
        "from functools import partial\n"
        "import jax\n"
        "import jax.numpy as jnp\n"
        "@partial(jax.jit, static_argnums=0)\n"
        "def scale(weights, x):\n"
        "    return weights * x\n"
        "scale(jnp.ones(2), jnp.ones(2))\n"
    )
    result = fix_source(source, select=["JIT110"], unsafe=True)
    assert "@jax.jit\ndef scale(weights, x):" in result.source
