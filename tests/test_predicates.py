"""Type-test predicate summaries (python/predicates.py): which function bodies are a type test
of their parameters, and what a call of one proves about its arguments."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jitlint.python.names import Names
from jitlint.python.predicates import (
    Guards,
    Predicate,
    conjuncts,
    narrow,
    predicate_of,
    proven,
    restore,
)

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


def _strings_proven(test: str, outcome: bool) -> frozenset[str]:
    """The names `test` proves are not strings where it evaluated to `outcome`: a kind
    of value no framework owns, so that nothing of JAX's is needed to read the guard."""
    module = cst.parse_module(f"if {test}:\n    pass\n")
    names = Names(module)
    condition = module.body[0].test  # type: ignore[attr-defined]

    def resolve(expr: cst.CSTNode) -> frozenset[str]:
        return frozenset(names.qualified_names(expr, [module]))

    def proves(types: frozenset[str], held: bool) -> bool:
        if held:  # an instance of these is no string
            return bool(types) and types <= {"builtins.int", "types.NoneType"}
        return types == {"builtins.str"}

    return Guards(resolve, None, proves, frozenset({"upper"})).facts(condition, outcome)


@pytest.mark.parametrize(
    ("test", "outcome", "names"),
    [
        ("isinstance(s, int)", True, {"s"}),
        ("isinstance(s, int)", False, set()),
        ("isinstance(s, str)", False, {"s"}),
        ("not isinstance(s, str)", True, {"s"}),
        ("s is None", True, {"s"}),
        ("s is not None", False, {"s"}),
        ("s is not None", True, set()),
        ("type(s) is int", True, {"s"}),
        ("type(s) in (int, type(None))", True, {"s"}),
        ("type(s) is float", True, set()),  # the kind says nothing of float
        ('hasattr(s, "upper")', False, {"s"}),  # every string has it
        ('hasattr(s, "shape")', False, set()),
        ("isinstance(s, int) and isinstance(t, int)", True, {"s", "t"}),
        ("isinstance(s, int) and isinstance(t, int)", False, set()),
        ("isinstance(s, int) or s is None", True, {"s"}),
    ],
)
def test_guards_read_a_test_for_the_kind_they_are_given(test, outcome, names):
    assert _strings_proven(test, outcome) == names


def test_narrowing_is_undone_except_for_names_rebound_since():
    env = {"a": "traced", "b": "traced"}
    marks = narrow(env, ["a", "b", "c"], lambda: object())
    assert all(env[name] is marks[name][0] for name in "abc")
    env["b"] = "rebound"
    restore(env, marks)
    assert env == {"a": "traced", "b": "rebound"}  # c was unbound before: unbound again


def test_conjuncts_of_an_and_chain():
    def spelled(text: str) -> list[str]:
        parts = conjuncts(cst.parse_expression(text))
        return [cst.Module([]).code_for_node(part) for part in parts]

    assert spelled("a and b.c() and not d") == ["a", "b.c()", "not d"]
    assert spelled("(a or b) and c") == ["(a or b)", "c"]
    assert spelled("a or b") == ["a or b"]
