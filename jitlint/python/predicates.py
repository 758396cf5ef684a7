"""Type-test predicates: functions whose return value is a type test of their parameters.

`def not_tracer(x): return not isinstance(x, Tracer)` is a TypeGuard in all but annotation:
wherever `if not_tracer(y):` holds, `y` passed the test the body states. The summary of such
a function (its signature and the test, with the types as qualified names resolved in the
defining module) lets a caller narrow its own argument exactly as an inline `isinstance`
would, in the same file or, through the project pass's records, in another one.

Only bodies that are a single `return` of `isinstance(PARAM, TYPES)`, combined with `not`,
`and` and `or`, have a summary: anything else may return a value the caller's test reads
differently. What a passing or failing test proves about the types is the framework's to say
(`proves`), not this module's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from jitlint.python.binding import Signature, bind_call
from jitlint.python.names import Names


@dataclass(frozen=True)
class TypeTest:
    """`isinstance(param, types)`."""

    param: str
    types: frozenset[str]


@dataclass(frozen=True)
class Negation:
    operand: Test


@dataclass(frozen=True)
class Junction:
    """`left and right` (`conjunction`) or `left or right`."""

    conjunction: bool
    left: Test
    right: Test


Test = TypeTest | Negation | Junction


@dataclass(frozen=True)
class Predicate:
    """A function's signature and the type test its return value is."""

    signature: Signature
    test: Test

    def encode(self) -> str:
        """A plain string for the project pass's records (`decode` reads it back)."""
        s = self.signature
        return json.dumps(
            [list(s.positional), list(s.positional_only), list(s.keyword_only), _tree(self.test)],
            separators=(",", ":"),
        )

    @classmethod
    def decode(cls, text: str) -> Predicate | None:
        try:
            positional, positional_only, keyword_only, tree = json.loads(text)
            signature = Signature(tuple(positional), tuple(positional_only), tuple(keyword_only))
            return cls(signature, _untree(tree))
        except (ValueError, TypeError, KeyError, IndexError):
            return None


def predicate_of(
    names: Names, func: cst.FunctionDef, path: Sequence[cst.CSTNode]
) -> Predicate | None:
    """The summary of `func` (whose enclosing nodes are `path`) when its body is one `return`
    of a type test of its parameters, after an optional docstring; else None."""
    if func.asynchronous is not None or func.decorators:
        return None
    body = func.body
    lines = body.body if type(body) is cst.IndentedBlock else [body]
    if any(type(line) not in (cst.SimpleStatementLine, cst.SimpleStatementSuite) for line in lines):
        return None
    statements = [small for line in lines for small in line.body]  # type: ignore[attr-defined]
    if statements and type(statements[0]) is cst.Expr and _is_string(statements[0].value):  # type: ignore[attr-defined]
        statements = statements[1:]  # the docstring
    if len(statements) != 1 or type(statements[0]) is not cst.Return:
        return None
    value = statements[0].value  # type: ignore[attr-defined]
    if value is None:
        return None
    signature = Signature.of(func)
    params = set(signature.positional) | set(signature.keyword_only)
    test = _test(names, value, params, [*path, func, body])
    return Predicate(signature, test) if test is not None else None


def _test(
    names: Names, expr: cst.BaseExpression, params: set[str], path: list[cst.CSTNode]
) -> Test | None:
    kind = type(expr)
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Not:  # type: ignore[attr-defined]
        inner = _test(names, expr.expression, params, path)  # type: ignore[attr-defined]
        return Negation(inner) if inner is not None else None
    if kind is cst.BooleanOperation:
        left = _test(names, expr.left, params, path)  # type: ignore[attr-defined]
        right = _test(names, expr.right, params, path)  # type: ignore[attr-defined]
        if left is None or right is None:
            return None
        return Junction(type(expr.operator) is cst.And, left, right)  # type: ignore[attr-defined]
    if kind is not cst.Call:
        return None
    args = expr.args  # type: ignore[attr-defined]
    if len(args) != 2 or any(a.keyword is not None or a.star for a in args):
        return None
    subject, kinds = args[0].value, args[1].value
    if type(subject) is not cst.Name or subject.value not in params:
        return None
    if names.qualified_names(expr.func, path) != {"builtins.isinstance"}:  # type: ignore[attr-defined]
        return None
    types = _types(names, kinds, path)
    return TypeTest(subject.value, types) if types else None


def _types(names: Names, expr: cst.BaseExpression, path: list[cst.CSTNode]) -> frozenset[str]:
    """The qualified names of a class or a tuple of classes; empty when any is unsure."""
    elements = [e for e in expr.elements] if type(expr) is cst.Tuple else None  # type: ignore[attr-defined]
    parts = [e.value for e in elements] if elements is not None else [expr]
    if elements is not None and any(type(e) is not cst.Element for e in elements):
        return frozenset()
    out: set[str] = set()
    for part in parts:
        if type(part) not in (cst.Name, cst.Attribute):
            return frozenset()
        found = names.qualified_names(part, path)
        if not found or "" in found:
            return frozenset()
        out |= found
    return frozenset(out)


def _is_string(expr: cst.BaseExpression) -> bool:
    return type(expr) in (cst.SimpleString, cst.ConcatenatedString)


def _tree(test: Test) -> list:
    if type(test) is TypeTest:
        return ["isinstance", test.param, sorted(test.types)]
    if type(test) is Negation:
        return ["not", _tree(test.operand)]
    return ["and" if test.conjunction else "or", _tree(test.left), _tree(test.right)]  # type: ignore[union-attr]


def _untree(tree: list) -> Test:
    head = tree[0]
    if head == "isinstance":
        return TypeTest(str(tree[1]), frozenset(str(t) for t in tree[2]))
    if head == "not":
        return Negation(_untree(tree[1]))
    if head in ("and", "or"):
        return Junction(head == "and", _untree(tree[1]), _untree(tree[2]))
    raise ValueError(head)


# What a type test proves: given the tested types and whether `isinstance` held, whether the
# subject is known to be of the kind the caller asks about.
Proves = Callable[[frozenset[str], bool], bool]


def proven(predicate: Predicate, call: cst.Call, outcome: bool, proves: Proves) -> frozenset[str]:
    """The names, passed as arguments of `call`, that `proves` holds for wherever the call
    returned a value whose truth is `outcome`."""
    bound = bind_call(predicate.signature, call)
    if bound.fails:
        return frozenset()
    arguments = {
        param: arg.value
        for param, arg in bound.arguments.items()
        if type(arg) is cst.Name
    }  # fmt: skip
    return _proven(predicate.test, arguments, outcome, proves)


def _proven(
    test: Test, arguments: Mapping[str, str], outcome: bool, proves: Proves
) -> frozenset[str]:
    if type(test) is TypeTest:
        name = arguments.get(test.param)
        return (
            frozenset({name}) if name is not None and proves(test.types, outcome) else frozenset()
        )
    if type(test) is Negation:
        return _proven(test.operand, arguments, not outcome, proves)
    left = _proven(test.left, arguments, outcome, proves)  # type: ignore[union-attr]
    right = _proven(test.right, arguments, outcome, proves)  # type: ignore[union-attr]
    # `A and B` true: both held; false: one of them failed, only common facts survive.
    return left | right if test.conjunction == outcome else left & right  # type: ignore[union-attr]
