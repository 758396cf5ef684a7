"""Where trace-time Python values go (model/domain/flows.py), as JIT107 reports them: a
clock read, a random draw or a counter update is a finding only where traced code uses it,
and the message names that use."""

from __future__ import annotations

import textwrap

from jitlint.api import lint_source


def messages(source: str) -> dict[int, str]:
    found = lint_source(textwrap.dedent(source), select=["JIT107"])
    return {d.line: d.message for d in found}


def test_a_draw_followed_through_two_names_to_the_return():
    got = messages(
        """
        import random
        import jax
        @jax.jit
        def f(x):
            draw = random.random()
            scale = float(draw) * 2
            return x, scale
        """
    )
    assert list(got) == [6]
    assert "returned at line 8" in got[6]


def test_a_clock_read_only_formatted_is_no_finding():
    got = messages(
        """
        import time
        import jax
        @jax.jit
        def f(x):
            stamp = time.time()
            label = "step %d" % stamp
            note = "at {}".format(stamp)
            return x
        """
    )
    assert got == {}


def test_a_nested_def_with_its_own_local_of_the_name_is_not_followed():
    # `start` inside `inner` is its own parameter: the outer draw never reaches the return.
    got = messages(
        """
        import random
        import jax
        @jax.jit
        def f(x):
            start = random.random()
            def inner(start):
                return start
            print(start)
            return x * inner(2.0)
        """
    )
    assert got == {}


def test_a_draw_stored_in_a_container_first_is_not_followed():
    got = messages(
        """
        import random
        import jax
        seen = []
        @jax.jit
        def f(x):
            seen.append(random.random())
            return x
        """
    )
    assert got == {}


def test_an_update_is_reported_where_another_method_uses_it_under_the_trace():
    got = messages(
        """
        import jax
        class Walker:
            def __init__(self):
                self.steps = 0
            def advance(self, x):
                self.steps = self.steps + 1
                return self.move(x)
            def move(self, x):
                return x * self.steps
        walker = Walker()
        jax.jit(walker.advance)(1.0)
        """
    )
    assert list(got) == [7]
    assert "an operand of `x * self.steps` at line 10" in got[7]


def test_a_draw_that_decides_a_while_loop():
    got = messages(
        """
        import numpy as np
        import jax
        @jax.jit
        def f(x):
            while np.random.rand() < 0.5:
                x = x + 1
            return x
        """
    )
    assert list(got) == [6]
    assert "the test of the `while` at line 6" in got[6]


def test_the_message_names_the_first_use_in_source_order():
    got = messages(
        """
        import time
        import jax
        @jax.jit
        def f(x):
            t = time.time()
            y = x * t
            return y, t
        """
    )
    assert list(got) == [6]
    assert "an operand of `x * t` at line 7" in got[6]
