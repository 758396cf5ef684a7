"""Which bindings of a function-local name reach one read of it: names per program point.

A name assigned twice (`y = tf.cast(y, tf.float64)` after `y` came in as a parameter) holds
one value before the second assignment and another after it. Every binding here is given
by its path from the module, ending at the binding: a function (its parameters), or the
assignment statement. A binding reaches a read when it comes before the read and no binding
that runs on every path between them comes after it. "Runs on every path" is read from the
block structure alone: a binding in the same block as the read's statement, or in a block
that contains it, through `with` bodies but not through `if`, `try`, loops or `match`.

Where the answer depends on loops (a binding inside a loop around the read comes back to it
on the next iteration) or on when a nested function runs, there is no answer (None) and the
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
    for path in bindings:
        if not path or (path[-1] is not scope and not isinstance(path[-1], _BINDERS)):
            return None  # a loop target, a `with ... as`, an import: not followed here
        if any(any(node is loop for node in path) for loop in loops):
            return None  # rebound inside a loop around the read
    before = [i for i, path in enumerate(bindings) if _precedes(path, read)]
    if not before:
        return None
    before.sort(key=lambda i: _sort_key(bindings[i], read))
    kept: list[int] = []
    for index in reversed(before):
        kept.append(index)
        if _dominates(bindings[index], read):
            break
    return sorted(kept)


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
    children = iter_children(parent)
    first = _position(children, binding[common])
    second = _position(children, read[common])
    return first is not None and second is not None and first < second


def _position(children: list[cst.CSTNode], node: cst.CSTNode) -> int | None:
    for index, child in enumerate(children):
        if child is node:
            return index
    return None


def _sort_key(binding: Path, read: Path) -> tuple[int, ...]:
    """Source order of bindings, read as child positions along each path."""
    key = []
    for depth in range(1, len(binding)):
        children = iter_children(binding[depth - 1])
        position = _position(children, binding[depth])
        key.append(-1 if position is None else position)
    return tuple(key)


def _dominates(binding: Path, read: Path) -> bool:
    """The binding runs on every path from the function's entry to the read."""
    common = _split(binding, read)
    if common == len(binding):
        return True  # the function's parameters
    if not isinstance(binding[common - 1], _BLOCKS):
        return False  # the two sit in different parts of one `if`, `try`, ...
    return all(isinstance(node, _UNCONDITIONAL) for node in binding[common:-1])
