"""Type-test predicate summaries (python/predicates.py): which function bodies are a type test
of their parameters, and what a call of one proves about its arguments."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jitlint.python.names import Names
from jitlint.python.predicates import Predicate, predicate_of, proven

HEADER = "import numbers\nfrom pkg import Special\n"


def _summary(source: str) -> Predicate | None:
    module = cst.parse_module(HEADER + textwrap.dedent(source))
    func = next(s for s in module.body if type(s) is cst.FunctionDef)
    return predicate_of(Names(module), func, [module])


@pytest.mark.parametrize(
    "source",
    [
        "def f(x):\n    return isinstance(x, int)\n",
        "def f(x): return not isinstance(x, numbers.Number)\n",
        'def f(x, y):\n    """Doc."""\n'
        "    return isinstance(x, (int, float)) or not isinstance(y, Special)\n",
        "def f(x, *, y):\n    return isinstance(x, int) and isinstance(y, str)\n",
    ],
)
def test_summaries_survive_the_round_trip_through_records(source):
    found = _summary(source)
    assert found is not None
    assert Predicate.decode(found.encode()) == found


@pytest.mark.parametrize(
    "source",
    [
        "def f(x):\n    y = x\n    return isinstance(y, int)\n",  # more than one statement
        "def f(x):\n    return isinstance(x, int) and x > 0\n",  # not only type tests
        "def f(x):\n    return isinstance(g, int)\n",  # not a parameter
        "def f(x):\n    return isinstance(x, kinds())\n",  # types unknown here
        "@cache\ndef f(x):\n    return isinstance(x, int)\n",  # a decorator may change it
        "def f(x):\n    if x:\n        return isinstance(x, int)\n",
        "def f(x):\n    isinstance = print\n    return isinstance(x, int)\n",
    ],
)
def test_other_bodies_have_no_summary(source):
    assert _summary(source) is None


def _proven(source: str, call: str, outcome: bool) -> frozenset[str]:
    summary = _summary(source)
    assert summary is not None
    expr = cst.parse_expression(call)
    assert type(expr) is cst.Call

    def proves(types: frozenset[str], held: bool) -> bool:
        return held and types == {"builtins.int"}

    return proven(summary, expr, outcome, proves)


def test_a_call_proves_what_its_test_says_of_the_bound_arguments():
    two = "def f(a, b):\n    return isinstance(a, int) and not isinstance(b, Special)\n"
    assert _proven(two, "f(n, m)", True) == {"n"}
    assert _proven(two, "f(b=m, a=n)", True) == {"n"}
    assert _proven(two, "f(n, m)", False) == set()  # either operand may have failed
    assert _proven(two, "f(n + 1, m)", True) == set()  # not a name
    assert _proven(two, "f(n, m, k)", True) == set()  # raises TypeError
    either = "def f(a, b):\n    return isinstance(a, int) or isinstance(b, int)\n"
    assert _proven(either, "f(n, n)", True) == {"n"}
    assert _proven(either, "f(n, m)", True) == set()
    assert _proven("def f(a):\n    return not isinstance(a, int)\n", "f(n)", False) == {"n"}
