"""The call binder (jitlint/python/binding.py) against Python's own binding."""

from __future__ import annotations

import inspect
from typing import Any

import libcst as cst
import pytest

from jitlint.python.binding import (
    DOUBLE_STARRED,
    STARRED,
    Bound,
    Signature,
    bind,
    bind_call,
    call_arguments,
    keyword_argument,
    may_reach,
    never_passed,
    positional_argument,
    receivers,
)


def signature(source: str, receivers: int = 0) -> Signature:
    func = cst.parse_module(source).body[0]
    assert isinstance(func, cst.FunctionDef)
    return Signature.of(func, receivers)


def bind_text(definition: str, call: str) -> Bound[cst.BaseExpression]:
    node = cst.parse_expression(call)
    assert isinstance(node, cst.Call)
    return bind_call(signature(definition), node)


def code(bound: dict[str, cst.BaseExpression]) -> dict[str, str]:
    return {name: cst.Module([]).code_for_node(expr) for name, expr in bound.items()}


def test_signature_of_every_kind_of_parameter() -> None:
    sig = signature("def f(a, /, b, c=1, *args, d, e=2, **kwargs): pass")
    assert sig.positional == ("a", "b", "c")
    assert sig.positional_only == ("a",)
    assert sig.keyword_only == ("d", "e")
    assert (sig.var_positional, sig.var_keyword) == ("args", "kwargs")
    assert sig.names == ("a", "b", "c", "d", "e", "args", "kwargs")
    assert set(sig.default_of) == {"c", "e"}
    assert sig.accepts_keyword("b") and sig.accepts_keyword("d")
    assert not sig.accepts_keyword("a") and not sig.accepts_keyword("args")


def test_bare_star_is_no_var_positional() -> None:
    sig = signature("def f(a, *, b): pass")
    assert sig.var_positional is None and not sig.has_var_positional
    assert sig.keyword_only == ("b",)


def test_positional_and_keyword_arguments() -> None:
    bound = bind_text("def f(a, b, c): pass", "f(1, c=3, b=2)")
    assert code(bound.arguments) == {"a": "1", "b": "2", "c": "3"}
    assert bound.certain and not bound.fails
    assert bound.targets == ("a", "c", "b")


def test_defaults_not_passed_keep_their_expression() -> None:
    bound = bind_text("def f(x, rng=None, *, scale=2.0): pass", "f(x)")
    assert code(bound.arguments) == {"x": "x"}
    assert code(bound.defaulted) == {"rng": "None", "scale": "2.0"}
    assert bound.missing == () and bound.uncertain == ()
    assert bound.certain


def test_passed_default_is_an_argument_not_a_default() -> None:
    bound = bind_text("def f(x, rng=None): pass", "f(x, key)")
    assert code(bound.arguments) == {"x": "x", "rng": "key"}
    assert bound.defaulted == {}


def test_too_many_positional_arguments() -> None:
    bound = bind_text("def f(a, b): pass", "f(1, 2, 3)")
    assert code(bound.arguments) == {"a": "1", "b": "2"}
    assert [cst.Module([]).code_for_node(v) for v in bound.surplus] == ["3"]
    assert bound.fails
    assert bound.targets == ("a", "b", None)


def test_var_positional_collects_the_rest() -> None:
    bound = bind_text("def f(a, *rest, **named): pass", "f(1, 2, 3, k=4)")
    assert code(bound.arguments) == {"a": "1"}
    assert [cst.Module([]).code_for_node(v) for v in bound.extra_positional] == ["2", "3"]
    assert code(bound.extra_keywords) == {"k": "4"}
    assert bound.targets == ("a", "rest", "rest", "named")
    assert bound.certain and not bound.fails


def test_unknown_keyword_and_repeated_parameter() -> None:
    bound = bind_text("def f(a, b=0): pass", "f(1, a=2, z=3)")
    assert code(bound.arguments) == {"a": "1"}
    assert [name for name, _ in bound.unexpected] == ["a", "z"]
    assert bound.fails


def test_position_filled_by_an_earlier_keyword() -> None:
    # `f(b=1, *[2, 3])` unpacked: Python fills `a` and then `b` twice (TypeError).
    bound = bind(signature("def f(a, b): pass"), [("b", 1), (None, 2), (None, 3)])
    assert bound.arguments == {"b": 1, "a": 2}
    assert bound.unexpected == (("b", 3),)
    assert bound.fails


def test_keyword_for_a_positional_only_parameter_goes_to_kwargs() -> None:
    bound = bind_text("def f(a, /, **kw): pass", "f(1, a=2)")
    assert code(bound.arguments) == {"a": "1"}
    assert code(bound.extra_keywords) == {"a": "2"}
    assert not bound.fails
    assert bind_text("def f(a, /): pass", "f(a=1)").fails


def test_keyword_only_parameters() -> None:
    bound = bind_text("def f(x, *, axis, keepdims=False): pass", "f(x, axis=0)")
    assert code(bound.arguments) == {"x": "x", "axis": "0"}
    assert code(bound.defaulted) == {"keepdims": "False"}
    missing = bind_text("def f(x, *, axis): pass", "f(x, 0)")
    assert missing.missing == ("axis",)
    assert len(missing.surplus) == 1 and missing.fails


def test_missing_parameter_without_default() -> None:
    bound = bind_text("def f(a, b): pass", "f(1)")
    assert bound.missing == ("b",)
    assert bound.fails


def test_unknown_star_makes_later_positions_uncertain() -> None:
    bound = bind_text("def f(a, b, c=0, *, d=1): pass", "f(1, *xs, 5, d=2)")
    assert code(bound.arguments) == {"a": "1", "d": "2"}
    assert set(bound.uncertain) == {"b", "c"}
    assert [cst.Module([]).code_for_node(v) for v in bound.floating] == ["5"]
    assert bound.targets == ("a", None, None, "d")
    assert not bound.certain and not bound.fails
    assert bound.missing == () and bound.defaulted == {}


def test_star_cannot_fill_keyword_only_parameters() -> None:
    bound = bind_text("def f(a, *args, k=1): pass", "f(*xs)")
    assert bound.uncertain == ("a",)
    assert code(bound.defaulted) == {"k": "1"}
    assert bound.open_positional and not bound.open_keywords


def test_double_star_may_fill_every_keyword_parameter() -> None:
    bound = bind_text("def f(a, /, b, c=1, *, d=2, **kw): pass", "f(1, **options)")
    assert code(bound.arguments) == {"a": "1"}
    assert set(bound.uncertain) == {"b", "c", "d"}
    assert bound.open_keywords and not bound.open_positional
    assert not bound.fails  # `b` may come from the options


def test_keyword_after_double_star_is_still_known() -> None:
    bound = bind_text("def f(a, b=1, c=2): pass", "f(**base, c=3)")
    assert code(bound.arguments) == {"c": "3"}
    assert set(bound.uncertain) == {"a", "b"}


def test_rest_unknown_is_a_star_and_a_double_star_after_the_list() -> None:
    sig = signature("def f(a, b=1, *args, c=2, **kw): pass")
    bound = bind(sig, [(None, "x")], rest_unknown=True)
    assert bound.arguments == {"a": "x"}
    assert set(bound.uncertain) == {"b", "c"}
    assert bound.open_positional and bound.open_keywords
    assert not bound.certain


def test_generic_over_the_argument_type() -> None:
    sig = Signature(("x", "y"), var_keyword="kwargs")
    marker = object()
    bound = bind(sig, [(None, marker), ("scale", 3)])
    assert bound.arguments == {"x": marker}
    assert bound.extra_keywords == {"scale": 3}
    assert bound.missing == ("y",)


def test_explicit_star_markers() -> None:
    sig = signature("def f(a, b, **kw): pass")
    bound = bind(sig, [(None, 1), (STARRED, "xs"), (DOUBLE_STARRED, "kw")])
    assert bound.arguments == {"a": 1}
    assert bound.uncertain == ("b",)
    assert bound.open_keywords


def test_receiver_of_a_bound_method() -> None:
    sig = signature("def apply(self, x, training=False): pass", receivers=1)
    assert sig.positional == ("x", "training")
    bound = bind(sig, [(None, "batch")])
    assert bound.arguments == {"x": "batch"}
    assert set(bound.defaulted) == {"training"}


def test_receiver_of_a_positional_only_self() -> None:
    sig = signature("def m(self, /, x): pass", receivers=1)
    assert sig.positional == ("x",) and sig.positional_only == ()


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("class A:\n    def m(self): pass", 1),
        ("class A:\n    @classmethod\n    def m(cls): pass", 1),
        ("class A:\n    @staticmethod\n    def m(x): pass", 0),
    ],
)
def test_receivers(source: str, expected: int) -> None:
    cls = cst.parse_module(source).body[0]
    assert isinstance(cls, cst.ClassDef)
    method = cls.body.body[0]
    assert isinstance(method, cst.FunctionDef)
    assert receivers(method, in_class=True) == expected
    assert receivers(method, in_class=False) == 0
    assert receivers(method, True, ("builtins.staticmethod",)) == 0


def test_call_arguments_mark_star_arguments() -> None:
    node = cst.parse_expression("f(1, *xs, k=2, **kw)")
    assert isinstance(node, cst.Call)
    assert [k for k, _ in call_arguments(node)] == [None, STARRED, "k", DOUBLE_STARRED]


# Python itself decides: every certain binding agrees with inspect.Signature.bind.
DEFINITIONS = [
    "def f(a, b=2, *args, c, d=4, **kw): pass",
    "def f(a, /, b, *, c=3): pass",
    "def f(*args): pass",
    "def f(a, b=1): pass",
    "def f(**kw): pass",
]
CALLS = [
    "f(1)",
    "f(1, 2)",
    "f(1, 2, 3, c=5)",
    "f(1, c=3)",
    "f(a=1, b=2, c=3)",
    "f(1, 2, 3, 4, 5)",
    "f(1, a=1)",
    "f(x=9)",
    "f()",
    "f(1, 2, c=3, d=4, e=5)",
]


@pytest.mark.parametrize("definition", DEFINITIONS)
@pytest.mark.parametrize("call", CALLS)
def test_agrees_with_python(definition: str, call: str) -> None:
    namespace: dict[str, Any] = {}
    exec(definition, namespace)
    node = cst.parse_expression(call)
    assert isinstance(node, cst.Call)
    args = [int(a.value.value) for a in node.args if a.keyword is None]  # type: ignore[attr-defined]
    kwargs = {a.keyword.value: int(a.value.value) for a in node.args if a.keyword is not None}  # type: ignore[attr-defined]
    bound = bind(signature(definition), [(k, v) for k, v in _pairs(node)])
    try:
        expected = inspect.signature(namespace["f"]).bind(*args, **kwargs)
    except TypeError:
        assert bound.fails
        return
    assert not bound.fails
    sig = inspect.signature(namespace["f"])
    got: dict[str, Any] = dict(bound.arguments)
    for name, param in sig.parameters.items():
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            got[name] = bound.extra_positional
        elif param.kind is inspect.Parameter.VAR_KEYWORD:
            got[name] = bound.extra_keywords
    expected.apply_defaults()
    for name in bound.defaulted:
        got[name] = sig.parameters[name].default
    assert got == dict(expected.arguments)


def _pairs(node: cst.Call) -> list[tuple[str | None, int]]:
    return [
        (a.keyword.value if a.keyword is not None else None, int(a.value.value))  # type: ignore[attr-defined]
        for a in node.args
    ]


def test_library_arguments_by_position_or_keyword() -> None:
    node = cst.parse_expression("f(a, b, *rest, dtype=d)")
    assert isinstance(node, cst.Call)
    keyword = keyword_argument(node, "dtype")
    assert keyword is not None and cst.Module([]).code_for_node(keyword.value) == "d"
    assert keyword_argument(node, "shape") is None
    second = positional_argument(node, 1)
    assert second is not None and cst.Module([]).code_for_node(second.value) == "b"
    assert positional_argument(node, 3) is None  # after `*rest`: unknown
    hidden = cst.parse_expression("f(*xs, b)")
    assert isinstance(hidden, cst.Call)
    assert positional_argument(hidden, 1) is None


def test_never_passed_keeps_the_defaults_no_call_fills() -> None:
    sig = signature("def f(x, n=None, ids=None, *, k=1, m=2): ...")
    assert never_passed(sig, [(None,), (None, None, "k")]) == {"ids", "m"}
    # A `**kw` may fill every keyword parameter; a `*xs` every position from its place on.
    assert never_passed(sig, [(None, DOUBLE_STARRED)]) == frozenset()
    assert never_passed(sig, [(None, STARRED)]) == {"k", "m"}
    assert never_passed(sig, []) == {"n", "ids", "k", "m"}


_BRANCHES = """
def f(x, axis=None, mode="sum", scale=1, flag=True, other=None):
    if axis is None:
        a = 1
    else:
        b = 2
    if mode == "sum" and flag:
        c = 3
    elif not flag:
        d = 4
    if scale < 0:
        e = 5
    if other is not None:
        return x
    g = 6
"""


def _reaches(call: str, target: str) -> bool:
    """Whether `call` of `_BRANCHES`'s `f` may run the assignment to `target`."""
    module = cst.parse_module(_BRANCHES)
    func = module.body[0]
    assert isinstance(func, cst.FunctionDef)
    found: list[list[cst.CSTNode]] = []

    def walk(node: cst.CSTNode, path: list[cst.CSTNode]) -> None:
        path = [*path, node]
        written = isinstance(node, cst.AssignTarget) and cst.Module([]).code_for_node(node.target)
        if written == target:
            found.append(path)
        for child in node.children:
            walk(child, path)

    walk(module, [])
    node = cst.parse_expression(call)
    assert isinstance(node, cst.Call) and len(found) == 1
    return may_reach(func, bind_call(Signature.of(func), node), found[0])


@pytest.mark.parametrize(
    ("call", "target", "expected"),
    [
        ("f(1)", "a", True),  # axis left at its None default: the `if` branch
        ("f(1)", "b", False),
        ("f(1, 0)", "a", False),  # a literal that is not None: the `else`
        ("f(1, axis=0)", "b", True),
        ("f(1, axis=n)", "a", True),  # a value not written out: either branch
        ("f(1, axis=n)", "b", True),
        ("f(1)", "c", True),
        ("f(1, mode='max')", "c", False),  # `and` decided by one side alone
        ("f(1, mode='max')", "d", False),  # the elif runs only when flag is false
        ("f(1, flag=False)", "d", True),
        ("f(1, flag=x)", "c", True),
        ("f(1, scale=-2)", "e", True),  # `<` is not decided here: either branch
        ("f(1, other=None)", "g", True),
        ("f(1, other=2)", "g", False),  # the `if` before it returns on that branch
        ("f(1, *rest)", "b", True),  # a star argument may fill axis
    ],
)
def test_may_reach_follows_the_branches_literal_arguments_take(
    call: str, target: str, expected: bool
) -> None:
    assert _reaches(call, target) is expected


def test_may_reach_forgets_a_parameter_the_function_rebinds() -> None:
    module = cst.parse_module(
        "def f(axis=None):\n    axis = pick()\n    if axis is None:\n        a = 1\n"
    )
    func = module.body[0]
    assert isinstance(func, cst.FunctionDef)
    branch = func.body.body[1]
    assert isinstance(branch, cst.If)
    body = branch.body
    assert isinstance(body, cst.IndentedBlock)
    statement = body.body[0]
    path = [module, func, func.body, branch, body, statement]
    call = cst.parse_expression("f(axis=0)")
    assert isinstance(call, cst.Call)
    assert may_reach(func, bind_call(Signature.of(func), call), path)
