"""Walks one function body in order, giving every expression a value (see values.py).

An `Analyzer` keeps an environment from local names to values; every expression it evaluates
is memoised by node identity, so a rule asking "is this `if` test traced?" is a dict lookup.
Branches are analysed separately and joined; loop bodies run twice so loop-carried values
reach their join. Statements are here; expressions are in `expressions.py`.

A `Context` is one such analysis of one body for one set of parameter values (see
tracing.py); `bind` makes those values from a call's arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from jitlint.model.domain.classes import ClassInfo
from jitlint.model.domain.values import (
    ITEM,
    NONE,
    PYTREE,
    STATIC,
    TRACED,
    Dict,
    Env,
    S,
    Scalar,
    Seq,
    U,
    Value,
    constant,
    join,
    join_envs,
)
from jitlint.model.jax.expressions import Expressions, all_params
from jitlint.python import binding
from jitlint.python.binding import Signature
from jitlint.python.builtins_facts import LITERAL_NAMES
from jitlint.python.names import leaf_name
from jitlint.python.predicates import Marks, narrow, restore
from jitlint.python.walker import iter_children

_TERMINATORS = (cst.Return, cst.Raise)


class Analyzer(Expressions):
    """Runs once over one function body (or lambda, or module) and memoises values.

    `lookup_free(name)` answers for names the body does not bind (closures, globals,
    builtins); `classify_call(call, args)` answers for calls (jnp/lax results, builtins,
    helpers) and may record call sites. Both come from the tracing model.
    """

    def __init__(
        self,
        params: Env,
        local_names: set[str],
        lookup_free: Callable[[str], Value],
        classify_call: Callable[[Analyzer, cst.Call], Value],
        attribute: Callable[[Analyzer, cst.Attribute, Value], Value],
    ) -> None:
        self.env: Env = dict(params)
        self.local_names = local_names
        self.lookup_free = lookup_free
        self.classify_call = classify_call
        self.attribute = attribute
        self.values: dict[int, Value] = {}
        # Nodes evaluated more than once whose earlier value was traced (see `eval`).
        self.sticky: dict[int, Value] = {}
        self.summary: Env = dict(params)
        self.returns: Value | None = None
        self.compile_time_eval = 0  # depth inside `with jax.ensure_compile_time_eval():`
        # Answers whether an `if` test is statically true/false (None: unknown).
        self.truth: Callable[[cst.BaseExpression], bool | None] | None = None
        # Names a test proves are not tracers where it evaluated to the given outcome.
        self.guards: Callable[[cst.BaseExpression, bool], frozenset[str]] | None = None
        # Names a test proves are not one JAX array (`isinstance(x, tuple)`): a value known
        # to be an array never takes that path, so there it is no tracer.
        self.not_arrays: Callable[[cst.BaseExpression, bool], frozenset[str]] | None = None
        self._free: dict[str, Value] = {}
        # Per enclosing loop: the environments at its `continue`s and at its `break`s.
        self._loops: list[tuple[list[Env], list[Env]]] = []
        self.context: Any = None  # the tracing Context this analysis is for
        self.invoke = False  # whether calls into the project are followed
        # The value a `def`/`class` statement binds; an assignment to an attribute or item.
        self.define: Callable[[Analyzer, cst.CSTNode], Value] | None = None
        self.store: Callable[[Analyzer, cst.CSTNode, Value], None] | None = None
        # `obj[i]` on an instance: runs its class's `__getitem__`.
        self.item: Callable[[Analyzer, cst.CSTNode, Value, Value], Value] | None = None
        self.running = False
        self.statement_now: cst.CSTNode | None = None  # the module statement running
        self.yields = False  # a generator: calling it returns a generator, not `returns`
        self.falls_through_unknown = False

    # ---- statements -------------------------------------------------------------------
    def run_function(self, func: cst.FunctionDef | cst.Lambda | cst.Module) -> None:
        self.running = True
        try:
            if type(func) is cst.Lambda:
                self.returns = self.eval(func.body)  # type: ignore[attr-defined]
            elif type(func) is cst.Module:
                for statement in func.body:  # type: ignore[attr-defined]
                    self.statement_now = statement
                    if self.statement(statement):
                        break
            elif type(func.body) is cst.IndentedBlock:  # type: ignore[attr-defined]
                ends = self.run(func.body.body)  # type: ignore[attr-defined]
                if not ends and self.returns is not None:
                    self.returns = join(self.returns, NONE)  # it may also fall off the end
            else:
                self.run([func.body])  # type: ignore[attr-defined]
        finally:
            self.running = False

    def free(self, name: str) -> Value:
        """A name this body does not bind, as a function closing over it sees it."""
        cached = self._free.get(name)
        if cached is None:
            cached = self._free[name] = self.lookup_free(name)
        return cached

    def run(self, statements: Sequence[cst.CSTNode]) -> bool:
        """Run a block; True when it always ends in return/raise."""
        return any(self.statement(statement) for statement in statements)

    def statement(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        if kind is cst.SimpleStatementLine:
            ends = False
            for small in node.body:  # type: ignore[attr-defined]
                ends = self.small(small) or ends
            return ends
        handler = _COMPOUND.get(kind)
        if handler is not None:
            return handler(self, node)
        for child in iter_children(node):
            if isinstance(child, cst.BaseExpression):
                self.eval(child)
        return False

    def block(self, node: cst.BaseSuite) -> bool:
        if type(node) is cst.IndentedBlock:
            return self.run(node.body)  # type: ignore[attr-defined]
        return self.run([node])

    def small(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        if kind is cst.Expr:
            self.eval(node.value)  # type: ignore[attr-defined]
        elif kind is cst.Assign:
            value = self.eval(node.value)  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                self.bind(target.target, value, node.value)  # type: ignore[attr-defined]
        elif kind is cst.AnnAssign:
            if node.value is not None:  # type: ignore[attr-defined]
                value = self.eval(node.value)  # type: ignore[attr-defined]
                self.bind(node.target, value, node.value)  # type: ignore[attr-defined]
        elif kind is cst.AugAssign:
            right = self.eval(node.value)  # type: ignore[attr-defined]
            target = node.target  # type: ignore[attr-defined]
            left = self.eval(target)
            self.bind(target, self.operate(node.operator, left, right), None)  # type: ignore[attr-defined]
        elif kind in _TERMINATORS:
            value = getattr(node, "value", None) or getattr(node, "exc", None)
            result = self.eval(value) if value is not None else S
            if kind is cst.Return:
                self.returns = result if self.returns is None else join(self.returns, result)
            return True
        elif kind is cst.Assert:
            self.eval(node.test)  # type: ignore[attr-defined]
            if node.msg is not None:  # type: ignore[attr-defined]
                self.eval(node.msg)  # type: ignore[attr-defined]
            # Past the assert its test held. (Under `python -O` it is skipped, but narrowing
            # only ever makes values static, so at worst a finding is missed.)
            self.narrow(node.test, True)  # type: ignore[attr-defined]
        elif (kind is cst.Continue or kind is cst.Break) and self._loops:
            continues, breaks = self._loops[-1]
            (continues if kind is cst.Continue else breaks).append(dict(self.env))
            return True
        elif kind is cst.Del:
            self._unbind(node.target)  # type: ignore[attr-defined]
        elif kind is cst.Global or kind is cst.Nonlocal:
            for item in node.names:  # type: ignore[attr-defined]
                self.env[item.name.value] = U
        elif kind is cst.Import or kind is cst.ImportFrom:
            names = node.names  # type: ignore[attr-defined]
            if type(names) is not cst.ImportStar:
                for alias in names:
                    target = alias.asname.name if alias.asname is not None else alias.name
                    while type(target) is cst.Attribute:
                        target = target.value  # type: ignore[attr-defined]
                    value = self.define(self, alias) if self.define is not None else S
                    self.bind(target, value, None)
        return False

    def bind(self, target: cst.CSTNode, value: Value, source: cst.CSTNode | None) -> None:
        kind = type(target)
        if kind is cst.Name:
            name = target.value  # type: ignore[attr-defined]
            self.env[name] = value
            known = self.summary.get(name)
            self.summary[name] = value if known is None else join(known, value)
        elif kind is cst.Tuple or kind is cst.List:
            elements = target.elements  # type: ignore[attr-defined]
            if not any(type(e) is cst.StarredElement for e in elements):
                parts = value.unpacked(len(elements))
                if parts is not None:
                    for element, part in zip(elements, parts, strict=True):
                        self.bind(element.value, part, None)
                    return
            source_elements = None
            if type(source) in (cst.Tuple, cst.List):
                source_elements = source.elements  # type: ignore[union-attr]
                if len(source_elements) != len(elements) or any(
                    type(e) is cst.StarredElement for e in source_elements
                ):
                    source_elements = None
            if (
                value.pytype == ITEM
                and len(elements) == 2
                and source_elements is None
                and type(elements[0]) is not cst.StarredElement
            ):
                self.bind(elements[0].value, S, None)  # a key: static
                self.bind(elements[1].value, Value(PYTREE, value.why), None)
                return
            for index, element in enumerate(elements):
                if type(element) is cst.StarredElement:
                    self.bind(element.value, _starred(value), None)
                elif source_elements is not None:
                    sub = source_elements[index].value
                    self.bind(element.value, self.values.get(id(sub), U), sub)
                else:
                    self.bind(element.value, value.item(), None)
        elif kind is cst.StarredElement:
            self.bind(target.value, _starred(value), None)  # type: ignore[attr-defined]
        else:
            # Attribute and subscript targets bind nothing, but their parts are loads.
            for child in iter_children(target):
                if isinstance(child, cst.BaseExpression):
                    self.eval(child)
            if self.store is not None:
                self.store(self, target, value)

    def _unbind(self, target: cst.CSTNode) -> None:
        if type(target) is cst.Name:
            self.env.pop(target.value, None)  # type: ignore[attr-defined]
        elif type(target) in (cst.Tuple, cst.List):
            for element in target.elements:  # type: ignore[attr-defined]
                self._unbind(element.value)
        else:
            self.eval(target)

    # ---- compound statements ----------------------------------------------------------
    def _if(self, node: Any) -> bool:
        self.eval(node.test)
        truth = self.truth(node.test) if self.truth is not None else None
        if truth is not None:  # a branch that never runs leaves no values
            if truth:
                return self.block(node.body)
            if node.orelse is None:
                return False
            if type(node.orelse) is cst.If:
                return self._if(node.orelse)
            return self.block(node.orelse.body)
        before = self.env
        self.env = dict(before)
        then_marks = self.narrow(node.test, True)
        then_ends = self.block(node.body)
        then_env = self.env
        self.env = dict(before)
        else_marks = self.narrow(node.test, False)
        else_ends = False
        if node.orelse is not None:
            orelse = node.orelse
            is_elif = type(orelse) is cst.If
            else_ends = self._if(orelse) if is_elif else self.block(orelse.body)
        else_env = self.env
        if then_ends and else_ends:
            self.env = join_envs(then_env, else_env)
            return True
        # After an early exit (`if not isinstance(n, int): return`) the other branch's
        # narrowing still holds; where both branches fall through, neither does.
        if then_ends:
            self.env = else_env
        elif else_ends:
            self.env = then_env
        else:
            restore(then_env, then_marks)
            restore(else_env, else_marks)
            self.env = join_envs(then_env, else_env)
        return False

    def _loop(self, node: Any) -> bool:
        is_for = type(node) is cst.For
        runs_once = is_for and _surely_iterates(node.iter)
        before = dict(self.env)
        continues: list[Env] = []
        breaks: list[Env] = []
        self._loops.append((continues, breaks))
        for _ in range(2):  # the second pass sees what the first one carried round the loop
            if is_for:
                iterable = self.eval(node.iter)
                self.bind_iteration(node.target, node.iter, iterable)
            else:
                self.eval(node.test)
            ends = self.block(node.body)
            end = self.env
            for other in continues:  # a `continue` goes back to the loop's head too
                end = join_envs(end, other)
            if not is_for and not (ends and not continues):
                # The test runs again on what the body left: `done = False` before the loop
                # and `done = jnp.all(...)` in it make the second test convert a tracer.
                self.env = dict(end)
                self.eval(node.test)
            continues.clear()
            # A loop that surely runs its body (`for i in range(8)`) leaves what an iteration
            # left, not also what stood before it: `done = 0` then `done += traced` in the
            # body is traced after the loop.
            self.env = dict(end) if runs_once else join_envs(before, end)
            before = dict(self.env)
        self._loops.pop()
        if node.orelse is not None:
            self.block(node.orelse.body)
        for other in breaks:  # a `break` skips the `else` and leaves the loop
            self.env = join_envs(self.env, other)
        return False

    def bind_iteration(self, target: cst.CSTNode, iterable: cst.CSTNode, value: Value) -> None:
        """Bind a for/comprehension target from what iterating `iterable` yields."""
        if type(iterable) is cst.Call and type(target) is cst.Tuple:
            func = iterable.func  # type: ignore[attr-defined]
            args = iterable.args  # type: ignore[attr-defined]
            name = func.value if type(func) is cst.Name else None
            elements = target.elements  # type: ignore[attr-defined]
            if name == "enumerate" and len(elements) == 2 and args:
                self.bind(elements[0].value, S, None)
                inner = self.values.get(id(args[0].value), U)
                self.bind(elements[1].value, inner.element(), None)
                return
            if name == "zip" and len(elements) == len(args):
                for element, arg in zip(elements, args, strict=True):
                    inner = self.values.get(id(arg.value), U)
                    self.bind(element.value, inner.element(), None)
                return
        self.bind(target, value.element(), None)

    def _try(self, node: Any) -> bool:
        before = dict(self.env)
        self.block(node.body)
        after_body = self.env
        merged = join_envs(before, after_body)
        ends: list[Env] = [after_body]
        for handler in node.handlers:
            self.env = dict(merged)
            if handler.type is not None:
                self.eval(handler.type)
            if handler.name is not None:
                self.bind(handler.name.name, U, None)
            if not self.block(handler.body):
                ends.append(self.env)
        if node.orelse is not None:
            self.env = dict(after_body)
            self.block(node.orelse.body)
            ends[0] = self.env
        env = ends[0]
        for other in ends[1:]:
            env = join_envs(env, other)
        self.env = env
        if node.finalbody is not None:
            self.block(node.finalbody.body)
        return False

    def _with(self, node: Any) -> bool:
        compile_time = False
        for item in node.items:
            self.eval(item.item)
            call = item.item
            if (
                type(call) is cst.Call
                and type(call.func) in (cst.Name, cst.Attribute)
                and leaf_name(call.func) == "ensure_compile_time_eval"
            ):
                compile_time = True
            if item.asname is not None:
                self.bind(item.asname.name, U, None)
        self.compile_time_eval += compile_time
        ends = self.block(node.body)
        self.compile_time_eval -= compile_time
        return ends

    def _def(self, node: Any) -> bool:
        for decorator in node.decorators:
            self.eval(decorator.decorator)
        if type(node) is cst.FunctionDef:
            for param in all_params(node.params):
                if param.default is not None:
                    self.eval(param.default)
        else:
            for arg in (*node.bases, *node.keywords):
                self.eval(arg.value)
        self.bind(node.name, self.define(self, node) if self.define is not None else S, None)
        return False

    def _match(self, node: Any) -> bool:
        self.eval(node.subject)
        before = self.env
        envs = []
        for case in node.cases:
            self.env = dict(before)
            for name in _capture_names(case.pattern):
                self.bind(cst.Name(name), U, None)
            if case.guard is not None:
                self.eval(case.guard)
            if not self.block(case.body):
                envs.append(self.env)
        env = dict(before)
        for other in envs:
            env = join_envs(env, other)
        self.env = env
        return False

    # ---- narrowing --------------------------------------------------------------------
    def narrow(self, test: cst.BaseExpression, outcome: bool) -> Marks[Value]:
        """Make the names `test` proves are not tracers (where it evaluated to `outcome`)
        STATIC in the current environment. Returns what `restore` needs to undo it."""
        if self.guards is None:
            return {}
        names = set(self.guards(test, outcome))
        if self.not_arrays is not None:
            # A value known to be one array never passes `isinstance(x, tuple)`.
            for name in self.not_arrays(test, outcome) - names:
                held = self.env.get(name)
                if held is not None and held.kind == TRACED:
                    names.add(name)
        return narrow(self.env, sorted(names), lambda: Value(STATIC))

    def _narrowed(self, test: cst.BaseExpression, outcome: bool, expr: cst.BaseExpression) -> Value:
        """Evaluate `expr` where `test` evaluated to `outcome`."""
        marks = self.narrow(test, outcome)
        value = self.eval(expr)
        restore(self.env, marks)
        return value


def _surely_iterates(iterable: cst.BaseExpression) -> bool:
    """Whether a `for` over `iterable` runs its body at least once, by its text alone: a
    non-empty list or tuple display, or `range` of integer literals with a non-empty span."""
    kind = type(iterable)
    if kind in (cst.List, cst.Tuple):
        elements = iterable.elements  # type: ignore[attr-defined]
        return bool(elements) and not any(type(e) is cst.StarredElement for e in elements)
    if kind is not cst.Call or type(iterable.func) is not cst.Name:  # type: ignore[attr-defined]
        return False
    if iterable.func.value != "range":  # type: ignore[attr-defined]
        return False
    bounds = []
    for arg in iterable.args:  # type: ignore[attr-defined]
        if arg.keyword is not None or arg.star or type(arg.value) is not cst.Integer:
            return False
        bounds.append(int(arg.value.value, 0))
    if len(bounds) == 1:
        return bounds[0] > 0
    return len(bounds) == 2 and bounds[0] < bounds[1]


def _starred(value: Value) -> Value:
    """What a starred target (`a, *rest = value`) binds: a list of the elements."""
    if value.kind == STATIC or value.kind == PYTREE or isinstance(value, Seq):
        return Seq("list", elem=value.item())
    return U


def _capture_names(pattern: cst.CSTNode) -> list[str]:
    names = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in (cst.MatchAs, cst.MatchStar) and node.name is not None:  # type: ignore[attr-defined]
            names.append(node.name.value)  # type: ignore[attr-defined]
        if kind is cst.MatchMapping and node.rest is not None:  # type: ignore[attr-defined]
            names.append(node.rest.value)  # type: ignore[attr-defined]
        stack.extend(iter_children(node))
    return names


_COMPOUND: dict[type, Callable[[Analyzer, Any], bool]] = {
    cst.If: Analyzer._if,
    cst.For: Analyzer._loop,
    cst.While: Analyzer._loop,
    cst.Try: Analyzer._try,
    cst.TryStar: Analyzer._try,
    cst.With: Analyzer._with,
    cst.FunctionDef: Analyzer._def,
    cst.ClassDef: Analyzer._def,
    cst.Match: Analyzer._match,
}


class Context:
    """One analysis of one function body (or lambda, or the module): the values of its
    parameters, the level it runs at, the frame it closes over (for a local function or
    lambda called where it was made), and `site`: how it was reached, for messages.
    `staged`: whether a transformation on its path stages every JAX operation (jit, a lax
    body); under vmap or grad alone an operation on none of the traced values returns a
    concrete array, so there a JAX operation's result is traced only when an input is.
    `falsy_when_tested`: parameters whose truth is False wherever a test of them completes
    (a jit's parameter with a falsy Python default: given, it is a tracer, whose test fails).
    `never_none`: parameters a contract root takes as given, not None: one its annotation says
    is a JAX array, with no default, and one defaulting to None (no call of the run leaves it
    out); `x is None` is False there while the body has not rebound it."""

    __slots__ = (
        "analyzer", "closure", "entry", "falsy_when_tested", "func", "level", "never_none",
        "owner", "params", "site", "staged", "trace",
    )  # fmt: skip

    def __init__(
        self,
        trace: Any,  # the FunctionTrace it adds to
        level: int,
        params: Env,
        closure: Any = None,  # the Analyzer of the frame it closes over
        owner: ClassInfo | None = None,
        site: Any = None,
        staged: bool | None = None,
    ) -> None:
        self.trace = trace
        self.func = trace.func
        self.level = level
        self.staged = level > 0 if staged is None else staged
        self.params = params
        self.closure = closure
        self.owner = owner
        self.site = site
        self.entry: Any = None  # the transformation, for a call of a transformed function
        self.falsy_when_tested: frozenset[str] = frozenset()
        self.never_none: frozenset[str] = frozenset()
        self.analyzer: Any = None  # the Analyzer, once it runs

    @property
    def returns(self) -> Value:
        analyzer = self.analyzer
        if analyzer is None or analyzer.running:
            return U  # recursion
        if analyzer.yields:
            return U
        if analyzer.returns is None:
            return Scalar("None", None) if not analyzer.falls_through_unknown else U
        return analyzer.returns


class ForeignRecord:
    """An outbound call (`options` None) or transformation found by interpretation."""

    __slots__ = (
        "args", "bound", "call", "context", "level", "options", "star", "target", "top", "values",
    )  # fmt: skip

    def __init__(
        self,
        target: str,
        call: cst.CSTNode,
        context: Context,
        level: int,
        args: list[tuple[str | None, int]],
        star: bool,
        options: list[cst.Arg] | None = None,
        bound: tuple[int, tuple[str, ...]] = (1, ()),
        values: tuple[tuple[int, str], ...] = (),
    ) -> None:
        self.target = target
        self.call = call
        # A call's arguments that travel as value facts (records.CallRecord.values).
        self.values = values
        self.context = context
        self.level = level
        self.args = args
        self.star = star
        self.options = options
        # For a transformation: the arguments bound before it (`self` of a method, a
        # partial's), as positional count and keyword names.
        self.bound = bound
        analyzer = context.trace.tracing.module_context
        # The module-level statement around the call, for finding its line cheaply.
        path = context.trace.path
        if len(path) > 1:
            self.top = path[1]
        else:
            self.top = analyzer.analyzer.statement_now if analyzer and analyzer.analyzer else None


Args = list[tuple[str | None, Value]]


def default_value(expr: cst.BaseExpression | None) -> Value:
    """A parameter's default (or a class attribute): its value when it is a literal."""
    if expr is None:
        return U
    kind = type(expr)
    if kind is cst.Integer or kind is cst.Float or kind is cst.Imaginary:
        try:
            return constant(expr.evaluated_value)  # type: ignore[attr-defined]
        except (ValueError, SyntaxError):
            return S
    if kind is cst.SimpleString:
        try:
            return constant(expr.evaluated_value)  # type: ignore[attr-defined]
        except (ValueError, SyntaxError):
            return S
    if kind is cst.Name and expr.value in LITERAL_NAMES:  # type: ignore[attr-defined]
        return constant(LITERAL_NAMES[expr.value])  # type: ignore[attr-defined]
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[attr-defined]
        inner = default_value(expr.expression)  # type: ignore[attr-defined]
        if isinstance(inner, Scalar) and inner.known and isinstance(inner.const, (int, float)):
            return constant(-inner.const)
        return S
    if kind is cst.Tuple:
        return Seq("tuple", [default_value(e.value) for e in expr.elements])  # type: ignore[attr-defined]
    return S


def bind(func: Any, args: Args, star: bool, wrap: Any) -> dict[str, Value]:
    """Each parameter's value for one call of `func`: the argument it receives (through
    `wrap`), its default when left out, unknown when a `*`/`**` argument may fill it."""
    signature = Signature.of(func)
    bound = binding.bind(signature, args, rest_unknown=star)
    params: dict[str, Value] = {}
    for name in (*signature.positional, *signature.keyword_only):
        if name in bound.arguments:
            params[name] = wrap(name, bound.arguments[name])
        else:
            params[name] = default_value(bound.defaulted.get(name))
    if signature.var_positional is not None:
        params[signature.var_positional] = (
            Seq("tuple", elem=U) if star else Seq("tuple", list(bound.extra_positional))
        )
    if signature.var_keyword is not None:
        params[signature.var_keyword] = Dict(elem=U) if star else Dict(dict(bound.extra_keywords))
    return params
