"""Findings whose fix is withheld: each source has the hazard a fix builder targets, in a shape
the builder cannot rewrite without changing what the program means (or breaking it). The rule
still reports, and no fix, safe or unsafe, touches the file."""

from __future__ import annotations

import textwrap

import pytest

from jitlint import fix_source, lint_source

# name: (rule, source with at least one finding of the rule, none of them fixable)
WITHHELD = {
    # An instance of a dataclass with eq=True and no frozen=True cannot be hashed.
    "JIT111 an unhashable instance": (
        "JIT111",
        """
        import dataclasses
        import jax
        @dataclasses.dataclass
        class Config:
            depth: int = 2
        @jax.jit
        def f(x, cfg):
            return x
        f(1.0, Config())
        """,
    ),
    # A lambda written at the call is a new object, so a new compilation, per call.
    "JIT111 a lambda": (
        "JIT111",
        """
        import jax
        @jax.jit
        def f(x, fn):
            return fn(x)
        f(1.0, lambda y: y)
        """,
    ),
    # The partial also donates: eqx.filter_jit would drop the donation silently.
    "JIT110 static self with more options": (
        "JIT110",
        """
        from functools import partial
        import equinox as eqx
        import jax
        class Layer(eqx.Module):
            w: jax.Array
            @partial(jax.jit, static_argnums=0, donate_argnums=1)
            def __call__(self, x):
                return self.w * x
        """,
    ),
    # `y` is not bound before the `if`: keeping its old value is impossible.
    "JIT101 an assignment to a new name": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            if jnp.all(x > 0):
                y = x * 2
            return x
        """,
    ),
    # `n` is a Python int used as a size afterwards: jnp.where would make it an array.
    "JIT101 an assignment of a Python value": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            n = 2
            if jnp.all(x > 0):
                n = 3
            return jnp.zeros(n) + x.sum()
        """,
    ),
    # The body prints: a jnp.where rewrite would print on both sides.
    "JIT101 an assignment with a side effect": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            if jnp.all(x > 0):
                x = print(x)
            return x
        """,
    ),
    # The listed number already names a flag the method tests (it counts the module): the
    # traced `verbose` is another parameter, left out on purpose or by mistake.
    "JIT101 lifted static numbers that count the module": (
        "JIT101",
        """
        import flax.linen as nn
        class Block(nn.Module):
            @nn.compact
            def __call__(self, x, train, verbose):
                if train:
                    x = nn.Dropout(0.1, deterministic=False)(x)
                if verbose:
                    print("block")
                return x
        class Net(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.remat(Block, static_argnums=(2,))()(x, True, False)
        """,
    ),
    # The append's result is used: a callback returns None.
    "JIT107 an append whose result is used": (
        "JIT107",
        """
        import jax
        seen = []
        @jax.jit
        def f(x):
            done = seen.append(x)
            return x
        """,
    ),
    # The statement between reads the environment the write depends on.
    "JIT301 a write reading a name set in between": (
        "JIT301",
        """
        import os
        import jax
        def start(n):
            print(jax.devices())
            n = n * 2
            os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={n}"
        """,
    ),
    # `call` needs a result shape that the old API did not ask for.
    "JIT118 host_callback.call": (
        "JIT118",
        """
        import jax
        from jax.experimental import host_callback as hcb
        def f(x):
            return hcb.call(print, x)
        """,
    ),
    # A scan given only `init` and `length` (no xs): not rewritten.
    "JIT120 linen scan without xs": (
        "JIT120",
        """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp
        class Loop(nn.Module):
            @nn.compact
            def __call__(self, x):
                cell = nn.Dense(3)
                def step(c, _):
                    return cell(c), None
                out, _ = jax.lax.scan(step, x, length=3)
                return out
        """,
    ),
}


@pytest.mark.parametrize("name", list(WITHHELD), ids=lambda n: n.replace(" ", "_"))
def test_the_finding_stays_without_a_fix(name):
    code, text = WITHHELD[name]
    source = textwrap.dedent(text).lstrip()
    findings = lint_source(source, "case.py", select=[code])
    assert findings, "the hazard is no longer reported"
    assert all(f.fix is None for f in findings), [f.fix for f in findings]
    assert fix_source(source, "case.py", select=[code], unsafe=True).source == source
