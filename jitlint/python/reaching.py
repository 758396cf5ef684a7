"""Which bindings of a function-local name reach one read of it: names per program point.

A name assigned twice (`y = tf.cast(y, tf.float64)` after `y` came in as a parameter) holds
one value before the second assignment and another after it. Every binding here is given
by its path from the module, ending at the binding: a function (its parameters), or the
assignment statement. A binding reaches a read when it comes before the read and no
statement between them binds the name on every path through it. "Every path" is read from
the block structure alone: an assignment statement, a `with` body that makes one, an `if`
whose every branch makes one, or `if not isinstance(x, list): x = [x]` (past it `x` is a
list on every path, as the body's binding is); not a loop, a `try` or a `match`, which keep
the bindings before them.

Where the answer depends on loops (a binding inside a loop around the read comes back to it
on the next iteration, unless a statement of the loop's body binds the name on every path
before the read) or on when a nested function runs, there is no answer (None) and the
caller keeps every binding, as a flow-insensitive reading would.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.python.walker import iter_children

Path = Sequence[cst.CSTNode]

_LOOPS = (cst.For, cst.While)
_DEFERRED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_BINDERS = (cst.Assign, cst.AnnAssign, cst.AugAssign)
# Nodes a binding statement may sit in and still run whenever the block around them runs.
_BLOCKS = (cst.Module, cst.IndentedBlock, cst.SimpleStatementLine, cst.SimpleStatementSuite)
_UNCONDITIONAL = (cst.IndentedBlock, cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.With)


def reaching(bindings: Sequence[Path], read: Path, scope: cst.CSTNode) -> list[int] | None:
    """The indexes of `bindings` that may reach `read` (a path ending at the read node) in
    the function `scope`; None when the block structure cannot tell."""
    start = _index_of(read, scope)
    if start is None:
        return None
    inner = read[start + 1 :]
    if any(isinstance(node, _DEFERRED) for node in inner[:-1]):
        return None  # a nested function or class runs at a time not known here
    loops = [node for node in inner if isinstance(node, _LOOPS)]
    carried = []  # the loops around the read that rebind the name: it may come back round
    for path in bindings:
        if not path or (path[-1] is not scope and not isinstance(path[-1], _BINDERS)):
            return None  # a loop target, a `with ... as`, an import: not followed here
        carried += [loop for loop in loops if any(node is loop for node in path)]
    before = [i for i, path in enumerate(bindings) if _precedes(path, read)]
    if not before:
        return None
    binders = {id(bindings[i][-1]) for i in before}
    cutoff = _last_sure_binding(read, scope, binders)
    if carried and (cutoff is None or not all(_inside(cutoff, loop) for loop in carried)):
        return None  # a binding inside a loop around the read may come back to it
    # Past here a binding from an earlier pass of a loop is overwritten at the cutoff, which
    # every pass runs before the read (`x = tf.unstack(x)` ahead of `for part in x:`).
    if cutoff is None:
        return before
    return [i for i in before if not _precedes(bindings[i], cutoff)]


def _inside(path: Path, loop: cst.CSTNode) -> bool:
    """The statement at the end of `path` is in the body of `loop`, not its header or its
    `else`: every pass runs it."""
    index = _index_of(path, loop)
    return index is not None and index + 1 < len(path) and path[index + 1] is loop.body  # type: ignore[attr-defined]


def _index_of(path: Path, node: cst.CSTNode) -> int | None:
    for index, item in enumerate(path):
        if item is node:
            return index
    return None


def _split(a: Path, b: Path) -> int:
    """The length of the common prefix of two paths."""
    index = 0
    for x, y in zip(a, b, strict=False):
        if x is not y:
            break
        index += 1
    return index


def _precedes(binding: Path, read: Path) -> bool:
    """The binding is made before the read is evaluated."""
    common = _split(binding, read)
    if common == len(binding):
        # The binding node contains the read: a function's parameters are bound before its
        # body runs; an assignment's value is evaluated before its target is bound.
        return not isinstance(binding[-1], _BINDERS)
    if common == len(read) or common == 0:
        return False
    parent = binding[common - 1]
    if isinstance(parent, (cst.If, cst.Match)) and not (
        isinstance(parent, cst.If) and binding[common] is parent.test
    ):
        return False  # two branches of one `if` (or cases of one `match`): either, not both
    children = iter_children(parent)
    first = _position(children, binding[common])
    second = _position(children, read[common])
    return first is not None and second is not None and first < second


def _position(children: list[cst.CSTNode], node: cst.CSTNode) -> int | None:
    for index, child in enumerate(children):
        if child is node:
            return index
    return None


def _last_sure_binding(read: Path, scope: cst.CSTNode, binders: set[int]) -> Path | None:
    """The path of the last statement before the read that binds the name on every path
    through it; earlier bindings are overwritten there."""
    for depth in range(len(read) - 1, 0, -1):
        parent = read[depth - 1]
        if parent is scope:
            return None
        if not isinstance(parent, _BLOCKS):
            continue
        children = iter_children(parent)
        position = _position(children, read[depth])
        for statement in reversed(children[: position or 0]):
            if _surely_binds(statement, binders):
                return (*read[:depth], statement)
    return None


def _surely_binds(node: cst.CSTNode, binders: set[int]) -> bool:
    """Every path through the statement `node` runs one of the bindings."""
    if id(node) in binders:
        return True
    if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.IndentedBlock)):
        return any(_surely_binds(child, binders) for child in iter_children(node))
    if isinstance(node, cst.With):
        return _surely_binds(node.body, binders)
    if isinstance(node, cst.If):
        orelse = node.orelse
        if not _surely_binds(node.body, binders):
            return False
        if orelse is None:
            return _wraps_unless_container(node, binders)
        return _surely_binds(orelse if isinstance(orelse, cst.If) else orelse.body, binders)
    return False


# `if not isinstance(x, list): x = [x]`: past it, `x` is a list on every path, as the
# binding in the body makes it; the binding before the `if` reaches only as a list.
_CONTAINERS = frozenset({"list", "tuple"})


def _wraps_unless_container(node: cst.If, binders: set[int]) -> bool:
    """`node` is `if not isinstance(NAME, list/tuple): ...` whose body binds NAME: the
    binding before it that passes by is a container, as the body's binding is, so the
    body's binding stands for both."""
    test = node.test
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    call = test.expression
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value == "isinstance"
        and len(call.args) == 2
        and isinstance(call.args[0].value, cst.Name)
    ):
        return False
    kinds = call.args[1].value
    elements = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    if not all(isinstance(e, cst.Name) and e.value in _CONTAINERS for e in elements):
        return False
    name = call.args[0].value.value
    return any(
        isinstance(statement, cst.SimpleStatementLine)
        and any(
            id(small) in binders
            and isinstance(small, cst.Assign)
            and isinstance(small.value, (cst.List, cst.Tuple))
            and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
            )
            for small in statement.body
        )
        for statement in node.body.body
    )


# ---- the tests a binding passes on its way to a read ----------------------------------------
# `if isinstance(y, T): use(y)`, `if y is None: return` before `use(y)`, `assert ...`: where a
# binding made before the test reaches the read, it reaches it only where the test had one
# outcome, and the name held the binding's value when the test read it (no binding in between,
# or this one would not reach). What the outcome proves about the value is the caller's to say
# (python/predicates.py's `Guards`, with a framework's types).
Guard = tuple[cst.BaseExpression, bool]
_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_STATEMENT_BLOCKS = (cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite)


def guards_passed(binding: Path, read: Path, scope: cst.CSTNode, name: str) -> list[Guard]:
    """The tests (with the outcome each had) that `binding` of `name` (a path as `reaching`
    takes it) passes on every path on which it reaches `read` in the function `scope`: the
    `if`/conditional expression/`and`/`or` around the read, and the `if` and `assert`
    statements before it, through which every path to it goes. Empty where none is sure."""
    start = _index_of(read, scope)
    if start is None or any(isinstance(node, _DEFERRED) for node in read[start + 1 : -1]):
        return []  # a nested function reads the name when it runs, not where it is defined
    found: list[Guard] = []
    for depth in range(start + 1, len(read) - 1):
        node, child = read[depth], read[depth + 1]
        if isinstance(node, _STATEMENT_BLOCKS):
            found += _statements_before(node, child, binding, read[: depth + 1], name)
        elif _split(binding, read[: depth + 1]) == depth + 1:
            continue  # the binding is made inside this node: it did not pass its test
        elif isinstance(node, (cst.If, cst.IfExp)) and child is not node.test:
            found.append((node.test, child is node.body))
        elif isinstance(node, cst.BooleanOperation) and child is node.right:
            found.append((node.left, isinstance(node.operator, cst.And)))
    return found


def _statements_before(
    block: cst.CSTNode, child: cst.CSTNode, binding: Path, block_path: Path, name: str
) -> list[Guard]:
    """The guards of the statements of `block` before `child` (the one holding the read) that
    `binding` was made before."""
    found: list[Guard] = []
    for statement in iter_children(block):
        if statement is child:
            break
        if not isinstance(statement, (cst.If, cst.SimpleStatementLine)):
            continue
        if not _made_before(binding, (*block_path, statement)):
            continue
        if isinstance(statement, cst.SimpleStatementLine):
            found += [(s.test, True) for s in statement.body if isinstance(s, cst.Assert)]
            continue
        # Past an `if`, the binding arrives only through a branch that neither leaves nor
        # binds the name again.
        through_body = not _ends_or_binds(statement.body, name)
        orelse = statement.orelse
        through_else = orelse is None or isinstance(orelse, cst.If)
        if isinstance(orelse, cst.Else):
            through_else = not _ends_or_binds(orelse.body, name)
        if through_body != through_else:
            found.append((statement.test, through_body))
    return found


def _made_before(binding: Path, statement: Path) -> bool:
    """The binding is made before `statement` runs: a parameter, or a statement before it in
    a block around both."""
    if not binding:
        return False
    common = _split(binding, statement)
    if common == len(binding):
        return not isinstance(binding[-1], _BINDERS)  # the function: its parameters
    if common == 0 or common >= len(statement):
        return False
    parent = statement[common - 1]
    if not isinstance(parent, (*_STATEMENT_BLOCKS, cst.SimpleStatementLine)):
        return False
    children = iter_children(parent)
    first = _position(children, binding[common])
    second = _position(children, statement[common])
    return first is not None and second is not None and first < second


def _ends_or_binds(block: cst.BaseSuite, name: str) -> bool:
    """Every path through `block` that reaches its end binds `name`, or none reaches it: one
    of its own statements leaves (`return`, `raise`, `continue`, `break`) or assigns the name."""
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    for line in lines:
        smalls = (
            line.body
            if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
            else ()
        )
        for small in smalls:
            if isinstance(small, _EXITS):
                return True
            if isinstance(small, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
            ):
                return True
            if (
                isinstance(small, cst.AnnAssign)
                and small.value is not None
                and isinstance(small.target, cst.Name)
                and small.target.value == name
            ):
                return True
    return False
