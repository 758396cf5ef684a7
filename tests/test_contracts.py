"""Traced by contract (issue #29): bodies a framework's users call under jit, with no call
site in the run. Module `__call__`s of equinox, flax (linen and nnx) and haiku are traced with
the parameters their annotations call JAX arrays, or that every read uses as an array;
everything else stays unknown. A parameter
of an `eqx.filter_jit` function annotated as an array is traced, one annotated as a Python
scalar static, exactly as at run time."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import textwrap

import pytest
from helpers import expected, found, run_cli

import jitlint.engine.runner as runner
from jitlint.engine.linter import lint_text

JAX_RULES = {f"JIT1{n:02d}" for n in range(1, 14)}

POSITIVE = {
    "equinox_call_annotated_array": """
        import equinox as eqx
        import jax

        class Gate(eqx.Module):
            weight: jax.Array

            def __call__(self, x: jax.Array):
                if x.mean() > 0:  # error: JIT101
                    return x
                return -x
    """,
    "equinox_filter_jit_method": """
        import equinox as eqx
        import jax

        class Gate(eqx.Module):
            weight: jax.Array

            @eqx.filter_jit
            def __call__(self, x: jax.Array):
                if x.mean() > 0:  # error: JIT101
                    return x
                return -x
    """,
    # A defaulted parameter that only array methods read: the default (-1) has no `.item()`,
    # so callers pass an array, traced under their jit (aesara-devs/aesara#1158's module).
    "flax_defaulted_task_id_read_as_array": """
        from functools import partial

        import flax.linen as nn
        import jax

        class Pool(nn.Module):
            size: int

            def __call__(self, x, task_id=-1):
                conv_idx = jax.device_get(task_id).item()  # error: JIT102
                return x * conv_idx
    """,
    # A body that tests for tracers is written to run under jit; where the value is not a
    # tracer, a JAX operation on it is still staged there (pyro-ppl/numpyro#771).
    "tracer_test_skips_only_the_tracer": """
        import jax
        import jax.numpy as jnp

        def not_jax_tracer(x):
            return not isinstance(x, jax.core.Tracer)

        class Distribution:
            def _validate_sample(self, value):
                mask = self.support(value)
                if not_jax_tracer(mask):
                    if not jnp.all(mask):  # error: JIT101
                        raise ValueError("out of support")
                return mask
    """,
    # A haiku module is built inside the transform, but what its own code always stores
    # (`self.blocks = [... for ...]`) is still a Python list there.
    "haiku_list_attribute_indexed_by_loop_counter": """
        import haiku as hk
        import jax

        class Encoder(hk.Module):
            def __init__(self, n: int):
                super().__init__()
                self.blocks = [hk.Linear(4) for _ in range(n)]

            def __call__(self, x: jax.Array) -> jax.Array:
                def body(i, h):
                    return self.blocks[i](h)  # error: JIT102

                return jax.lax.fori_loop(0, len(self.blocks), body, x)
    """,
    "jaxtyping_annotation_and_helper_method": """
        import equinox as eqx
        from jaxtyping import Array, Float

        class Scale(eqx.Module):
            def helper(self, y):
                return float(y.sum())  # error: JIT102

            def __call__(self, x: Float[Array, "batch dim"]):
                return self.helper(x)
    """,
    "linen_module_call": """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class Block(nn.Module):
            @nn.compact
            def __call__(self, x: jax.Array, training: bool = False):
                y = nn.Dense(4)(x)
                if jnp.any(x < 0):  # error: JIT101
                    y = -y
                return y
    """,
    # `__call__` reaches private helpers, through one another: each is traced through it.
    "equinox_helpers_reached_from_call": """
        import equinox as eqx
        import jax

        class Norm(eqx.Module):
            def _total(self, y):
                return float(y.sum())  # error: JIT102

            def _scaled(self, y):
                return self._total(y * 2)

            def __call__(self, x: jax.Array):
                return self._scaled(x)
    """,
    # Equinox users hand the module to `filter_jit`: its array fields are tracers there,
    # its static fields and Python-typed fields are not.
    "equinox_array_field_of_self": """
        import equinox as eqx
        import jax

        class Gate(eqx.Module):
            weight: jax.Array
            depth: int = eqx.field(static=True)

            def __call__(self, x):
                for _ in range(self.depth):
                    x = x + 1
                if self.weight.sum() > 0:  # error: JIT101
                    return x
                return -x
    """,
    "filter_jit_function_chex_array": """
        import chex
        import equinox as eqx

        @eqx.filter_jit
        def step(x: chex.Array, n: int):
            return x[: int(x.sum())]  # error: JIT102
    """,
    # Not annotated, but every read is one only an array admits: a traced array.
    "linen_parameter_used_only_by_array_functions": """
        import flax.linen as nn

        class Gate(nn.Module):
            @nn.compact
            def __call__(self, x):
                y = x.reshape(x.shape[0] * x.shape[1])
                if y.sum() > 0:  # error: JIT101
                    return y
                return -y
    """,
    "equinox_parameter_used_in_matmul_and_astype": """
        import equinox as eqx
        import jax.numpy as jnp

        class Gram(eqx.Module):
            def __call__(self, x, w):
                z = x.astype(jnp.float32) @ w
                if z.mean() > 0:  # error: JIT101
                    return z
                return -z
    """,
    # Every operand of `jnp.matmul`/`jnp.linalg.solve` is an array, as both of `@` are.
    "equinox_parameter_solved_against": """
        import equinox as eqx
        import jax.numpy as jnp

        class Solver(eqx.Module):
            def __call__(self, a, b):
                if jnp.linalg.solve(a, b).sum() > b.sum():  # error: JIT101
                    return a
                return jnp.matmul(a, b)
    """,
    "haiku_parameter_reduced_by_a_method": """
        import haiku as hk

        class Norm(hk.Module):
            def __call__(self, x, y):
                if x.mean() > y.T.max():  # error: JIT101
                    return 1.0
                return 0.0
    """,
    # A part a module builds (here a list of blocks) is traced through that module, with
    # what it passes: `h > 0` alone would not say `h` is an array.
    "nnx_part_traced_through_the_module_that_builds_it": """
        import flax.nnx as nnx
        import jax

        class Block(nnx.Module):
            def __call__(self, h):
                if h > 0:  # error: JIT101
                    return h
                return -h

        class Stack(nnx.Module):
            def __init__(self, depth: int):
                self.blocks = nnx.List([Block() for _ in range(depth)])

            def __call__(self, x: jax.Array):
                for block in self.blocks:
                    x = block(x)
                return x
    """,
}

# Constructors of an equinox module: traced only where the project asks
# (`assume-traced = ["module-constructors"]`), marked `# asked: CODE`; its public methods are
# traced by default (`# error: CODE`).
MODULE_CONSTRUCTORS = {
    # An equinox module is a pytree whose public methods its users may call inside
    # `eqx.filter_jit`, and which may be built there: `__init__` is traced too.
    "equinox_public_method_and_init": """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Rotate(eqx.Module):
            R: jax.Array

            def __init__(self, R: jax.Array):
                if jnp.any(jnp.isnan(R)):  # asked: JIT101
                    raise ValueError("nan")
                self.R = R

            def orientation(self):
                if jnp.linalg.det(self.R) > 0:  # error: JIT101
                    return self.R
                return -self.R
    """,
    # A constructor that takes something besides configuration and a key (here an
    # unannotated `table`) may be built inside the user's jit.
    "equinox_init_from_an_object": """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Sparse(eqx.Module):
            nnz: int

            def __init__(self, table, *, width: int, key):
                self.nnz = int(jnp.round(width * table.sum()))  # asked: JIT102
    """,
    # A module built at set-up from concrete arrays (log-neural-cdes's models): only the
    # setting makes its constructor traced, and then the conversion is reported. Its Python
    # driver looping over a jitted step (scarlet2's `Scene.fit`) takes no array: never traced.
    "equinox_setup_constructor_and_fit_driver": """
        import equinox as eqx
        import jax

        class Sparse(eqx.Module):
            w: jax.Array
            active: int = eqx.field(static=True)

            def __init__(self, w: jax.Array, threshold: float):
                self.w = w
                self.active = int((w > threshold).sum())  # asked: JIT102

            def fit(self, data, steps: int = 100):
                model = self
                for _ in range(steps):
                    model, loss = step(model, data)
                    print(f"{float(loss):.3f}")
                return model

            def __call__(self, x: jax.Array):
                return x[: self.active] @ self.w[: self.active]

        @eqx.filter_jit
        def step(model, data):
            return model, (model(data) ** 2).sum()
    """,
}

NEGATIVE = {
    # A public method annotated to return a Python bool is a check for Python code: no jit
    # can return a bool, so the contract does not trace it (a research arm model's
    # reachability test).
    "python_bool_check_method": """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Arm(eqx.Module):
            lengths: jax.Array

            def reachable(self, target: jax.Array) -> bool:
                if jnp.any(jnp.abs(target) > self.lengths.sum()):
                    return False
                return True

            def __call__(self, x: jax.Array) -> jax.Array:
                return x * self.lengths
    """,
    # Not annotated: nothing says `x` is an array, and unknown is never an error.
    "unannotated_parameter": """
        import equinox as eqx

        class Gate(eqx.Module):
            def __call__(self, x):
                if x.mean() > 0:
                    return x
                return -x
    """,
    # Flags, shapes and static fields are Python values under jit.
    "flags_shapes_and_static_fields": """
        import equinox as eqx
        import jax

        class Net(eqx.Module):
            depth: int = eqx.field(static=True)

            def __call__(self, x: jax.Array, training: bool = False):
                if training:
                    x = x * 2
                if x.shape[0] > 2 and x.ndim == 2:
                    x = x[:2]
                for _ in range(self.depth):
                    x = x + 1
                return x
    """,
    # `filter_jit` keeps Python scalars static: `n` is a Python int there.
    "filter_jit_scalar_parameter": """
        import equinox as eqx
        import jax

        @eqx.filter_jit
        def step(x: jax.Array, n: int):
            if n > 0:
                return x * n
            return x
    """,
    # `ArrayLike` admits Python numbers, which a closure keeps concrete: not assumed traced.
    "arraylike_and_defaulted_arrays": """
        import equinox as eqx
        import jax
        from jax.typing import ArrayLike

        class Gate(eqx.Module):
            def __call__(self, x: ArrayLike, mask: jax.Array | None = None):
                if x > 0:
                    return x
                if mask is not None:
                    return mask
                return x
    """,
    # Read once as a Python value: not "used only as an array", so unknown.
    "compared_with_none": """
        import equinox as eqx
        import jax.numpy as jnp

        class Gate(eqx.Module):
            def __call__(self, x):
                if x is None:
                    return 0.0
                if x.sum() > 0:
                    return x
                return -x
    """,
    "flags_counts_configs_and_callables": """
        import flax.linen as nn
        import jax.numpy as jnp

        class Net(nn.Module):
            @nn.compact
            def __call__(self, x, training, n: int, config, activation):
                if training and config.dropout > 0:
                    x = x * 0.5
                for _ in range(n):
                    x = activation(x)
                if n > 1:
                    return x
                return jnp.tanh(x)
    """,
    # An argument of some other function, a subscript, a parameter rebound in the body.
    "other_uses_stay_unknown": """
        import equinox as eqx
        import jax.numpy as jnp

        def helper(v):
            return v

        class Gate(eqx.Module):
            def __call__(self, x, y, z, w):
                def total():
                    return w.sum()

                if total() > 0:
                    return 0.0
                if helper(x).sum() > 0 or x.sum() > 0:
                    return 1.0
                if y[0].sum() > 0 or y.sum() > 0:
                    return 2.0
                if z.sum() > 0:
                    return 3.0
                z = jnp.tanh(z)
                return z
    """,
    # The later operands of other array functions may be Python numbers (`jnp.clip(x, lo,
    # hi)`), and a defaulted operand of `jnp.matmul` may be what callers rely on.
    "later_operands_of_other_functions": """
        import equinox as eqx
        import jax.numpy as jnp

        class Clip(eqx.Module):
            def __call__(self, lo, w=1.0):
                if lo.sum() > 0 or w.sum() > 0:
                    return jnp.clip(jnp.zeros(3), lo, 1.0)
                return jnp.matmul(jnp.ones((3, 3)), w)
    """,
    # Defaulted Python values read as operands (a Python number works there too), a flag, a
    # count, a host copy read as a Python value: their defaults may be what callers rely on.
    "defaulted_scalars_read_as_operands": """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class Net(nn.Module):
            @nn.compact
            def __call__(self, x, w=1.0, deterministic=False, n=2, index=0, offset=None):
                if (x @ w).sum() > 0:
                    x = x * 2
                y = jnp.where(deterministic, x, x * 0.5)
                if float(jax.device_get(index)) > 0:
                    y = y + 1
                if offset is not None:
                    y = y + offset
                return y.reshape(n, -1)
    """,
    # The same check with NumPy runs on the host value: nothing is staged.
    "tracer_test_with_a_host_check": """
        import jax
        import numpy as np
        from jax.core import Tracer

        class Distribution:
            def _validate_sample(self, value, strict=False):
                mask = self.support(value)
                if not isinstance(mask, Tracer):
                    if not np.all(mask) and strict:
                        raise ValueError("out of support")
                for _ in range(len(value)):
                    pass
                return mask
    """,
    # A plain class is not a framework module: no contract.
    "plain_class_call": """
        import jax

        class Gate:
            def __call__(self, x: jax.Array):
                if x.mean() > 0:
                    return x
                return -x
    """,
    # A model built from Python configuration and a key is built once, eagerly, then handed
    # to the jitted step: its constructor's NumPy-style arithmetic on constants is not traced.
    "equinox_init_from_configuration": """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Sparse(eqx.Module):
            nnz: int

            def __init__(self, *, width: int, sparsity: float = 1.0, scale=2.0, key):
                self.nnz = int(jnp.round(width * width * sparsity * scale))
                if self.nnz == 0:
                    raise ValueError("sparsity too low")
    """,
    # A flax module's other methods, and an equinox module's private ones, run in Python
    # (set-up, logging) as far as the contract knows.
    "other_methods_are_not_contracts": """
        import equinox as eqx
        import flax.linen as nn
        import jax

        class Net(nn.Module):
            def describe(self, x: jax.Array) -> str:
                return "positive" if float(x.sum()) > 0 else "negative"

        class Gate(eqx.Module):
            def _describe(self, x: jax.Array) -> str:
                return "positive" if float(x.sum()) > 0 else "negative"
    """,
    # A part (a vision tower) that its model calls only when images are given: the
    # jitted forward gives none, and the entry point that does runs eagerly (its shapes
    # depend on the data). The contract does not trace the part on its own.
    "nnx_part_its_module_never_calls_under_jit": """
        import flax.nnx as nnx
        import jax
        import jax.numpy as jnp

        class Vision(nnx.Module):
            def __call__(self, pixels: jax.Array, grid: jax.Array):
                rows = int(grid[0, 1])
                return jnp.zeros((rows, 3)) + pixels.sum()

        class Model(nnx.Module):
            def __init__(self):
                self.visual = Vision()

            def __call__(self, tokens: jax.Array, pixels=None, grid=None):
                if pixels is not None and grid is not None:
                    tokens = tokens + self.visual(pixels, grid).sum()
                return tokens

        @jax.jit
        def forward(model: Model, tokens: jax.Array):
            return model(tokens)

        def forward_vision(model, tokens, pixels, grid):
            return model(tokens, pixels, grid)
    """,
}


@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_contract_bodies_are_traced(name):
    source = textwrap.dedent(POSITIVE[name])
    assert found(source, JAX_RULES) == expected(source)


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_contract_negatives_stay_quiet(name):
    assert found(NEGATIVE[name], JAX_RULES) == set()


@pytest.mark.parametrize("name", sorted(MODULE_CONSTRUCTORS))
def test_module_constructors_are_traced_only_when_asked(name):
    source = textwrap.dedent(MODULE_CONSTRUCTORS[name])
    assert found(source, JAX_RULES) == expected(source)
    asked = lint_text(source, "case.py", JAX_RULES, {"assume-traced": ["module-constructors"]})
    assert not asked.errors, asked.errors
    marked_asked = expected(source.replace("# asked:", "# error:"))
    assert marked_asked > expected(source)
    assert {(d.line, d.code) for d in asked.diagnostics} == marked_asked


def test_a_method_traced_by_the_setting_says_so():
    source = textwrap.dedent(MODULE_CONSTRUCTORS["equinox_public_method_and_init"])
    asked = lint_text(source, "case.py", JAX_RULES, {"assume-traced": ["module-constructors"]})
    messages = {d.line: d.message for d in asked.diagnostics}
    setting = (
        "(the assume-traced setting `module-constructors` assumes equinox modules are built "
        "under jit)"
    )
    assert f"traced when `Rotate` is called under jit {setting}" in messages[10]
    # A public method is the contract's own: its message names equinox, not the setting.
    assert "(equinox modules are meant to be)" in messages[15]
    assert {d.to_json()["traced_by"] for d in asked.diagnostics} == {"contract"}


def test_a_jitted_class_traces_its_constructor():
    """`jax.jit(Spline)(x, y)` (interpax's report): a real call site that runs `__init__`
    under the trace, with the arguments as tracers; under `filter_jit` a Python int stays
    static. With a static spec (which counts after `self`) the application stays unknown."""
    source = textwrap.dedent(
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Spline(eqx.Module):
            x: jax.Array
            n: int

            def __init__(self, x, n, check=True):
                if check and not jnp.all(jnp.diff(x) > 0):
                    raise ValueError("x must increase")
                if n > 2:
                    x = x[:n]
                self.x, self.n = x, n

        knots = jnp.arange(4.0)
        spline = eqx.filter_jit(Spline)(knots, 3)
        """
    )
    diagnostics = lint_text(source, "spline.py", JAX_RULES).diagnostics
    assert [(d.line, d.code) for d in diagnostics] == [(11, "JIT101")]
    assert diagnostics[0].traced_by is None
    assert "(`Spline.__init__`, which `equinox.filter_jit` compiles at line 18)" in (
        diagnostics[0].message
    )
    jitted = source.replace("eqx.filter_jit(Spline)(knots, 3)", "jax.jit(Spline)(knots, 3)")
    found_jit = {(d.line, d.code) for d in lint_text(jitted, "spline.py", JAX_RULES).diagnostics}
    assert found_jit == {(11, "JIT101"), (13, "JIT101"), (14, "JIT103")}
    static = source.replace(
        "eqx.filter_jit(Spline)(knots, 3)", "jax.jit(Spline, static_argnums=(1,))(knots, 3)"
    )
    assert lint_text(static, "spline.py", JAX_RULES).diagnostics == []


def test_a_traceback_frame_still_traces_a_constructor():
    """`explain-error`'s entry hint (`frame:PATH:LINE`) traces the method a traceback shows
    failing under jit, whatever the contract leaves out (a constructor)."""
    source = textwrap.dedent(MODULE_CONSTRUCTORS["equinox_public_method_and_init"])
    hint = {"assume-traced": ["frame:case.py:10"]}
    diagnostics = lint_text(source, "case.py", JAX_RULES, hint).diagnostics
    assert [(d.line, d.code) for d in diagnostics] == [(10, "JIT101"), (15, "JIT101")]
    assert "the traceback shows it running under jit" in diagnostics[0].message


def test_a_real_jitted_caller_still_traces_a_public_method():
    """Only the contract's guess shrinks: a `filter_jit` step of the run that calls
    `model.loss(...)` traces `loss` through that call."""
    source = textwrap.dedent(
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Model(eqx.Module):
            w: jax.Array

            def loss(self, x):
                if (x * self.w).sum() > 0:
                    return x.sum()
                return -x.sum()

        @eqx.filter_jit
        def step(model, data):
            return model.loss(data)

        step(Model(jnp.ones(3)), jnp.ones(3))
        """
    )
    diagnostics = lint_text(source, "model.py", JAX_RULES).diagnostics
    assert [(d.line, d.code) for d in diagnostics] == [(10, "JIT101")]
    assert diagnostics[0].traced_by is None
    assert "`step`" in diagnostics[0].message


def test_the_message_states_the_contract_and_json_says_so():
    source = textwrap.dedent(POSITIVE["equinox_call_annotated_array"])
    (diagnostic,) = lint_text(source, "gate.py", JAX_RULES).diagnostics
    assert "traced when `Gate` is called under jit (equinox modules are meant to be)" in (
        diagnostic.message
    )
    assert diagnostic.to_json()["traced_by"] == "contract"


def test_a_real_call_site_is_not_a_contract():
    """A jitted caller in the run traces `__call__` for real: its message names that call."""
    source = textwrap.dedent(
        """
        import equinox as eqx
        import jax

        class Gate(eqx.Module):
            def __call__(self, x):
                if x.mean() > 0:
                    return x
                return -x

        @jax.jit
        def step(model, x):
            return model(x)

        step(Gate(), jax.numpy.ones(3))
        """
    )
    diagnostics = lint_text(source, "gate.py", JAX_RULES).diagnostics
    assert [(d.line, d.code) for d in diagnostics] == [(7, "JIT101")]
    assert diagnostics[0].traced_by is None
    assert "contract" not in diagnostics[0].message


def test_one_file_runs_get_contract_findings(tmp_path):
    """flake8, pre-commit and stdin lint one file alone: the contract needs no caller."""
    source = textwrap.dedent(POSITIVE["equinox_call_annotated_array"])
    completed = subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", "-"],
        input=source,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    findings = json.loads(completed.stdout)
    assert [(f["line"], f["code"], f["traced_by"]) for f in findings] == [(9, "JIT101", "contract")]


@pytest.mark.jax
def test_the_positive_contract_really_fails_under_jit():
    """The equinox case, called as its users call it, raises the error the rule names."""
    pytest.importorskip("equinox")
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    namespace: dict[str, object] = {}
    exec(textwrap.dedent(POSITIVE["equinox_call_annotated_array"]), namespace)
    gate = namespace["Gate"](weight=jnp.ones(3))  # type: ignore[operator]
    with pytest.raises(jax.errors.TracerBoolConversionError):
        eqx.filter_jit(lambda m, x: m(x))(gate, jnp.ones(3))


def test_a_base_class_in_another_file_carries_its_framework(tmp_path):
    """`class Gate(Layer)` with `Layer(eqx.Module)` in another file of the run: the project
    pass tells gate.py that `Layer` is an equinox module, so `Gate.__call__` is a contract.
    Linted alone, gate.py cannot know it and stays quiet (unknown is never an error)."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(
        "import equinox as eqx\n\n\nclass Layer(eqx.Module):\n    pass\n"
    )
    gate = textwrap.dedent(
        """\
        import jax

        from .base import Layer


        class Gate(Layer):
            def __call__(self, x: jax.Array):
                if x.mean() > 0:
                    return x
                return -x
        """
    )
    (package / "gate.py").write_text(gate)

    def lint(*paths: str) -> list[tuple[str, int, str]]:
        completed = subprocess.run(
            [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", *paths],
            capture_output=True, text=True, cwd=tmp_path, check=False,
        )  # fmt: skip
        return [(f["path"], f["line"], f["code"]) for f in json.loads(completed.stdout)]

    assert lint("pkg") == [("pkg/gate.py", 8, "JIT101")]
    assert lint("pkg/gate.py") == []


@pytest.mark.parametrize(
    ("base", "args", "expected"),
    [
        ("import equinox as eqx\n\n\nclass Operator(eqx.Module):\n    pass\n", (), [12]),
        # A plain base in another file: no contract, `groups` stays untraced.
        ("class Operator:\n    pass\n", ("--assume-traced", "module-constructors"), []),
    ],
)
def test_a_public_method_of_a_subclass_of_another_files_equinox_module(
    tmp_path, base, args, expected
):
    """The equinox contract traces every public method, not only `__call__`: a subclass
    that defines only `groups` (its base in another file holds `__call__`, as coordinax keeps
    its operators) asks for its base's framework too."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(base)
    rotate = textwrap.dedent(
        """\
        import jax
        import jax.numpy as jnp

        from .base import Operator


        class Rotate(Operator):
            R: jax.Array

            def groups(self):
                # the determinant of a traced field
                if jnp.linalg.det(self.R) > 0:
                    return "SO(n)"
                return "O(n)"
        """
    )
    (package / "rotate.py").write_text(rotate)
    completed = subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", *args, "pkg"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    findings = json.loads(completed.stdout)
    assert [(f["path"], f["code"]) for f in findings] == [("pkg/rotate.py", "JIT101")] * len(
        expected
    )
    assert [f["line"] for f in findings] == expected


@pytest.mark.parametrize(
    ("middle", "expected"),
    [
        # A layer of the hierarchy with no methods of its own, in a file that never names jax.
        ("from .base import Base\n\n\nclass Mid(Base):\n    scale: float = 1.0\n", [8]),
        # Only a private method: no contract traces it, yet its subclasses are modules too.
        (
            "from .base import Base\n\n\nclass Mid(Base):\n"
            "    def _double(self, x):\n        return 2 * x\n",
            [8],
        ),
        # A generic base in the middle file: `Base[T]` is the class `Base`.
        (
            "from typing import Generic, TypeVar\n\nfrom .base import Base\n\n"
            "T = TypeVar('T')\n\n\nclass Mid(Base[T], Generic[T]):\n    pass\n",
            [8],
        ),
        # The middle class's base is a plain class of that file: no contract, no finding.
        ("class Mid:\n    pass\n", []),
    ],
)
def test_a_framework_passes_through_a_base_with_no_traced_methods(tmp_path, middle, expected):
    """An equinox module two files up: the middle class defines nothing a contract traces,
    so only what its file exports tells the leaf its framework (diffrax's solvers: `Bosh3`
    subclasses `AbstractERK`, which defines no method, in another file)."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(
        "import equinox as eqx\n\n\nclass Base(eqx.Module):\n    pass\n"
    )
    (package / "mid.py").write_text(middle)
    leaf = textwrap.dedent(
        """\
        import jax

        from .mid import Mid


        class Leaf(Mid):
            def __call__(self, x: jax.Array):
                if x.sum() > 0:
                    return x
                return -x
        """
    )
    (package / "leaf.py").write_text(leaf)
    completed = subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", "pkg"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    findings = json.loads(completed.stdout)
    assert [(f["path"], f["line"], f["code"]) for f in findings] == [
        ("pkg/leaf.py", line, "JIT101") for line in expected
    ]


def test_a_layer_with_no_traced_methods_is_not_linted_again(tmp_path, monkeypatch):
    """The middle file asks nothing and receives nothing: it exports its imported bases,
    and the runner follows them for the leaf, so only the leaf is linted a second time."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(
        "import equinox as eqx\n\n\nclass Base(eqx.Module):\n    pass\n"
    )
    (package / "mid.py").write_text("from .base import Base\n\n\nclass Mid(Base):\n    pass\n")
    (package / "leaf.py").write_text(
        "import jax\n\nfrom .mid import Mid\n\n\nclass Leaf(Mid):\n"
        "    def __call__(self, x: jax.Array):\n        return float(x.sum())\n"
    )
    counts: collections.Counter[str] = collections.Counter()
    lint = runner.lint_text

    def counted(source, path, *rest, **options):
        counts[path] += 1
        return lint(source, path, *rest, **options)

    monkeypatch.setattr(runner, "lint_text", counted)
    monkeypatch.chdir(tmp_path)
    status, out, err = run_cli("--format", "json", "--no-cache", "-j1", "pkg")
    assert status == 1, err
    findings = json.loads(out)
    assert [(f["path"], f["line"], f["code"]) for f in findings] == [("pkg/leaf.py", 8, "JIT102")]
    assert counts[os.path.join("pkg", "mid.py")] == 1
    assert counts[os.path.join("pkg", "leaf.py")] == 2


def test_a_static_parameter_annotated_as_an_array_is_unhashable():
    """What the declaration says decides, with no call in the run: JAX hashes static
    arguments, and an array (`jax.Array`, the older `jnp.DeviceArray`) cannot be hashed."""
    source = textwrap.dedent(
        """
        from functools import partial

        import jax
        from jax import numpy as np

        @partial(jax.jit, static_argnums=(0, 2))  # error: JIT110
        def is_u_turn(start: np.DeviceArray, position: jax.Array, steps: int):
            return position - start
        """
    )
    assert found(source, {"JIT110"}) == expected(source)


LIBRARY = """\
import jax
import jax.numpy as jnp

from mylib import traced, Layer


def rotate(x: jax.Array, angle: float):
    if jnp.any(x < 0):
        return -x
    return x


def _private(x: jax.Array):
    return float(x.sum())


@traced
def helper(y):
    return int(jnp.sum(y))


class Dense(Layer):
    def forward(self, x):
        return bool(jnp.sum(x))

    def _setup(self, x):
        return bool(jnp.sum(x))
"""


def _lint_library(tmp_path, *args: str) -> list[tuple[int, str]]:
    (tmp_path / "lib.py").write_text(LIBRARY)
    completed = subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", *args, "lib.py"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert completed.returncode in (0, 1), completed.stderr
    return [(f["line"], f["code"]) for f in json.loads(completed.stdout)]


def test_assume_traced_is_off_by_default(tmp_path):
    assert _lint_library(tmp_path) == []


def test_assume_traced_patterns_each_add_their_bodies(tmp_path):
    assert _lint_library(tmp_path, "--assume-traced", "public-array-functions") == [(8, "JIT101")]
    assert _lint_library(tmp_path, "--assume-traced", "decorator:mylib.traced") == [(19, "JIT102")]
    assert _lint_library(tmp_path, "--assume-traced", "base:mylib.Layer") == [(24, "JIT101")]


def test_assume_traced_from_the_config_and_its_errors(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jitlint]\nassume-traced = ["public-array-functions", "decorator:mylib.traced"]\n'
    )
    assert _lint_library(tmp_path) == [(8, "JIT101"), (19, "JIT102")]
    # The command line replaces the config's list.
    assert _lint_library(tmp_path, "--assume-traced", "base:mylib.Layer") == [(24, "JIT101")]
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nassume-traced = ["everything"]\n')
    completed = subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", "lib.py"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert completed.returncode == 2
    assert "`everything` is not an assume-traced pattern" in completed.stderr


USED_AS_ARRAYS = """\
import jax.numpy as jnp


def solve(a, b):
    n = b.shape[0]
    handle = int(jnp.sum(a[:n]))  # error: JIT102
    return jnp.linalg.solve(a, b), handle


def tile(n, x):
    # `n` is a count and `x` is also read by `len`: no parameter only an array admits.
    return [int(jnp.sum(x)) for _ in range(n)], len(x)


def scaled(x, scale=1.0):
    # `scale * x` reads neither as an array: either may be a Python number.
    return float(jnp.sum(scale * x))
"""


def test_public_array_functions_include_parameters_used_only_as_arrays(tmp_path):
    # klujax's `solve(Ai, Aj, Ax, b)` reads `b` only as `b.shape` and as an operand of
    # `jnp.linalg.solve`: an array, so the setting makes `solve` an entry point.
    (tmp_path / "lib.py").write_text(USED_AS_ARRAYS)

    def lint(*args: str) -> set[tuple[int, str]]:
        completed = subprocess.run(
            [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", *args, "lib.py"],
            capture_output=True, text=True, cwd=tmp_path, check=False,
        )  # fmt: skip
        assert completed.returncode in (0, 1), completed.stderr
        return {(f["line"], f["code"]) for f in json.loads(completed.stdout)}

    assert lint() == set()
    assert lint("--assume-traced", "public-array-functions") == expected(USED_AS_ARRAYS)


def test_the_message_says_how_the_contract_knows_the_array():
    source = textwrap.dedent(POSITIVE["flax_defaulted_task_id_read_as_array"])
    (diagnostic,) = lint_text(source, "pool.py", JAX_RULES).diagnostics
    assert "`task_id` is read only as an array and is a parameter of `Pool.__call__`" in (
        diagnostic.message
    )


FILTER_JIT = """
import equinox as eqx
import jax
import jax.numpy as jnp


LABELS = ["train", "eval"]


@eqx.filter_jit
def step(x: jax.Array, n, training, scale, mixed, mode, pick):
    for _ in range(n):
        x = x + 1
    if training:
        x = x * 2
    y = x * scale
    if mixed:
        y = y + jnp.sum(mixed)
    print(LABELS[mode])
    return y[pick]
"""


def _first_read_kinds(source: str, decorator: str = "@eqx.filter_jit") -> dict[str, int]:
    """The kind of the first read of each of `step`'s parameters, as its trace sees it."""
    import libcst as cst

    from jitlint.model.context import FileContext
    from jitlint.python.walker import iter_children

    source = source.replace("@eqx.filter_jit", decorator)
    module = cst.parse_module(source)
    ctx = FileContext(module, "case.py", source)
    func = next(s for s in module.body if type(s) is cst.FunctionDef)
    trace = ctx.tracing.trace(func)
    assert trace is not None
    kinds: dict[str, int] = {}
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Name and node.value in (
            "n",
            "training",
            "scale",
            "mixed",
            "mode",
            "pick",
        ):
            kinds.setdefault(node.value, trace.value(node).kind)
        stack.extend(reversed(iter_children(node)))
    return kinds


def test_filter_jit_keeps_parameters_read_only_as_python_values_static():
    from jitlint.model.domain.values import PYTREE, STATIC, UNKNOWN

    # `n` (range), `training` (a truth test), `mode` (an index into a list display): static;
    # `scale` (arithmetic), `mixed` (a truth test and an array operand) and `pick` (an index
    # into an array) are not said to be Python values: unknown.
    assert _first_read_kinds(FILTER_JIT) == {
        "n": STATIC, "training": STATIC, "scale": UNKNOWN, "mixed": UNKNOWN, "mode": STATIC,
        "pick": UNKNOWN,
    }  # fmt: skip
    # jax.jit traces every argument, whatever the body reads it as.
    assert set(_first_read_kinds(FILTER_JIT, "@jax.jit").values()) == {PYTREE}


def test_tracer_testing_bodies_text_gate_changes_nothing():
    """A module whose text never spells a tracer type has no body that tests for tracers
    (`tracer_testing_functions` skips the walk): the same bodies with and without the gate,
    over this file's cases and every rule's, some of which test for tracers."""
    import libcst as cst

    from jitlint.model.jax.frameworks.contracts import tracer_testing_functions
    from jitlint.python.names import Names
    from jitlint.rules import all_rules

    sources = [*POSITIVE.values(), *NEGATIVE.values()]
    for rule in all_rules().values():
        sources += [*rule.VALID, *rule.INVALID]
    testing = 0
    for source in sources:
        source = textwrap.dedent(source)
        try:
            names = Names(cst.parse_module(source))
        except cst.ParserSyntaxError:
            continue
        ungated = [func for func, _, _ in tracer_testing_functions(names)]
        assert [func for func, _, _ in tracer_testing_functions(names, source)] == ungated
        testing += bool(ungated)
    assert testing >= 1
