"""An early return on a traced test, with plain assignments before the final return (JIT101;
JIT205 with `tf.cond`).

    if is_empty:                                 weights = indicators / jnp.sum(indicators)
        return jnp.zeros(n)              ->      return jnp.where(is_empty, jnp.zeros(n),
    weights = indicators / total                                  weights @ embeddings)
    return weights @ embeddings

The assignments between the `if` and the function's last `return` move above the choice,
which then takes the same `jnp.where`/`lax.cond` rewrite as an `if` followed directly by its
`return` (conds.py). Only when every statement in between is one assignment to plain
names, on one line, without a Python side effect, and none of those names is read by the
test or the early value (which are now evaluated after them). Unsafe as the rewrites it
reuses, and the moved assignments now also run when the early return was taken (a division
by zero there gives `nan` in the branch not chosen, which can reach gradients). TensorFlow
graph code that autograph does not convert gets `return tf.cond(c, lambda: A, lambda: B)`
the same way (`tf_guard_return_fix`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.fixes.traced.conds import choose_rewrite, has_effect, tf_cond_of, tf_effect
from jitlint.fixes.traced.where import Branches, indent_of, names_in
from jitlint.model.context import FileContext
from jitlint.model.jax.tracing import FunctionTrace


def guard_return_fix(
    ctx: FileContext, owner: cst.If, path: Sequence[cst.CSTNode], trace: FunctionTrace
) -> NodeFix | None:
    """The rewrite above for `owner` (`path` ends at it), or None."""
    return _guard_fix(
        ctx,
        owner,
        path,
        lambda statement: has_effect(ctx, trace, statement),
        lambda found: choose_rewrite(ctx, owner, found, trace),
    )


def tf_guard_return_fix(
    ctx: FileContext, owner: cst.If, path: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """The same with `tf.cond`, for an `if` on a symbolic tensor that autograph does not
    convert."""
    return _guard_fix(ctx, owner, path, tf_effect, lambda found: tf_cond_of(ctx, found))


def _guard_fix(
    ctx: FileContext,
    owner: cst.If,
    path: Sequence[cst.CSTNode],
    effect: Callable[[cst.CSTNode], bool],
    rewrite: Callable[[Branches], NodeFix | str],
) -> NodeFix | None:
    if owner.orelse is not None or len(path) < 3 or type(path[-3]) is not cst.FunctionDef:
        return None
    early = _returned(owner.body)
    block = path[-2]
    statements = list(getattr(block, "body", ()))
    if early is None or owner not in statements:
        return None
    tail = statements[statements.index(owner) + 1 :]
    if len(tail) < 2:
        return None
    final = _returned(tail[-1])
    if final is None:
        return None
    assigned: set[str] = set()
    lines: list[str] = []
    code = ctx.module.code_for_node
    for statement in tail[:-1]:
        names = _assigned_names(statement)
        if names is None or effect(statement):
            return None
        assigned |= names
        for line in code(statement).strip("\r\n").splitlines():
            if line.strip():
                lines.append(line.strip())
    if assigned & (names_in(owner.test) | names_in(early)):
        return None
    if any(_has_comment(part) for part in (owner.test, owner.body, tail[-1])):
        return None  # keep the rewrite to code whose comments it need not move
    indent = indent_of(ctx, path)
    found = Branches((owner, tail[-1]), owner.test, early, final, "return ", None, (), indent)
    fix = rewrite(found)
    if not isinstance(fix, NodeFix):
        return None
    (span, text), *_ = fix.replacements
    joined = f"\n{indent}".join([*lines, text])
    return NodeFix(
        "unsafe",
        f"{fix.message}; the assignments before the final return move above it",
        ((span, joined),),
        fix.imports,
    )


def _returned(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The value of `return v` (or of a block that is only that)."""
    body = getattr(node, "body", None)
    if type(node) is cst.IndentedBlock:
        return _returned(body[0]) if len(body) == 1 else None  # type: ignore[arg-type,index]
    if type(node) is not cst.SimpleStatementLine or len(body) != 1:  # type: ignore[arg-type]
        return None
    small = body[0]  # type: ignore[index]
    return small.value if type(small) is cst.Return and small.value is not None else None


def _assigned_names(statement: cst.CSTNode) -> set[str] | None:
    """The names `name = value` (or `a, b = value`) assigns; None for anything else."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if type(small) is not cst.Assign:
        return None
    names: set[str] = set()
    for target in small.targets:
        inner = target.target
        parts = [e.value for e in inner.elements] if type(inner) is cst.Tuple else [inner]  # type: ignore[attr-defined]
        if not all(type(p) is cst.Name for p in parts):
            return None
        names |= {p.value for p in parts}  # type: ignore[attr-defined]
    code = cst.Module([]).code_for_node(small.value)
    return names if "\n" not in code and "\r" not in code else None


def _has_comment(node: cst.CSTNode) -> bool:
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Comment:
            return True
        stack.extend(current.children)
    return False
