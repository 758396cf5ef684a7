"""JAX's part of "how often does this run" (model/domain/repeats.py answers it).

The domain finds the functions called in loops, by contract (a model's `predict`, an
agent's `act`, a request handler) and from those. JAX adds two things:

- calls resolve through the tracing model too: `sim.step(u)` on an instance of a class of
  the file runs `Sim.step`, wherever the instance was made;
- a function JAX traces (jitted, or called from traced code) runs its body once per trace,
  not once per call: a `jax.jit(lambda ...)` inside it is inlined into the outer
  computation, so it is not repeated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.model.domain.repeats import (
    Keeping,
    Repeated,
    calls_into,
    find_repeated,
    method_contract,
    scan_calls,
)
from jitlint.model.domain.values import Object, Value

if TYPE_CHECKING:
    from jitlint.model.jax.tracing import Tracing
    from jitlint.python.names import Names


# JAX's own functions and the builtins run the functions they are given right away.
_RUNS_ARGUMENTS = ("jax", "builtins", "functools")


def jax_repeated(names: Names, tracing: Tracing) -> Repeated:
    """The functions of the module that run repeatedly, outside JAX's traces."""
    module = names.module
    scan = scan_calls(module)
    methods: dict[int, cst.ClassDef] = {id(f): c for c, f, _ in scan.methods}
    solved = False
    seen: dict[int, cst.FunctionDef] = {}

    def callee(call: cst.Call, path: Sequence[cst.CSTNode]) -> cst.FunctionDef | None:
        found = _callee(call, path)
        if found is not None:
            seen[id(found)] = found
        return found

    def _callee(call: cst.Call, path: Sequence[cst.CSTNode]) -> cst.FunctionDef | None:
        nonlocal solved
        func = call.func
        if type(func) is cst.Name:
            bindings = names.lookup(func.value, path)
            if bindings and len(bindings) == 1 and bindings[0].kind == "def":
                node = bindings[0].node
                return node if type(node) is cst.FunctionDef else None
            return None
        if type(func) is not cst.Attribute:
            return None
        if type(func.value) is cst.Name and func.value.value in ("self", "cls"):
            owner = _enclosing_method(path)
            cls = methods.get(id(owner)) if owner is not None else None
            return _method(names, cls, func.attr.value) if cls is not None else None
        if not tracing.active:
            return None
        if not solved:
            tracing.solve()
            solved = True
        trace = tracing.any_function_at(path)
        receiver = trace.value(func.value) if trace is not None else None
        if isinstance(receiver, Object):
            found = receiver.cls.lookup(func.attr.value)
            if found is not None and found[1] == "method":
                return found[0].methods[func.attr.value].func
        return None

    contracts: list[tuple[cst.FunctionDef, str]] = []
    for cls, func, _ in scan.methods:
        why = method_contract(cls, func)
        if why is not None:
            contracts.append((func, why))
    for stmt in module.body:
        if type(stmt) is cst.FunctionDef:
            why = method_contract(None, stmt)
            if why is not None:
                contracts.append((stmt, why))
    seen.update((id(f), f) for f, _ in contracts)
    keep = Keeping(module, lambda call, path: calls_into(names, call, path, _RUNS_ARGUMENTS))
    found = find_repeated(
        scan.loop_calls, scan.calls, callee, contracts, keep.kept_per_iteration, names=names
    )
    if tracing.active and found.why:
        # Traced by JAX: its body runs once per trace, not once per call (or never, when its
        # jit decorator raises before tracing).
        for key in [k for k in found.why if k in seen and _not_per_call(tracing, seen[k])]:
            del found.why[key]
    return found


def value_at(tracing: Tracing) -> Callable[[cst.CSTNode, Sequence[cst.CSTNode]], Value | None]:
    """The value of an expression in the code at the end of a path, as the tracing model
    saw it (an untraced function's own analysis too): for captured values' kinds."""

    def answer(node: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Value | None:
        trace = tracing.any_function_at(path)
        return trace.value(node) if trace is not None else None

    return answer


def _not_per_call(tracing: Tracing, func: cst.FunctionDef) -> bool:
    found = tracing.trace(func)
    return (found is not None and found.level > 0) or id(func) in tracing.never_run


def _enclosing_method(path: Sequence[cst.CSTNode]) -> cst.FunctionDef | None:
    """The method (a def directly in a class body) holding the end of `path`."""
    for index in range(len(path) - 1, 1, -1):
        node = path[index]
        if type(node) is cst.FunctionDef and type(path[index - 2]) is cst.ClassDef:
            return node
    return None


def _method(names: Names, cls: cst.ClassDef, name: str, depth: int = 0) -> cst.FunctionDef | None:
    """The method `name` of `cls`, or of a base class of the module (`self.f()` where a base
    defines `f`)."""
    for stmt in cls.body.body:  # type: ignore[attr-defined]
        if type(stmt) is cst.FunctionDef and stmt.name.value == name:
            return stmt
    for base in cls.bases if depth < 4 else ():
        if type(base.value) is not cst.Name:
            continue
        bindings = names.lookup(base.value.value, [names.module])
        if bindings and len(bindings) == 1 and type(bindings[0].node) is cst.ClassDef:
            found = _method(names, bindings[0].node, name, depth + 1)
            if found is not None:
                return found
    return None
