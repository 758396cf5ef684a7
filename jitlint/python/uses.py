"""Where a name is read and bound within a block: which statement holds a node, the first
thing later statements do with a name (read it, or bind it again), in evaluation order,
whether a process exit follows a statement, the names a function's statements assign, the
names an expression reads from its surroundings (`free_reads`) and those a loop may rebind
or mutate (`changed_in`).
Nested scopes (functions, lambdas, classes, comprehensions) are not entered: their bodies run
later, or bind names of their own.

Also every use of a parameter in its function's body (`every_use`): whether each one passes a
test that the caller states (for example "an argument in an array position"). Conservative
by design: a parameter that is rebound, or read inside a nested scope, fails, since what it
holds there is not what the caller passed."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence, Set

import libcst as cst

from jitlint.python.builtins_facts import MUTATING_METHODS, PROCESS_EXITS
from jitlint.python.names import leaf_name
from jitlint.python.scopes import comprehension_targets
from jitlint.python.walker import descendants, iter_children, own_scope_nodes

_STATEMENTS = (cst.Expr, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return)
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp,
           cst.GeneratorExp)  # fmt: skip


def statement_in_block(
    path: list[cst.CSTNode],
) -> tuple[cst.CSTNode, list[cst.CSTNode], int] | None:
    """The statement holding the end of `path`, the statements of its block (a simple line
    stands for its small statement when it has one), and its index there; None when the call
    sits in a nested scope or in a compound statement's header."""
    for position in range(len(path) - 2, -1, -1):
        node = path[position]
        if isinstance(node, _SCOPES):
            return None
        if isinstance(node, _STATEMENTS) and type(path[position - 1]) is cst.SimpleStatementLine:
            line = path[position - 1]
            if len(line.body) != 1:  # type: ignore[attr-defined]
                return None
            statements = list(path[position - 2].body)  # type: ignore[attr-defined]
            if line not in statements:
                return None
            return node, statements, statements.index(line)
        if isinstance(node, cst.BaseCompoundStatement):
            return None
    return None


def loop_around(path: list[cst.CSTNode], block: list[cst.CSTNode]) -> cst.CSTNode | None:
    """The `for`/`while` whose body is `block`, if it is one."""
    for position in range(len(path) - 1, 0, -1):
        node = path[position]
        if type(node) is cst.IndentedBlock and list(node.body) == block:  # type: ignore[attr-defined]
            owner = path[position - 1]
            return owner if type(owner) in (cst.For, cst.While) else None
    return None


def leaves_after(block: list[cst.CSTNode], index: int) -> bool:
    """Whether the loop body leaves (break/return/raise) after the call, at its own level."""
    for statement in block[index + 1 :]:
        if type(statement) is cst.SimpleStatementLine and any(
            type(s) in (cst.Break, cst.Return, cst.Raise)
            for s in statement.body  # type: ignore[attr-defined]
        ):
            return True
    return False


def before_exit(path: list[cst.CSTNode]) -> bool:
    """The statement holding the end of `path` is followed in its block by one that ends
    the process or raises (`print(msg, file=sys.stderr); exit(1)`): it runs once, on the
    way out."""
    for index in range(len(path) - 1, 0, -1):
        if type(path[index]) is cst.SimpleStatementLine:
            block = path[index - 1]
            if type(block) is not cst.IndentedBlock:
                return False
            statements = list(block.body)
            position = next(i for i, s in enumerate(statements) if s is path[index])
            return any(_exits(s) for s in statements[position + 1 :])
    return False


def _exits(statement: cst.CSTNode) -> bool:
    if type(statement) is not cst.SimpleStatementLine:
        return False
    return any(type(small) is cst.Raise or _process_exit(small) for small in statement.body)


def _process_exit(small: cst.CSTNode) -> bool:
    """`exit(1)`, `sys.exit(msg)`, `os._exit(0)` as a statement."""
    if type(small) is not cst.Expr or type(small.value) is not cst.Call:  # type: ignore[attr-defined]
        return False
    func = small.value.func  # type: ignore[attr-defined]
    name = func.value if type(func) is cst.Name else None
    if type(func) is cst.Attribute and type(func.value) is cst.Name:
        name = f"{func.value.value}.{func.attr.value}"
    return name in PROCESS_EXITS


# ---- loops that run their body at most once -------------------------------------------------
_LOOPS = (cst.For, cst.While)
_FUNCTIONS = (cst.FunctionDef, cst.Lambda)
_ONE_ELEMENT = (cst.List, cst.Tuple, cst.Set)


def repeats_body(loop: cst.CSTNode) -> bool:
    """Whether a `for`/`while` may run its body more than once on a normal run. Not when it
    iterates over a written-out collection of one element (`for x in [a]:`, `range(1)`), nor
    when every path through the body ends by leaving it (`break`, `return`, `raise`, a
    process exit; an `if` whose every branch does; the body of a `try` without `else`,
    whose handlers may retry after an error) with no `continue` outside an exception
    handler to skip that ending. Such a loop runs its body once, or again only to retry
    after a failure."""
    if type(loop) is cst.For and _one_element(loop.iter):  # type: ignore[attr-defined]
        return False
    if not leaves_on_every_path(loop.body):  # type: ignore[attr-defined]
        return True
    return _has_continue(loop.body)  # type: ignore[attr-defined]


def sets_flag_of_loop(call: cst.Call, path: Sequence[cst.CSTNode]) -> bool:
    """The call at the end of `path` decides whether the innermost loop around it (in its
    function) runs again: the loop is `while flag:`, and every normal path through its body
    ends with `flag = <this call>` (in a `try` without `else`, whose handlers may retry
    after an error), with no `continue` outside the handlers to skip it. Whether the loop
    repeats is then what the call returns (`while running: try: running = run(config)
    except Unavailable: ...`)."""
    loop = None
    for index in range(len(path) - 2, -1, -1):
        node, child = path[index], path[index + 1]
        if type(node) in _FUNCTIONS:
            return False
        if type(node) in _LOOPS and child is node.body:  # type: ignore[attr-defined]
            loop = node
            break
    if type(loop) is not cst.While or type(loop.test) is not cst.Name:
        return False
    flag = loop.test.value

    def ends(small: cst.BaseSmallStatement) -> bool:
        if type(small) is not cst.Assign or small.value is not call:
            return _leaves(small)
        if len(small.targets) != 1:
            return False
        target = small.targets[0].target
        return type(target) is cst.Name and target.value == flag  # type: ignore[attr-defined]

    return _every_path_ends(loop.body, ends, into_blocks=True) and not _has_continue(loop.body)


def _one_element(iterable: cst.CSTNode) -> bool:
    """`[a]`, `(a,)`, `{a}` or `range(1)`."""
    if type(iterable) is cst.Call:
        func, args = iterable.func, iterable.args  # type: ignore[attr-defined]
        return (
            type(func) is cst.Name
            and func.value == "range"
            and len(args) == 1
            and args[0].keyword is None
            and not args[0].star
            and type(args[0].value) is cst.Integer
            and args[0].value.evaluated_value == 1
        )
    if type(iterable) not in _ONE_ELEMENT:
        return False
    elements = iterable.elements  # type: ignore[attr-defined]
    return len(elements) == 1 and type(elements[0]) is not cst.StarredElement


def leaves_on_every_path(block: cst.BaseSuite) -> bool:
    """Every normal path through `block` (a loop's or a branch's body) ends in `break`,
    `return`, `raise` or a process exit."""
    return _every_path_ends(block, _leaves, into_blocks=True)


def raises_on_every_path(block: cst.BaseSuite) -> bool:
    """Every normal path through `block` (an exception handler's body) ends by raising or
    ending the process: the error it caught, or another, still leaves it."""
    return _every_path_ends(block, _raises, into_blocks=False)


def _every_path_ends(
    block: cst.BaseSuite, ends: Callable[[cst.BaseSmallStatement], bool], into_blocks: bool
) -> bool:
    """Every normal path through `block` ends in a small statement that `ends` accepts: its
    last statement, or each branch of a last `if` with an `else`. `into_blocks`: a last
    `with` is followed into its body, and a last `try` into its `else` (or its body, when it
    has none; its handlers may fall through, as a retry does)."""
    if type(block) is cst.SimpleStatementSuite:  # `for x in xs: break`
        return bool(block.body) and ends(block.body[-1])
    statements = block.body  # type: ignore[attr-defined]
    if not statements:
        return False
    return _statement_ends(statements[-1], ends, into_blocks)


def _statement_ends(
    last: cst.CSTNode, ends: Callable[[cst.BaseSmallStatement], bool], into_blocks: bool
) -> bool:
    kind = type(last)
    if kind is cst.SimpleStatementLine:
        return bool(last.body) and ends(last.body[-1])  # type: ignore[attr-defined]
    if kind is cst.If:
        orelse = last.orelse  # type: ignore[attr-defined]
        if orelse is None or not _every_path_ends(last.body, ends, into_blocks):  # type: ignore[attr-defined]
            return False
        if type(orelse) is cst.If:
            return _statement_ends(orelse, ends, into_blocks)
        return _every_path_ends(orelse.body, ends, into_blocks)
    if not into_blocks:
        return False
    if kind is cst.Try:
        tail = last.orelse.body if last.orelse is not None else last.body  # type: ignore[attr-defined]
        return _every_path_ends(tail, ends, into_blocks)
    if kind is cst.With:
        return _every_path_ends(last.body, ends, into_blocks)  # type: ignore[attr-defined]
    return False


def _leaves(small: cst.BaseSmallStatement) -> bool:
    return type(small) in (cst.Break, cst.Return, cst.Raise) or _process_exit(small)


def _raises(small: cst.BaseSmallStatement) -> bool:
    return type(small) is cst.Raise or _process_exit(small)


def _has_continue(node: cst.CSTNode) -> bool:
    """A `continue` of this loop outside its exception handlers (those retry on failure)."""
    stack = list(iter_children(node))
    while stack:
        child = stack.pop()
        kind = type(child)
        if kind is cst.Continue:
            return True
        if kind in (*_LOOPS, *_FUNCTIONS, cst.ClassDef, cst.ExceptHandler, cst.ExceptStarHandler):
            continue  # another loop's continue, a def's, or a retry after an error
        stack.extend(iter_children(child))
    return False


# The statements whose children `assigned_names` looks into: blocks and compound statements,
# not expressions (a walrus is not looked for) nor nested scopes.
_BLOCKS = {
    cst.IndentedBlock, cst.SimpleStatementLine, cst.If, cst.Else, cst.For, cst.While,
    cst.With, cst.Try, cst.ExceptHandler, cst.Finally,
}  # fmt: skip


def assigned_names(func: cst.FunctionDef) -> list[cst.Name]:
    """The names `func`'s own statements assign (`x = ...`, `x += ...`), as written."""
    found: list[cst.Name] = []
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Assign:
            found.extend(
                t.target
                for t in node.targets  # type: ignore[attr-defined]
                if type(t.target) is cst.Name
            )
        elif kind is cst.AugAssign and type(node.target) is cst.Name:  # type: ignore[attr-defined]
            found.append(node.target)  # type: ignore[attr-defined]
        if kind in _BLOCKS:
            stack.extend(iter_children(node))
    return found


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    """The calls in `node` in source order, nested functions and classes left out."""
    found: list[cst.Call] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        if type(current) is cst.Call:
            found.append(current)  # type: ignore[arg-type]
        stack.extend(reversed(list(iter_children(current))))
    return found


def echoes(func: cst.FunctionDef, call: cst.Call) -> list[cst.Call]:
    """The other calls in `func`'s own body whose arguments read every name that the
    positional arguments of `call` read (at least one): the same values handed on again
    (`print(msg % args)` beside `logging.info(msg, *args)`)."""
    read: set[str] = set()
    for arg in call.args:
        if arg.keyword is None:
            read |= free_reads(arg.value) or set()
    if not read:
        return []
    found = []
    for other in calls_in(func.body):
        if other is call:
            continue
        reads: set[str] = set()
        for arg in other.args:
            reads |= free_reads(arg.value) or set()
        if read <= reads:
            found.append(other)
    return found


def bound_names(node: cst.CSTNode) -> set[str]:
    """Names bound anywhere in `node` (outside nested scopes)."""
    events = _Events("", frozenset(), frozenset())
    node.visit(events)
    return events.written


def target_names(target: cst.CSTNode) -> set[str]:
    """The names a `for` target binds: `x`, `x, y`, `(x, y), z`."""
    if type(target) is cst.Name:
        return {target.value}  # type: ignore[attr-defined]
    if type(target) in (cst.Tuple, cst.List):
        return {n for e in target.elements for n in target_names(e.value)}  # type: ignore[attr-defined]
    return set()


def loop_iterable(
    name: cst.Name,
    path: Sequence[cst.CSTNode],
    is_enumerate: Callable[[cst.BaseExpression], bool],
) -> cst.BaseExpression | None:
    """The iterable whose elements the innermost `for` around the end of `path` (same
    function) binds to `name`: `for x in it`, `for x, y in it`, and through `enumerate(it)`
    (`for i, x in enumerate(it)`); None when no such loop binds it."""
    for loop in reversed(path[:-1]):
        if type(loop) in (cst.FunctionDef, cst.Lambda):
            return None
        if type(loop) is not cst.For or not any(n is loop.body for n in path):
            continue
        target, iterable = loop.target, loop.iter
        if (
            type(iterable) is cst.Call
            and iterable.args
            and is_enumerate(iterable.func)
            and type(target) is cst.Tuple
            and len(target.elements) == 2
        ):
            target, iterable = target.elements[1].value, iterable.args[0].value
        if name.value in target_names(target):
            return iterable
    return None


def first_use(
    node: cst.CSTNode,
    name: str,
    harmless_attributes: Set[str] = frozenset(),
    harmless_calls: Set[str] = frozenset(),
) -> cst.Name | str | None:
    """The first thing `node` does with `name`, in evaluation order: the Name node of a read,
    "write" for a binding, None when it does not touch it. `name.attr` for an attribute in
    `harmless_attributes`, `f(name, ...)` for a builtin in `harmless_calls` and `name is
    None` do not count as reads."""
    events = _Events(name, harmless_attributes, harmless_calls)
    node.visit(events)
    return events.first


class _Events(cst.CSTVisitor):
    """Reads and bindings of names, values before targets; nested scopes are skipped."""

    def __init__(self, name: str, attributes: Set[str], calls: Set[str]) -> None:
        self.name = name
        self.attributes = attributes
        self.calls = calls
        self.first: cst.Name | str | None = None
        self.written: set[str] = set()

    def _event(self, event: cst.Name | str) -> None:
        if self.first is None:
            self.first = event

    def _target(self, target: cst.CSTNode) -> None:
        kind = type(target)
        if kind is cst.Name:
            self.written.add(target.value)  # type: ignore[attr-defined]
            if target.value == self.name:  # type: ignore[attr-defined]
                self._event("write")
        elif kind in (cst.Tuple, cst.List):
            for element in target.elements:  # type: ignore[attr-defined]
                self._target(element.value)
        elif kind is cst.StarredElement:
            self._target(target.value)  # type: ignore[attr-defined]
        else:
            target.visit(self)  # `a[i] = v` / `a.x = v` read `a`

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self._event(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if not (_is_name(node.value, self.name) and node.attr.value in self.attributes):
            node.value.visit(self)
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        func = node.func
        if (
            type(func) is cst.Name
            and func.value in self.calls
            and node.args
            and _is_name(node.args[0].value, self.name)
        ):
            for arg in node.args[1:]:
                arg.visit(self)
            return False
        return True

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        if _is_name(node.left, self.name) and all(
            type(c.operator) in (cst.Is, cst.IsNot) for c in node.comparisons
        ):
            for comparison in node.comparisons:
                comparison.comparator.visit(self)
            return False
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._target(node.name)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._target(node.name)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return False

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return False

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return False

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> bool:
        node.value.visit(self)
        for target in node.targets:
            self._target(target.target)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        if node.value is not None:
            node.value.visit(self)
            self._target(node.target)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        node.target.visit(self)  # read first
        node.value.visit(self)
        self._target(node.target)
        return False

    def visit_For(self, node: cst.For) -> bool:
        node.iter.visit(self)
        self._target(node.target)
        node.body.visit(self)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_WithItem(self, node: cst.WithItem) -> bool:
        node.item.visit(self)
        if node.asname is not None:
            self._target(node.asname.name)
        return False

    def visit_Del(self, node: cst.Del) -> bool:
        self._target(node.target)
        return False

    def visit_ImportAlias(self, node: cst.ImportAlias) -> bool:
        bound = node.asname.name if node.asname is not None else node.name
        while type(bound) is cst.Attribute:
            bound = bound.value  # type: ignore[attr-defined]
        self._target(bound)
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        node.value.visit(self)
        self._target(node.target)
        return False


def _is_name(expr: cst.CSTNode, name: str) -> bool:
    return type(expr) is cst.Name and expr.value == name  # type: ignore[attr-defined]


# ---- reads that set how many passes a Python loop makes -------------------------------------
def counts_passes(parent: cst.CSTNode, child: cst.CSTNode) -> bool:
    """`child` is an argument of a call of `range` (`parent`): the value sets how many passes
    a loop over it makes, so a tracer records a different program for each value (a branch
    test is not this: many values may take the same branch)."""
    if type(parent) is not cst.Call:
        return False
    func = parent.func  # type: ignore[attr-defined]
    return type(func) is cst.Name and func.value == "range" and child is not func


# ---- every use of a parameter ----------------------------------------------------------
# A use: the Name node and its ancestors inside the body, outermost first.
UseTest = Callable[[cst.Name, Sequence[cst.CSTNode]], bool]

# Nodes every name under which is bound, and nodes that bind only the names of their target.
_BINDING = (cst.AssignTarget, cst.AsName, cst.Global, cst.Nonlocal, cst.Del, cst.MatchAs,
            cst.MatchStar)  # fmt: skip
_TARGETED = (cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr, cst.CompFor)


def _binds(node: cst.Name, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether `node` is bound where it stands (a target), rather than read."""
    below: cst.CSTNode = node
    for ancestor in reversed(ancestors):
        if isinstance(ancestor, _BINDING):
            return True
        if isinstance(ancestor, _TARGETED) and ancestor.target is below:  # type: ignore[attr-defined]
            return True
        below = ancestor
    return False


def every_use(func: cst.FunctionDef, name: str, test: UseTest) -> bool:
    """Whether `name` is read at least once in `func`'s body and `test` holds at every read;
    False when the body binds `name` again or a nested scope mentions it."""
    found = False
    for node, ancestors in _names(func.body, []):
        if node.value != name or _not_a_read(node, ancestors):
            continue
        if _binds(node, ancestors) or any(isinstance(a, _SCOPES) for a in ancestors):
            return False
        if not test(node, ancestors):
            return False
        found = True
    return found


def _not_a_read(node: cst.Name, ancestors: Sequence[cst.CSTNode]) -> bool:
    """`obj.name` and `f(name=...)`: the same spelling, not the variable."""
    parent = ancestors[-1] if ancestors else None
    if type(parent) is cst.Attribute:
        return parent.attr is node
    if type(parent) is cst.Arg:
        return parent.keyword is node
    return False


def _names(
    node: cst.CSTNode, ancestors: list[cst.CSTNode]
) -> Iterator[tuple[cst.Name, list[cst.CSTNode]]]:
    if type(node) is cst.Name:
        yield node, ancestors  # type: ignore[misc]
        return
    ancestors.append(node)
    for child in node.children:
        yield from _names(child, ancestors)
    ancestors.pop()


# ---- every call of a name -----------------------------------------------------------------
def calls_of_name(
    scope: cst.CSTNode, name: str, bound_at: cst.Name, depth: int = 0
) -> list[cst.Call] | None:
    """Every call `name(...)` in `scope` (nested scopes included) of a name bound once, at
    `bound_at`; None when the value may go anywhere else: a mention of the name that is not
    the function of a call (passed on, stored, returned, rebound, a parameter or a local of a
    nested scope with the same spelling), or no call at all. A value of a dict display bound
    to a name that is only iterated (`for key, f in fns.items(): f(x)`) is called where the
    loop's name is."""
    found: list[cst.Call] = []
    for node, above in _reads_of(scope, name, bound_at):
        parent = above[-1] if above else None
        if type(parent) is cst.Call and parent.func is node:  # type: ignore[attr-defined]
            found.append(parent)  # type: ignore[arg-type]
            continue
        through = _calls_through_dict(scope, node, above, depth)
        if through is None:
            return None
        found.extend(through)
    return found or None


def _reads_of(
    scope: cst.CSTNode, name: str, bound_at: cst.Name
) -> Iterator[tuple[cst.Name, tuple[cst.CSTNode, ...]]]:
    """Each read of `name` in `scope` (nested scopes included) but `bound_at`, in source
    order, with the nodes above it."""
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(scope, ())]
    while stack:
        node, above = stack.pop()
        if type(node) is cst.Name:
            mine = node.value == name and node is not bound_at  # type: ignore[attr-defined]
            if mine and (not above or not _not_a_read(node, [above[-1]])):  # type: ignore[arg-type]
                yield node, above  # type: ignore[misc]
            continue
        stack.extend((child, (*above, node)) for child in reversed(iter_children(node)))


def calls_of_result(scope: cst.CSTNode, name: str, bound_at: cst.Name) -> list[cst.Call] | None:
    """Every call of what the function bound once at `bound_at` returns, where each mention
    of `name` in `scope` calls it and calls the result at once (`make(a)(x)`), or binds the
    result to a name that is bound only there and only ever called (`f = make(a)`, then
    `f(x)`): those calls. None on any other mention (the function or its result passed on,
    stored, returned or rebound), or when there is no call at all."""
    found: list[cst.Call] = []
    for node, above in _reads_of(scope, name, bound_at):
        if len(above) < 2:
            return None
        inner, outer = above[-1], above[-2]
        if type(inner) is not cst.Call or inner.func is not node:  # type: ignore[attr-defined]
            return None
        if type(outer) is cst.Call and outer.func is inner:  # type: ignore[attr-defined]
            found.append(outer)  # type: ignore[arg-type]
            continue
        kept = _calls_of_bound_result(scope, inner, outer)  # type: ignore[arg-type]
        if kept is None:
            return None
        found.extend(kept)
    return found or None


def _calls_of_bound_result(
    scope: cst.CSTNode, call: cst.Call, statement: cst.CSTNode
) -> list[cst.Call] | None:
    """The calls of `f` in `f = call`, where `f` is bound only there and only ever called."""
    if type(statement) is not cst.Assign or statement.value is not call:  # type: ignore[attr-defined]
        return None
    targets = statement.targets  # type: ignore[attr-defined]
    if len(targets) != 1 or type(targets[0].target) is not cst.Name:
        return None
    target: cst.Name = targets[0].target
    return calls_of_name(scope, target.value, target, depth=2)


def _calls_through_dict(
    scope: cst.CSTNode, node: cst.Name, above: tuple[cst.CSTNode, ...], depth: int
) -> list[cst.Call] | None:
    """The calls of `node`, a value of a dict display `d = {k: node, ...}` in `scope`, where
    every mention of `d` is `for k, f in d.items():` or `for f in d.values():` and `f` is
    only called in the loop's body; None otherwise."""
    if depth > 1 or len(above) < 3:
        return None
    element, display, statement = above[-1], above[-2], above[-3]
    if type(element) is not cst.DictElement or element.value is not node:  # type: ignore[attr-defined]
        return None
    if type(display) is not cst.Dict or type(statement) is not cst.Assign:
        return None
    targets = statement.targets  # type: ignore[attr-defined]
    if len(targets) != 1 or type(targets[0].target) is not cst.Name:
        return None
    dict_name: cst.Name = targets[0].target
    found: list[cst.Call] = []
    loops: list[cst.For] = []  # in the order of the text
    named = 0  # mentions of the dict's name besides its binding
    stack = [scope]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.For:
            loops.append(node)  # type: ignore[arg-type]
        elif kind is cst.Name and node.value == dict_name.value and node is not dict_name:  # type: ignore[attr-defined]
            named += 1
        stack.extend(reversed(iter_children(node)))
    mentions = 0
    for loop in loops:
        loop_name = _iterated_value(loop, dict_name.value)  # type: ignore[arg-type]
        if loop_name is None:
            continue
        mentions += 1
        calls = calls_of_name(loop.body, loop_name.value, loop_name, depth + 1)  # type: ignore[attr-defined]
        if calls is None:
            return None
        found.extend(calls)
    return found if mentions and named == mentions else None


def _iterated_value(loop: cst.For, dict_name: str) -> cst.Name | None:
    """`f` of `for k, f in d.items():` or `for f in d.values():`, for `d` spelled
    `dict_name`."""
    it = loop.iter
    if type(it) is not cst.Call or it.args or type(it.func) is not cst.Attribute:
        return None
    owner, method = it.func.value, it.func.attr.value
    if type(owner) is not cst.Name or owner.value != dict_name:
        return None
    target = loop.target
    if method == "values" and type(target) is cst.Name:
        return target
    if method == "items" and type(target) in (cst.Tuple, cst.List):
        elements = target.elements  # type: ignore[attr-defined]
        if len(elements) == 2 and type(elements[1].value) is cst.Name:
            return elements[1].value
    return None


def returned_values(func: cst.FunctionDef) -> list[cst.BaseExpression] | None:
    """The value of every `return` of `func` (nested scopes aside); None when one returns
    nothing, the body may end without a return, or it is a generator."""
    found: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _SCOPES:
            continue
        if kind is cst.Yield:
            return None
        if kind is cst.Return:
            if node.value is None:  # type: ignore[attr-defined]
                return None
            found.append(node.value)  # type: ignore[attr-defined]
            continue
        stack.extend(iter_children(node))
    body = func.body.body  # type: ignore[attr-defined]
    if not found or not body or type(body[-1]) is not cst.SimpleStatementLine:
        return None
    last = body[-1].body  # type: ignore[attr-defined]
    return found if last and type(last[-1]) is cst.Return else None


def returns_no_value(func: cst.FunctionDef) -> bool:
    """Whether `func` gives its caller nothing: no `return` with a value and no `yield`
    (nested scopes aside). Such a function is called for what it does."""
    for node in own_scope_nodes(func.body, _SCOPES):
        kind = type(node)
        if kind is cst.Yield or (kind is cst.Return and node.value is not None):  # type: ignore[attr-defined]
            return False
    return True


def receiver_method_calls(func: cst.FunctionDef) -> set[str]:
    """The methods `func` calls on its first parameter: `self.m(...)`, or `model.m(...)`
    where the body binds `model = self` (nested scopes aside). What else the name is bound
    to later does not matter to a caller asking which methods of the class the body names."""
    params = [*func.params.posonly_params, *func.params.params]
    if not params:
        return set()
    receivers = {params[0].name.value}
    # Comprehensions are entered: `[self.step(b) for b in batches]` calls on `self`.
    nodes = list(own_scope_nodes(func.body, (cst.FunctionDef, cst.Lambda, cst.ClassDef)))
    for node in nodes:
        if type(node) is not cst.Assign or type(node.value) is not cst.Name:  # type: ignore[attr-defined]
            continue
        if node.value.value in receivers:  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target.target) is cst.Name:
                    receivers.add(target.target.value)
    found: set[str] = set()
    for node in nodes:
        if type(node) is not cst.Call or type(node.func) is not cst.Attribute:  # type: ignore[attr-defined]
            continue
        base = node.func.value  # type: ignore[attr-defined]
        if type(base) is cst.Name and base.value in receivers:
            found.add(node.func.attr.value)  # type: ignore[attr-defined]
    return found


# ---- reads that only check ----------------------------------------------------------------
def read_only_by_checks(scope: cst.CSTNode, name: str, skip: cst.CSTNode) -> bool:
    """Every read of `name` in `scope` outside `skip` (one at least) is a check: inside an
    `assert` statement, the arguments of an assertion call (`self.assertEqual(...)`,
    `np.testing.assert_allclose(...)`), or the test of an `if` that skips (`if len(log) ==
    1: self.skipTest(...)`). What such a name holds is only ever compared with what its
    author expects: a record kept to be checked, as a test keeps a log of traces."""
    found = False
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(scope, ())]
    while stack:
        node, above = stack.pop()
        if node is skip:
            continue
        if type(node) is cst.Name and node.value == name:  # type: ignore[attr-defined]
            parent = above[-1] if above else None
            if parent is not None and _not_a_read(node, [parent]):  # type: ignore[arg-type]
                continue
            if _binds(node, above):
                continue
            if not any(
                _checks(a, child) for a, child in zip(above, (*above[1:], node), strict=True)
            ):
                return False
            found = True
            continue
        stack.extend((child, (*above, node)) for child in iter_children(node))
    return found


def _checks(node: cst.CSTNode, child: cst.CSTNode) -> bool:
    """`child` is checked by `node`: an `assert`, an assertion call's argument, or the test
    of an `if` whose body skips."""
    kind = type(node)
    if kind is cst.Assert:
        return True
    if kind is cst.Call:
        return child is not node.func and leaf_name(node.func).startswith("assert")  # type: ignore[attr-defined]
    if kind is cst.If and child is node.test:  # type: ignore[attr-defined]
        return any(leaf_name(c.func).startswith("skip") for c in calls_in(node.body))  # type: ignore[attr-defined]
    return False


# ---- what an expression reads, and what a loop changes ------------------------------------
_COMPREHENSION_SCOPES = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def free_reads(expr: cst.CSTNode, bound: frozenset[str] = frozenset()) -> set[str] | None:
    """Names `expr` reads from its surroundings, lambda bodies included; None when it
    contains something that cannot move (`await`, `yield`, `:=`)."""
    kind = type(expr)
    if kind in (cst.Await, cst.Yield, cst.NamedExpr):
        return None
    if kind is cst.Name:
        value = expr.value  # type: ignore[attr-defined]
        return set() if value in bound else {value}
    parts: list[tuple[cst.CSTNode, frozenset[str]]]
    if kind in (cst.Attribute, cst.Arg):  # not `.attr` nor `keyword=`
        parts = [(expr.value, bound)]  # type: ignore[attr-defined]
    elif kind is cst.Lambda:
        params = expr.params  # type: ignore[attr-defined]
        inner = bound | {p.name.value for p in params_of(params)}
        defaults = [p.default for p in params_of(params) if p.default is not None]
        parts = [(d, bound) for d in defaults] + [(expr.body, inner)]  # type: ignore[attr-defined]
    elif kind in _COMPREHENSION_SCOPES:
        inner = bound | comprehension_targets(expr)
        parts = [(child, inner) for child in iter_children(expr)]
    else:
        parts = [(child, bound) for child in iter_children(expr)]
    reads: set[str] = set()
    for part, names in parts:
        found = free_reads(part, names)
        if found is None:
            return None
        reads |= found
    return reads


def params_of(params: cst.Parameters) -> list[cst.Param]:
    """Every parameter of a signature, `*args` and `**kwargs` included."""
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    found += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return found


def changed_in(node: cst.CSTNode) -> set[str]:
    """Every name code under `node` (a loop) may rebind or visibly mutate (conservatively:
    any name inside an assignment target, including `obj` of `obj.x = v` and `a`, `i` of
    `a[i] = v`, and the receiver of an in-place method such as `history.append(...)`)."""
    names: set[str] = set()
    for child in descendants(node):
        targets: list[cst.CSTNode] = []
        if isinstance(child, cst.For | cst.CompFor):
            targets.append(child.target)
        elif isinstance(child, cst.Assign):
            targets.extend(t.target for t in child.targets)
        elif isinstance(child, cst.AugAssign | cst.AnnAssign | cst.NamedExpr | cst.Del):
            targets.append(child.target)
        elif isinstance(child, cst.AsName):  # `with ... as x`, `except E as e`, imports
            targets.append(child.name)
        elif isinstance(child, cst.FunctionDef | cst.ClassDef):
            names.add(child.name.value)
        elif isinstance(child, cst.Import | cst.ImportFrom) and not isinstance(
            child.names, cst.ImportStar
        ):
            names.update(a.evaluated_alias or a.evaluated_name.split(".")[0] for a in child.names)
        elif isinstance(child, cst.Global | cst.Nonlocal):
            names.update(n.name.value for n in child.names)
        elif (
            isinstance(child, cst.Call)
            and isinstance(child.func, cst.Attribute)
            and child.func.attr.value in MUTATING_METHODS
        ):
            targets.append(child.func.value)
        for target in targets:
            names.update(n.value for n in descendants(target) if isinstance(n, cst.Name))
    return names
