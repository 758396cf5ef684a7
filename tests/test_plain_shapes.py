"""Plain-Python shapes of JAX hazards: a NamedTuple of functions given to a traced parameter,
and library functions built on jax (optax) whose results are tracers in traced code. Each
positive case fails under jax 0.10.2 at the marked line; each negative one runs."""

from __future__ import annotations

import textwrap

import pytest
from helpers import expected, found

JAX_RULES = {f"JIT1{n:02d}" for n in range(1, 14)}

POSITIVE = {
    # The optimizer triple bundled in a NamedTuple reaches a traced parameter.
    "namedtuple_of_functions_to_jit": """
        from typing import Any, Callable, NamedTuple

        import jax
        import jax.numpy as jnp

        class Optimizer(NamedTuple):
            init: Callable[[Any], Any]
            update: Callable[[Any, Any], Any]

        def sgd(rate):
            def init(params):
                return params

            def update(grads, state):
                return state - rate * grads

            return Optimizer(init, update)

        def run(optimizer, state, grads):
            return optimizer.update(grads, state)

        opt = sgd(0.1)
        state = opt.init(jnp.ones(2))
        print(jax.jit(run)(opt, state, jnp.ones(2)))  # error: JIT111
        """,
    # optax.global_norm of traced gradients is a tracer: float() fails.
    "optax_global_norm_float": """
        import jax
        import optax

        def make_step(optimizer):
            def step(params, grads, opt_state):
                updates, opt_state = optimizer.update(grads, opt_state)
                params = optax.apply_updates(params, updates)
                return params, float(optax.global_norm(grads))  # error: JIT102

            return jax.jit(step)
        """,
}

NEGATIVE = {
    # The same NamedTuple passed as a static argument (functions hash by identity).
    "namedtuple_of_functions_static": """
        from functools import partial
        from typing import Any, Callable, NamedTuple

        import jax
        import jax.numpy as jnp

        class Optimizer(NamedTuple):
            update: Callable[[Any, Any], Any]

        def update(grads, state):
            return state - grads

        @partial(jax.jit, static_argnums=0)
        def run(optimizer, state, grads):
            return optimizer.update(grads, state)

        opt = Optimizer(update)
        print(run(opt, jnp.ones(2), jnp.ones(2)))
        """,
    # A NamedTuple of arrays is a pytree of arrays.
    "namedtuple_of_arrays": """
        from typing import NamedTuple

        import jax
        import jax.numpy as jnp

        class State(NamedTuple):
            w: jnp.ndarray
            b: jnp.ndarray

        def run(state, x):
            return state.w * x + state.b

        print(jax.jit(run)(State(jnp.ones(2), jnp.zeros(2)), jnp.ones(2)))
        """,
    # The norm returned from the jitted step and converted outside it.
    "optax_global_norm_outside": """
        import jax
        import optax

        @jax.jit
        def norm(grads):
            return optax.global_norm(grads)

        def log(grads):
            return float(norm(grads))
        """,
}


@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_plain_shapes_are_found(name):
    source = textwrap.dedent(POSITIVE[name])
    assert found(source, JAX_RULES) == expected(source)


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_plain_shapes_stay_quiet(name):
    assert found(NEGATIVE[name], JAX_RULES) == set()
