"""Guard narrowing in the tracing model (model/jax/narrowing.py): `isinstance(n, int)` and
friends prove a name is not a tracer where the guard holds."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from helpers import expected, found

from jitlint.model.context import FileContext
from jitlint.model.domain.values import STATIC, TRACED, UNKNOWN
from jitlint.python.walker import iter_children

HEADER = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax import core
@jax.jit
def f(x, n: int):
"""


def _value(body: str, expr: str, header: str = HEADER):
    """The value of the last expression spelled `expr` in the body of the jitted `f`."""
    source = header + textwrap.indent(textwrap.dedent(body), "    ")
    module = cst.parse_module(source)
    ctx = FileContext(module, "case.py", source)
    func = next(s for s in module.body if type(s) is cst.FunctionDef and s.name.value == "f")
    trace = ctx.tracing.trace(func)
    assert trace is not None
    hits = []
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        code = module.code_for_node(node)
        if code.startswith("(") and code.endswith(")"):
            code = code[1:-1]
        if isinstance(node, cst.BaseExpression) and code == expr:
            hits.append(node)
        stack.extend(reversed(iter_children(node)))
    assert hits, f"{expr!r} not found"
    return trace.value(hits[-1]).kind


@pytest.mark.parametrize(
    "body",
    [
        "return isinstance(n, int) and n > 1",
        "return not isinstance(n, int) or n > 1",
        "return isinstance(n, (int, float, bool)) and isinstance(x, str) and n > 1",
        "return (n > 1) if isinstance(n, int) else 0",
        "return 0 if not isinstance(n, int) else (n > 1)",
        "if isinstance(n, int):\n    return n > 1\nreturn x",
        "if not isinstance(n, int):\n    return x\nreturn n > 1",
        "if not isinstance(n, int):\n    raise TypeError(n)\nreturn n > 1",
        "if isinstance(n, int):\n    pass\nelse:\n    return x\nreturn n > 1",
        "for i in range(3):\n    if not isinstance(n, int):\n        continue\n    y = n > 1",
        "assert isinstance(n, int)\nreturn n > 1",
        "return type(n) is int and n > 1",
        "return type(n) in (int, float) and n > 1",
        "return isinstance(n, type(None)) or isinstance(n, np.ndarray) and n > 1",
        "return not isinstance(n, core.Tracer) and n > 1",
        "return n + 1 if n is None else 0",
        "return [n > 1 for k in range(3) if isinstance(n, int)]",
        "return isinstance(n, int) and (n > 1)",
        # Every tracer has the array attributes: without one, n is not a tracer.
        "return 0 if hasattr(n, 'shape') else n > 1",
        "if not hasattr(n, 'dtype'):\n    return n > 1\nreturn x",
        "return hasattr(n, 'ndim') or n > 1",
        # `n` is one traced array: no array is a tuple or a list, so where the guard holds
        # (equinox's `is_empty_tuple = lambda x: isinstance(x, tuple) and x == ()`) it never
        # runs with the tracer.
        "return isinstance(n, tuple) and n > 1",
        "return isinstance(n, (list, tuple)) and n > 1",
        "return 0 if not isinstance(n, dict) else n > 1",
        # No JAX array has `items` or `values` (the generated `array_attributes`): where
        # `hasattr` finds one, `n` is a dict or some other object, never the traced array.
        "return hasattr(n, 'items') and n > 1",
        "if hasattr(n, 'values'):\n    return n > 1\nreturn x",
    ],
)
def test_guards_make_the_name_static_where_they_hold(body):
    expr = "n + 1" if "n + 1" in body else "n > 1"
    assert _value(body, expr) == STATIC


@pytest.mark.parametrize(
    "body",
    [
        # Tracers are jax.Array instances: these guards prove nothing.
        "return isinstance(n, jax.Array) and n > 1",
        "return isinstance(n, (int, jnp.ndarray)) and n > 1",
        "return isinstance(n, core.Tracer) and n > 1",
        # The right operand of `or` runs when the guard failed.
        "return isinstance(n, int) or n > 1",
        "return n is not None and n > 1",
        "return n > 1 if not isinstance(n, int) else 0",
        # The narrowing ends with the branch unless the other branch left.
        "if isinstance(n, int):\n    pass\nreturn n > 1",
        "if isinstance(n, int):\n    return x\nreturn n > 1",
        # Rebound inside the guarded region.
        "if isinstance(n, int):\n    n = jnp.asarray(n)\n    return n > 1\nreturn x",
        # Only a Python value's type proves it is no tracer at all.
        "return isinstance(n, (tuple, jax.Array)) and n > 1",
        # A guard on another name.
        "return isinstance(x, int) and n > 1",
        # Having the attribute proves nothing; other attributes prove nothing either way.
        "return hasattr(n, 'shape') and n > 1",
        "return 0 if hasattr(n, 'numpy') else n > 1",
        "return 0 if hasattr(x, 'shape') else n > 1",
        # Arrays have `reshape` and `update`: finding one proves nothing.
        "return hasattr(n, 'reshape') and n > 1",
        "return hasattr(n, 'update') and n > 1",
        # Where an attribute no array has is missing, n may well be the array.
        "return 0 if hasattr(n, 'items') else n > 1",
    ],
)
def test_guards_that_prove_nothing_leave_the_name_traced(body):
    assert _value(body, "n > 1") == TRACED


@pytest.mark.parametrize(
    "body",
    [
        "return isinstance(x, tuple) and x[0] > 1",
        "return isinstance(x, (list, tuple)) and x[0] > 1",
        "if isinstance(x, dict):\n    return x[0] > 1\nreturn n",
        "if hasattr(x, 'items'):\n    return x[0] > 1\nreturn n",
    ],
)
def test_a_container_guard_keeps_the_tracers_a_pytree_argument_holds(body):
    # `x` may be a tuple of tracers under jit: `isinstance(x, tuple)` proves nothing of them.
    assert _value(body, "x[0] > 1") == TRACED


PREDICATES = """\
def concrete(v):
    \"\"\"A type-test predicate: its result is the test.\"\"\"
    return not isinstance(v, core.Tracer)
def tracer(v):
    return isinstance(v, core.Tracer)
def python_pair(a, b):
    return isinstance(a, (int, float)) and isinstance(b, int)
def array(v):
    return isinstance(v, jax.Array)
def logged(v):
    print(v)
    return not isinstance(v, core.Tracer)
"""


@pytest.mark.parametrize(
    "body",
    [
        "return concrete(n) and n > 1",
        "if concrete(n):\n    return n > 1\nreturn x",
        "if tracer(n):\n    return x\nreturn n > 1",
        "return 0 if tracer(n) else n > 1",
        "return not tracer(n) and n > 1",
        "return python_pair(x, n) and n > 1",
        "return python_pair(b=n, a=x) and n > 1",
        "if not concrete(v=n):\n    raise ValueError\nreturn n > 1",
    ],
)
def test_a_type_test_predicate_narrows_its_argument(body):
    source = HEADER.replace("@jax.jit", PREDICATES + "@jax.jit", 1)
    assert _value(body, "n > 1", source) == STATIC


@pytest.mark.parametrize(
    "body",
    [
        "return tracer(n) and n > 1",  # held: n is a tracer
        "return concrete(n) or n > 1",  # the right operand runs when the test failed
        "return array(n) and n > 1",  # tracers are arrays: proves nothing
        "return logged(n) and n > 1",  # more than a return of the test: no summary
        "return python_pair(n, x) or n > 1",
        "return not python_pair(n, x) and n > 1",  # failed: either operand may have
        "return concrete(x) and n > 1",  # another name
    ],
)
def test_predicates_that_prove_nothing_leave_the_argument_traced(body):
    source = HEADER.replace("@jax.jit", PREDICATES + "@jax.jit", 1)
    assert _value(body, "n > 1", source) == TRACED


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        # jax's own predicate: False for a tracer under jit, so where it held n is none.
        ("if not jax.core.is_concrete(n):\n    raise ValueError(n)\nreturn n > 1", STATIC),
        ("return core.is_concrete(n) and n > 1", STATIC),
        ("return 0 if not jax.core.is_concrete(n) else n > 1", STATIC),
        ("if x is not None and not core.is_concrete(n):\n    raise\nreturn n > 1", TRACED),
        ("if n is not None and not core.is_concrete(n):\n    raise\nreturn n > 1", STATIC),
        # Failed, or on another name: nothing proven.
        ("return jax.core.is_concrete(n) or n > 1", TRACED),
        ("if jax.core.is_concrete(n):\n    raise ValueError(n)\nreturn n > 1", TRACED),
        ("return jax.core.is_concrete(x) and n > 1", TRACED),
    ],
)
def test_jax_is_concrete_narrows_like_a_type_test(body, kind):
    assert _value(body, "n > 1") == kind


@pytest.mark.jax
@pytest.mark.filterwarnings("ignore:jax.core.is_concrete is deprecated")
def test_is_concrete_is_false_for_the_tracers_the_model_reports():
    jax = pytest.importorskip("jax")
    seen: list[bool] = []

    def probe(x):
        seen.append(jax.core.is_concrete(x))
        return x

    ones = jax.numpy.ones
    jax.jit(probe)(ones(2))
    jax.vmap(probe)(ones((2, 2)))
    jax.lax.scan(lambda c, x: (probe(c), x), ones(()), ones(2))
    jax.lax.map(probe, ones(2))
    assert seen == [False] * 4
    assert jax.core.is_concrete(ones(2))


def test_a_shadowed_type_name_does_not_narrow():
    source = HEADER.replace("import jax\n", "import jax\nint = jax.Array\n", 1)
    source += "    if isinstance(n, int) and n > 1:\n        return x\n    return -x\n"
    assert found(source, {"JIT101"}) == {(8, "JIT101")}
    assert found(source.replace("int = jax.Array\n", ""), {"JIT101"}) == set()


def test_continue_and_break_carry_their_values_to_the_loop_head_and_exit():
    # After the `if`, only the path that did not `continue` goes on: y is static there.
    # But the traced y reaches the next iteration and the code after the loop.
    body = """
    y = 0
    for i in range(3):
        z = y
        if i > 1:
            y = x.sum()
            continue
        w = y
    return y
    """
    assert _value(body, "y") == UNKNOWN  # the last `y`: the return
    body = """
    y = 0
    for i in range(3):
        if i > 1:
            y = x.sum()
            break
        w = y
    else:
        v = y
    return y
    """
    assert _value(body, "y") == UNKNOWN
    assert _value(body.replace("    return y", ""), "y") == STATIC  # in the else: no break


def test_pipeline_filter_indices_is_clean():
    # jax/_src/pallas/mosaic/pipeline.py: `g` is a grid size, a Python int or an array.
    source = """
    import jax
    from jax import lax

    def _filter_indices(indices, grid):
        return tuple(
            0 if isinstance(g, int) and g == 1 else i
            for i, g in zip(indices, grid, strict=True)
        )

    def loop_body(step, carry):
        indices, grid = carry
        return _filter_indices(indices, grid), grid

    lax.fori_loop(0, 4, loop_body, ((0, 0), (2, 3)))
    """
    assert found(source, {"JIT101", "JIT102", "JIT103"}) == set()
    assert found(source.replace("isinstance(g, int) and ", ""), {"JIT101"}) != set()


@pytest.mark.jax
def test_no_tracer_is_an_instance_of_the_narrowing_types():
    jax = pytest.importorskip("jax")
    import importlib

    from jitlint.model.jax.narrowing import NOT_TRACER_TYPES, TRACER_TYPES

    def load(qualname: str) -> type:
        module, _, name = qualname.rpartition(".")
        return getattr(importlib.import_module(module), name)

    seen: dict[str, bool] = {}

    def probe(x):
        for qualname in NOT_TRACER_TYPES | TRACER_TYPES:
            seen[qualname] = isinstance(x, load(qualname))
        return x

    for transform in (jax.jit, jax.vmap, jax.grad):
        seen.clear()
        transform(probe)(jax.numpy.ones(()) if transform is jax.grad else jax.numpy.ones(2))
        assert {q for q, hit in seen.items() if hit} == TRACER_TYPES, transform


@pytest.mark.jax
def test_no_array_has_the_attributes_a_dict_is_told_apart_by():
    jax = pytest.importorskip("jax")
    from jitlint.model.jax.narrowing import ARRAY_ATTRIBUTES
    from jitlint.model.library.jax_facts import array_attributes

    names = ("items", "values", "keys", "get")
    seen: list[bool] = []

    def probe(x):
        seen.extend(hasattr(x, n) for n in names)
        return x

    probe(jax.numpy.ones(2))
    jax.jit(probe)(jax.numpy.ones(2))
    jax.vmap(probe)(jax.numpy.ones((2, 2)))
    assert seen and not any(seen)
    assert not set(names) & array_attributes()
    assert array_attributes() >= ARRAY_ATTRIBUTES


@pytest.mark.jax
def test_every_tracer_has_the_array_attributes():
    jax = pytest.importorskip("jax")
    from jitlint.model.jax.narrowing import ARRAY_ATTRIBUTES

    seen: list[tuple[str, bool]] = []

    def probe(x):
        seen.append((type(x).__name__, all(hasattr(x, a) for a in ARRAY_ATTRIBUTES)))
        return x

    ones = jax.numpy.ones
    jax.jit(probe)(ones(2))
    jax.vmap(probe)(ones((2, 2)))
    jax.grad(lambda x: probe(x).sum())(ones(2))
    jax.lax.scan(lambda c, x: (probe(c), x), 0.0, ones(2))
    assert len(seen) == 4 and all(has for _, has in seen), seen


@pytest.mark.jax
def test_pipeline_filter_indices_runs_under_jax():
    # The guarded `g == 1` runs only on Python ints; traced grid sizes take the other branch.
    jax = pytest.importorskip("jax")

    def filter_indices(indices, grid):
        return tuple(
            0 if isinstance(g, int) and g == 1 else i for i, g in zip(indices, grid, strict=True)
        )

    out = jax.jit(lambda i, g: filter_indices(i, (1, g)))((5, 6), jax.numpy.int32(1))
    assert [int(v) for v in out] == [0, 6]


IFEXP_ON_A_STATIC_FLAG = """
import jax
import jax.numpy as jnp


def scaled(x, normalize=False):
    scale = jnp.std(x) if normalize else 1.0
    if scale > 0:  # error: JIT101
        return x / scale
    return x


@jax.jit
def normalized(x):
    return scaled(x, normalize=True)
"""


@pytest.mark.parametrize(
    "source",
    [
        IFEXP_ON_A_STATIC_FLAG,
        # The jitted caller never passes the flag: the default's branch is the only one.
        IFEXP_ON_A_STATIC_FLAG.replace("normalize=True", "").replace("  # error: JIT101", ""),
        IFEXP_ON_A_STATIC_FLAG.replace("normalize=True", "normalize=False").replace(
            "  # error: JIT101", ""
        ),
    ],
)
def test_a_conditional_expression_on_a_known_flag_takes_one_branch(source):
    """`a if flag else b` where the flag's value is known on the path: only that branch's
    value, as for an `if` statement (a value traced on one side only is reported only on the
    path that takes that side)."""
    assert found(source, {"JIT101"}) == expected(source)


EQUALITY = """\
import jax
import equinox.internal as eqxi
sentinel = object()
documented = eqxi.doc_repr(object(), "documented")
SCALE = 1.0
def helper(v):
    return v
@jax.jit
def f(x):
    if x == sentinel:
        return x
    if x != documented:
        return x
    if x == helper:
        return x
    if x == SCALE:  # error: JIT101
        return x
    if x == eqxi.doc_repr(SCALE, "scale"):  # error: JIT101
        return x
    return -x
"""


def test_a_tracer_compared_with_a_bare_object_is_a_python_bool():
    # A JAX array's `==` defers to a value it does not recognise (a sentinel `object()`, a
    # function), and Python compares identities [observed on jax 0.10.2 inside jit].
    assert found(EQUALITY, {"JIT101"}) == expected(EQUALITY)


# Branches a traced call cannot enter (model/jax/tracing.py `leaf_truth`, expressions.py's
# short-circuit): each source marks what is still reported.
REACH_CASES = [
    # The flag, spelled through `config`, a name bound to it, or `read` of its name.
    """
import jax
import jax.numpy as jnp
from jax import config
def body(x):
    flag = jax.config.jax_disable_jit
    if config.jax_disable_jit:
        assert jnp.all(x > 0)
    if flag:
        assert jnp.all(x > 1)
    if jax.config.read("jax_disable_jit"):
        assert jnp.all(x > 2)
    if x.ndim > 0 and jax.config.jax_disable_jit:
        assert jnp.all(x > 3)
    if jax.config.jax_enable_x64:
        assert jnp.all(x > 4)  # error: JIT101
    return x
run = jax.jit(lambda xs: jax.lax.scan(lambda c, x: (c, body(x)), 0, xs))
""",
    # Under vmap alone jit's switch does not matter: the body is traced with batch tracers
    # either way [observed on jax 0.10.2: TracerBoolConversionError under jax.disable_jit()].
    """
import jax
import jax.numpy as jnp
def body(x):
    if jax.config.jax_disable_jit:
        assert jnp.all(x > 0)  # error: JIT101
    return x
run = jax.vmap(body)
""",
    # `or` stops at a true left operand as `and` at a false one.
    """
import jax
import jax.numpy as jnp
def solar(x, grid=None, strict=True):
    if grid is not None or jnp.any(x <= 0.0):
        x = x + 1
    if not strict or jnp.any(x > 9.0):  # error: JIT101
        x = -x
    if strict and jnp.any(x > 5.0):  # error: JIT101
        x = x * 2
    return x
f = jax.jit(lambda x: solar(x, grid="g"))
""",
    # A jit parameter whose default is False: wherever a test of it completes it holds the
    # default. Not a None default (a container passed for it is truthy and not traced), nor
    # a number (`axis=(0, 1)` for `axis=0`), not a static one (a call may pass True), not
    # after the body rebinds it.
    """
from functools import partial
import jax
import jax.numpy as jnp
@jax.jit
def plain(x, debug=False, scale=0):
    if debug:
        assert jnp.all(x > 0)
    if scale and jnp.any(x > scale):  # error: JIT101
        return x
    return x
@jax.jit
def optional(x, aux=None):
    if aux:
        assert jnp.all(x > 0)  # error: JIT101
    return x
@partial(jax.jit, static_argnames="debug")
def static(x, debug=False):
    if debug:
        assert jnp.all(x > 0)  # error: JIT101
    return x
@jax.jit
def rebound(x, debug=False):
    debug = not debug
    if debug:
        assert jnp.all(x > 0)  # error: JIT101
    return x
""",
    # A flag built from an `is None` test of a parameter the call leaves at its None default
    # is a known False, and so is the `if` on it; where the caller passes a hook, both run.
    """
from functools import partial
import jax
import jax.numpy as jnp
def sample(x, steps, hook=None):
    hooked = hook is not None and hook["on"]
    for _ in range(steps):
        x = jnp.maximum(x, 0.0)
        if hooked:
            if bool(x > 0):
                x = x + 1
    return x
def sample_hooked(x, hook=None):
    hooked = hook is not None
    x = jnp.maximum(x, 0.0)
    if hooked:
        if bool(x > 0):  # error: JIT101
            x = x + 1
    return x
plain = jax.jit(partial(sample, steps=3))
with_hook = jax.jit(partial(sample_hooked, hook={"on": True}))
def main(x):
    return plain(x) + with_hook(x)
""",
]


@pytest.mark.parametrize("source", REACH_CASES)
def test_a_branch_no_traced_call_enters_is_not_traced(source):
    assert found(source, {"JIT101"}) == expected(source)


@pytest.mark.jax
def test_jax_disable_jit_is_true_only_where_jit_is_off():
    # The fact narrowing.EAGER_ONLY_FLAGS states: False inside a jitted `lax.map` body, and
    # with jit off the same body runs eagerly on concrete arrays (the guarded assert works).
    jax = pytest.importorskip("jax")
    from jitlint.model.jax.narrowing import EAGER_ONLY_FLAGS

    assert {"jax.config.jax_disable_jit"} == EAGER_ONLY_FLAGS
    seen: list[tuple[bool, bool]] = []

    def body(x):
        flag = bool(jax.config.jax_disable_jit)
        if flag:
            assert not jax.numpy.any(jax.numpy.isnan(x))
        seen.append((flag, isinstance(x, jax.core.Tracer)))
        return x * 2

    run = jax.jit(lambda xs: jax.lax.map(body, xs))
    run(jax.numpy.ones((2, 3)))
    assert seen == [(False, True)]
    seen.clear()
    with jax.disable_jit():
        run(jax.numpy.ones((2, 3)))
    assert seen and all(flag and not traced for flag, traced in seen), seen
