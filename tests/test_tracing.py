"""The tracing model (model/jax/tracing.py): which functions are traced, at which level, and
which values inside them are tracers."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from helpers import expected, found

from jitlint.model.context import FileContext
from jitlint.model.domain.values import PYTREE, STATIC, TRACED, UNKNOWN, Array
from jitlint.model.jax.tracing import ABSTRACT, GRAD
from jitlint.python.walker import iter_children


def _context(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext(cst.parse_module(source), "case.py", source)


def _find(ctx: FileContext, predicate) -> tuple[cst.CSTNode, list[cst.CSTNode]]:
    """The first node (pre-order) matching `predicate`, with its path."""
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(ctx.module, [])]
    while stack:
        node, path = stack.pop()
        here = [*path, node]
        if predicate(node):
            return node, here
        stack.extend((child, here) for child in reversed(iter_children(node)))
    raise AssertionError("node not found")


def _function(ctx: FileContext, name: str):
    node, _ = _find(ctx, lambda n: type(n) is cst.FunctionDef and n.name.value == name)
    return ctx.tracing.trace(node)


def _value_of_return(ctx: FileContext, name: str):
    """The value of the first `return` expression in function `name`."""
    func, _ = _find(ctx, lambda n: type(n) is cst.FunctionDef and n.name.value == name)
    trace = ctx.tracing.trace(func)
    assert trace is not None, f"{name} is not traced"
    stack = [func.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Return:
            return trace.value(node.value)
        stack.extend(reversed(iter_children(node)))
    raise AssertionError("no return")


@pytest.mark.parametrize(
    ("source", "level"),
    [
        ("import jax\n@jax.jit\ndef f(x): return x", ABSTRACT),
        ("from jax import jit as J\n@J\ndef f(x): return x", ABSTRACT),
        ("import jax\nfrom functools import partial\n@partial(jax.jit, static_argnums=1)\n"
         "def f(x, n): return x", ABSTRACT),
        ("import jax\n@jax.jit(static_argnames='n')\ndef f(x, n): return x", ABSTRACT),
        ("import jax\ndef f(x): return x\ng = jax.jit(f)", ABSTRACT),
        ("import jax\ndef f(x): return x\ny = jax.jit(f)(1.0)", ABSTRACT),
        ("import jax\ndef f(x): return x\ng = jax.vmap(f)", ABSTRACT),
        ("import jax\ndef f(x): return x\ng = jax.pmap(f)", ABSTRACT),
        ("import jax\ndef f(x): return x\ng = jax.checkpoint(f)", ABSTRACT),
        ("import jax\ndef f(x): return x\ng = jax.grad(f)", GRAD),
        ("import jax\ndef f(x): return x\ng = jax.jit(jax.grad(f))", ABSTRACT),
        ("from jax import lax\ndef f(c, x): return c, x\nlax.scan(f, 0, xs)", ABSTRACT),
        ("from jax.experimental.shard_map import shard_map\ndef f(x): return x\n"
         "g = shard_map(f, mesh, in_specs=P(), out_specs=P())", ABSTRACT),
        ("import equinox as eqx\n@eqx.filter_jit\ndef f(x): return x", ABSTRACT),
        ("from flax import nnx\n@nnx.jit\ndef f(x): return x", ABSTRACT),
        ("import flax.linen as nn\ndef f(mdl, c, x): return c, x\nS = nn.scan(f)", ABSTRACT),
        ("import jax\nfrom functools import partial\ndef f(cfg, x): return x\n"
         "g = jax.jit(partial(f, cfg))", ABSTRACT),
        ("import jax\nfrom functools import partial\ndef f(x, n): return x\n"
         "g = partial(jax.jit, static_argnums=1)(f)", ABSTRACT),
        ("import jax\ndef f(x, n): return x\ng = jax.jit(static_argnames='n')(f)", ABSTRACT),
    ],
)  # fmt: skip
def test_every_spelling_is_found(source, level):
    ctx = _context(source)
    trace = _function(ctx, "f")
    assert trace is not None and trace.level == level


@pytest.mark.parametrize(
    "source",
    [
        "from numba import jit\n@jit\ndef f(x): return x",
        "def jit(f): return f\n@jit\ndef f(x): return x",
        "import jax\ndef f(x): return x\ndef g(f): return f",
        # `jit` bound twice: one meaning is not jax's, so nothing is claimed.
        "from jax import jit\nif cond:\n    from numba import jit\n@jit\ndef f(x): return x",
        # Applied only in a branch that never runs.
        "import jax\nJAX_MODE = False\ndef f(x): return x\nif JAX_MODE:\n    g = jax.jit(f)",
    ],
)
def test_not_traced(source):
    ctx = _context(source)
    assert _function(ctx, "f") is None


def test_static_arguments_and_defaults():
    ctx = _context(
        """
        import jax
        from functools import partial
        @partial(jax.jit, static_argnums=(1,))
        def f(x, n, flag, k=3):
            return x
        """
    )
    params = _function(ctx, "f").params
    assert params["x"].kind == PYTREE
    assert params["n"].kind == STATIC
    assert params["flag"].kind == PYTREE
    assert params["k"].kind == UNKNOWN  # a default the caller may leave out


@pytest.mark.parametrize(
    "application",
    ["partial(jax.jit, static_argnums=1)(f)", "jax.jit(static_argnames=('n',))(f)"],
)
def test_options_bound_before_the_function_is_given(application):
    ctx = _context(
        f"import jax\nfrom functools import partial\ndef f(x, n): return x\ng = {application}"
    )
    params = _function(ctx, "f").params
    assert (params["x"].kind, params["n"].kind) == (PYTREE, STATIC)


def test_vmap_in_axes_none_is_not_traced_and_positional_in_axes_is_read():
    ctx = _context(
        """
        import jax
        def f(x, size, op):
            return x
        g = jax.vmap(f, (0, None, None))
        """
    )
    params = _function(ctx, "f").params
    assert params["x"].kind == PYTREE
    assert params["size"].kind == UNKNOWN and params["op"].kind == UNKNOWN


def test_vmap_called_in_traced_code_reads_positional_in_axes():
    # Seen in ikostrikov/jaxrl (DrQ augmentations): `jax.vmap(f, (0, 0, None))(keys, imgs, 4)`
    # inside jitted code passes the Python int through unmapped; jnp.pad takes it as static.
    source = """
        import jax
        import jax.numpy as jnp
        def crop(key, img, padding):
            return jnp.pad(img, ((padding, padding), (0, 0)))
        @jax.jit
        def step(keys, imgs):
            return jax.vmap(crop, (0, 0, None))(keys, imgs, 4)
        """
    assert found(textwrap.dedent(source), {"JIT103"}) == set()
    mapped = source.replace("(0, 0, None))(keys, imgs, 4)", "(0, 0, 0))(keys, imgs, imgs)")
    assert {code for _, code in found(textwrap.dedent(mapped), {"JIT103"})} == {"JIT103"}


def test_grad_only_differentiated_argument_is_traced():
    ctx = _context(
        """
        import jax
        def loss(p, batch):
            return p
        g = jax.grad(loss)
        """
    )
    trace = _function(ctx, "loss")
    assert trace.level == GRAD
    assert trace.params["p"].kind == PYTREE and trace.params["batch"].kind == UNKNOWN


def test_filter_jit_parameters_are_unknown():
    ctx = _context("import equinox as eqx\n@eqx.filter_jit\ndef f(x, training): return x")
    params = _function(ctx, "f").params
    assert params["x"].kind == UNKNOWN and params["training"].kind == UNKNOWN


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("return x.shape[0] * 2 + x.ndim + len(x)", STATIC),
        ("return x.sum()", TRACED),
        ("return jnp.float32(2.0)", TRACED),  # omnistaging: jnp on constants is traced
        ("return jnp.shape(x)", STATIC),
        ("return np.sum(x)", TRACED),  # dispatches to the method
        ("return np.sin(x)", UNKNOWN),  # converts: JIT104's business
        ("return x is None", STATIC),
        ("return isinstance(x, tuple)", STATIC),
        ("return n", STATIC),
        ("return SCALE * 2", STATIC),  # a closed-over Python value
        ("y = x\ny = 3\nreturn y", STATIC),  # reassignment in order
        ("a, b = x.shape\nreturn a", STATIC),
        ("a, b = 1, x\nreturn b", PYTREE),
        ("y = 0\ny += x\nreturn y", TRACED),
        ("y = x.sum() if n else 1\nreturn y", UNKNOWN),  # branches disagree
        ("return [v * 2 for v in range(n)]", STATIC),
        ("return [x[i] for i in range(3)]", PYTREE),
        ("return cfg.width", STATIC),
        ("return x.at[0].set(1.0)", TRACED),
        ("return self_attr.value", UNKNOWN),
    ],
)
def test_values(body, kind):
    header = (
        "import jax\nimport jax.numpy as jnp\nimport numpy as np\n"
        "from functools import partial\nSCALE = 3\ncfg = object()\n"
        '@partial(jax.jit, static_argnames="n")\ndef f(x, n, self_attr):\n'
    )
    source = header + textwrap.indent(body, "    ") + "\n"
    assert _value_of_return(_context(source), "f").kind == kind


def test_helpers_take_tracedness_from_traced_call_sites():
    ctx = _context(
        """
        import jax
        def helper(a, k, unused=None):
            return a
        def python_only(z):
            return helper(z, 1)
        @jax.jit
        def f(x):
            return helper(x, 2)
        """
    )
    helper = _function(ctx, "helper")
    assert helper.level == ABSTRACT
    assert helper.params["a"].kind == PYTREE
    assert helper.params["k"].kind == STATIC
    assert helper.params["unused"].kind == STATIC
    assert _function(ctx, "python_only") is None
    assert "passes it a traced value" in ctx.tracing.explain(helper.params["a"])


def test_closures_over_traced_values_in_lax_bodies():
    ctx = _context(
        """
        import jax
        from jax import lax
        @jax.jit
        def f(x, n):
            def body(i, c):
                return c + x
            return lax.fori_loop(0, 3, body, 0.0)
        """
    )
    assert _value_of_return(ctx, "body").kind == TRACED


def test_untraced_functions_are_not_analysed():
    ctx = _context(
        """
        import jax
        @jax.jit
        def f(x):
            return x
        def g(x):
            return x + 1
        """
    )
    tracing = ctx.tracing
    assert not tracing._solved  # nothing is interpreted until a rule asks
    g, _ = _find(ctx, lambda n: type(n) is cst.FunctionDef and n.name.value == "g")
    assert tracing.trace(g) is None
    assert tracing._solved
    assert _function(ctx, "f") is not None
    assert id(g) not in tracing._traces  # nothing calls it: never analysed


def test_explanations_name_the_parameter_and_the_transformation_line():
    ctx = _context(
        """
        import jax

        @jax.jit
        def f(x):
            return x
        """
    )
    value = _function(ctx, "f").params["x"]
    assert ctx.tracing.explain(value) == (
        "`x` is traced because it is a non-static argument of `f`, which `jax.jit` "
        "compiles at line 4"
    )


def test_messages_name_the_value_the_reason_and_the_remedy():
    from jitlint.engine.linter import lint_text

    source = textwrap.dedent(
        """
        import jax

        @jax.jit
        def f(x, n):
            for i in range(n):
                x = x + i
            return x
        """
    )
    (finding,) = lint_text(source, "case.py", {"JIT102"}).diagnostics
    assert "`range()`" in finding.message
    assert (
        "`n` is traced because it is a non-static argument of `f`, which `jax.jit` compiles "
        "at line 4" in finding.message
    )
    assert finding.help and "static" in finding.help
    assert finding.fix is not None and finding.fix.applicability == "unsafe"


def test_rules_are_silent_under_grad_alone_but_not_under_jit_of_grad():
    from jitlint.engine.linter import lint_text

    source = textwrap.dedent(
        """
        import jax

        def loss(x):
            if x > 0:
                return float(x) * x
            return -x

        g = jax.grad(loss)
        """
    )
    codes = {"JIT101", "JIT102"}
    assert lint_text(source, "case.py", codes).diagnostics == []
    jitted = source + "h = jax.jit(jax.grad(loss))\n"
    # Under jit the differentiated argument is a tracer with no value.
    found = {(d.line, d.code) for d in lint_text(jitted, "case.py", codes).diagnostics}
    assert found == {(5, "JIT101"), (6, "JIT102")}


def test_untraced_code_can_still_hold_jax_arrays_for_jit106():
    from jitlint.engine.linter import lint_text

    source = "import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1.0\n"
    (finding,) = lint_text(source, "case.py", {"JIT106"}).diagnostics
    assert finding.fix is not None and finding.fix.applicability == "safe"


def test_a_helper_flag_left_at_its_literal_default_prunes_the_branch():
    source = """
    import jax
    import jax.numpy as jnp

    def loss(p, apply_softmax=True, strict=False, mode=None):
        if not apply_softmax:
            if not jnp.allclose(p.sum(), 1.0):  # never runs: every caller leaves it True
                raise ValueError("bad")
        if strict:
            assert p.sum() > 0  # step2 passes strict=True
        if mode is None:
            return p
        return p

    @jax.jit
    def step(p):
        return loss(p)

    @jax.jit
    def step2(p):
        return loss(p, strict=True)
    """
    assert found(source, {"JIT101"}) == {(10, "JIT101")}


def test_static_argnums_of_pmap_and_checkpoint():
    source = """
    import jax
    from functools import partial

    @partial(jax.pmap, static_broadcasted_argnums=(1,))
    def p(x, n):
        if n > 0:  # static
            return x
        return -x

    @partial(jax.checkpoint, static_argnums=(1,))
    def c(x, n):
        if n > 0:  # static
            return x
        return -x

    @jax.checkpoint
    def d(x, n):
        if n > 0:  # traced
            return x
        return -x

    @partial(jax.checkpoint, static_argnums=N)
    def e(x, n):
        if n > 0:  # the spec is not a literal: unknown
            return x
        return -x
    """
    assert found(source, {"JIT101"}) == {(19, "JIT101")}


@pytest.mark.parametrize("entry", ["app.run(main)", "app.run(main=main)"])
def test_absl_app_run_runs_main_in_python(entry):
    # Research code starts with `app.run(main)`; main's call passes a Python bool, which
    # jax.jit makes a traced scalar, so the `if` in the step converts a tracer.
    source = f"""
        import jax
        from absl import app

        @jax.jit
        def step(x, training):
            if training:  # error: JIT101
                x = x * 0.5
            return x

        def main(argv):
            del argv
            print(step(1.0, True))

        if __name__ == "__main__":
            {entry}
        """
    assert found(textwrap.dedent(source), {"JIT101"}) == {(7, "JIT101")}
    unrun = textwrap.dedent(source).replace(f"    {entry}", "    pass")
    assert found(unrun, {"JIT101"}) == set()


def test_device_get_under_jit_hands_back_the_tracer():
    # jax's facts (pass_through): under jit, `jax.device_get(x)` is `x`, still a tracer.
    source = """
        import jax

        @jax.jit
        def pick(task_id, n):
            index = jax.device_get(task_id).item()  # error: JIT102
            count = jax.device_get(n.shape[0])
            return index + count
        """
    assert found(textwrap.dedent(source), {"JIT102"}) == {(6, "JIT102")}


# Only staging transformations (jit, lax bodies, checkpoint) make every JAX operation a
# tracer; under vmap or grad alone an operation on no traced input returns a concrete array.
# Each source ran on jax 0.10.2: a marked line raises, an unmarked one does not.
STAGING = {
    "vmap_alone": """
        import jax
        import jax.numpy as jnp
        def f(x, c: float = 2.0):
            if jnp.exp(c) > 1:
                return x
            return -x
        jax.vmap(f)(jnp.ones(3))
        """,
    "grad_alone_helper": """
        import math
        import jax
        import jax.numpy as jnp
        def scale(c):
            return jnp.log1p(c)
        def loss(x, c: float = 2.0):
            return x.sum() * math.exp(scale(c))
        jax.grad(loss)(jnp.ones(3))
        """,
    "jit_inside_vmap": """
        import jax
        import jax.numpy as jnp
        def f(x, c: float = 2.0):
            return x * float(jnp.exp(c))  # error: JIT102
        jax.vmap(jax.jit(f))(jnp.ones(3))
        """,
    "helper_of_a_scan_body_inside_vmap": """
        import jax
        import jax.numpy as jnp
        from jax import lax
        def gain(c):
            return float(jnp.exp(c))  # error: JIT102
        def body(carry, x):
            return carry + x * gain(2.0), None
        def f(xs):
            return lax.scan(body, 0.0, xs)[0]
        jax.vmap(f)(jnp.ones((3, 4)))
        """,
    "vmap_on_the_batched_value": """
        import jax
        import jax.numpy as jnp
        def f(x, c: float = 2.0):
            if jnp.exp(c) * x.sum() > 1:  # error: JIT101
                return x
            return -x
        jax.vmap(f)(jnp.ones((3, 2)))
        """,
}


@pytest.mark.parametrize("name", sorted(STAGING))
def test_only_staging_transformations_trace_operations_on_constants(name):
    source = textwrap.dedent(STAGING[name])
    assert found(source, {"JIT101", "JIT102"}) == expected(source)


@pytest.mark.parametrize(
    "make", ["jnp.asarray(TABLE)", "jnp.asarray(TABLE) * 2", "jnp.cumsum(TABLE)"]
)
def test_a_jax_numpy_function_run_eagerly_returns_a_jax_value_whatever_it_is_given(make):
    # Under vmap alone (nothing stages) and inside `ensure_compile_time_eval` a `jnp` call of
    # a NumPy table runs at once: a concrete JAX array, no longer NumPy, not a tracer.
    source = f"""
        import jax
        import jax.numpy as jnp
        import numpy as np
        TABLE = np.arange(8)
        def draw(i):
            table = {make}
            return table
        def keep(i):
            table = np.asarray(TABLE)
            return table
        def pick(i):
            with jax.ensure_compile_time_eval():
                table = {make}
            return table
        jax.vmap(draw)(jnp.arange(3))
        jax.vmap(keep)(jnp.arange(3))
        jax.jit(pick)(1)
        """
    ctx = _context(source)
    for name in ("draw", "pick"):
        value = _value_of_return(ctx, name)
        assert value.kind == STATIC and not isinstance(value, Array), (name, value)
    kept = _value_of_return(ctx, "keep")
    assert isinstance(kept, Array) and not kept.jax
