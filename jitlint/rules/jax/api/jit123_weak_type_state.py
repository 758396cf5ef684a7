from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.jax.api import WHERE
from jitlint.model.jax.jit import JitApplication
from jitlint.model.library.jax_facts import weak_types
from jitlint.python.walker import iter_children
from jitlint.rules.base import Rule

# What makes an array weakly or strongly typed is jax's to say (jax_facts.weak_types, probed by
# scripts/gen_jax_facts.py under the default config): integer makers (`arange`, `randint`) are
# not float makers, since a weak float with int32 stays a weak float.

_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.MatrixMultiply, cst.Power)
_DEPTH = 12  # expression nesting followed; locals count one level each


class WeakTypeState(Rule):
    """
    ## What it does
    Finds a loop that feeds a jitted step function its own result (`state = step(state,
    batch)`) where the state, before the loop, holds a weak-typed scalar: a Python number
    (`0.0`), or `jnp.asarray(0.0)`/`jnp.array(0.0)` without `dtype=`, directly or as an item
    of a dict or tuple literal, and the step returns that item computed from a strongly
    typed float array it is passed (`jnp.ones(...)`, `jax.random.normal(...)`, a NumPy
    array, `jnp.asarray(x, dtype=jnp.float32)`).

    ## Why is this bad
    jit's cache key holds each argument's dtype and its weak type. A Python scalar (and
    `jnp.asarray` of one) is weakly typed (`~float32[]`); the value the step returns is
    `float32[]` once it is computed from a strong array. So the second call does not match
    the first call's signature: jax traces and compiles the step again. Nothing fails; a
    large step pays its compile time twice (optax#1440: `reduce_on_plateau` kept
    `jnp.asarray(0.0)` in its state, an 8 s recompile; numpyro#463; DESC#1963). Observed on
    jax 0.10.2, three calls of one step:

    | initial leaf | traces |
    |---|---|
    | `0.0`, `1`, `jnp.asarray(0.0)`, `jnp.array(0.0)`, `jnp.asarray(1)` | 2 |
    | `jnp.asarray(0.0, dtype=jnp.float32)`, `jnp.zeros(())`, `jnp.float32(0.0)` | 1 |
    | `0` with the step returning `count + 1` (stays weak) | 1 |

    ## Example
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def step(state, grads):
        return {"lr": state["lr"] * grads.mean()}


    grads = jnp.ones(3)
    state = {"lr": jnp.asarray(0.5)}  # error: JIT123
    for _ in range(3):
        state = step(state, grads)
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp


    @jax.jit
    def step(state, grads):
        return {"lr": state["lr"] * grads.mean()}


    grads = jnp.ones(3)
    state = {"lr": jnp.asarray(0.5, dtype=jnp.float32)}
    for _ in range(3):
        state = step(state, grads)
    ```

    ## Fix safety
    The fix gives the literal an explicit `dtype=jnp.float32` (a bare number becomes
    `jnp.asarray(number, dtype=jnp.float32)`). It is unsafe: a strongly typed scalar no
    longer adapts to the dtype it meets, so arithmetic with it before the loop may promote
    differently (a bfloat16 array times it becomes float32), and under `jax_enable_x64` the
    step returns float64, so the state then needs that dtype instead.

    ## Known problems
    Tier 2, a warning: one extra compile per loop, not an error. Reported only when all of
    this is visible in the module: the state name is bound exactly twice in its scope (the
    initial value before the loop, and the loop's `state = step(...)`), the step is a
    module's jitted function with one `return` of the same literal shape (a dict with the
    same key, a tuple of the same length, or the value itself), and the returned item is
    arithmetic on a parameter whose argument is a known float array. State built by an
    `init` function or a NamedTuple, `_replace`, and arguments of unknown type are not
    followed. The code is new because neither neighbour fits: JIT113 is about new function
    objects, JIT114 (reserved) about static arguments.
    """

    code = "JIT123"
    name = "weak-type-state"
    summary = "A jitted step fed its own state gets a weak-typed scalar first: it compiles twice."
    severity = "warning"
    tier = 2
    fix_availability = "sometimes"
    requires = ("jit",)

    VALID = (
        # An explicit dtype: strong from the start.
        """
import jax
import jax.numpy as jnp
@jax.jit
def step(state, grads):
    return {"lr": state["lr"] * grads.mean()}
grads = jnp.ones(3)
state = {"lr": jnp.asarray(0.5, dtype=jnp.float32)}
for _ in range(3):
    state = step(state, grads)
""",
        # A counter that stays weak: `count + 1` of a weak int is weak.
        """
import jax
import jax.numpy as jnp
@jax.jit
def step(count, grads):
    return count + 1
grads = jnp.ones(3)
count = 0
for _ in range(3):
    count = step(count, grads)
""",
        # The other operand's type is unknown (a parameter of the enclosing function).
        """
import jax
@jax.jit
def step(lr, grads):
    return lr * grads.mean()
def train(grads):
    lr = 0.5
    for _ in range(3):
        lr = step(lr, grads)
    return lr
""",
        # An integer array: a weak float times int32 stays weak.
        """
import jax
import jax.numpy as jnp
@jax.jit
def step(lr, steps):
    return lr * steps.sum()
steps = jnp.arange(3)
lr = 0.5
for _ in range(3):
    lr = step(lr, steps)
""",
        # Not fed back: called once, or not jitted.
        """
import jax
import jax.numpy as jnp
def step(lr, grads):
    return lr * grads.mean()
@jax.jit
def jitted(lr, grads):
    return lr * grads.mean()
grads = jnp.ones(3)
lr = 0.5
for _ in range(3):
    lr = step(lr, grads)
out = jitted(0.5, grads)
""",
    )
    INVALID = (
        # optax#1440's shape: an untyped `jnp.asarray` in the carried state.
        """
import jax
import jax.numpy as jnp
@jax.jit
def step(state, grads):
    return {"lr": state["lr"] * grads.mean(), "count": state["count"] + 1}
grads = jnp.ones(3)
state = {"lr": jnp.asarray(0.5), "count": 0}  # error: JIT123
for _ in range(3):
    state = step(state, grads)
""",
        # A bare Python float carried in a tuple through a function's loop.
        """
import jax
import jax.numpy as jnp
@jax.jit
def update(carry, x):
    w, loss = carry
    new_loss = jnp.mean((w * x) ** 2)
    return (w - 0.1 * x, new_loss)
def fit(key):
    x = jax.random.normal(key, (8,))
    carry = (jnp.ones(8), 0.0)  # error: JIT123
    while True:
        carry = update(carry, x)
        if carry[1] < 1e-3:
            break
    return carry
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        parents = self.ctx.parents
        if not parents or type(parents[-1]) is not cst.Assign:
            return
        assign = parents[-1]
        if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:  # type: ignore[attr-defined]
            return
        state = assign.targets[0].target.value  # type: ignore[attr-defined]
        loop = _enclosing_loop(parents)
        if loop is None:
            return
        path = self.ctx.path_to(node)
        app = self.ctx.jit.jitted_callee(node, path)
        if app is None or not isinstance(app.func, cst.FunctionDef) or app.wrapped:
            return
        param = _parameter_of(app, node, state)
        if param is None:
            return
        initial = self._initial_value(state, path, assign, loop)
        if initial is None:
            return
        returned = _single_return(app.func)
        if returned is None:
            return
        strong = self._strong_parameters(app, node, path, param)
        if not strong:
            return
        for literal, leaf in _weak_leaves(initial, returned, self._is_weak_literal, path):
            if _is_strong(leaf, strong, self, app.func, _DEPTH):
                self._report(literal, state, app, path)

    def _initial_value(
        self, state: str, path: Sequence[cst.CSTNode], assign: cst.Assign, loop: cst.CSTNode
    ) -> cst.CSTNode | None:
        """The value `state` holds before the loop, when its scope binds it only there and
        in the loop's own assignment."""
        bindings = self.ctx.names.lookup(state, path)
        if bindings is None or len(bindings) != 2:
            return None
        if any(b.kind != "assign" for b in bindings):
            return None
        values = [b.node for b in bindings if b.node is not assign.value]
        if len(values) != 1 or values[0] is None:
            return None
        positions = self.ctx.positions
        initial = values[0]
        if positions[initial].start.line >= positions[loop].start.line:
            return None
        return initial

    def _is_weak_literal(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> bool:
        if _number(expr):
            return True
        if type(expr) is not cst.Call:
            return False
        args = expr.args  # type: ignore[attr-defined]
        if (
            len(args) != 1
            or args[0].keyword is not None
            or args[0].star
            or not _number(args[0].value)
        ):
            return False
        return bool(self.ctx.names.qualified_names(expr.func, path) & weak_types("weak_wrappers"))  # type: ignore[attr-defined]

    def _strong_parameters(
        self, app: JitApplication, call: cst.Call, path: Sequence[cst.CSTNode], state: str
    ) -> set[str]:
        """The step's parameters whose argument at `call` is a known float array."""
        signature = app.signature
        if signature is None:
            return set()
        out: set[str] = set()
        for index, arg in enumerate(call.args):
            if arg.star:
                return out
            name = arg.keyword.value if arg.keyword else None
            if name is None and index < len(signature.positional):
                name = signature.positional[index]
            if name is not None and name != state and self._float_array(arg.value, path):
                out.add(name)
        return out

    def _float_array(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode], depth: int = 0) -> bool:
        if type(expr) is cst.Name and depth < 2:
            bindings = self.ctx.names.lookup_with_path(expr.value, path)  # type: ignore[attr-defined]
            if bindings is None or len(bindings[0]) != 1 or bindings[0][0].kind != "assign":
                return False
            value = bindings[0][0].node
            return value is not None and self._float_array(value, bindings[1], depth + 1)
        if type(expr) is not cst.Call:
            return False
        names = self.ctx.names.qualified_names(expr.func, path)  # type: ignore[attr-defined]
        if len(names) != 1:
            return False
        dtype = _keyword(expr, "dtype")  # type: ignore[arg-type]
        if dtype is not None:
            spelled = self.ctx.module.code_for_node(dtype)
            return "float" in spelled and bool(
                names & (weak_types("strong_float_makers") | weak_types("dtyped_wrappers"))
            )
        return bool(names & weak_types("strong_float_makers"))

    def _report(
        self, literal: cst.CSTNode, state: str, app: JitApplication, path: Sequence[cst.CSTNode]
    ) -> None:
        text = self.ctx.module.code_for_node(literal)
        step = app.func_name
        self.report(
            literal,
            f"`{state}` starts with the weak-typed `{text}` and `{step}` returns it as a strongly "
            f"typed float: the second call of `{step}` traces and compiles it again",
            help="give the initial value a dtype: `jnp.asarray(value, dtype=jnp.float32)`",
            fix=self._fix(literal, path),
        )

    def _fix(self, literal: cst.CSTNode, path: Sequence[cst.CSTNode]) -> NodeFix | None:
        module = self.ctx.module
        if type(literal) is cst.Call:
            arg = literal.args[0]  # type: ignore[attr-defined]
            func = module.code_for_node(literal.func)  # type: ignore[attr-defined]
            base = func.rpartition(".")[0]
            if not base:
                return None
            value = module.code_for_node(arg.value)
            return NodeFix(
                "unsafe",
                "add `dtype=float32`",
                ((literal, f"{func}({value}, dtype={base}.float32)"),),
            )
        jnp, imported = self.ctx.import_name("jax.numpy", "jnp")
        return NodeFix(
            "unsafe",
            "wrap it in `jnp.asarray(..., dtype=jnp.float32)`",
            ((literal, f"{jnp}.asarray({module.code_for_node(literal)}, dtype={jnp}.float32)"),),
            (imported,) if imported else (),
        )


def _enclosing_loop(parents: Sequence[cst.CSTNode]) -> cst.CSTNode | None:
    """The innermost `for`/`while` around the statement, within its function."""
    for parent in reversed(parents):
        if type(parent) in (cst.For, cst.While):
            return parent
        if type(parent) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return None
    return None


def _parameter_of(app: JitApplication, call: cst.Call, state: str) -> str | None:
    """The step's parameter that receives `state` (a traced one), or None."""
    signature = app.signature
    static = app.spec.effective(signature)
    if signature is None or static is None:
        return None
    found: str | None = None
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if type(arg.value) is not cst.Name or arg.value.value != state:
            continue
        if found is not None:
            return None
        if arg.keyword is not None:
            found = arg.keyword.value
        elif index < len(signature.positional):
            found = signature.positional[index]
            if index in static[0]:
                return None
        else:
            return None
    if found is None or found in static[1]:
        return None
    return found


def _single_return(func: cst.FunctionDef) -> cst.BaseExpression | None:
    """The value of the function's only `return` (nested functions aside)."""
    found: list[cst.Return] = []
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        if type(node) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        if type(node) is cst.Return:
            found.append(node)  # type: ignore[arg-type]
        stack.extend(iter_children(node))
    if len(found) != 1:
        return None
    return found[0].value


def _weak_leaves(
    initial: Any,
    returned: Any,
    is_weak: Callable[[cst.CSTNode, Sequence[cst.CSTNode]], bool],
    path: Sequence[cst.CSTNode],
) -> Iterator[tuple[cst.CSTNode, cst.CSTNode]]:
    """Pairs (weak literal in the initial state, the expression the step returns there)."""
    if is_weak(initial, path):
        yield initial, returned
        return
    if type(initial) is cst.Dict and type(returned) is cst.Dict:
        out_items: dict[object, cst.BaseExpression] = {}
        for element in returned.elements:
            if type(element) is cst.DictElement and type(element.key) is cst.SimpleString:
                out_items[element.key.evaluated_value] = element.value
        for element in initial.elements:
            if type(element) is not cst.DictElement or type(element.key) is not cst.SimpleString:
                continue
            leaf = out_items.get(element.key.evaluated_value)
            if leaf is not None and is_weak(element.value, path):
                yield element.value, leaf
    elif type(initial) is cst.Tuple and type(returned) is cst.Tuple:
        if len(initial.elements) != len(returned.elements):
            return
        if any(type(e) is not cst.Element for e in (*initial.elements, *returned.elements)):
            return
        for before, after in zip(initial.elements, returned.elements, strict=True):
            if is_weak(before.value, path):
                yield before.value, after.value


def _is_strong(
    expr: Any, strong: set[str], rule: WeakTypeState, func: cst.FunctionDef, depth: int
) -> bool:
    """Whether `expr`, in the step's body, is certainly computed from a strong float array."""
    if depth <= 0:
        return False
    kind = type(expr)
    if kind is cst.Name:
        if expr.value in strong:
            return True
        value = _local_value(rule, func, expr.value)
        return value is not None and _is_strong(value, strong, rule, func, depth - 1)
    if kind is cst.BinaryOperation:
        if not isinstance(expr.operator, _ARITHMETIC):
            return False
        return _is_strong(expr.left, strong, rule, func, depth - 1) or _is_strong(
            expr.right, strong, rule, func, depth - 1
        )
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Minus:
        return _is_strong(expr.expression, strong, rule, func, depth - 1)
    if kind is cst.Subscript:
        return type(expr.value) is cst.Name and expr.value.value in strong
    if kind is not cst.Call:
        return False
    callee = expr.func
    if (
        type(callee) is cst.Attribute
        and callee.attr.value in weak_types("reducing_methods")
        and not expr.args
    ):
        return _is_strong(callee.value, strong, rule, func, depth - 1)
    # The numpy alias is a module-level import in every case the rule reports.
    names = rule.ctx.names.qualified_names(callee, [rule.ctx.module])
    if not names & weak_types("strong_if_any"):
        return False
    operands = [a.value for a in expr.args if a.keyword is None and not a.star]
    if names == WHERE:
        operands = operands[1:]  # the condition does not set the dtype
    return any(_is_strong(o, strong, rule, func, depth - 1) for o in operands)


def _local_value(rule: WeakTypeState, func: cst.FunctionDef, name: str) -> cst.CSTNode | None:
    """The value of `name = value` when that is the step's only binding of `name`."""
    bindings = rule.ctx.names.scope(func).bindings.get(name)
    if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
        return None
    return bindings[0].node


def _keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _number(expr: cst.CSTNode) -> bool:
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[attr-defined]
        expr = expr.expression  # type: ignore[attr-defined]
    return type(expr) in (cst.Float, cst.Integer)
