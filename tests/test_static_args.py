"""The typed queries JIT103, JIT110 and JIT111 ask of the JAX model
(jitlint/model/jax/static_args/ and `jit_arguments` in model/jax/jit.py)."""

from __future__ import annotations

import libcst as cst
from test_tracing import _context, _find

from jitlint.model.context import FileContext
from jitlint.model.jax.jit import jit_arguments
from jitlint.model.jax.static_args.hashable import (
    Unhashable,
    declared_unhashable,
    unhashable_expression,
)
from jitlint.model.jax.static_args.nonarray import NonArray, NonArrays
from jitlint.model.jax.static_args.sizes import jitted_library_static, traced_size


def _call(ctx: FileContext, name: str) -> tuple[cst.Call, list[cst.CSTNode]]:
    node, path = _find(
        ctx, lambda n: type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == name
    )
    assert isinstance(node, cst.Call)
    return node, path


def test_jit_arguments_bind_positions_and_keywords() -> None:
    ctx = _context(
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("mode",))
        def f(x, mode, *rest, scale=1.0):
            return x

        f(x, "a", 3, scale=2.0)
        """
    )
    call, path = _call(ctx, "f")
    app, nums, names = ctx.jit.static_call(call, path)  # type: ignore[misc]
    got = [(a.index, a.param, a.static) for a in jit_arguments(app, nums, names, call)]
    # `3` goes to `*rest`: no named parameter; static_argnames infers position 1.
    assert got == [(0, "x", False), (1, "mode", True), (2, None, False), (3, "scale", False)]


def test_jit_arguments_stop_at_a_star_argument() -> None:
    ctx = _context(
        """
        import jax

        @jax.jit
        def f(x, y):
            return x

        f(x, *more)
        """
    )
    call, path = _call(ctx, "f")
    app, nums, names = ctx.jit.static_call(call, path)  # type: ignore[misc]
    assert [a.param for a in jit_arguments(app, nums, names, call)] == ["x"]


def test_unhashable_expression_keeps_the_route() -> None:
    ctx = _context(
        """
        dims = ([0], 1)
        f(x, dims)
        f(x, list(y))
        f(x, (1, 2))
        """
    )
    calls = [n for n in ctx.module.body if isinstance(n, cst.SimpleStatementLine)][1:]
    args = [s.body[0].value.args[1].value for s in calls]  # type: ignore[attr-defined]
    path = [ctx.module]
    assert unhashable_expression(ctx.names, args[0], path) == Unhashable("list", ("dims", None))
    assert unhashable_expression(ctx.names, args[1], path) == Unhashable("list")
    assert unhashable_expression(ctx.names, args[2], path) is None


def test_unhashable_expression_reads_configured_calls() -> None:
    ctx = _context("import mylib\nf(x, mylib.table())\n")
    arg = ctx.module.body[1].body[0].value.args[1].value  # type: ignore[attr-defined]
    assert unhashable_expression(ctx.names, arg, [ctx.module]) is None
    found = unhashable_expression(ctx.names, arg, [ctx.module], ["mylib.table"])
    assert found == Unhashable("value")


def test_declared_unhashable_annotations() -> None:
    ctx = _context(
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("axes", "n"))
        def f(x, axes: list[int], n: int):
            return x
        """
    )
    func, path = _find(ctx, lambda n: type(n) is cst.FunctionDef)
    app = ctx.jit.from_decorators(func, path)  # type: ignore[arg-type]
    assert app is not None
    found = declared_unhashable(ctx.names, ctx.tracing.classes, app, path, decorated=True)
    assert [(d.param, d.annotated) for d in found] == [("axes", "list")]


def test_non_array_values_are_typed() -> None:
    ctx = _context(
        """
        import enum
        import jax.numpy as jnp

        class Mode(enum.Enum):
            A = 1

        class Config:
            pass

        def helper(x):
            return x

        kind = "relu"
        f(kind, Mode.A, Config(), helper, jnp.tanh, lambda v: v, 1.0)
        """
    )
    call, path = _call(ctx, "f")
    values = NonArrays(ctx.names, ctx.jit, ctx.tracing, ctx.module, ctx.source)
    got = [values.of(a.value, path) for a in call.args]
    assert got == [
        NonArray("string", None, "kind"),
        NonArray("enum member", "Mode"),
        NonArray("instance", "Config"),
        NonArray("function", "helper"),
        NonArray("library function", "jnp.tanh"),
        NonArray("lambda"),
        None,
    ]


def test_traced_size_roles() -> None:
    ctx = _context(
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, n):
            a = jnp.zeros(n)
            b = x.reshape(n, -1)
            c = jnp.repeat(x, n)
            d = x.sum(axis=n)
            e = jnp.zeros(3)
            return a, b, c, d, e
        """
    )
    func, _ = _find(ctx, lambda n: type(n) is cst.FunctionDef)
    trace = ctx.tracing.trace(func)
    assert trace is not None
    calls = []
    for statement in func.body.body[:5]:  # type: ignore[attr-defined]
        calls.append(statement.body[0].value)
    found = [traced_size(ctx.tracing, trace, c) for c in calls]
    assert [(f.role, f.callee, f.param) if f else None for f in found] == [
        ("param", "jax.numpy.zeros", "shape"),
        ("shape", "reshape", None),
        ("repeats", "jax.numpy.repeat", "repeats"),
        ("axis", "sum", None),
        None,
    ]


def test_jitted_library_static() -> None:
    ctx = _context(
        """
        import jax

        jax.jit(jax.nn.one_hot)(labels, 10)
        jax.jit(jax.nn.one_hot, static_argnames=("num_classes",))(labels, 10)
        """
    )
    outer = [s.body[0].value for s in ctx.module.body[1:]]  # type: ignore[attr-defined]
    first = jitted_library_static(ctx.jit, ctx.names, outer[0], [ctx.module])
    assert first is not None
    assert (first.qualname, first.param) == ("jax.nn.one_hot", "num_classes")
    assert jitted_library_static(ctx.jit, ctx.names, outer[1], [ctx.module]) is None


def test_library_constants_are_python_values() -> None:
    # The generated facts list the numbers among jax.numpy's and math's names.
    ctx = _context(
        """
        import math
        import jax.numpy as jnp

        f(jnp.pi, jnp.newaxis, math.tau, jnp.float32, jnp.s_)
        """
    )
    call, path = _call(ctx, "f")
    values = NonArrays(ctx.names, ctx.jit, ctx.tracing, ctx.module, ctx.source)
    kinds = [values.of(a.value, path) for a in call.args]
    assert kinds[:3] == [None, None, None]
    assert kinds[3:] == [
        NonArray("library function", "jnp.float32"),
        NonArray("library function", "jnp.s_"),
    ]


# jax-ml/jax#17158: `static_argnums` on a jitted method counts `self` as index 0 (observed
# on jax 0.10.2), so `(1,)` marks `signal` static and leaves both `self` and `flip` traced.
SHIFTED = """
from functools import partial

import jax
import jax.numpy as jnp


class Rectifier:
    @partial(jax.jit, static_argnums=STATIC)  # {decorator}
    def apply(self, signal, flip):
        if flip:  # {body}
            return -signal
        return signal


rect = Rectifier()
sig = jnp.array([1.0, -2.0, 3.0])
out = rect.apply(sig, True)  # {call}
"""


def _marked(static: str, decorator: str = "", body: str = "", call: str = "") -> str:
    marks = {k: f"error: {v}" if v else "" for k, v in
             (("decorator", decorator), ("body", body), ("call", call))}  # fmt: skip
    return SHIFTED.replace("STATIC", static).format(**marks)


def test_a_jitted_method_whose_self_is_traced_never_traces_its_body() -> None:
    from helpers import expected, found

    codes = {"JIT101", "JIT110", "JIT111"}
    # `self` of a plain class traced: every call raises TypeError before the body is
    # traced, so the traced `flip` in the body is never converted.
    source = _marked("(1,)", decorator="JIT111", call="JIT110")
    assert found(source, codes) == expected(source)
    # With `self` static instead, the body is traced and the `if` converts the traced `flip`.
    source = _marked("(0,)", body="JIT101")
    assert found(source, codes) == expected(source)
    # Counting from `self`, index 2 is `flip`: static, nothing to report but `self`.
    source = _marked("(2,)", decorator="JIT111")
    assert found(source, codes) == expected(source)
