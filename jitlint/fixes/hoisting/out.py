"""Build once what a function or method builds on every call (all unsafe fixes).

- `hoist_call_fix_or_reason`: an expression (`jax.jit(self.update)`, `tf.function(step)`,
  `Conv2D(self.ch, 3)`) becomes a new module-level name assigned above the module-level
  statement that holds it, when it reads only module-level names and builtins; or, in a
  method, a new attribute set at the end of the class's `__init__` (`self.update_jit =
  jax.jit(self.update)`), when it reads `self` and module-level names. Its place then reads
  the name or the attribute.
- `move_def_fix_or_reason`: a decorated local `def` (`@jax.jit`, `@tf.function`) that closes
  over nothing of its function but `self` moves, whole, to module level or to the end of
  `__init__` (then `self.name = name`, and the method's uses read `self.name`).

See `scope` for when a name means the same at the new place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.hoist_fix import fresh_name
from jitlint.fixes.hoisting.scope import (
    LOOPS,
    above,
    barrier_between,
    enclosing_method,
    insertion_after,
    module_level_reason,
    self_attributes_reason,
)
from jitlint.fixes.node_fix import NodeFix
from jitlint.python.uses import free_reads
from jitlint.python.walker import iter_children

if TYPE_CHECKING:
    from jitlint.model.context import FileContext

# Base classes that take new attributes in `__init__` (Keras layers and models, tf.Module).
TF_BASES = ("tensorflow.", "keras.", "tf_keras.")


def hoist_call_fix_or_reason(
    ctx: FileContext,
    call: cst.Call,
    path: Sequence[cst.CSTNode],
    names: tuple[set[str], set[str]],
    base: str,
    *,
    module_level: bool = True,
    prefixes: tuple[str, ...] = (),
    what: str = "the jitted function",
) -> NodeFix | str:
    """The fix for `call`, built on every call of the function or method around it (the end
    of `path`); else why there is none. `names`: the module names and the attribute names a
    new one must avoid (a chosen one joins them). `module_level`: may it go to module level
    (not for objects each instance must own); `prefixes`: frameworks whose base classes
    may take a new attribute (see `enclosing_method`)."""
    if len(path) < 3 or type(path[1]) not in (cst.FunctionDef, cst.ClassDef):
        return "it is not inside a module-level function or method"
    start = 1 if type(path[1]) is cst.FunctionDef else 3
    if len(path) <= start or type(path[start]) is not cst.FunctionDef:
        return "it is not inside a module-level function or method"
    blocking = barrier_between(path, start)
    if blocking is not None:
        return f"it is inside {_kind(blocking)} of the function, which it would leave"
    if not module_level and any(type(n) in LOOPS for n in path[start:]):
        return "it is made in a loop: one object per iteration, not one in all"
    reads = free_reads(call)
    if reads is None:
        return "it contains `await`, `yield` or `:=`, which cannot move"
    code = ctx.module.code_for_node
    newline = ctx.module.default_newline
    why = module_level_reason(ctx, reads, path) if module_level else None
    if module_level and why is None:
        name = fresh_name(base, names[0])
        span, text = above(ctx.module, path[1])
        return NodeFix(
            "unsafe",
            f"build {what} once, as `{name}` at module level",
            ((call, name), (span, f"{name} = {code(call)}{newline}{newline}{newline}{text}")),  # type: ignore[arg-type]
        )
    method = enclosing_method(ctx, path, prefixes)
    if isinstance(method, str):
        first = _first_param(path[start])  # type: ignore[arg-type]
        return method if (start == 3 and first in reads) or why is None else why
    if module_level and method.self_name not in reads:
        return why or "it reads nothing of the instance"
    why = module_level_reason(ctx, reads, path, allowed=method.self_name, anywhere=True)
    why = why or self_attributes_reason(ctx, call, method, reads)
    if why is not None:
        return why
    attr = fresh_name(base, names[1])
    last = method.init.body.body[-1]  # type: ignore[union-attr]
    target = cst.Attribute(cst.Name(method.self_name), cst.Name(attr))
    line = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], call)])
    return NodeFix(
        "unsafe",
        f"build {what} once, in `__init__`, as `{method.self_name}.{attr}`",
        (
            (call, f"{method.self_name}.{attr}"),
            (insertion_after(last), render(ctx.module, line, method.indent)),  # type: ignore[arg-type]
        ),
    )


def _first_param(func: cst.FunctionDef) -> str | None:
    params = [*func.params.posonly_params, *func.params.params]
    return params[0].name.value if params else None


def render(module: cst.Module, statement: cst.BaseStatement, indent: str) -> str:
    """`statement` as lines at `indent` (continuation lines too), after a line break."""
    return module.code_for_node(cst.IndentedBlock(body=[statement], indent=indent))


def move_def_fix_or_reason(
    ctx: FileContext,
    func: cst.FunctionDef,
    path: Sequence[cst.CSTNode],
    attrs: set[str],
    prefixes: tuple[str, ...] = (),
) -> NodeFix | str:
    """The fix for the decorated local `func` (the end of `path`), defined on every call of
    the module-level function or method around it; else why there is none."""
    start = 1 if type(path[1]) is cst.FunctionDef else 3
    outer = path[start] if len(path) > start + 2 else None
    if not isinstance(outer, cst.FunctionDef) or len(path) != start + 3:
        return "it is not a statement of a module-level function's or a method's own block"
    if path[-2] is not outer.body or func.asynchronous is not None:
        return "it is not a statement of a module-level function's or a method's own block"
    name = func.name.value
    self_name = _first_param(outer) if start == 3 else None
    outside = _outside_names(ctx, func, path)
    if outside is None:
        return "it reads a name of the function at definition time (a decorator or default)"
    if len(ctx.names.scope(outer).bindings.get(name, [])) != 1:
        return f"`{name}` is bound more than once in `{outer.name.value}`"
    reads, defining = outside[0] - {name}, outside[1]
    uses = _uses(ctx, outer, func)
    if isinstance(uses, str):
        return uses
    newline = ctx.module.default_newline
    code = ctx.module.code_for_node
    moved = func.with_changes(leading_lines=())
    if self_name not in reads:
        why = module_level_reason(ctx, defining, path) or module_level_reason(
            ctx, reads, path, anywhere=True
        )
        if why is not None:
            return why
        if _appears_outside(ctx.module, outer, name):
            return f"`{name}` is also a name elsewhere in the module"
        span, text = above(ctx.module, path[1])
        top = path[1].name.value  # type: ignore[attr-defined]
        return NodeFix(
            "unsafe",
            f"define `{name}` once, at module level above `{top}`",
            (
                (
                    (func.decorators[0] if func.decorators else func, func),
                    f"# `{name}` is defined once, above `{top}`",
                ),  # type: ignore[arg-type]
                (span, f"{code(moved)}{newline}{newline}{text}"),  # type: ignore[arg-type]
            ),
        )
    method = enclosing_method(ctx, path, prefixes)
    if isinstance(method, str):
        return method
    reads |= defining
    why = module_level_reason(ctx, reads, path, allowed=method.self_name, anywhere=True)
    if why is not None:
        return why
    if set(ctx.names.scope(method.init).bindings) & (reads | {name}) - {method.self_name}:
        return "`__init__` binds a name it reads"
    attr = name if name not in attrs else fresh_name(name, attrs)
    attrs.add(attr)
    rendered = render(ctx.module, moved, method.indent)
    last = method.init.body.body[-1]  # type: ignore[union-attr]
    inserted = f"{newline}{rendered}{method.indent}{method.self_name}.{attr} = {name}{newline}"
    where = f"`{name}` is defined once, in `__init__`, as `{method.self_name}.{attr}`"
    return NodeFix(
        "unsafe",
        f"define `{name}` once, in `__init__`, and use `{method.self_name}.{attr}`",
        (
            ((func.decorators[0] if func.decorators else func, func), f"# {where}"),  # type: ignore[arg-type]
            *((use, f"{method.self_name}.{attr}") for use in uses),
            (insertion_after(last), inserted),  # type: ignore[arg-type]
        ),
    )


def _outside_names(
    ctx: FileContext, func: cst.FunctionDef, path: Sequence[cst.CSTNode]
) -> tuple[set[str], set[str]] | None:
    """Names `func` reads from around it: its body's free names (read when it runs), and
    what its decorators, defaults and annotations read (when it is defined); None when
    those read at definition time include a local of the function."""
    found: set[str] = set()
    defining: set[str] = set()
    depth = len(path)
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(func, list(path))]
    while stack:
        node, node_path = stack.pop()
        if isinstance(node, cst.Attribute):
            stack.append((node.value, [*node_path, node.value]))
            continue
        if isinstance(node, cst.Arg):
            stack.append((node.value, [*node_path, node.value]))
            continue
        if isinstance(node, cst.Param):
            parts = [p for p in (node.default, node.annotation) if p is not None]
            stack.extend((p, [*node_path, p]) for p in parts)
            continue
        if node is func.name:
            continue
        if isinstance(node, cst.Name):
            bound = ctx.names.lookup_with_path(node.value, node_path)
            if bound is not None and len(bound[1]) >= depth:
                continue  # bound in `func` or deeper
            if _in_body(func, node_path):
                found.add(node.value)
            elif bound is not None and len(bound[1]) > 1:
                return None
            else:
                defining.add(node.value)
            continue
        stack.extend((child, [*node_path, child]) for child in iter_children(node))
    return found, defining


def _in_body(func: cst.FunctionDef, node_path: Sequence[cst.CSTNode]) -> bool:
    return any(n is func.body for n in node_path)


def _uses(ctx: FileContext, outer: cst.FunctionDef, func: cst.FunctionDef) -> list[cst.Name] | str:
    """Every reading of `func`'s name in `outer` outside `func`, each a plain load in
    `outer`'s own code (not a nested function's)."""
    name = func.name.value
    found: list[cst.Name] = []
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None, bool]] = [(outer.body, None, False)]
    while stack:
        node, parent, nested = stack.pop()
        if node is func:
            continue
        if isinstance(node, cst.Name) and node.value == name:
            if isinstance(parent, cst.Attribute) and parent.attr is node:
                continue
            if nested or not _is_load(node, parent):
                return f"`{name}` is rebound or used in a nested function of `{outer.name.value}`"
            found.append(node)
            continue
        inner = nested or isinstance(node, cst.FunctionDef | cst.Lambda | cst.ClassDef)
        stack.extend((child, node, inner) for child in iter_children(node))
    return found


_STORES = (
    cst.Del,
    cst.AssignTarget,
    cst.AugAssign,
    cst.AnnAssign,
    cst.For,
    cst.CompFor,
    cst.AsName,
    cst.Param,
    cst.Global,
    cst.Nonlocal,
    cst.NamedExpr,
    cst.Tuple,
    cst.List,
    cst.Element,
    cst.StarredElement,
    cst.ImportAlias,
)


def _is_load(node: cst.Name, parent: cst.CSTNode | None) -> bool:
    """Conservatively: `node` is read, not bound (a name inside a tuple or list, which may
    be a target, does not count)."""
    if isinstance(parent, cst.Arg):
        return parent.value is node
    if isinstance(parent, cst.Call):
        return True
    return not isinstance(parent, _STORES)


def _appears_outside(top: cst.CSTNode, outer: cst.CSTNode, name: str) -> bool:
    """`name` spelled under `top` outside the function `outer`."""
    stack = [top]
    while stack:
        node = stack.pop()
        if node is outer:
            continue
        if isinstance(node, cst.Name) and node.value == name:
            return True
        stack.extend(iter_children(node))
    return False


def _kind(node: cst.CSTNode) -> str:
    kinds = {
        cst.Try: "a `try`",
        cst.TryStar: "a `try`",
        cst.With: "a `with`",
        cst.Match: "a `match`",
        cst.Lambda: "a lambda",
        cst.FunctionDef: "a nested function",
        cst.ClassDef: "a nested class",
    }
    return kinds.get(type(node), "a loop")


def snake(name: str) -> str:
    """`Conv2D` -> `conv2d`, `BatchNormalization` -> `batch_normalization`."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower()
