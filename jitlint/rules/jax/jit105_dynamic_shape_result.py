from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.values import TRACED
from jitlint.model.jax.api import WHERE, WHERE_OPERANDS
from jitlint.model.jax.tracing import FunctionTrace, Value, snippet
from jitlint.model.library.jax_facts import counted_size
from jitlint.rules.base import JAX_TRACING, Rule


def _plain_reference(expr: cst.BaseExpression) -> bool:
    if getattr(expr, "lpar", ()):
        return False
    if type(expr) is cst.Name:
        return True
    return type(expr) is cst.Attribute and _plain_reference(expr.value)  # type: ignore[attr-defined]


class DynamicShapeResult(Rule):
    """
    ## What it does
    Finds operations whose result shape depends on the values of a traced array, inside a
    function JAX traces: boolean-mask indexing (`x[x > 0]`, `x.at[mask]`), and
    `jnp.nonzero`, `jnp.flatnonzero`, `jnp.argwhere`, `jnp.unique` (and variants), set
    operations, `jnp.compress`, `jnp.extract`, `jnp.bincount` and one-argument
    `jnp.where` without a static `size=` (`length=` for `bincount`).

    ## Why is this bad
    `jax.jit` compiles for fixed shapes. How many elements a mask selects is only known
    when the function runs, so tracing fails:

    ```text
    jax.errors.NonConcreteBooleanIndexError: Array boolean indices must be concrete;
    got bool[3]
    jax.errors.ConcretizationTypeError: ... The size argument of jnp.nonzero must be
    statically specified to use jnp.nonzero within JAX transformations.
    ```

    ## Example
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def positive_total(x):
        return x[x > 0].sum()  # error: JIT105


    positive_total(jnp.arange(-2.0, 3.0))
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def positive_total(x):
        return jnp.where(x > 0, x, 0).sum()


    positive_total(jnp.arange(-2.0, 3.0))
    ```

    ## Fix safety
    A sum, mean or product of a selection (`x[mask].sum()`, `x[mask].mean(axis=0)`,
    `jnp.sum(x[mask])`) becomes the same reduction over all of `x` with `where=`:
    `x.sum(where=mask)` when the mask is an element-wise test of `x` itself (`x > 0`,
    `~jnp.isnan(x)`), else with the mask widened over the trailing axes
    (`jnp.expand_dims(mask, ...)`) and the mask's axes reduced, as indexing reads them. It is
    unsafe: the result is the same for finite values, but `nan` or `inf` entries outside the
    mask now take part in the gradient (the "double where" trap).

    `jnp.nonzero(m)`, `m.nonzero()`, one-argument `jnp.where(m)`, `jnp.argwhere`,
    `jnp.flatnonzero` and `jnp.unique` (also `unique_values`/`unique_counts`) on a name `m`
    get `size=m.size`, the element count, which bounds the result. Unsafe: the result now
    always has that length, padded with `fill_value` (index 0 for `nonzero`, the smallest
    value for `unique`), so code that used its length or every entry sees the padding.
    Other bounds (`bincount`'s `length=`, a selection's max or min) are a judgement call and
    get no fix.

    ## Known problems
    A mask built from static data (a NumPy mask on a NumPy constant) is not reported. Masks
    the analysis cannot see are boolean (e.g. returned by a helper) are not reported.
    """

    code = "JIT105"
    name = "dynamic-shape-result"
    summary = "A value-dependent shape: boolean-mask indexing, or nonzero/unique/... without size=."
    fix_availability = "sometimes"
    runtime_error = "NonConcreteBooleanIndexError|must be statically specified"
    requires = JAX_TRACING
    uses_tracing = True

    VALID = (
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x):
    idx = jnp.nonzero(x > 0, size=3, fill_value=0)
    return jnp.where(x > 0, x, 0).sum() + jnp.unique(x, size=2).sum() + x[idx].sum()
""",
        # Integer indexing, and masks on NumPy constants.
        """
import jax
import numpy as np
MASK = np.array([True, False, True])
@jax.jit
def f(x, i):
    return x[i] + x[MASK].sum() + x[x.shape[0] - 1]
""",
        # Outside jit, and under grad alone, masks are concrete.
        """
import jax
import jax.numpy as jnp
def f(x):
    return x[x > 0].sum() + jnp.nonzero(x)[0].sum()
g = jax.grad(lambda x: x[x > 0].sum())
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x):
    mask = jnp.isnan(x) | (x < 0)
    clean = x.at[mask].set(0.0)  # error: JIT105
    idx = jnp.nonzero(x)  # error: JIT105
    rows = jnp.where(x > 1)  # error: JIT105
    return clean[~mask].mean(), idx, rows  # error: JIT105
""",
        """
import jax
import jax.numpy as jnp
@jax.vmap
def f(x):
    return jnp.unique(x).sum()  # error: JIT105
""",
    )

    def _trace(self, node: cst.CSTNode) -> FunctionTrace | None:
        trace = self.ctx.tracing.function_at(self.ctx.path_to(node))
        return trace if trace is not None and trace.abstract else None

    def visit_Subscript(self, node: cst.Subscript) -> None:
        trace = self._trace(node)
        if trace is None or not trace.value(node.value).traced:
            return
        for element in node.slice:
            part = element.slice
            if type(part) is not cst.Index:
                continue
            value = trace.value(part.value)  # type: ignore[attr-defined]
            if value.kind == TRACED and value.boolean:
                self._report_mask(node, part.value, value)  # type: ignore[attr-defined]
                return

    def _report_mask(self, node: cst.Subscript, mask: cst.CSTNode, value: Value) -> None:
        from jitlint.fixes.traced.masks import masked_reduction_fix

        self.report(
            node,
            f"indexing with the traced boolean mask `{snippet(self.ctx.module, mask)}` gives "
            "a result whose length depends on the mask's values, which jit cannot compile: "
            f"{self.ctx.tracing.explain(value)}",
            help="use `jnp.where(mask, x, 0)` (three arguments) to keep the shape, or "
            "`jnp.nonzero(mask, size=..., fill_value=...)`",
            fix=masked_reduction_fix(self.ctx, node, mask, self.ctx.parents),  # type: ignore[arg-type]
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) not in (cst.Attribute, cst.Name):
            return
        trace = self._trace(node)
        if trace is None:
            return
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        positional = [a for a in node.args if a.keyword is None]
        if type(func) is cst.Attribute and func.attr.value == "nonzero":  # type: ignore[attr-defined]
            receiver = trace.value(func.value)  # type: ignore[attr-defined]
            if receiver.traced:
                if "size" not in keywords and not positional:
                    fix = self._size_fix(node, func.value)  # type: ignore[attr-defined]
                    self._report_call(node, "`.nonzero()`", receiver, "size", fix)
                return
        qualnames = self.ctx.tracing.qualified(trace, func)
        if len(qualnames) != 1:
            return
        qualname = next(iter(qualnames))
        # Which functions count their result's length, and whether the first argument's
        # element count bounds it, is jax's facts (probed by scripts/gen_jax_facts.py).
        counted = counted_size(qualname)
        bound = counted.parameter if counted is not None else None
        if qualname in WHERE:
            if len(positional) != 1 or keywords & WHERE_OPERANDS or any(a.star for a in node.args):
                return
            bound = "size"
        if bound is None or bound in keywords or not positional or positional[0].star:
            return
        value = trace.value(positional[0].value)
        if value.traced:
            label = qualname.replace("jax.numpy.", "jnp.")
            fix = None
            if counted is not None and counted.bounded and bound == "size":
                fix = self._size_fix(node, positional[0].value)
            self._report_call(node, f"`{label}`", value, bound, fix)

    def _size_fix(self, node: cst.Call, counted: cst.BaseExpression) -> NodeFix | None:
        """`jnp.nonzero(m)` -> `jnp.nonzero(m, size=m.size)`: the count of elements bounds
        the count of selected ones. `m` must be a name or attribute (it is read twice)."""
        if not _plain_reference(counted) or any(a.star for a in node.args):
            return None
        code = self.ctx.module.code_for_node
        size = cst.Arg(
            value=cst.parse_expression(f"{code(counted)}.size"),
            keyword=cst.Name("size"),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=cst.SimpleWhitespace(""),
            ),
        )
        args = list(node.args)
        if args:
            args[-1] = args[-1].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
        text = code(node.with_changes(args=[*args, size]))
        if "\n" in text or "\r" in text:
            return None
        return NodeFix(
            "unsafe",
            f"bound the result by the element count: `size={code(counted)}.size` (the result "
            "is padded to that length with `fill_value`)",
            ((node, text),),
        )

    def _report_call(
        self, node: cst.Call, label: str, value: Value, bound: str, fix: NodeFix | None = None
    ) -> None:
        self.report(
            node,
            f"{label} returns an array whose length depends on the values of "
            f"`{snippet(self.ctx.module, node)}`, which jit cannot compile without a static "
            f"`{bound}=`: {self.ctx.tracing.explain(value)}",
            help=f"pass `{bound}=` an upper bound (e.g. `x.size`) and a `fill_value`, or use a "
            "three-argument `jnp.where`",
            fix=fix,
        )
