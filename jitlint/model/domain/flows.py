"""Where a Python value made while tracing goes (hazard J10): the first place it feeds the
traced computation, if the model sees one.

A clock read, a Python random draw or a counter updated inside a traced function runs once
per trace. Its value is wrong on later calls only where the compiled program uses it: a
`time.time()` that only a host callback reads, or a counter that only labels things, is
trace-time bookkeeping. `first_sink` follows a value up its expression, and through the
local or global names and the `self` attributes it is stored in, to the first node where
traced code consumes it (a `Sink`):

- an operator, comparison or index whose result is traced (`x + noise`, `x[perm]`);
- a call whose result is traced (`jnp.zeros(n)`, `layer(x, deterministic=flag)`);
- a `return`, the test of an `if` or `while`, the iterable of a `for`: they decide what the
  traced function computes.

It stops (None) where the value becomes text (`print`, logging, f-strings, `str`), goes to a
host callback or into a container, or is discarded; a call that does none of these passes
its result on (`float(np.random.uniform())`). What it cannot follow is no sink: unknown
never makes a finding.

Framework-neutral: the model answers, through an `Oracle`, which expressions are traced,
which code runs in the trace, and what a call does with its arguments.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from jitlint.python.names import Names
from jitlint.python.walker import iter_children

Path = Sequence[cst.CSTNode]

# What a call does with an argument: TEXT ends its flow (formats, logs, stores it, or hands it
# to the host), PASS carries it on in the call's result.
TEXT, PASS = "text", "pass"
_MAX_HOPS = 4  # names and attributes followed from one value
_OPERATORS = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation)
# Nodes that only wrap a value on its way up: the node above them decides.
_WRAPPERS = (cst.Arg, cst.Element, cst.StarredElement, cst.DictElement, cst.StarredDictElement,
             cst.ComparisonTarget, cst.SubscriptElement, cst.Index, cst.Slice, cst.CompFor,
             cst.CompIf, cst.Await)  # fmt: skip
# Values derived from their parts: a display, a conditional value, a comprehension.
_DERIVED = (cst.Tuple, cst.List, cst.Set, cst.Dict, cst.IfExp, cst.ListComp, cst.SetComp,
            cst.DictComp, cst.GeneratorExp, cst.Attribute)  # fmt: skip
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


@dataclass(frozen=True)
class Sink:
    """Where traced code consumes the value: `node`, which `how` names ("returned", "the
    test of", ...)."""

    node: cst.CSTNode
    how: str


class Oracle(Protocol):
    def traced(self, expr: cst.CSTNode, path: Path) -> bool:
        """Whether `expr`, which ends `path`, is a traced value."""
        ...

    def in_trace(self, path: Path) -> bool:
        """Whether the code at the end of `path` runs while a function is traced."""
        ...

    def call_use(self, call: cst.Call, path: Path) -> str:
        """TEXT or PASS: what `call` (ending `path`) does with its arguments."""
        ...


class Flows:
    """`first_sink` and `state_sink` over one module."""

    def __init__(self, names: Names, oracle: Oracle) -> None:
        self.names = names
        self.oracle = oracle

    def first_sink(self, path: Path, hops: int = 0, seen: set | None = None) -> Sink | None:
        """Where the value of the expression ending `path` first feeds traced code."""
        seen = set() if seen is None else seen
        oracle = self.oracle
        index = len(path) - 1
        while index > 0:
            child, parent = path[index], path[index - 1]
            up = path[:index]
            kind = type(parent)
            index -= 1
            if kind in _WRAPPERS:
                continue
            if kind in _OPERATORS:
                if _formats(parent, child):
                    return None
                if oracle.traced(parent, up):
                    return Sink(parent, "an operand of")
            elif kind is cst.Subscript:
                if child is not parent.value and oracle.traced(parent.value, (*up, parent.value)):  # type: ignore[attr-defined]
                    return Sink(parent, "an index of")
            elif kind is cst.Call:
                if oracle.traced(parent, up):
                    return Sink(parent, "an argument of")
                if child is not parent.func and oracle.call_use(parent, up) == TEXT:  # type: ignore[attr-defined]
                    return None
            elif kind in (cst.If, cst.While):
                return Sink(parent, "the test of") if child is parent.test else None  # type: ignore[attr-defined]
            elif kind is cst.For:
                return Sink(parent, "iterated by") if child is parent.iter else None  # type: ignore[attr-defined]
            elif kind is cst.Return:
                return Sink(parent, "returned")
            elif kind in (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr):
                if child is not parent.value:  # type: ignore[attr-defined]
                    return None
                targets = (
                    [t.target for t in parent.targets] if kind is cst.Assign else [parent.target]  # type: ignore[attr-defined]
                )
                for target in targets:
                    found = self.state_sink(target, up, hops + 1, seen)
                    if found is not None:
                        return found
                if kind is not cst.NamedExpr:
                    return None
            elif kind not in _DERIVED:
                return None  # a statement, a lambda, an f-string, an assert...: no use seen
        return None

    def state_sink(
        self, target: cst.CSTNode, path: Path, hops: int = 1, seen: set | None = None
    ) -> Sink | None:
        """Where traced code consumes what `target` (a name or `self.attr` that the statement
        ending `path` writes) holds: the first sink of one of its reads."""
        seen = set() if seen is None else seen
        if hops > _MAX_HOPS:
            return None
        for read in self._reads(target, path, seen):
            if self.oracle.in_trace(read):
                found = self.first_sink(read, hops, seen)
                if found is not None:
                    return found
        return None

    def _reads(self, target: cst.CSTNode, path: Path, seen: set) -> Iterator[Path]:
        """The paths of every read of what `target` writes: the name in the scope that binds
        it, or `self.attr` in its class's methods."""
        if type(target) is cst.Name:
            found = self.names.lookup_with_path(target.value, path)
            if found is None:
                return
            scope_path = found[1]
            owner = scope_path[-1]
            if (id(owner), target.value) in seen:
                return
            seen.add((id(owner), target.value))
            yield from _name_reads(owner, target.value, tuple(scope_path[:-1]))
            return
        cls_path = _self_class(target, path)
        if cls_path is None:
            return
        cls = cls_path[-1]
        attr = target.attr.value  # type: ignore[attr-defined]
        if (id(cls), attr) in seen:
            return
        seen.add((id(cls), attr))
        for item in cls.body.body:  # type: ignore[attr-defined]
            if type(item) is cst.FunctionDef and item.params.params:
                receiver = item.params.params[0].name.value
                yield from _attr_reads(item, receiver, attr, (*cls_path, cls.body))  # type: ignore[attr-defined]


def _formats(node: cst.CSTNode, child: cst.CSTNode) -> bool:
    """`"..." % value`: the value becomes text."""
    return (
        type(node) is cst.BinaryOperation
        and type(node.operator) is cst.Modulo  # type: ignore[attr-defined]
        and child is node.right  # type: ignore[attr-defined]
        and type(node.left) in _STRINGS  # type: ignore[attr-defined]
    )


def _self_class(target: cst.CSTNode, path: Path) -> Path | None:
    """The path to the class when `target` is `self.attr` in one of its methods (`self`: the
    method's first parameter)."""
    if type(target) is not cst.Attribute or type(target.value) is not cst.Name:
        return None
    for index in range(len(path) - 1, 1, -1):
        node = path[index]
        if type(node) is cst.FunctionDef:
            params = node.params.params
            if not params or params[0].name.value != target.value.value:
                return None
            cls = path[index - 2]
            return path[: index - 1] if type(cls) is cst.ClassDef else None
        if type(node) in _SCOPES:
            return None
    return None


def _name_reads(scope: cst.CSTNode, name: str, above: tuple[cst.CSTNode, ...]) -> Iterator[Path]:
    """Every read of `name` under `scope`, in source order (nested scopes that bind it
    themselves aside)."""
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(scope, above)]
    while stack:
        node, ancestors = stack.pop()
        here = (*ancestors, node)
        if type(node) is cst.Name:
            if node.value == name and _is_read(here):  # type: ignore[attr-defined]
                yield here
            continue
        if type(node) in _SCOPES and node is not scope and _binds_locally(node, name):
            continue
        stack.extend((child, here) for child in reversed(iter_children(node)))


def _attr_reads(
    method: cst.FunctionDef, receiver: str, attr: str, above: tuple[cst.CSTNode, ...]
) -> Iterator[Path]:
    """Every read of `<receiver>.attr` in `method`, in source order."""
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(method, above)]
    while stack:
        node, ancestors = stack.pop()
        here = (*ancestors, node)
        if (
            type(node) is cst.Attribute
            and node.attr.value == attr
            and type(node.value) is cst.Name
            and node.value.value == receiver
        ):
            if _is_read(here):
                yield here
            continue
        stack.extend((child, here) for child in reversed(iter_children(node)))


def _is_read(path: Path) -> bool:
    """Whether the name or attribute ending `path` is read where it stands, not bound (an
    augmented assignment's target is an update, not a read that goes anywhere)."""
    node = path[-1]
    for parent in reversed(path[:-1]):
        kind = type(parent)
        if kind in (cst.AssignTarget, cst.Param, cst.Global, cst.Nonlocal, cst.AsName, cst.Del):
            return False
        if kind in (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr):
            return parent.target is not node  # type: ignore[attr-defined]
        if kind is cst.Attribute:
            return parent.attr is not node  # type: ignore[attr-defined]
        if kind is cst.Arg:
            return parent.keyword is not node  # type: ignore[attr-defined]
        if kind in (cst.FunctionDef, cst.ClassDef):
            return parent.name is not node  # type: ignore[attr-defined]
        if kind not in (cst.Tuple, cst.List, cst.Element, cst.StarredElement):
            return True
        node = parent
    return True


def _binds_locally(scope: cst.CSTNode, name: str) -> bool:
    """Whether a nested def or lambda binds `name` as its own local (a parameter or an
    assignment without `nonlocal`/`global`)."""
    if type(scope) is cst.Lambda:
        return any(p.name.value == name for p in scope.params.params)  # type: ignore[attr-defined]
    if type(scope) is cst.ClassDef:
        return False
    params = scope.params  # type: ignore[attr-defined]
    everything = (*params.params, *params.kwonly_params, *params.posonly_params)
    if any(p.name.value == name for p in everything):
        return True
    return _assigns_without_declaring(scope.body, name)  # type: ignore[attr-defined]


def _assigns_without_declaring(body: cst.CSTNode, name: str) -> bool:
    declared = assigned = False
    stack = [body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in (cst.Global, cst.Nonlocal):
            declared |= any(n.name.value == name for n in node.names)  # type: ignore[attr-defined]
        elif kind is cst.AssignTarget and type(node.target) is cst.Name:  # type: ignore[attr-defined]
            assigned |= node.target.value == name  # type: ignore[attr-defined]
        if kind not in _SCOPES:
            stack.extend(iter_children(node))
    return assigned and not declared
