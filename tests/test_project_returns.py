"""Return facts across files (model/jax/crossfile/returns.py): a helper of another module that
returns a Python list gives its traced caller a list, so indexing it with a tracer is a
concretization error; a helper returning an array (or something unknown) is not."""

from __future__ import annotations

from test_project import check, where, write

HELPERS = """
from typing import List


def candidates(names: List[str]) -> List[frozenset]:
    return [frozenset({n}) for n in names]


def built(names):
    out = []
    for n in names:
        out.append(frozenset({n}))
    return out


def table(names):
    import jax.numpy as jnp
    return jnp.arange(len(names))
"""

TRAIN = """
import jax
import jax.numpy as jnp

from .helpers import built, candidates, table


@jax.jit
def pick(scores):
    order = jnp.argsort(scores)
    first = [candidates(["a", "b"])[i] for i in order]
    second = [built(["a", "b"])[i] for i in order]
    third = [table(["a", "b"])[i] for i in order]
    return first, second, third
"""


def test_list_returned_by_another_module_indexed_with_a_tracer(tmp_path):
    root = write(
        tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/train.py": TRAIN}
    )
    _, found, err = check(root)
    assert err == ""
    assert where(found) == [
        ("pkg/train.py", 11, "JIT102"),
        ("pkg/train.py", 12, "JIT102"),
    ]


def test_one_file_alone_knows_nothing_of_the_helper(tmp_path):
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/train.py": TRAIN})
    _, found, _ = check(root)
    assert where(found) == []


CHECKS = """
import jax.numpy as jnp


def all_finite(state, dim):
    return state.ndim == 1 and state.shape[0] == dim and jnp.all(jnp.isfinite(state))


def right_shape(state, dim):
    return state.ndim == 1 and state.shape[0] == dim
"""

STEP = """
import jax

from .checks import all_finite, right_shape


@jax.jit
def step(state):
    if not all_finite(state, 3):
        state = state * 0
    if not right_shape(state, 3):
        state = state * 2
    return state


def eager(state):
    if not all_finite(state, 3):
        return None
    return state
"""


def test_helper_of_another_module_returning_a_jax_result(tmp_path):
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/checks.py": CHECKS, "pkg/step.py": STEP})
    _, found, err = check(root)
    assert err == ""
    assert where(found) == [("pkg/step.py", 9, "JIT101")]


# numpyro's `not_jax_tracer` (numpyro/util.py), imported by the inference code that guards
# host-side shortcuts with it: a type-test predicate narrows its argument across files.
PREDICATES = """
from jax.core import Tracer


def not_jax_tracer(x):
    \"\"\"Whether `x` is a concrete value.\"\"\"
    return not isinstance(x, Tracer)


def is_jax_array(x):
    import jax
    return isinstance(x, jax.Array)
"""

SEARCH = """
import jax
import jax.numpy as jnp

from .util import is_jax_array, not_jax_tracer


@jax.jit
def search(x):
    valid = jnp.all(jnp.isfinite(x))
    if not_jax_tracer(valid):
        if valid:
            return x
    if is_jax_array(valid):
        if valid:
            return -x
    return x
"""


def test_type_test_predicate_of_another_module_narrows_its_argument(tmp_path):
    root = write(
        tmp_path, {"pkg/__init__.py": "", "pkg/util.py": PREDICATES, "pkg/search.py": SEARCH}
    )
    _, found, err = check(root)
    assert err == ""
    # Line 12 is guarded by the concrete-value test; line 15's guard proves nothing.
    assert where(found) == [("pkg/search.py", 15, "JIT101")]
    # Alone, the file cannot see the predicate's body: both `if`s are reported.
    _, alone, _ = check(root, "pkg/search.py")
    assert where(alone) == [("pkg/search.py", 12, "JIT101"), ("pkg/search.py", 15, "JIT101")]


# lineax's sentinel default (`_custom_types.py`: `sentinel = eqxi.doc_repr(object(), ...)`,
# `_solve.py`: `def linear_solve(..., state=sentinel): if state == sentinel:`), reached with a
# traced state from diffrax's root finder: a JAX array compared with a bare object answers
# by identity, a Python bool (jax 0.10.2: `tracer == object()` is False inside jit).
SENTINEL_TYPES = """
from typing import Any

import equinox.internal as eqxi

sentinel: Any = eqxi.doc_repr(object(), "sentinel")
plain = object()
DEFAULT_SCALE = 1.0
"""

SENTINEL_SOLVE = """
import jax
from jax import lax

from ._types import DEFAULT_SCALE, plain, sentinel


def linear_solve(x, state=sentinel):
    if state == sentinel:
        state = x
    return x + state


def other_solve(x, state=plain):
    if state != plain:
        return x + state
    return x


def scaled(x, scale=DEFAULT_SCALE):
    if scale == DEFAULT_SCALE:
        return x
    return x * scale


@jax.jit
def step(x, s):
    s = lax.stop_gradient(s)
    return linear_solve(x, state=s) + other_solve(x, state=s) + scaled(x, scale=s)
"""


def test_a_sentinel_of_another_module_compared_with_a_tracer_is_a_python_bool(tmp_path):
    root = write(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/_types.py": SENTINEL_TYPES, "pkg/solve.py": SENTINEL_SOLVE},
    )
    _, found, err = check(root)
    assert err == ""
    # Only the float default compares as an array.
    assert where(found) == [("pkg/solve.py", 21, "JIT101")]
    # Alone, the file cannot see what `sentinel` is: every comparison is reported.
    _, alone, _ = check(root, "pkg/solve.py")
    assert where(alone) == [
        ("pkg/solve.py", 9, "JIT101"),
        ("pkg/solve.py", 15, "JIT101"),
        ("pkg/solve.py", 21, "JIT101"),
    ]
