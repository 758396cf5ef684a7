from __future__ import annotations

import libcst as cst

from jitlint.analysis.jit import JitApplication
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
    No automatic fix is offered yet: dropping the dead entry makes the code import, but the
    parameter it was meant for may still need to be static.

    ## Known problems
    Only literal specs are checked, on functions whose signature is visible: a `def` or
    `lambda` in the same file, with jit as its innermost decorator. A function with
    `**kwargs` accepts any name and one with `*args` any position, so neither is reported.
    """

    code = "JIT112"
    name = "bad-static-spec"
    summary = "`static_argnames`/`static_argnums` name no parameter of the jitted function."
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
        if spec.argnames is not None and spec.argnames_arg and not sig.has_var_keyword:
            nodes = _element_nodes(spec.argnames_arg.value, len(spec.argnames))
            for name, node in zip(spec.argnames, nodes, strict=True):
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
                )
        if spec.argnums is not None and spec.argnums_arg and not sig.has_var_positional:
            count = len(sig.positional)
            nodes = _element_nodes(spec.argnums_arg.value, len(spec.argnums))
            for number, node in zip(spec.argnums, nodes, strict=True):
                if -count <= number < count:
                    continue
                self.report(
                    node,
                    f"`static_argnums` includes {number}, but `{fname}` takes only {count} "
                    "positional argument"
                    + ("" if count == 1 else "s")
                    + ": jax.jit raises ValueError when it is applied",
                    help=f"use a position from {-count} to {count - 1}" if count else None,
                )


def _element_nodes(value: cst.BaseExpression, count: int) -> list[cst.CSTNode]:
    """One node per spec entry: the elements of a tuple/list literal, else the value itself."""
    if isinstance(value, cst.Tuple | cst.List) and len(value.elements) == count:
        return [element.value for element in value.elements]
    return [value] * count
