"""Type tests: functions whose return value is a type test of their parameters (predicates),
and the guards that narrow a name in the code they guard.

`def not_tracer(x): return not isinstance(x, Tracer)` is a TypeGuard in all but annotation:
wherever `if not_tracer(y):` holds, `y` passed the test the body states. The summary of such
a function (its signature and the test, with the types as qualified names resolved in the
defining module) lets a caller narrow its own argument exactly as an inline `isinstance`
would, in the same file or, through the project pass's records, in another one.

Only bodies that are a single `return` of `isinstance(PARAM, TYPES)`, combined with `not`,
`and` and `or`, have a summary: anything else may return a value the caller's test reads
differently. What a passing or failing test proves about the types is the framework's to say
(`proves`), not this module's.

Narrowing (`Guards`) reads a test (`isinstance(x, T)`, `type(x) is T`, `x is None`,
`hasattr(x, "a")`, a predicate's call, a test only text has (`x.startswith("a")`), under
`not`/`and`/`or`) for the names it proves are not of one kind of value where the test
evaluated to a given outcome; the kind (a framework's tracer, say) is given by what its type
tests prove, the attributes all its values have (a failed `hasattr` of one) and, where known,
every attribute any of them has (a held `hasattr` of another).
`narrow` and `restore` apply such a proof to a flow-sensitive environment of local names and
undo it where the guarded code ends, for the early exits, branches and asserts an interpreter
follows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import libcst as cst

from jitlint.python.binding import Signature, bind_call
from jitlint.python.builtins_facts import TEXT_TESTS, TEXT_TYPES
from jitlint.python.names import Names, is_none_literal


@dataclass(frozen=True)
class TypeTest:
    """`isinstance(param, types)`."""

    param: str
    types: frozenset[str]


@dataclass(frozen=True)
class Negation:
    """`not` of a test."""

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


# ---- narrowing ----------------------------------------------------------------------------
Facts = frozenset[str]
NOTHING: Facts = frozenset()
NONE_TYPE = "types.NoneType"
Resolve = Callable[[cst.CSTNode], frozenset[str]]
# The type-test summary of the function a call calls, when it has one.
PredicateOf = Callable[[cst.Call], Predicate | None]


class Guards:
    """Reads guards in one function for the names they prove are not of one kind of value.
    `resolve` gives an expression's qualified names, `predicate` the type-test summary of a
    called function; `proves` says what an `isinstance` evaluating to True or False proves
    about the kind, and `attributes` are attributes every value of the kind has (so a failed
    `hasattr` proves the subject is not one)."""

    def __init__(
        self,
        resolve: Resolve,
        predicate: PredicateOf | None,
        proves: Proves,
        attributes: frozenset[str] = frozenset(),
        opaque: Callable[[cst.Call], bool] | None = None,
        members: frozenset[str] = frozenset(),
    ) -> None:
        self.resolve = resolve
        self.predicate = predicate
        self.proves = proves
        self.attributes = attributes
        # Every attribute a value of the kind may have (none known: empty): where
        # `hasattr(x, "items")` holds for a name outside them, x is not of the kind.
        self.members = members
        # A called function the run cannot read (`opaque` says which) may be a type test of
        # its arguments, either way round: in neither branch are they taken for the kind, so
        # what the run does not know yields no error.
        self.opaque = opaque
        self._memo: dict[tuple[int, bool], Facts] = {}

    def facts(self, test: cst.BaseExpression, outcome: bool) -> Facts:
        """Names that are not of the kind wherever `test` evaluated to `outcome`."""
        key = (id(test), outcome)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._facts(test, outcome)
        return found

    def _facts(self, test: cst.BaseExpression, outcome: bool) -> Facts:
        kind = type(test)
        if kind is cst.UnaryOperation and type(test.operator) is cst.Not:  # type: ignore[attr-defined]
            return self.facts(test.expression, not outcome)  # type: ignore[attr-defined]
        if kind is cst.BooleanOperation:
            left = self.facts(test.left, outcome)  # type: ignore[attr-defined]
            right = self.facts(test.right, outcome)  # type: ignore[attr-defined]
            is_and = type(test.operator) is cst.And  # type: ignore[attr-defined]
            # `A and B` true: both held; false: one of them failed, only common facts survive.
            return left | right if is_and == outcome else left & right
        if kind is cst.Call:
            if not outcome and self._is_kind_hasattr(test):  # type: ignore[arg-type]
                return frozenset({test.args[0].value.value})  # type: ignore[attr-defined]
            if outcome and self._is_foreign_hasattr(test):  # type: ignore[arg-type]
                return frozenset({test.args[0].value.value})  # type: ignore[attr-defined]
            found = self._isinstance(test, outcome) or self._text_test(test)  # type: ignore[arg-type]
            if not found and self.predicate is not None:
                predicate = self.predicate(test)  # type: ignore[arg-type]
                if predicate is not None:
                    return proven(predicate, test, outcome, self.proves)  # type: ignore[arg-type]
            if not found and self.opaque is not None and self.opaque(test):  # type: ignore[arg-type]
                return frozenset(
                    arg.value.value  # type: ignore[attr-defined]
                    for arg in test.args  # type: ignore[attr-defined]
                    if arg.keyword is None and not arg.star and type(arg.value) is cst.Name
                )
            return found
        if kind is cst.Comparison:
            return self._comparison(test, outcome)  # type: ignore[arg-type]
        return NOTHING

    def _isinstance(self, call: cst.Call, outcome: bool) -> Facts:
        args = _positional(call, 2)
        if args is None:
            return NOTHING
        subject = args[0]
        if type(subject) is not cst.Name or not self.resolves(call.func, "builtins.isinstance"):
            return NOTHING
        types = self._guard_types(args[1])
        return frozenset({subject.value}) if self.proves(types, outcome) else NOTHING

    def _text_test(self, call: cst.Call) -> Facts:
        """`x.startswith("X")`, either way it came out: the call completed, so `x` is text."""
        func = call.func
        if type(func) is not cst.Attribute or type(func.value) is not cst.Name:
            return NOTHING
        if func.attr.value not in TEXT_TESTS or not self.proves(TEXT_TYPES, True):
            return NOTHING
        return frozenset({func.value.value})

    def _is_kind_hasattr(self, call: cst.Call) -> bool:
        """`hasattr(x, "shape")` for an attribute every value of the kind has."""
        args = _positional(call, 2)
        if args is None:
            return False
        subject, attr = args
        return (
            type(subject) is cst.Name
            and type(attr) is cst.SimpleString
            and attr.evaluated_value in self.attributes  # type: ignore[attr-defined]
            and self.resolves(call.func, "builtins.hasattr")
        )

    def _is_foreign_hasattr(self, call: cst.Call) -> bool:
        """`hasattr(x, "items")` for an attribute no value of the kind has."""
        args = _positional(call, 2)
        if args is None or not self.members:
            return False
        subject, attr = args
        return (
            type(subject) is cst.Name
            and type(attr) is cst.SimpleString
            and attr.evaluated_value not in self.members  # type: ignore[attr-defined]
            and self.resolves(call.func, "builtins.hasattr")
        )

    def _comparison(self, test: cst.Comparison, outcome: bool) -> Facts:
        if len(test.comparisons) != 1:
            return NOTHING
        target = test.comparisons[0]
        op = type(target.operator)
        left, right = test.left, target.comparator
        # `x is None` holds / `x is not None` fails: x is None, an instance of NoneType.
        if op in (cst.Is, cst.IsNot) and type(left) is cst.Name and is_none_literal(right):
            held = outcome == (op is cst.Is)
            return (
                frozenset({left.value})
                if held and self.proves(frozenset({NONE_TYPE}), True)
                else NOTHING
            )
        # `type(x) is int`, `type(x) == int`, `type(x) in (int, float)`: x is an instance.
        if outcome and op in (cst.Is, cst.Equal, cst.In) and type(left) is cst.Call:
            subject = self._type_call_subject(left)
            if subject is not None:
                types = self._guard_types(right) if op is cst.In else self._guard_type(right)
                if self.proves(types, True):
                    return frozenset({subject})
        return NOTHING

    def _guard_types(self, expr: cst.BaseExpression) -> frozenset[str]:
        """The qualified names of a class or a tuple of classes; empty when unsure."""
        if type(expr) is cst.Tuple:
            out: set[str] = set()
            for element in expr.elements:  # type: ignore[attr-defined]
                if type(element) is not cst.Element:
                    return frozenset()
                one = self._guard_type(element.value)
                if not one:
                    return frozenset()
                out |= one
            return frozenset(out)
        return self._guard_type(expr)

    def _guard_type(self, expr: cst.BaseExpression) -> frozenset[str]:
        if type(expr) is cst.Call and self._is_none_type(expr):
            return frozenset({NONE_TYPE})
        if type(expr) not in (cst.Name, cst.Attribute):
            return frozenset()
        names = self.resolve(expr)
        return frozenset() if "" in names else names

    def resolves(self, expr: cst.BaseExpression, qualname: str) -> bool:
        """Whether `expr` is a plain name meaning exactly `qualname`."""
        return type(expr) is cst.Name and self.resolve(expr) == {qualname}

    def _type_call_subject(self, call: cst.Call) -> str | None:
        """`x` in `type(x)`, when `type` is the builtin."""
        args = _positional(call, 1)
        if args is None:
            return None
        subject = args[0]
        if type(subject) is not cst.Name or not self.resolves(call.func, "builtins.type"):
            return None
        return subject.value

    def _is_none_type(self, call: cst.Call) -> bool:
        """`type(None)`."""
        return (
            len(call.args) == 1
            and is_none_literal(call.args[0].value)
            and self.resolves(call.func, "builtins.type")
        )


def conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The parts of `a and b and c`, in order (a chain of `and` nests to the left); `[test]`
    for anything else."""
    parts: list[cst.BaseExpression] = []
    stack = [test]
    while stack:
        item = stack.pop()
        if type(item) is cst.BooleanOperation and type(item.operator) is cst.And:
            stack += [item.right, item.left]  # type: ignore[attr-defined]
        else:
            parts.append(item)
    return parts


def _positional(call: cst.Call, count: int) -> list[cst.BaseExpression] | None:
    """The call's arguments when it has exactly `count`, all plain positional ones."""
    args = call.args
    if len(args) != count or any(a.keyword is not None or a.star for a in args):
        return None
    return [a.value for a in args]


V = TypeVar("V")
# Each narrowed name: the marker it was set to, and what it held before (None: unbound).
Marks = dict[str, tuple[V, V | None]]


def narrow(env: dict[str, V], names: Iterable[str], marker: Callable[[], V]) -> Marks[V]:
    """Set each of `names` in `env` to a fresh `marker()` (what a narrowed name holds, a
    Python value, say); returns what `restore` needs to undo it. A fresh marker per name: while
    the name still holds it, nothing has rebound the name, and undoing is safe."""
    marks: Marks[V] = {}
    for name in names:
        value = marker()
        marks[name] = (value, env.get(name))
        env[name] = value
    return marks


def restore(env: dict[str, V], marks: Marks[V]) -> None:
    """Undo `narrow` in `env`, except for names rebound since."""
    for name, (marker, old) in marks.items():
        if env.get(name) is marker:
            if old is None:
                del env[name]
            else:
                env[name] = old
