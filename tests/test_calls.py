"""Call resolution in the tracing model (model/jax/calls.py): methods, constructors, class and
static methods, super(), partials, lambdas given to lax and tree_map, transformed functions
called with real arguments, factories. Each positive case fails under jax 0.10.2 at the marked
line; each negative one runs."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from helpers import expected, found

from jitlint.engine.linter import lint_text
from jitlint.model.context import FileContext
from jitlint.model.domain.values import Array, Dict, Object, Scalar, Seq

JAX_RULES = {f"JIT1{n:02d}" for n in range(1, 14)}

POSITIVE = {
    # A method called on `self` from a jitted method gets the traced argument.
    "self_method": """
        import functools
        import jax

        class Scaler:
            def check(self, x):
                if x.sum() > 0:  # error: JIT101
                    return x
                return -x

            @functools.partial(jax.jit, static_argnums=0)
            def run(self, x):
                return self.check(x * 2)
        """,
    # An instance made at module level, its method called from jitted code.
    "object_method": """
        import jax
        import jax.numpy as jnp

        class Norm:
            def __init__(self, eps):
                self.eps = eps

            def apply(self, x):
                total = jnp.sum(x)
                return x / total if total > self.eps else x  # error: JIT101

        norm = Norm(1e-6)

        @jax.jit
        def step(x):
            return norm.apply(x)
        """,
    # A constructor called from a jitted factory runs __init__ with the traced field.
    "constructor_from_jit": """
        import functools
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Config(eqx.Module):
            depth: int
            width: int

        class Memory(eqx.Module):
            buffer: jax.Array

            def __init__(self, depth, width):
                self.buffer = jnp.zeros((depth, width))  # error: JIT103

        class Model(eqx.Module):
            memory: Memory

            def __init__(self, config: Config, width):
                self.memory = Memory(config.depth, width)

        @functools.partial(jax.jit, static_argnames=["width"])
        def create(config: Config, width):
            return Model(config, width)
        """,
    # equinox runs __check_init__ after __init__, inside the jitted function.
    "check_init": """
        import equinox as eqx
        import jax

        class Potential(eqx.Module):
            sigma: jax.Array
            epsilon: jax.Array

            def __check_init__(self):
                if self.sigma < 0 or self.epsilon < 0:  # error: JIT101
                    raise ValueError("negative")

        @jax.jit
        def energy(sigma, epsilon, r):
            p = Potential(sigma, epsilon)
            return p.epsilon * (p.sigma / r) ** 12
        """,
    # A dataclass's __post_init__ runs after the generated __init__.
    "post_init": """
        import dataclasses
        import jax

        @dataclasses.dataclass
        class Window:
            start: object
            size: int

            def __post_init__(self):
                assert self.start >= 0  # error: JIT101

        @jax.jit
        def crop(x, start):
            w = Window(start, 4)
            return x[w.size:]
        """,
    # A classmethod constructor given to eqx.filter_jit: its arrays are traced.
    "classmethod_under_filter_jit": """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class CTF(eqx.Module):
            u: jax.Array
            v: jax.Array

            @classmethod
            def from_defocus(cls, u, v):
                if u < v:  # error: JIT101
                    raise ValueError("u < v")
                return cls(jnp.asarray(u), jnp.asarray(v))

        make = eqx.filter_jit(CTF.from_defocus)
        ctf = make(jnp.float32(1.5), jnp.float32(1.1))
        """,
    # A staticmethod and super() reach the helper.
    "staticmethod_and_super": """
        import jax
        import jax.numpy as jnp

        class Base:
            def __call__(self, x):
                return self.validate(x)

            @staticmethod
            def validate(x):
                return not jnp.all(jnp.isfinite(x))  # error: JIT101

        class Child(Base):
            def __call__(self, x):
                return super().__call__(x)

        @jax.jit
        def run(x):
            return Child()(x)
        """,
    # The field of a NamedTuple argument is a leaf jax.jit traces.
    "namedtuple_field": """
        from typing import NamedTuple
        import jax
        import jax.numpy as jnp

        class Basis(NamedTuple):
            modes: int
            weights: jax.Array

        @jax.jit
        def expand(basis: Basis, x):
            return jnp.zeros(basis.modes) + x  # error: JIT103
        """,
    # A lambda given to tree_map gets the traced leaves.
    "tree_map_lambda": """
        import jax
        import numpy as np

        @jax.jit
        def clip(params):
            return jax.tree_util.tree_map(lambda p: np.clip(p, -1, 1), params)  # error: JIT104
        """,
    # A parameter with a default is traced when a call of the jitted function passes it.
    "default_passed_at_call": """
        import jax

        @jax.jit
        def softmax(logits, temperature=None):
            temperature = temperature or 1.0  # error: JIT101
            return jax.nn.softmax(logits / temperature)

        softmax(jax.numpy.ones(3), 0.5)
        """,
    # `f = jax.jit(f)`: the name is rebound, the call still reaches the body.
    "rebound_jit": """
        import jax
        import jax.numpy as jnp

        def power(a, steps=10):
            b = jnp.ones(a.shape[0])
            for _ in range(steps):  # error: JIT102
                b = a @ b
            return b

        power = jax.jit(power)
        power(jnp.eye(2), steps=20)
        """,
    # A factory returns a jitted closure; calling it passes a traced argument.
    "factory_closure": """
        import jax

        def make_step(scale):
            def step(x, n):
                if n > 3:  # error: JIT101
                    return x * scale
                return x
            return jax.jit(step)

        step = make_step(2.0)
        step(jax.numpy.ones(3), 5)
        """,
    # A jitted bound method stored in __init__, called through __call__.
    "jitted_bound_method": """
        import jax

        class Momentum:
            def __init__(self, momentum=0.9):
                self.momentum = momentum
                self._update = jax.jit(self.update)

            def update(self, grads, momentum=None):
                momentum = momentum or self.momentum  # error: JIT101
                return grads * momentum

            def __call__(self, grads, momentum=None):
                return self._update(grads, momentum)

        opt = Momentum()
        opt(jax.numpy.ones(3), momentum=0.5)
        """,
    # A closure over a Python list, indexed by the fori_loop index.
    "fori_loop_closure": """
        import jax
        import jax.numpy as jnp

        def forward(layers, x):
            return jax.lax.fori_loop(0, len(layers), lambda i, h: layers[i] @ h, x)  # error: JIT102

        forward([jnp.eye(2), jnp.eye(2)], jnp.ones(2))
        """,
    # A comprehension builds a Python list whatever its items, even in a function that
    # nothing traces: the loop body indexing it with its counter fails.
    "fori_loop_closure_over_comprehension": """
        import jax

        def forward(x, w):
            layers = [w * k for k in range(3)]

            def body(i, h):
                return layers[i] * h  # error: JIT102

            return jax.lax.fori_loop(0, 3, body, x)
        """,
    # The auxiliary output of value_and_grad/grad with has_aux: what the function returned,
    # its arrays traced (a Python int in it stays one).
    "has_aux": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def step(params, x):
            def loss_fn(p):
                loss = jnp.sum((p * x) ** 2)
                return loss, {"loss": loss, "n": 3}

            (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
            g, extra = jax.grad(loss_fn, has_aux=True)(params)
            total = float(loss)  # error: JIT102
            parts = [float(aux["loss"]), float(extra["loss"])]  # error: JIT102
            return total, parts, int(aux["n"]), int(extra["n"]), grads, g
        """,
    # `while not done` tests the tracer the body assigned.
    "while_flag": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def solve(x, tol):
            done = False
            while not done:  # error: JIT101
                new = jnp.cos(x)
                done = jnp.abs(new - x) < tol
                x = new
            return x
        """,
}

NEGATIVE = {
    # A JAX array made in Python and stored on an object is a concrete constant in traced
    # code: NumPy may read it.
    "numpy_reads_concrete_field": """
        import functools
        import jax
        import jax.numpy as jnp
        import numpy as np

        class Normalizer:
            def __init__(self):
                self.mean = jnp.zeros(3)

            @functools.partial(jax.jit, static_argnums=0)
            def apply(self, x):
                return x - np.asarray(self.mean)

        Normalizer().apply(jnp.ones(3))
        """,
    # Static arguments stay static through methods and constructors.
    "static_through_methods": """
        import functools
        import jax
        import jax.numpy as jnp

        class Block:
            def __init__(self, width):
                self.width = width

            def zeros(self, depth):
                return jnp.zeros((depth, self.width))

        @functools.partial(jax.jit, static_argnames=["depth"])
        def build(x, depth):
            return Block(3).zeros(depth) + x
        """,
    # Static fields of an equinox module stay Python ints when the instance is passed in.
    "eqx_static_fields_at_call": """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Ring(eqx.Module):
            capacity: int = eqx.field(static=True)
            scale: jax.Array

            def empty(self):
                return jnp.zeros(self.capacity)

        @jax.jit
        def fill(ring, x):
            for i in range(ring.capacity):
                x = x + ring.scale * i
            return ring.empty() + x

        fill(Ring(3, jnp.float32(0.5)), jnp.ones(3))
        """,
    # A pytree class registered with flattening of its own: its fields are not what the
    # declarations say (`shape` is aux data here).
    "registered_namedtuple": """
        from typing import NamedTuple, Sequence
        import jax
        from jax.tree_util import register_pytree_node

        class COO(NamedTuple):
            rows: jax.Array
            shape: Sequence[int]

        register_pytree_node(COO, lambda m: ((m.rows,), tuple(m.shape)), lambda s, c: COO(*c, s))

        @jax.jit
        def rows(mat: COO):
            n = mat.shape[0]
            if n > 1:
                return mat.rows[:n]
            return mat.rows
        """,
    # A class with a base the module does not know: attributes it does not define are unknown.
    "unknown_base": """
        import jax
        from somewhere import Base

        class Model(Base):
            def __call__(self, x):
                if self.training:
                    return x * 2
                return x

        @jax.jit
        def run(x):
            return Model()(x)
        """,
    # The result of a library function the model does not know is unknown.
    "unknown_library_result": """
        import jax
        import optax

        @jax.jit
        def step(grads):
            norm = optax.global_norm(grads)
            n = optax.tree_utils.tree_size(grads)
            for _ in range(n):
                grads = grads
            return grads, norm
        """,
    # Recursion is cut: the result is unknown, nothing is reported.
    "recursion": """
        import jax

        def depth(tree, n):
            if isinstance(tree, tuple):
                return max(depth(t, n + 1) for t in tree)
            return n

        @jax.jit
        def f(x):
            for _ in range(depth((x, (x, x)), 0)):
                x = x * 2
            return x
        """,
    # A nonlocal written by a function tree_map calls while its owner is traced.
    "nonlocal_in_traced_owner": """
        import jax
        import jax.tree_util as jtu

        def contains(tree, node):
            found = False

            def visit(x):
                nonlocal found
                if x is node:
                    found = True
                return x

            jtu.tree_map(visit, tree)
            return found

        @jax.jit
        def f(x):
            return x if contains(x, None) else -x
        """,
}


@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_call_resolution_finds(name):
    source = textwrap.dedent(POSITIVE[name])
    assert found(source, JAX_RULES) == expected(source)


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_call_resolution_stays_quiet(name):
    assert found(NEGATIVE[name], JAX_RULES) == set()


def _message(source: str, code: str) -> str:
    result = lint_text(textwrap.dedent(source), "case.py", {code})
    (diagnostic,) = [d for d in result.diagnostics if d.code == code]
    return diagnostic.message


def test_messages_follow_the_chain_through_constructors():
    message = _message(POSITIVE["constructor_from_jit"], "JIT103")
    assert "`Model.__init__` passes a traced value to `Memory(...)` at line 21" in message
    assert "`depth` is a non-static field of `Config`" in message
    assert "`jax.jit` traces every leaf of `config`" in message


def test_messages_name_the_call_that_passes_a_defaulted_parameter():
    message = _message(POSITIVE["default_passed_at_call"], "JIT101")
    assert "non-static argument of `softmax`, which `jax.jit` compiles at line 4" in message
    assert "the call at line 9 passes it" in message


def test_messages_name_the_lax_loop_that_passes_the_index():
    message = _message(POSITIVE["fori_loop_closure"], "JIT102")
    assert "`i` is traced because `jax.lax.fori_loop` passes it a tracer at line 6" in message


# ---- values -------------------------------------------------------------------------------
def _values(source: str, function: str) -> dict[str, object]:
    """The final environment of `function`'s (first) analysis."""
    source = textwrap.dedent(source)
    ctx = FileContext(cst.parse_module(source), "case.py", source)
    tracing = ctx.tracing
    tracing.solve()
    for trace in tracing._traces.values():
        if trace.name == function and trace.contexts:
            return dict(trace.contexts[0].analyzer.env)
    raise AssertionError(f"{function} not analysed")


def test_structured_values_keep_their_parts():
    env = _values(
        """
        import jax
        import jax.numpy as jnp
        from jax import lax

        @jax.jit
        def f(x: jax.Array, params):
            shape = x.shape
            rows = x.shape[0]
            pair = (jnp.sin(x), 3)
            a, b = pair
            d = {"w": x, "n": 2}
            n = d["n"]
            m = lax.psum(1, "i")
            sizes = [len(p) for p in params]
            total = sum(p.size for p in params)
            return a, b, n, m, sizes, total, rows, shape
        """,
        "f",
    )
    assert isinstance(env["shape"], Seq) and env["shape"].kind == 0  # static
    assert isinstance(env["rows"], Scalar) and env["rows"].pytype == "int"
    assert isinstance(env["a"], Array) and env["a"].traced
    assert isinstance(env["b"], Scalar) and env["b"].const == 3
    assert isinstance(env["d"], Dict) and env["n"].const == 2  # type: ignore[attr-defined]
    assert isinstance(env["m"], Scalar) and env["m"].pytype == "int"
    assert isinstance(env["sizes"], Seq) and env["sizes"].elem.pytype == "int"  # type: ignore[attr-defined]
    assert isinstance(env["total"], Scalar) and env["total"].pytype == "int"


def test_constructed_objects_keep_their_fields():
    env = _values(
        """
        import jax

        class Box:
            def __init__(self, size, data):
                self.size = size
                self.data = data * 2

        @jax.jit
        def f(x):
            box = Box(4, x)
            return box
        """,
        "f",
    )
    box = env["box"]
    assert isinstance(box, Object) and box.cls.name == "Box"
    assert box.fields["size"].const == 4  # type: ignore[attr-defined]
    assert box.fields["data"].traced


def test_budget_bounds_the_contexts_of_one_function():
    calls = "\n".join(f"    x = helper(x, {i})" for i in range(20))
    source = f"""
import jax

def helper(x, k):
    return x + k

@jax.jit
def f(x):
{calls}
    return x
"""
    ctx = FileContext(cst.parse_module(source), "case.py", source)
    ctx.tracing.solve()
    traces = [t for t in ctx.tracing._traces.values() if t.name == "helper"]
    from jitlint.model.jax.calls import MAX_PER_FUNCTION

    assert len(traces[0].contexts) == MAX_PER_FUNCTION


# ---- one-file front ends ------------------------------------------------------------------
ONE_FILE = """\
import equinox as eqx
import jax
import jax.numpy as jnp


class Config(eqx.Module):
    depth: int


class Memory(eqx.Module):
    buffer: jax.Array

    def __init__(self, depth):
        self.buffer = jnp.zeros((depth, 4))


@jax.jit
def create(config: Config):
    return Memory(config.depth)
"""


def test_stdin_follows_what_the_file_defines():
    from helpers import run_cli

    status, out, _ = run_cli("--no-cache", "--format", "concise", "-", stdin=ONE_FILE.encode())
    assert status == 1
    assert ":14:" in out and "JIT103" in out, out


def test_flake8_follows_what_the_file_defines(tmp_path):
    pytest.importorskip("flake8")
    import subprocess
    import sys

    path = tmp_path / "memory.py"
    path.write_text(ONE_FILE)
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=JIT", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ":14:" in proc.stdout and "JIT103" in proc.stdout, proc.stdout + proc.stderr
