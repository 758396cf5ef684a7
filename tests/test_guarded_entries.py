"""Branches a traced call cannot enter: a transformation applied under `if x is not None:`
(directly or through a flag bound once to the test) traces code that reads `x` as not None,
in this file and in the files it calls."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from helpers import found
from test_project import check, where, write

from jitlint.python.binding import not_none_at
from jitlint.python.walker import descendants

CHECKS = """\
import jax.numpy as jnp


def check_light(x, grid=None):
    if grid is None and jnp.any(x <= 0.0):
        raise ValueError("no light")
    return x * 2
"""

FLUXES = """\
import jax
import jax.numpy as jnp
from pkg.checks import check_light


def fluxes(x, grid=None):
    {flag}

    def step(c, xs):
        return check_light(c, grid=grid), None

    if {test}:
        x, _ = jax.lax.scan(step, x, jnp.ones(3))
    else:
        for _ in range(3):
            x = check_light(x, grid=grid)
    return x
"""


@pytest.mark.parametrize(
    ("flag", "test", "expected"),
    [
        # The scan runs only where `grid` is given: its step never converts the check.
        ("diff = grid is not None", "diff", []),
        ("pass", "grid is not None", []),
        ("pass", "grid", []),
        ("diff = grid is None", "not diff", []),
        # Not a test of `grid`: the scan may run with grid None.
        ("diff = True", "diff", [("pkg/checks.py", 5, "JIT101")]),
        ("pass", "x is not None", [("pkg/checks.py", 5, "JIT101")]),
    ],
)
def test_a_scan_under_a_not_none_test_passes_that_name_on(tmp_path, flag, test, expected):
    files = {
        "pkg/__init__.py": "",
        "pkg/checks.py": CHECKS,
        "pkg/fluxes.py": FLUXES.format(flag=flag, test=test),
    }
    root = write(tmp_path, files)
    status, found, err = check(root, "--select", "JIT101", "pkg")
    assert status in (0, 1), err
    assert where(found) == expected


FORWARD = """\
import jax
import jax.numpy as jnp
from typing import NamedTuple


class Grid(NamedTuple):
    n: int


def check_light(x, grid=None):
    if grid is None and jnp.any(x <= 0.0):
        raise ValueError("no light")
    return x * 2


def fluxes(x, grid=None):
    def step(c, xs):
        return check_light(c, grid=grid), None

    x, _ = jax.lax.scan(step, x, jnp.ones(3))
    return x


def make_forward(n):
    grid = {made}

    def forward(x):
        return jnp.sum(fluxes(x, grid=grid))

    return forward


jax.grad(make_forward(3))(jnp.ones(3))
"""


@pytest.mark.parametrize(
    ("made", "expected"),
    [
        ("Grid(n=n)", set()),  # an instance a class call made is no None
        ("n", set()),
        ("lookup(n)", {(11, "JIT101")}),  # may be None: kept
    ],
)
def test_a_name_bound_to_an_instance_is_not_none(made, expected):
    assert found(FORWARD.format(made=made), {"JIT101"}) == expected


NEIGHBORS = """\
import jax
import jax.numpy as jnp


def update(position, neighbors=None):
    def rebuild(x):
        if neighbors is None:
            if jnp.all(x < 3.0):
                return x
        return x + 1

    nbrs = neighbors
    if nbrs is None:
        return rebuild(position)
    return jax.lax.cond(jnp.any(position > 1.0), rebuild, lambda x: x, position)


update(jnp.ones(3), {given})
"""


@pytest.mark.parametrize(("given", "expected"), [("object()", set()), ("None", set())])
def test_a_branch_after_an_early_return_on_an_alias(given, expected):
    # The cond runs only after `nbrs`, another name for `neighbors`, is known not None:
    # `rebuild`'s `if neighbors is None:` branch runs only eagerly.
    assert found(NEIGHBORS.format(given=given), {"JIT101"}) == expected


def _not_none(source: str) -> frozenset[str]:
    module = cst.parse_module(textwrap.dedent(source))
    func = module.body[0]
    assert isinstance(func, cst.FunctionDef)
    site = next(n for n in descendants(func) if type(n) is cst.Call and n.func.value == "site")  # type: ignore[attr-defined]
    return not_none_at(func, site)


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("def f(a, b=None):\n    on = b is not None\n    if on:\n        site()\n", {"b"}),
        ("def f(a, b=None):\n    if b is None:\n        pass\n    else:\n        site()\n", {"b"}),
        ("def f(a, b=None):\n    if a and not b is None:\n        site()\n", {"a", "b"}),
        ("def f(a, b=None):\n    if a or b:\n        site()\n", set()),
        ("def f(a, b=None):\n    if b is None:\n        site()\n", set()),
        # `b` bound again, or the flag bound twice: nothing is known.
        ("def f(a, b=None):\n    if b:\n        site()\n    b = None\n", set()),
        (
            "def f(b=None):\n    on = b is not None\n    on = True\n    if on:\n        site()\n",
            set(),
        ),
        # After an early exit on the test, through a plain alias bound before it.
        ("def f(b=None):\n    if b is None:\n        return 0\n    site()\n", {"b"}),
        ("def f(b=None):\n    c = b\n    if c is None:\n        return 0\n    site()\n", {"b"}),
        (
            "def f(b=None):\n    c = b\n    c = g()\n"
            "    if c is None:\n        return 0\n    site()\n",
            set(),
        ),
        ("def f(b=None):\n    if b is None:\n        log()\n    site()\n", set()),
        (
            "def f(b=None):\n    on = b is not None\n    for on in xs:\n        pass\n"
            "    if on:\n        site()\n",
            set(),
        ),
    ],
)
def test_not_none_at_reads_the_branches_around_a_site(source, names):
    assert _not_none(source) == names
