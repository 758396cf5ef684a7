from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.jax.jit import JitApplication
from jitlint.rules.base import Rule


class BadStaticSpec(Rule):
    """
    ## What it does
    Checks `static_argnames` and `static_argnums` against the signature of the function
    `jax.jit` compiles: a name that is not a parameter (or is positional-only), or a
    position past the last positional parameter.

    ## Why is this bad
    JAX validates the spec when `jax.jit` is applied, so the module fails at import:

    ```text
    ValueError: Jitted function has invalid argnames {'step'} in static_argnames.
    Function does not take these args.
    ValueError: Jitted function has static_argnums=(2,), but only accepts 2 positional
    arguments.
    ```

    A spec that survives a rename by accident is worse: the parameter it meant to make
    static is silently traced.

    ## Example
    ```python
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames="step")  # error: JIT112
    def scale(x, steps):
        return x * steps


    scale(jnp.ones(3), steps=2)
    ```

    ## Use instead
    ```python
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames="steps")
    def scale(x, steps):
        return x * steps


    scale(jnp.ones(3), steps=2)
    ```

    ## Fix safety
    The fix removes the dead entry (and the whole `static_argnames=`/`static_argnums=`
    argument if it was the only one). It is safe: `jax.jit` rejected the spec for every input,
    so nothing that worked can change. It does not guess what was meant: after a rename, add
    the new parameter name yourself if it should be static.

    ## Known problems
    Only literal specs are checked, on functions whose signature is visible: a `def` or
    `lambda` in the same file, with jit as its innermost decorator. A function with
    `**kwargs` accepts any name and one with `*args` any position, so neither is reported.
    """

    code = "JIT112"
    name = "bad-static-spec"
    summary = "`static_argnames`/`static_argnums` name no parameter of the jitted function."
    fix_availability = "always"
    requires = ("jit",)
    runtime_error = "Jitted function has (invalid argnames|static_argnums)"

    VALID = (
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames=("n",), static_argnums=0)
def f(m, n, *, k=1):
    return m
""",
        # **kwargs accepts any name, *args any position.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames="anything", static_argnums=7)
def f(x, *args, **kwargs):
    return x
""",
        # Another decorator sits between jit and the def: the signature jit sees is unknown.
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames="other")
@some_wrapper
def f(x):
    return x
""",
        # Negative positions count from the end.
        """
import jax
g = jax.jit(lambda x, n: x, static_argnums=-2)
""",
        # Not a literal: unknown, so silent.
        """
import jax
NAMES = ("n",)
@jax.jit(static_argnames=NAMES)
def f(x):
    return x
""",
    )
    INVALID = (
        """
import jax
from functools import partial
@partial(jax.jit, static_argnames=("n", "m"))  # error: JIT112
def f(x, n):
    return x
""",
        """
import jax
def f(x, n):
    return x
g = jax.jit(f, static_argnums=(1, 2))  # error: JIT112
""",
        """
from jax import jit
@jit(static_argnames="n")  # error: JIT112
def f(x, n, /):
    return x
""",
        """
import jax
h = jax.jit(lambda x: x, static_argnums=-2)  # error: JIT112
""",
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.decorators:
            app = self.ctx.jit.from_decorators(node, self.ctx.path_to(node))
            if app is not None:
                self._check(app)

    def visit_Call(self, node: cst.Call) -> None:
        if node.args:
            app = self.ctx.jit.from_call(node, self.ctx.path_to(node))
            if app is not None:
                self._check(app)

    def _check(self, app: JitApplication) -> None:
        sig = app.signature
        if sig is None:
            return
        spec, fname = app.spec, app.func_name
        call = app.node if type(app.node) is cst.Call else None
        if spec.argnames is not None and spec.argnames_arg and not sig.has_var_keyword:
            nodes = _element_nodes(spec.argnames_arg.value, len(spec.argnames))
            for index, (name, node) in enumerate(zip(spec.argnames, nodes, strict=True)):
                if name in sig.positional_only:
                    problem = f"`{name}` is positional-only in `{fname}`"
                elif not sig.accepts_keyword(name):
                    problem = f"`{fname}` has no parameter `{name}`"
                else:
                    continue
                self.report(
                    node,
                    f"`static_argnames` names `{name}`, but {problem}: jax.jit raises "
                    "ValueError when it is applied",
                    help=f"name a parameter of `{fname}`: {', '.join(sig.positional) or '-'}",
                    fix=self._drop(call, spec.argnames_arg, index, f"`{name}`"),
                )
        if spec.argnums is not None and spec.argnums_arg and not sig.has_var_positional:
            count = len(sig.positional)
            nodes = _element_nodes(spec.argnums_arg.value, len(spec.argnums))
            for index, (number, node) in enumerate(zip(spec.argnums, nodes, strict=True)):
                if -count <= number < count:
                    continue
                self.report(
                    node,
                    f"`static_argnums` includes {number}, but `{fname}` takes only {count} "
                    "positional argument"
                    + ("" if count == 1 else "s")
                    + ": jax.jit raises ValueError when it is applied",
                    help=f"use a position from {-count} to {count - 1}" if count else None,
                    fix=self._drop(call, spec.argnums_arg, index, str(number)),
                )

    def _drop(self, call: cst.Call | None, arg: cst.Arg, index: int, label: str) -> NodeFix | None:
        """Remove entry `index` of the spec `arg`; remove the whole argument if it was the last."""
        if call is None:
            return None
        value = arg.value
        if type(value) in (cst.Tuple, cst.List) and len(value.elements) > 1:  # type: ignore[attr-defined]
            elements = list(value.elements)  # type: ignore[attr-defined]
            removed = elements.pop(index)
            if index == len(elements):  # the last one went: keep its trailing-comma style
                elements[-1] = elements[-1].with_changes(comma=removed.comma)
            single = type(value) is cst.Tuple and len(elements) == 1
            if single and elements[0].comma == cst.MaybeSentinel.DEFAULT:
                elements[0] = elements[0].with_changes(comma=cst.Comma())
            new_value = value.with_changes(elements=elements)
            replacement = (value, self.ctx.module.code_for_node(new_value))
        else:
            args = list(call.args)
            position = next(i for i, a in enumerate(args) if a is arg)
            removed_arg = args.pop(position)
            if position == len(args) and args:
                args[-1] = args[-1].with_changes(comma=removed_arg.comma)
            new_call = call.with_changes(args=args)
            replacement = (call, self.ctx.module.code_for_node(new_call))
        # jax.jit raised for every input before: dropping the entry it rejects cannot break
        # anything that worked.
        return NodeFix("safe", f"Remove the dead entry {label}", (replacement,))


def _element_nodes(value: cst.BaseExpression, count: int) -> list[cst.CSTNode]:
    """One node per spec entry: the elements of a tuple/list literal, else the value itself."""
    if isinstance(value, cst.Tuple | cst.List) and len(value.elements) == count:
        return [element.value for element in value.elements]
    return [value] * count
