"""The one call binder: which argument of a call each parameter of a function receives.

Python's own rules (positional arguments fill the positional parameters in order, keywords
fill parameters by name, surplus ones go to `*args`/`**kwargs`, a parameter nobody passes
keeps its default) applied to a call written in the source. The binder is generic over what
an argument is (an expression, an abstract value, a recorded kind): callers bind their own
values and decide what a default, or a parameter a star argument may fill, is worth.

A `*xs` argument of unknown length hides which positions the arguments after it reach, and
may fill every positional parameter from its place on; a `**kw` argument may fill every
parameter that takes a keyword. Such parameters are *uncertain*, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import pairwise
from typing import Generic, TypeVar

import libcst as cst

from jitlint.python.builtins_facts import LITERAL_NAMES, STATICMETHOD
from jitlint.python.uses import bound_names, leaves_on_every_path
from jitlint.python.walker import iter_children, own_scope_nodes

T = TypeVar("T")

# Keywords that stand for `*xs` and `**kw` arguments of unknown contents in an argument list
# (neither is a Python identifier, so no real keyword clashes with them).
STARRED = "*"
DOUBLE_STARRED = "**"


@dataclass(frozen=True)
class Signature:
    """The parameters of a `def` or `lambda`, in the order Python binds them."""

    positional: tuple[str, ...]  # positional-only first, then positional-or-keyword
    positional_only: tuple[str, ...] = ()
    keyword_only: tuple[str, ...] = ()
    var_positional: str | None = None  # the name of `*args`
    var_keyword: str | None = None  # the name of `**kwargs`
    # The parameters with a default, each with its default's expression.
    defaults: tuple[tuple[str, cst.BaseExpression], ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, func: cst.FunctionDef | cst.Lambda, receivers: int = 0) -> Signature:
        """The signature of `func`; `receivers` leading positional parameters are already
        bound (1 for `self` of a bound method or `cls` of a classmethod)."""
        p = func.params
        posonly = tuple(x.name.value for x in p.posonly_params)
        every = (*p.posonly_params, *p.params, *p.kwonly_params)
        signature = cls(
            positional=posonly + tuple(x.name.value for x in p.params),
            positional_only=posonly,
            keyword_only=tuple(x.name.value for x in p.kwonly_params),
            var_positional=p.star_arg.name.value if type(p.star_arg) is cst.Param else None,
            var_keyword=p.star_kwarg.name.value if p.star_kwarg is not None else None,
            defaults=tuple((x.name.value, x.default) for x in every if x.default is not None),
        )
        return signature.after(receivers) if receivers else signature

    def after(self, count: int) -> Signature:
        """The signature left once `count` leading positional parameters are bound (a
        bound method's `self`, a partial's positional arguments)."""
        gone = set(self.positional[:count])
        return Signature(
            self.positional[count:],
            tuple(n for n in self.positional_only if n not in gone),
            self.keyword_only,
            self.var_positional,
            self.var_keyword,
            tuple((n, d) for n, d in self.defaults if n not in gone),
        )

    @property
    def has_var_positional(self) -> bool:
        return self.var_positional is not None

    @property
    def has_var_keyword(self) -> bool:
        return self.var_keyword is not None

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Every parameter, in order, `*args` and `**kwargs` included."""
        rest = (self.var_positional,) if self.var_positional is not None else ()
        rest += (self.var_keyword,) if self.var_keyword is not None else ()
        return (*self.positional, *self.keyword_only, *rest)

    @cached_property
    def default_of(self) -> dict[str, cst.BaseExpression]:
        return dict(self.defaults)

    def accepts_keyword(self, name: str) -> bool:
        return (name in self.positional and name not in self.positional_only) or (
            name in self.keyword_only
        )


def receivers(func: cst.FunctionDef, in_class: bool, decorators: Sequence[str] = ()) -> int:
    """How many leading parameters a call through an instance or the class binds: 1 for a
    method or classmethod (`self`, `cls`), 0 for a staticmethod or a function outside a
    class. `decorators` are the resolved names of `func`'s decorators, when known."""
    if not in_class:
        return 0
    if STATICMETHOD & set(decorators):
        return 0
    plain = {d.decorator.value for d in func.decorators if type(d.decorator) is cst.Name}
    return 0 if "staticmethod" in plain else 1


@dataclass(frozen=True)
class Bound(Generic[T]):
    """One call bound to one signature."""

    # The parameters that certainly receive an argument, with it.
    arguments: dict[str, T]
    # The parameters certainly left at their default, with the default's expression.
    defaulted: dict[str, cst.BaseExpression]
    # Parameters a star argument may fill or not: what they get is unknown.
    uncertain: tuple[str, ...]
    # Parameters without a default that nothing fills: the call raises TypeError.
    missing: tuple[str, ...]
    # What `*args` and `**kwargs` certainly collect; `open_*` when a star argument may add.
    extra_positional: tuple[T, ...]
    extra_keywords: dict[str, T]
    open_positional: bool
    open_keywords: bool
    # Positional arguments after a `*xs`: the parameter they reach is unknown.
    floating: tuple[T, ...]
    # Arguments no parameter takes (too many positions without `*args`; a keyword nobody
    # takes without `**kwargs`; a keyword or position for a parameter filled already):
    # the call raises TypeError.
    surplus: tuple[T, ...]
    unexpected: tuple[tuple[str, T], ...]
    # For each argument given, in order: the parameter it reaches (the name of `*args` or
    # `**kwargs` when collected there), None when unknown or taken by none.
    targets: tuple[str | None, ...]

    @property
    def certain(self) -> bool:
        """Every parameter's argument (or default) is known."""
        return not (self.uncertain or self.floating or self.open_positional or self.open_keywords)

    @property
    def fails(self) -> bool:
        """The call raises TypeError whatever its star arguments hold."""
        return bool(self.surplus or self.unexpected or (self.missing and self.certain))


def bind(
    signature: Signature, args: Sequence[tuple[str | None, T]], rest_unknown: bool = False
) -> Bound[T]:
    """Bind `args`, (keyword or None, argument) in call order, to `signature`. A keyword
    `STARRED` or `DOUBLE_STARRED` stands for a `*xs` or `**kw` of unknown contents;
    `rest_unknown` says that arguments of unknown shape follow the ones given (a list cut
    at its first star argument)."""
    positional = signature.positional
    keywordable = set(positional[len(signature.positional_only) :]) | set(signature.keyword_only)
    arguments: dict[str, T] = {}
    extra_positional: list[T] = []
    extra_keywords: dict[str, T] = {}
    floating: list[T] = []
    surplus: list[T] = []
    unexpected: list[tuple[str, T]] = []
    targets: list[str | None] = []
    index = 0
    star_at: int | None = None  # the first position a `*xs` may fill
    double_star = False
    for keyword, value in args:
        target: str | None = None
        if keyword == STARRED:
            if star_at is None:
                star_at = index
        elif keyword == DOUBLE_STARRED:
            double_star = True
        elif keyword is None:
            if star_at is not None:
                floating.append(value)
            elif index < len(positional):
                target = positional[index]
                index += 1
                if target in arguments:  # `f(a=1, *[2])`: a keyword filled it first
                    unexpected.append((target, value))
                    target = None
                else:
                    arguments[target] = value
            elif signature.var_positional is not None:
                target = signature.var_positional
                extra_positional.append(value)
            else:
                surplus.append(value)
        elif keyword in keywordable and keyword not in arguments:
            target = keyword
            arguments[keyword] = value
        elif signature.var_keyword is not None and keyword not in keywordable:
            target = signature.var_keyword
            extra_keywords[keyword] = value
        else:
            unexpected.append((keyword, value))
        targets.append(target)
    if rest_unknown:
        star_at = index if star_at is None else star_at
        double_star = True
    may_fill: set[str] = set()
    if star_at is not None:
        may_fill.update(n for n in positional[star_at:] if n not in arguments)
    if double_star:
        may_fill.update(n for n in keywordable if n not in arguments)
    defaulted: dict[str, cst.BaseExpression] = {}
    uncertain: list[str] = []
    missing: list[str] = []
    default_of = signature.default_of
    for name in (*positional, *signature.keyword_only):
        if name in arguments:
            continue
        if name in may_fill:
            uncertain.append(name)
        elif name in default_of:
            defaulted[name] = default_of[name]
        else:
            missing.append(name)
    return Bound(
        arguments,
        defaulted,
        tuple(uncertain),
        tuple(missing),
        tuple(extra_positional),
        extra_keywords,
        signature.var_positional is not None and star_at is not None,
        signature.var_keyword is not None and double_star,
        tuple(floating),
        tuple(surplus),
        tuple(unexpected),
        tuple(targets),
    )


def call_arguments(call: cst.Call) -> list[tuple[str | None, cst.BaseExpression]]:
    """A call's arguments as `bind` takes them: star arguments as `STARRED` and
    `DOUBLE_STARRED`, with the starred expression."""
    out: list[tuple[str | None, cst.BaseExpression]] = []
    for arg in call.args:
        if arg.star == "*":
            out.append((STARRED, arg.value))
        elif arg.star == "**":
            out.append((DOUBLE_STARRED, arg.value))
        else:
            out.append((arg.keyword.value if arg.keyword is not None else None, arg.value))
    return out


def bind_call(signature: Signature, call: cst.Call) -> Bound[cst.BaseExpression]:
    """`call`'s argument expressions bound to `signature`."""
    return bind(signature, call_arguments(call))


def never_passed(signature: Signature, calls: Sequence[Sequence[str | None]]) -> frozenset[str]:
    """The parameters with a default that none of `calls` fills, each call given as the
    keywords of its arguments in order (None for a positional one): they keep their
    default in every call. A star argument (`STARRED`, `DOUBLE_STARRED`) may fill any."""
    passed: set[str] = set()
    for call in calls:
        bound = bind(signature, [(keyword, None) for keyword in call])
        passed.update(bound.arguments)
        passed.update(bound.uncertain)
    return frozenset(name for name, _ in signature.defaults if name not in passed)


def keyword_argument(call: cst.Call, name: str) -> cst.Arg | None:
    """The argument `call` passes by the keyword `name`."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional_argument(call: cst.Call, index: int) -> cst.Arg | None:
    """The argument at position `index` of `call`, unless a `*xs` before it hides where it
    lands (a library parameter whose position is known, without its signature)."""
    positional = [a for a in call.args if a.keyword is None]
    if index < len(positional) and not any(a.star for a in positional[: index + 1]):
        return positional[index]
    return None


# `functools.partial(func, /, *args, **keywords)` (builtins_facts.PARTIAL).
PARTIAL_SIGNATURE = Signature(("func",), ("func",), (), "args", "keywords")


# ---- which branches a call's literal arguments decide ------------------------------------

_UNKNOWN = object()  # an argument whose Python value is not written out


def may_reach(
    func: cst.FunctionDef,
    bound: Bound[cst.BaseExpression],
    path: Sequence[cst.CSTNode],
    rebound: set[str] | frozenset[str] | None = None,
) -> bool:
    """Whether a call of `func` bound as `bound` may run the end of `path` (a node in the
    body of `func`): False when an `if` around it, in `func` itself, tests parameters the
    call gives literal values (written in the call, or left at a literal default) that
    `func` never rebinds, and the test takes the other branch (`if axis is None:` for a
    call that passes no `axis` to a parameter whose default is None), or an `if` before it
    in its block leaves on every path of the branch the test takes (`if not batched:
    return ...` for a call with `batched=False`). `rebound`: the names `func` binds
    (`uses.bound_names` of its body), where the caller asks many paths of one function."""
    start = next((i for i, node in enumerate(path) if node is func), None)
    if start is None:
        return True
    if rebound is None:
        rebound = bound_names(func.body)
    for index in range(start + 1, len(path) - 1):
        node, child = path[index], path[index + 1]
        if type(node) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            return True  # runs when that nested scope is called, which is not known here
        if type(node) is cst.IndentedBlock:
            for statement in node.body:  # type: ignore[attr-defined]
                if statement is child:
                    break
                if type(statement) is cst.If and _leaves_when(statement, bound, rebound):
                    return False
        if type(node) is not cst.If or child is node.test:  # type: ignore[attr-defined]
            continue
        truth = _test_value(node.test, bound, rebound)  # type: ignore[attr-defined]
        if truth is not _UNKNOWN and bool(truth) != (child is node.body):  # type: ignore[attr-defined]
            return False
    return True


def _leaves_when(statement: cst.If, bound: Bound[cst.BaseExpression], rebound: set[str]) -> bool:
    """The branch of `statement` the call's literal arguments take leaves its block on
    every path (return, raise, break, a process exit)."""
    truth = _test_value(statement.test, bound, rebound)
    if truth is _UNKNOWN:
        return False
    if truth:
        return leaves_on_every_path(statement.body)
    orelse = statement.orelse
    return type(orelse) is cst.Else and leaves_on_every_path(orelse.body)


def _test_value(test: cst.BaseExpression, bound: Bound[cst.BaseExpression], rebound: set[str]):
    """The Python value of `test` given the call's literal arguments, or `_UNKNOWN`."""
    kind = type(test)
    if kind is cst.Name:
        name = test.value  # type: ignore[attr-defined]
        if name in LITERAL_NAMES:
            return LITERAL_NAMES[name]
        if name in rebound:
            return _UNKNOWN
        if name in bound.arguments:
            return _literal(bound.arguments[name])
        if name in bound.defaulted:
            return _literal(bound.defaulted[name])
        return _UNKNOWN
    if kind is cst.UnaryOperation and type(test.operator) is cst.Not:  # type: ignore[attr-defined]
        value = _test_value(test.expression, bound, rebound)  # type: ignore[attr-defined]
        return _UNKNOWN if value is _UNKNOWN else not value
    if kind is cst.BooleanOperation:
        left = _test_value(test.left, bound, rebound)  # type: ignore[attr-defined]
        right = _test_value(test.right, bound, rebound)  # type: ignore[attr-defined]
        conjunction = type(test.operator) is cst.And  # type: ignore[attr-defined]
        for side in (left, right):  # one side decides alone: `False and ...`, `True or ...`
            if side is not _UNKNOWN and bool(side) != conjunction:
                return side
        if left is _UNKNOWN or right is _UNKNOWN:
            return _UNKNOWN
        return right
    if kind is cst.Comparison and len(test.comparisons) == 1:  # type: ignore[attr-defined]
        target = test.comparisons[0]  # type: ignore[attr-defined]
        left = _test_value(test.left, bound, rebound)  # type: ignore[attr-defined]
        right = _test_value(target.comparator, bound, rebound)
        if left is _UNKNOWN or right is _UNKNOWN:
            return _UNKNOWN
        operator = type(target.operator)
        if operator is cst.Is:
            return left is None and right is None if None in (left, right) else _UNKNOWN
        if operator is cst.IsNot:
            return not (left is None and right is None) if None in (left, right) else _UNKNOWN
        if operator is cst.Equal:
            return left == right
        if operator is cst.NotEqual:
            return left != right
        return _UNKNOWN
    return _literal(test)


def known_arguments(
    bound: Bound[T], value_of: Callable[[str, T], cst.BaseExpression | None]
) -> Bound[cst.BaseExpression]:
    """`bound` for `may_reach`, with each argument replaced by the literal `value_of` gives
    for it (parameter name, argument) on the paths asked about: `f(verbose=verbose)` inside
    a function whose every call leaves `verbose` at False gives `verbose` False. An argument
    without one is left out, so tests of it stay unknown."""
    arguments: dict[str, cst.BaseExpression] = {}
    for name, argument in bound.arguments.items():
        value = value_of(name, argument)
        if value is not None:
            arguments[name] = value
    return replace(bound, arguments=arguments)  # type: ignore[arg-type]


def agreed_value(
    bounds: Sequence[Bound[cst.BaseExpression]], name: str
) -> cst.BaseExpression | None:
    """The literal every one of `bounds` gives the parameter `name` (passed or left at its
    default), or None where one gives none or two differ."""
    found: cst.BaseExpression | None = None
    seen: object = _UNKNOWN  # the value of `found`
    for bound in bounds:
        expr = bound.arguments.get(name, bound.defaulted.get(name))
        value = _UNKNOWN if expr is None else _literal(expr)
        if value is _UNKNOWN:
            return None
        if found is not None and (type(seen) is not type(value) or seen != value):
            return None
        found, seen = expr, value
    return found


def literal_value(expr: cst.BaseExpression) -> tuple[bool, object]:
    """(True, value) for a literal (`None`, `True`, `3`, `-1.5`, `"mean"`), else (False,
    None)."""
    value = _literal(expr)
    return (False, None) if value is _UNKNOWN else (True, value)


def _literal(expr: cst.BaseExpression):
    """The value of a literal argument (`None`, `True`, `3`, `-1.5`, `"mean"`), else
    `_UNKNOWN`."""
    kind = type(expr)
    if kind is cst.Name:
        return LITERAL_NAMES.get(expr.value, _UNKNOWN)  # type: ignore[attr-defined]
    if kind in (cst.Integer, cst.Float, cst.SimpleString):
        try:
            return expr.evaluated_value  # type: ignore[attr-defined]
        except Exception:
            return _UNKNOWN
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[attr-defined]
        value = _literal(expr.expression)  # type: ignore[attr-defined]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return -value if number else _UNKNOWN
    return _UNKNOWN


# ---- which names the branches around a statement prove are not None ----------------------


def not_none_at(
    func: cst.FunctionDef,
    site: cst.CSTNode,
    facts: tuple[dict[str, cst.BaseExpression], frozenset[str]] | None = None,
) -> frozenset[str]:
    """The names of `func` that the `if`s around `site` (a node of its body, nested scopes
    aside) prove are not None where `site` runs, and that `func` never binds again: `x`
    under `if x is not None:`, `if x:`, the `else` of `if x is None:`, `if a and x:`, or
    under a local flag bound once to such a test (`on = x is not None` ... `if on:`); and
    after an `if x is None: return ...` before it in its block. A test of a local that a
    plain `alias = x` bound before it proves `x` too (`nbrs = neighbors; if nbrs is None:
    return`). `facts`: `flag_facts(func)`, where the caller asks of many sites."""
    path = _path_in(func.body, site)
    if path is None:
        return frozenset()
    aliases: dict[str, str] = {}
    tests: list[tuple[cst.BaseExpression, bool, dict[str, str]]] = []
    for node, child in pairwise(path):
        if type(node) is cst.If and child is not node.test:  # type: ignore[attr-defined]
            tests.append((node.test, child is node.body, dict(aliases)))  # type: ignore[attr-defined]
        if type(node) not in (cst.IndentedBlock, cst.Module):
            continue
        for statement in node.body:  # type: ignore[attr-defined]
            if statement is child:
                break
            if type(statement) is cst.If:
                orelse = statement.orelse  # type: ignore[attr-defined]
                if leaves_on_every_path(statement.body):  # type: ignore[attr-defined]
                    tests.append((statement.test, False, dict(aliases)))  # type: ignore[attr-defined]
                elif type(orelse) is cst.Else and leaves_on_every_path(orelse.body):
                    tests.append((statement.test, True, dict(aliases)))  # type: ignore[attr-defined]
            _note_alias(statement, aliases)
    if not tests:
        return frozenset()
    bindings, rebound = facts if facts is not None else flag_facts(func)
    found: set[str] = set()
    for test, outcome, known in tests:
        for name in _not_none(test, outcome, bindings, 0):
            found.add(name)
            if name in known:
                found.add(known[name])
    return frozenset(name for name in found if name not in rebound)


def flag_facts(
    func: cst.FunctionDef,
) -> tuple[dict[str, cst.BaseExpression], frozenset[str]]:
    """What `not_none_at` reads of `func`'s body: its locals bound once by a plain
    assignment, with their values, and every name it binds."""
    return _single_assignments(func.body), frozenset(bound_names(func.body))


def _note_alias(statement: cst.CSTNode, aliases: dict[str, str]) -> None:
    """`alias = name` makes `alias` another name for `name` until it is bound again."""
    if aliases:
        written = bound_names(statement)
        for name in [n for n in aliases if n in written]:
            del aliases[name]
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:  # type: ignore[attr-defined]
        return
    assign = statement.body[0]  # type: ignore[attr-defined]
    if type(assign) is not cst.Assign or len(assign.targets) != 1:
        return
    target, value = assign.targets[0].target, assign.value
    if type(target) is cst.Name and type(value) is cst.Name and value.value not in LITERAL_NAMES:
        aliases[target.value] = value.value


def _not_none(
    test: cst.BaseExpression,
    outcome: bool,
    bindings: dict[str, cst.BaseExpression],
    depth: int,
) -> set[str]:
    """The names `test` evaluating to `outcome` proves are not None (flags read through
    `bindings`, a local's one assigned value)."""
    kind = type(test)
    if kind is cst.Name:
        name = test.value  # type: ignore[attr-defined]
        flag = bindings.get(name)
        if flag is not None and depth < 3:
            return _not_none(flag, outcome, bindings, depth + 1)
        return {name} if outcome and name not in LITERAL_NAMES else set()
    if kind is cst.UnaryOperation and type(test.operator) is cst.Not:  # type: ignore[attr-defined]
        return _not_none(test.expression, not outcome, bindings, depth)  # type: ignore[attr-defined]
    if kind is cst.BooleanOperation:
        # `a and b` held (or `a or b` failed): each part did.
        if (type(test.operator) is cst.And) != outcome:  # type: ignore[attr-defined]
            return set()
        left = _not_none(test.left, outcome, bindings, depth)  # type: ignore[attr-defined]
        return left | _not_none(test.right, outcome, bindings, depth)  # type: ignore[attr-defined]
    if kind is cst.Comparison and len(test.comparisons) == 1:  # type: ignore[attr-defined]
        target = test.comparisons[0]  # type: ignore[attr-defined]
        subject, other = test.left, target.comparator  # type: ignore[attr-defined]
        if type(subject) is not cst.Name or type(other) is not cst.Name or other.value != "None":  # type: ignore[attr-defined]
            return set()
        operator = type(target.operator)
        if (operator is cst.IsNot and outcome) or (operator is cst.Is and not outcome):
            return {subject.value}  # type: ignore[attr-defined]
    return set()


def _single_assignments(body: cst.BaseSuite) -> dict[str, cst.BaseExpression]:
    """The locals of a function body (nested scopes aside) that one plain `name = value`
    binds and nothing else does (a loop or unpacking target, an augmented or annotated
    assignment, an import, a `with ... as`, a walrus, `except ... as`, `del`, `global`),
    with that value."""
    counts: dict[str, int] = {}
    values: dict[str, cst.BaseExpression] = {}
    other: set[str] = set()
    for node in own_scope_nodes(body, _SCOPES):
        kind = type(node)
        parts: list[cst.CSTNode] = []
        if kind is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target.target) is cst.Name:
                    name = target.target.value
                    counts[name] = counts.get(name, 0) + 1
                    values[name] = node.value  # type: ignore[attr-defined]
                else:
                    parts.append(target.target)
        elif kind in (cst.For, cst.CompFor, cst.AugAssign, cst.AnnAssign, cst.NamedExpr):
            parts = [node.target]  # type: ignore[attr-defined]
        elif kind is cst.WithItem and node.asname is not None:  # type: ignore[attr-defined]
            parts = [node.asname]  # type: ignore[attr-defined]
        elif kind is cst.ExceptHandler and node.name is not None:  # type: ignore[attr-defined]
            parts = [node.name]  # type: ignore[attr-defined]
        elif kind in (cst.Import, cst.ImportFrom, cst.Del, cst.Global, cst.Nonlocal, cst.Match):
            parts = [node]
        for part in parts:
            other |= _names_in(part)
    return {
        name: value for name, value in values.items() if counts[name] == 1 and name not in other
    }


_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _names_in(node: cst.CSTNode) -> set[str]:
    return {n.value for n in own_scope_nodes(node, ()) if type(n) is cst.Name}  # type: ignore[attr-defined]


def _path_in(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes from `root` down to `target` (both included), nested scopes aside."""
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(root, ())]
    while stack:
        node, above = stack.pop()
        if node is target:
            return [*above, node]
        if type(node) in (cst.FunctionDef, cst.Lambda, cst.ClassDef) and node is not root:
            continue
        stack.extend((child, (*above, node)) for child in iter_children(node))
    return None
