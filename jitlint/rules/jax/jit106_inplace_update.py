from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.values import TRACED, sure_jax_array
from jitlint.model.jax.tracing import FunctionTrace, Value
from jitlint.model.library.jax_facts import at_method
from jitlint.python.builtins_facts import AUGMENTED_OPERATORS
from jitlint.rules.base import Rule


class InplaceUpdate(Rule):
    """
    ## What it does
    Finds item assignment (`x[i] = v`) and augmented item assignment (`x[i] += v`) on a
    value that is certainly a JAX array: the result of a `jax.numpy`, `lax` or
    `jax.random` function, or of arithmetic on one, in or out of `jax.jit`.

    ## Why is this bad
    JAX arrays are immutable, so the assignment fails, traced or not:

    ```text
    TypeError: JAX arrays are immutable and do not support in-place item assignment.
    Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method
    ```

    ## Example
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def first_zeroed(x):
        y = jnp.array(x)
        y[0] = 0.0  # error: JIT106
        return y


    first_zeroed(jnp.arange(3.0))
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def first_zeroed(x):
        y = jnp.array(x)
        y = y.at[0].set(0.0)
        return y


    first_zeroed(jnp.arange(3.0))
    ```

    ## Fix safety
    `x[i] = v` becomes `x = x.at[i].set(v)`; `+=`, `-=`, `*=`, `/=` and `**=` become
    `.add`, `.subtract`, `.multiply`, `.divide` and `.power`. The fix is safe where `x` is
    certainly a JAX array (made by a JAX function, or by arithmetic on one), on which the
    original statement always raises, so no working behaviour changes; where `x` is only
    assumed to be an array (arithmetic on a traced argument that may be a list: `params *
    2`), it is unsafe. Note that with repeated indices `.add`
    accumulates every update, and that other names bound to the old array keep seeing it.

    ## Known problems
    Parameters are not reported: a parameter may be a dict or a NumPy array, which support
    item assignment. Arrays reached through attributes or containers are not followed.
    """

    code = "JIT106"
    name = "inplace-update"
    summary = "Item assignment on a JAX array, which is immutable."
    fix_availability = "sometimes"
    runtime_error = "JAX arrays are immutable"
    requires = ("jax",)
    uses_tracing = True

    VALID = (
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x):
    y = jnp.zeros(3)
    y = y.at[0].set(1.0)
    return y.at[1].add(x[0])
""",
        # NumPy arrays and dicts support item assignment.
        """
import numpy as np
import jax
@jax.jit
def f(params, x):
    params["w"] = x
    table = np.zeros(3)
    table[0] = 1.0
    return params, table
""",
        # The name is rebound to a NumPy array first.
        """
import numpy as np
import jax.numpy as jnp
def f(x):
    y = jnp.asarray(x)
    y = np.asarray(y)
    y[0] = 1
    return y
""",
        # A list of arrays from jnp.split is a Python list.
        """
import jax.numpy as jnp
def f(x):
    parts = jnp.split(x, 2)
    parts[0] = parts[0] * 2
    return parts
""",
        # `lax.stop_gradient` keeps its argument's structure: of a dict, a dict.
        """
import jax
def f(state, params):
    variables = jax.lax.stop_gradient(dict(state))
    variables["params"] = params
    return variables
""",
    )
    INVALID = (
        """
import jax.numpy as jnp
def f(x):
    y = jnp.zeros(3)
    y[0] = x  # error: JIT106
    y[1:] += 1  # error: JIT106
    return y
""",
        """
import jax
from jax import random
key = random.PRNGKey(0)
noise = random.normal(key, (3,))
noise[0] *= 2  # error: JIT106
@jax.jit
def f(x):
    y = x * 2
    y[0] = 0  # error: JIT106
    return y
""",
        """
import jax
import jax.numpy as jnp
def f(x):
    frozen = jax.lax.stop_gradient(jnp.zeros(3))
    frozen[0] = x  # error: JIT106
    return frozen
""",
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        if type(target) is not cst.Subscript:
            return
        found = self._array(node, target)
        if found is not None:
            self._report(node, target, found[0], found[1], None, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        target = node.target
        if type(target) is not cst.Subscript:
            return
        found = self._array(node, target)
        if found is not None:
            operator = AUGMENTED_OPERATORS.get(type(node.operator))
            method = at_method(operator) if operator is not None else None
            self._report(node, target, found[0], found[1], method or "", node.value)

    def _array(
        self, statement: cst.CSTNode, target: cst.Subscript
    ) -> tuple[FunctionTrace, Value] | None:
        if type(target.value) is not cst.Name:
            return None
        trace = self.ctx.tracing.any_function_at(self.ctx.path_to(statement))
        if trace is None:
            return None
        value = trace.value(target.value)
        return (trace, value) if value.kind == TRACED else None

    def _report(
        self,
        statement: cst.CSTNode,
        target: cst.Subscript,
        trace: FunctionTrace,
        value: Value,
        method: str | None,
        new: cst.BaseExpression,
    ) -> None:
        name = target.value.value  # type: ignore[attr-defined]
        why = value.why
        if why and why[0] == "op":
            origin = f"it holds the result of `{why[1]}`"
        else:
            origin = self.ctx.tracing.explain(value)
        self.report(
            target,
            f"`{name}` is a JAX array, and JAX arrays are immutable: item assignment raises "
            f"TypeError ({origin})",
            help=f"write `{name} = {name}.at[...].set(...)` (or `.add`, `.multiply`, ...)",
            fix=self._fix(statement, target, method, new, value),
        )

    def _fix(
        self,
        statement: cst.CSTNode,
        target: cst.Subscript,
        method: str | None,
        new: cst.BaseExpression,
        value: Value,
    ) -> NodeFix | None:
        if method == "":
            return None  # an operator with no .at[] twin (//=, %=, ...)
        parents = self.ctx.parents
        if not parents or type(parents[-1]) is not cst.SimpleStatementLine:
            return None
        module = self.ctx.module
        name = module.code_for_node(target.value)
        index = ", ".join(module.code_for_node(e.slice) for e in target.slice)
        call = method or "set"
        text = f"{name} = {name}.at[{index}].{call}({module.code_for_node(new)})"
        # Safe only on a value known to be a JAX array (made by JAX): one assumed from
        # arithmetic on a traced argument may be a list (`params * 2`), which item
        # assignment works on.
        applicability = "safe" if sure_jax_array(value) else "unsafe"
        return NodeFix(applicability, f"use `{name}.at[...].{call}(...)`", ((statement, text),))
