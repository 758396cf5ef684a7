"""Two Python shapes of real projects (issue #27's list; gymnax's environments): a traced
method of a base class calls a method on `self` that a subclass overrides (the template
method), in the same file or another file of the run; and a `for` loop over a literal range
always runs, so what its body assigns is what follows it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from helpers import expected, found

JAX_RULES = {f"JIT1{n:02d}" for n in range(1, 14)}

BASE = """\
from functools import partial

import jax


class Environment:
    @partial(jax.jit, static_argnums=(0,))
    def step(self, key, state, action):
        key, sub = jax.random.split(key)
        return self.step_env(sub, state, action)

    def step_env(self, key, state, action):
        raise NotImplementedError
"""


def test_an_override_in_the_same_file_is_traced_by_the_base_method():
    source = BASE + textwrap.dedent(
        """

        class Game(Environment):
            def step_env(self, key, state, action):
                if state.sum() > 0:  # error: JIT101
                    return state
                return -state

            def reset(self, state):
                return bool(state.sum())  # not called from traced code
        """
    )
    assert found(source, JAX_RULES) == expected(source)


def test_an_override_in_another_file_is_traced_with_the_arguments_the_base_passes(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "env.py").write_text(BASE)
    (package / "game.py").write_text(
        textwrap.dedent(
            """\
            from .env import Environment


            class Game(Environment):
                def step_env(self, key, state, action):
                    return state, bool(state.mean() > 1)


            class Other:
                def step_env(self, key, state, action):
                    return bool(state.mean() > 1)
            """
        )
    )
    completed = subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", "pkg"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    findings = json.loads(completed.stdout)
    assert [(f["path"], f["line"], f["code"]) for f in findings] == [("pkg/game.py", 6, "JIT101")]
    assert "`Environment.step` (pkg/env.py:10), compiled by `jax.jit`" in findings[0]["message"]


def test_a_generic_base_with_type_arguments_is_still_the_base(tmp_path):
    """`class Game(env.Environment[State, Params])`: the subscript is a type argument."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "env.py").write_text(
        BASE.replace("class Environment:", "class Environment(Generic[T]):").replace(
            "import jax\n", "import jax\nfrom typing import Generic, TypeVar\n\nT = TypeVar('T')\n"
        )
    )
    (package / "game.py").write_text(
        "from pkg import env\n\n\nclass Game(env.Environment[int]):\n"
        "    def step_env(self, key, state, action):\n        return float(state.sum())\n"
    )
    completed = subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", "pkg"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert [(f["path"], f["line"], f["code"]) for f in json.loads(completed.stdout)] == [
        ("pkg/game.py", 6, "JIT102")
    ]


def test_a_literal_range_loop_always_runs_its_body():
    source = textwrap.dedent(
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def collide(entities):
            done = 0
            for i in range(8):
                done += jnp.logical_and(entities[i] > 0, entities[i] < 3)
            return bool(done > 0)  # error: JIT101

        @jax.jit
        def maybe_empty(entities, n: int = 0):
            done = 0
            for i in range(n):
                done += entities[i]
            return entities
        """
    )
    assert found(source, JAX_RULES) == expected(source)


def test_a_loop_that_may_not_run_keeps_the_value_before_it():
    """`range(0)`, a starred display or a variable bound: the body may not run, so `done`
    may still be the Python int it was before the loop: nothing is certain, nothing is said."""
    source = textwrap.dedent(
        """
        import jax

        @jax.jit
        def f(xs, ys):
            done = 0
            for x in [*ys]:
                done = done + x
            if done:
                pass
            total = 0
            for i in range(0):
                total = total + xs[i]
            return bool(total)
        """
    )
    assert found(source, JAX_RULES) == set()
