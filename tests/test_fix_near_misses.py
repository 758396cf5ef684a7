"""Every fix builder against the nearest code that works and must not change: each case is
what a fix targets, minus the hazard (a static value where the fix expects a tracer, a
tuple where it expects a list...). No fix may touch it, safe or unsafe, and it runs under
the real framework. Where a rule still reports but cannot fix the shape at hand, its help
says why. (JIT106's `.at[]` fix is covered with the JAX model, which decides what is an
array.)"""

from __future__ import annotations

import textwrap

import pytest

from jitlint import fix_source, lint_source

# name: (rule, working source, an expression that runs it)
JAX_NEAR_MISSES = {
    # builtin max/min -> jnp.maximum/minimum: only on tracers.
    "JIT101 max of static values": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            return x * max(x.shape[0], 2) * min([1.0, 2.0])
        """,
        "f(jnp.ones(3))",
    ),
    # jnp.where / lax.cond: only on a traced condition.
    "JIT101 branch on a static shape": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            if x.shape[0] > 2:
                return x * 2
            return x
        def g(x):
            return x if x.ndim == 1 else x.T
        """,
        "f(jnp.ones(3)), jax.jit(g)(jnp.ones(3))",
    ),
    # static_argnames for a flag: not when it is static already.
    "JIT101 a static flag": (
        "JIT101",
        """
        from functools import partial
        import jax
        import jax.numpy as jnp
        @partial(jax.jit, static_argnames="training")
        def f(x, training: bool):
            if training:
                return x * 0.5
            return x
        """,
        "f(jnp.ones(3), training=True)",
    ),
    # math.f -> jnp.f and float()/int() dropped: only on tracers, never on static numbers.
    "JIT102 math and float on static numbers": (
        "JIT102",
        """
        import math
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            n = int(math.sqrt(x.shape[0]))
            return x[:n] * float(x.ndim) * math.pi
        """,
        "f(jnp.ones(4))",
    ),
    # dynamic_slice / static_argnames for sizes: not when the bounds are static.
    "JIT103 static slice bounds and sizes": (
        "JIT103",
        """
        from functools import partial
        import jax
        import jax.numpy as jnp
        @partial(jax.jit, static_argnames="start")
        def f(x, start):
            return x[start : start + 2] + jnp.zeros(2) + jnp.ones(x.shape[0])[:2]
        """,
        "f(jnp.ones(4), start=1)",
    ),
    # np.f -> jnp.f: only where numpy meets a tracer, not on constants.
    "JIT104 numpy on constants": (
        "JIT104",
        """
        import jax
        import jax.numpy as jnp
        import numpy as np
        @jax.jit
        def f(x):
            return x * np.pi + np.sin(0.5) + np.arange(3).sum() + np.float32(2)
        """,
        "f(jnp.ones(3))",
    ),
    # x[mask] -> jnp.where: not when the mask is a NumPy constant (its size is known).
    "JIT105 a constant mask": (
        "JIT105",
        """
        import jax
        import jax.numpy as jnp
        import numpy as np
        MASK = np.array([True, False, True])
        @jax.jit
        def f(x):
            return x[MASK].sum()
        """,
        "f(jnp.ones(3))",
    ),
    # print -> jax.debug.print: a print of static values is a trace-time message on purpose.
    "JIT107 a trace-time message": (
        "JIT107",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            print("compiling f for shape", x.shape)
            return x
        """,
        "f(jnp.ones(3))",
    ),
    # list -> tuple: only for a static argument; a list is a fine pytree otherwise.
    "JIT110 a list to a traced argument": (
        "JIT110",
        """
        from functools import partial
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x, ws):
            return x * ws[0] + ws[1]
        @partial(jax.jit, static_argnames="axes")
        def total(x, axes):
            return x.sum(axis=axes)
        """,
        "f(1.0, [2.0, 3.0]), total(jnp.ones((2, 3)), axes=(0, 1))",
    ),
    # static_argnames for a string: not when it is static already.
    "JIT111 a static string": (
        "JIT111",
        """
        from functools import partial
        import jax
        import jax.numpy as jnp
        @partial(jax.jit, static_argnames="kind")
        def f(x, kind):
            return x.sum() if kind == "sum" else x.mean()
        """,
        "f(jnp.ones(3), 'sum')",
    ),
    # dead static entries: a name **kwargs takes is alive.
    "JIT112 a static name taken by **kwargs": (
        "JIT112",
        """
        from functools import partial
        import jax
        import jax.numpy as jnp
        @partial(jax.jit, static_argnames=("mode",))
        def f(x, **options):
            return x * (2 if options["mode"] == "double" else 1)
        """,
        "f(jnp.ones(3), mode='double')",
    ),
    # hoisting: not when the jit is built once already.
    # `x or default` -> `x if x is not None else default`: not on a Python default.
    "JIT101 or on a Python default": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x, scale=None):
            scale = scale or 2.0
            assert x.ndim == 1, "a vector"
            return x * scale
        """,
        "f(jnp.ones(3))",
    ),
    # .item() -> .reshape(()), float() of a returned metric: only on tracers.
    "JIT102 item and float outside jit": (
        "JIT102",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def step(x):
            return x * 2, {"loss": jnp.sum(x)}
        def run():
            y, metrics = step(jnp.ones(3))
            return y.sum().item(), float(metrics["loss"])
        """,
        "run()",
    ),
    # logging -> jax.debug.callback: not for static values.
    "JIT107 logging of a shape": (
        "JIT107",
        """
        import logging
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            logging.info("tracing for shape %s", x.shape)
            return x
        """,
        "f(jnp.ones(3))",
    ),
    # frozen=True: not for a dataclass that is already hashable.
    "JIT110 a frozen dataclass": (
        "JIT110",
        """
        import dataclasses
        from functools import partial
        import jax
        import jax.numpy as jnp
        @dataclasses.dataclass(frozen=True)
        class Config:
            k: int
        @partial(jax.jit, static_argnums=1)
        def f(x, config):
            return x[: config.k]
        """,
        "f(jnp.ones(3), Config(2))",
    ),
    # static_argnums=0 on a method: not on an equinox module, which is a pytree.
    "JIT111 a jitted method of an equinox module": (
        "JIT111",
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp
        class Scale(eqx.Module):
            w: jax.Array
            @jax.jit
            def __call__(self, x):
                return self.w * x
        """,
        "Scale(jnp.ones(2))(jnp.ones(2))",
    ),
    "JIT113 jit built before the loop": (
        "JIT113",
        """
        import jax
        import jax.numpy as jnp
        def run(x):
            step = jax.jit(lambda y: y * 2)
            for _ in range(3):
                x = step(x)
            return x
        """,
        "run(jnp.ones(3))",
    ),
    "JIT113 jit built once in __init__ and at module level": (
        "JIT113",
        """
        import jax
        import jax.numpy as jnp
        def twice(x):
            return 2 * x
        twice_jit = jax.jit(twice)
        class Model:
            def __init__(self, rate):
                self.rate = rate
                self.step_jit = jax.jit(self.step)
            def step(self, x):
                return x * self.rate
            def run(self, x):
                return self.step_jit(twice_jit(x))
        def go():
            model = Model(0.5)
            return [model.run(jnp.ones(2)) for _ in range(3)]
        """,
        "go()",
    ),
    # env writes: not when they come before jax is imported.
    "JIT301 and JIT302 writes before the import": (
        "JIT301,JIT302",
        """
        import os
        os.environ["XLA_FLAGS"] = "--xla_cpu_enable_fast_math=false"
        os.environ["JAX_ENABLE_X64"] = "0"
        import jax
        import jax.numpy as jnp
        def f(x):
            return x + 1
        """,
        "f(jnp.ones(3))",
    ),
}

TF_NEAR_MISSES = {
    # dtype=: not when the constant meets its own dtype.
    "JIT201 a constant of the right dtype": (
        "JIT201",
        """
        import tensorflow as tf
        @tf.function
        def f(x):
            return tf.cast(x, tf.float32) + tf.constant(0.5)
        """,
        "f(tf.ones(3))",
    ),
    # assert -> tf.debugging.Assert: not on Python values and static shapes.
    "JIT205 asserts on static values": (
        "JIT205",
        """
        import tensorflow as tf
        @tf.function
        def f(x, n):
            assert n > 0
            assert x.shape[0] > 0
            return x * n
        """,
        "f(tf.ones(3), 2.0)",
    ),
    # jit_compile=False / supports_jit: not where XLA is not on.
    "JIT202 JIT203 JIT213 graph code without XLA": (
        "JIT202,JIT203,JIT213",
        """
        import keras
        import tensorflow as tf
        class Probe(keras.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.supports_jit = False
            def call(self, x):
                tf.print("probe", tf.reduce_mean(x))
                return x
        @tf.function
        def f(x):
            tf.print(x)
            return tf.ones([tf.shape(x)[0] + 1])
        def run():
            model = keras.Sequential([keras.Input((2,)), Probe()])
            model.compile(optimizer="sgd", loss="mse")
            return f(tf.ones(2)), model(tf.ones([1, 2]))
        """,
        "run()",
    ),
    # tf.cond: not for an `if` on a Python value or a static shape in a layer.
    "JIT205 if on Python values in a Keras layer": (
        "JIT205",
        """
        import keras
        import tensorflow as tf
        class Gate(keras.layers.Layer):
            def __init__(self, open_, **kwargs):
                super().__init__(**kwargs)
                self.open_ = open_
            def call(self, x):
                if self.open_ and x.shape[-1] > 1:
                    return x
                return x * 0.0
        """,
        "Gate(True)(tf.ones([1, 2]))",
    ),
    # a variable made once, in __init__, and tensors passed in a loop: nothing to fix.
    "JIT206 JIT207 a variable made in __init__, tensors in a loop": (
        "JIT206,JIT207",
        """
        import tensorflow as tf
        class Counter(tf.Module):
            def __init__(self):
                super().__init__()
                self.total = tf.Variable(0.0)
            @tf.function
            def add(self, x):
                self.total.assign_add(x)
                return self.total
        def run():
            counter = Counter()
            for step in range(3):
                counter.add(tf.constant(float(step)))
            return counter.total
        """,
        "run()",
    ),
    # made once in __init__: nothing to hoist.
    "JIT206 JIT207 a layer and a tf.function made in __init__": (
        "JIT206,JIT207",
        """
        import tensorflow as tf
        class Head(tf.keras.layers.Layer):
            def __init__(self, units, **kwargs):
                super().__init__(**kwargs)
                self.dense = tf.keras.layers.Dense(units)
                self.step = tf.function(self._step)
            def _step(self, x):
                return self.dense(x)
            def call(self, x):
                return self.step(x)
        def run():
            head = Head(2)
            return [head(tf.ones([1, 3])) for _ in range(3)]
        """,
        "run()",
    ),
    # print -> tf.print: a print of static values is a trace-time message on purpose.
    "JIT208 a trace-time message": (
        "JIT208",
        """
        import tensorflow as tf
        @tf.function
        def f(x):
            print("tracing f for", x.shape)
            return x
        """,
        "f(tf.ones(3))",
    ),
}


def _source(text: str) -> str:
    return textwrap.dedent(text).lstrip()


@pytest.mark.parametrize(
    "name", [*JAX_NEAR_MISSES, *TF_NEAR_MISSES], ids=lambda n: n.replace(" ", "_")
)
def test_no_fix_touches_the_nearest_working_code(name):
    code, text, _ = {**JAX_NEAR_MISSES, **TF_NEAR_MISSES}[name]
    source = _source(text)
    codes = code.split(",")
    assert fix_source(source, "case.py", select=codes, unsafe=True).source == source
    assert lint_source(source, "case.py", select=codes) == []


def _run(source: str, call: str) -> None:
    namespace: dict[str, object] = {"__name__": "near_miss"}
    # dont_inherit: this module's `from __future__ import annotations` would turn a
    # dataclass's annotations into strings, which dataclasses resolves through sys.modules.
    exec(compile(source, "near_miss.py", "exec", dont_inherit=True), namespace)
    eval(call, namespace)


@pytest.mark.jax
@pytest.mark.parametrize("name", list(JAX_NEAR_MISSES), ids=lambda n: n.replace(" ", "_"))
def test_the_jax_near_misses_are_working_code(name):
    pytest.importorskip("jax")
    _, text, call = JAX_NEAR_MISSES[name]
    _run(_source(text), call)


@pytest.mark.tensorflow
@pytest.mark.parametrize("name", list(TF_NEAR_MISSES), ids=lambda n: n.replace(" ", "_"))
def test_the_tensorflow_near_misses_are_working_code(name):
    pytest.importorskip("tensorflow")
    _, text, call = TF_NEAR_MISSES[name]
    _run(_source(text), call)


# name: (rule, source with one finding, what its help says about the missing fix)
NO_FIX = {
    "JIT101 strings": (
        "JIT101",
        """
        import jax
        @jax.jit
        def f(x):
            if x.sum() > 0:
                return "up"
            return "down"
        """,
        "no automatic fix: a branch is not an array (a string, `None` or a function)",
    ),
    "JIT101 None": (
        "JIT101",
        """
        import jax
        @jax.jit
        def f(x):
            return None if x.sum() > 0 else x
        """,
        "no automatic fix: a branch is not an array",
    ),
    "JIT101 and in the test": (
        "JIT101",
        """
        import jax
        @jax.jit
        def f(x, t):
            if x.sum() > 0 and t > 0:
                return x
            return -x
        """,
        "no automatic fix: the condition itself converts a tracer to bool",
    ),
    "JIT101 a side effect": (
        "JIT101",
        """
        import jax
        @jax.jit
        def f(x):
            if x.sum() > 0:
                print("positive")
                return x
            return -x
        """,
        "no automatic fix: the `if` branch is not a single `return` of a value",
    ),
    "JIT101 an effect in a value": (
        "JIT101",
        """
        import jax
        log = []
        @jax.jit
        def f(x):
            if x.sum() > 0:
                return x
            return log.append(x)
        """,
        "no automatic fix: the condition or a branch has a Python side effect",
    ),
    "JIT113 reads the loop variable": (
        "JIT113",
        """
        import jax
        def run(x):
            for i in range(3):
                x = jax.jit(lambda y: y * i)(x)
            return x
        """,
        "no automatic fix: it reads `i`, which the loop changes",
    ),
    "JIT113 inside a try": (
        "JIT113",
        """
        import jax
        def run(x):
            for _ in range(3):
                try:
                    x = jax.jit(lambda y: y * 2)(x)
                except ValueError:
                    pass
            return x
        """,
        "no automatic fix: it is inside a `try` within the loop, which it would leave",
    ),
    "JIT113 a local def reads a parameter": (
        "JIT113",
        """
        import jax
        def scaled(x, factor):
            @jax.jit
            def by(v):
                return v * factor
            return by(x)
        for i in range(3):
            scaled(1.0, 2.0)
        """,
        "no automatic fix: it reads `factor`, a local of the function",
    ),
    "JIT113 a dataclass method": (
        "JIT113",
        """
        import dataclasses
        import jax
        @dataclasses.dataclass
        class Frozen:
            rate: float
            def step(self, u):
                return u * self.rate
            def run(self, u):
                return jax.jit(self.step)(u)
        frozen = Frozen(0.5)
        for i in range(3):
            frozen.run(1.0)
        """,
        "no automatic fix: the class `Frozen` has a decorator",
    ),
    "JIT113 a class without __init__": (
        "JIT113",
        """
        import jax
        class Model:
            def step(self, u):
                return u * 2
            def run(self, u):
                return jax.jit(self.step)(u)
        model = Model()
        for i in range(3):
            model.run(1.0)
        """,
        "no automatic fix: the class defines no `__init__` of its own",
    ),
    "JIT113 __init__ runs the method": (
        "JIT113",
        """
        import jax
        class Agent:
            def __init__(self, w):
                self.w = w
                self.first = self.warm_up(1.0)
            def warm_up(self, x):
                return self.act(x)
            def act(self, x):
                @jax.jit
                def _act(v):
                    return v * self.w
                return _act(x)
        agent = Agent(2.0)
        for i in range(3):
            agent.act(1.0)
        """,
        "no automatic fix: `__init__` calls `act` (maybe through another method)",
    ),
    "JIT113 a module name bound after the function": (
        "JIT113",
        """
        import jax
        from functools import partial
        def run(u):
            return jax.jit(partial(scale, k=2.0))(u)
        def scale(u, k):
            return u * k
        for i in range(3):
            run(1.0)
        """,
        "no automatic fix: it reads `scale`, which the module binds after it",
    ),
    "JIT207 a tf.function reads the call's argument": (
        "JIT207",
        """
        import tensorflow as tf
        def shifted(xs, offset):
            @tf.function
            def shift(x):
                return x + offset
            return [shift(x) for x in xs]
        for i in range(3):
            shifted([tf.ones(2)], 1.0)
        """,
        "no automatic fix: it reads `offset`, a local of the function",
    ),
    "JIT206 a layer per item of a list": (
        "JIT206",
        """
        import tensorflow as tf
        class Stack(tf.keras.layers.Layer):
            def __init__(self, widths, **kwargs):
                super().__init__(**kwargs)
                self.widths = widths
            def call(self, x):
                for width in self.widths:
                    x = tf.keras.layers.Dense(4)(x)
                return x
        """,
        "no automatic fix: it is made in a loop: one object per iteration, not one in all, "
        "and the loop is not `for name in range(...)`",
    ),
    "JIT206 a layer sized by the loop's variable": (
        "JIT206",
        """
        import tensorflow as tf
        class Widening(tf.keras.layers.Layer):
            def __init__(self, depth, **kwargs):
                super().__init__(**kwargs)
                self.depth = depth
            def call(self, x):
                for i in range(self.depth):
                    x = tf.keras.layers.Dense(4 * (i + 1))(x)
                return x
        """,
        "no automatic fix: it reads `i`, a local of the function",
    ),
    "JIT206 a size read from the input": (
        "JIT206",
        """
        import tensorflow as tf
        class Widen(tf.keras.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
            def call(self, x):
                return tf.keras.layers.Dense(x.shape[-1] * 2)(x)
        """,
        "no automatic fix: it reads `x`, a local of the function",
    ),
    "JIT206 an attribute __init__ does not set": (
        "JIT206",
        """
        import tensorflow as tf
        class Late(tf.keras.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
            def build(self, shape):
                self.units = shape[-1]
            def call(self, x):
                return tf.keras.layers.Dense(self.units)(x)
        """,
        "no automatic fix: it reads `self.units`, which `__init__` does not set",
    ),
}


@pytest.mark.parametrize("name", list(NO_FIX), ids=lambda n: n.replace(" ", "_"))
def test_a_finding_without_a_fix_says_why(name):
    code, text, why = NO_FIX[name]
    source = _source(text)
    (finding,) = lint_source(source, "case.py", select=[code])
    assert finding.fix is None
    assert why in (finding.help or ""), finding.help
    assert fix_source(source, "case.py", select=[code], unsafe=True).source == source


def test_jit110_wraps_a_list_name_only_as_an_unsafe_fix():
    """A literal list becomes a tuple safely; a name that may be a list gets `tuple(...)`
    only with unsafe fixes (its elements may be unhashable, or it may be a dict)."""
    source = _source(
        """
        from functools import partial
        import jax
        @partial(jax.jit, static_argnames="axes")
        def total(x, axes):
            return x.sum(axis=axes)
        def run(x):
            total(x, axes=[0, 1])
            axes = [0, 1]
            return total(x, axes=axes)
        """
    )
    safe = fix_source(source, "case.py", select=["JIT110"]).source
    assert "axes=(0, 1)" in safe and "axes=axes)" in safe
    unsafe = fix_source(source, "case.py", select=["JIT110"], unsafe=True).source
    assert "axes=tuple(axes)" in unsafe


REWRITTEN = _source(
    """
    import jax
    import jax.numpy as jnp
    @jax.jit
    def pytree(x):
        if x.sum() > 0:
            return {"y": x * 2.0}
        return {"y": -x}
    @jax.jit
    def pair(x):
        return (x, x.sum()) if x.sum() > 0 else (-x, x.mean())
    @jax.jit
    def commented(x):
        # above the branch
        if x.sum() > 0:  # on the if line
            return x * 2.0  # on the return
        # before the other return
        return -x
    """
)


@pytest.mark.jax
def test_rewritten_containers_and_commented_branches_run_as_before():
    """Dicts and tuples go through lax.cond (jnp.where would stack them); comments stay."""
    jax = pytest.importorskip("jax")
    import numpy as np

    fixed = fix_source(REWRITTEN, "case.py", select=["JIT101"], unsafe=True).source
    assert fixed.count("lax.cond(") == 2 and fixed.count(".where(") == 1
    for comment in ("# on the if line", "# on the return", "# before the other return"):
        assert f"    {comment}\n" in fixed, fixed
    original: dict[str, object] = {}
    rewritten: dict[str, object] = {}
    exec(compile(REWRITTEN, "original.py", "exec"), original)
    exec(compile(fixed, "fixed.py", "exec"), rewritten)
    for name in ("pytree", "pair", "commented"):
        for x in (jax.numpy.arange(3.0), -jax.numpy.arange(3.0) - 1):
            with jax.disable_jit():
                expected = original[name](x)  # type: ignore[operator]
            actual = rewritten[name](x)  # type: ignore[operator]
            assert jax.tree_util.tree_structure(expected) == jax.tree_util.tree_structure(actual)
            leaves = zip(
                jax.tree_util.tree_leaves(expected), jax.tree_util.tree_leaves(actual), strict=True
            )
            for a, b in leaves:
                np.testing.assert_allclose(a, b)
