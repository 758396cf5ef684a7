"""Validation in traced code (`assert`, `if <traced>: raise`) is a JIT101 case with its own
advice (issue #30's JIT121): one finding, pointing to run-time checks."""

from __future__ import annotations

import textwrap

from jitlint.engine.linter import lint_text
from jitlint.rules import all_rules

SOURCE = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def f(x, scale):
        if jnp.any(x < 0):
            raise ValueError("x must be non-negative")
        assert scale.sum() > 0, "scale"
        if x.sum() > 1:
            return x * scale
        return x
    """
)


def _findings() -> dict[int, tuple[str, str, str]]:
    result = lint_text(SOURCE, "case.py", set(all_rules()))
    assert not result.errors, result.errors
    return {d.line: (d.code, d.message, d.help or "") for d in result.diagnostics}


def test_validation_is_reported_once_as_jit101_with_check_advice():
    hits = _findings()
    assert hits[7][0] == "JIT101" and hits[9][0] == "JIT101"
    assert "this check (`if ...: raise`)" in hits[7][1]
    for line in (7, 9):
        assert "eqx.error_if" in hits[line][2] and "checkify.check" in hits[line][2]
        assert "jnp.where" not in hits[line][2]
    # No other rule reports the same lines.
    result = lint_text(SOURCE, "case.py", set(all_rules()))
    assert sorted(d.line for d in result.diagnostics if d.line in (7, 9)) == [7, 9]


def test_a_value_choice_keeps_the_choice_advice():
    code, message, help_text = _findings()[10]
    assert code == "JIT101" and "this `if`" in message
    assert "jnp.where" in help_text and "eqx.error_if" not in help_text


def test_an_if_that_raises_in_one_branch_of_two_is_not_a_validation():
    source = textwrap.dedent(
        """
        import jax

        @jax.jit
        def f(x):
            if x.sum() > 0:
                raise ValueError("no")
            else:
                x = x + 1
            return x
        """
    )
    result = lint_text(source, "case.py", {"JIT101"})
    [hit] = result.diagnostics
    assert "jnp.where" in (hit.help or "")
