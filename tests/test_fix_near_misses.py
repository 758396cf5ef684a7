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
    # `not x` -> jnp.logical_not(x): only on a tracer.
    "JIT101 not of a static value": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            flat = not x.ndim > 1
            return x * 2 if flat else x
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
    # `(a < x) & (x < b)` and static_argnames for `n < 20`: not on static values.
    "JIT101 chains and thresholds on static values": (
        "JIT101",
        """
        from functools import partial
        import jax
        import jax.numpy as jnp
        @partial(jax.jit, static_argnames="n")
        def f(x, n):
            if n < 2:
                print("short")
                return x
            ok = 0 < x.shape[0] < 10
            return x * (2.0 if 1 <= n < 5 else 1.0) * ok
        """,
        "f(jnp.ones(3), 3)",
    ),
    # `eqx.error_if` / removing the check: not for a check on static values.
    "JIT101 a check on a static shape": (
        "JIT101",
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            if x.shape[0] == 0:
                raise ValueError("empty")
            return x
        """,
        "f(jnp.ones(3))",
    ),
    # `eqx.field(static=True)`: not for a field that is static already.
    "JIT101 a static equinox field": (
        "JIT101",
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp
        class Block(eqx.Module):
            w: jax.Array
            rate: float = eqx.field(static=True)
            def __call__(self, x):
                if self.rate > 0:
                    return x * self.w * (1.0 - self.rate)
                return x * self.w
        @jax.jit
        def forward(params, static, x):
            return eqx.combine(params, static)(x)
        def run():
            params, static = eqx.partition(Block(jnp.ones(2), 0.5), eqx.is_array_like)
            return forward(params, static, jnp.ones(2))
        """,
        "run()",
    ),
    # `jax.lax.while_loop`: not for a loop on static values.
    "JIT101 a while loop on a static shape": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            n = x.shape[0]
            while n > 1 and not n % 2:
                x = x[: n // 2] + x[n // 2 :]
                n = x.shape[0]
            return x
        """,
        "f(jnp.ones(8))",
    ),
    # `jnp.asarray(items)[i]`: not for a static index.
    "JIT102 a list indexed by Python ints": (
        "JIT102",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            layers = [x * 2, x * 3]
            out = layers[0]
            for i in range(len(layers)):
                out = out + layers[i] * layers[-1]
            return out
        """,
        "f(jnp.ones(3))",
    ),
    # f-string -> jax.debug.print template: not when it formats static values.
    "JIT102 a format spec on a static value": (
        "JIT102,JIT107",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            print(f"compiling for {x.shape[0]:4d} rows")
            return x
        """,
        "f(jnp.ones(3))",
    ),
    # `min(a, b)`: not for a jnp.minimum that is an array value, not a size.
    "JIT103 a minimum of static values used as a value": (
        "JIT103",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            cap = jnp.minimum(x.shape[0], 4)
            return x * cap + jnp.zeros(min(x.shape[0], 4)).sum()
        """,
        "f(jnp.ones(3))",
    ),
    # static_argnames on `jax.jit(library_function)`: not when it is given already.
    "JIT103 a jitted library function with its static name": (
        "JIT103",
        """
        import jax
        import jax.numpy as jnp
        encode = jax.jit(jax.nn.one_hot, static_argnames=("num_classes",))
        def targets(labels):
            return encode(labels, 10)
        """,
        "targets(jnp.array([3, 1]))",
    ),
    # `jnp.asarray(table)[i]`: not for a NumPy table indexed by static values.
    "JIT104 a NumPy table indexed by shapes": (
        "JIT104",
        """
        import jax
        import jax.numpy as jnp
        import numpy as np
        TABLE = np.linspace(0.0, 1.0, 5)
        @jax.jit
        def f(x):
            return x * TABLE[x.shape[0] - 1] + TABLE[np.arange(2)].sum()
        """,
        "f(jnp.ones(3))",
    ),
    # size= and masked reductions: not where the size is given or the mask is static.
    "JIT105 bounded results and static masks": (
        "JIT105",
        """
        import jax
        import jax.numpy as jnp
        import numpy as np
        MASK = np.array([True, False, True])
        @jax.jit
        def f(x):
            (idx,) = jnp.nonzero(x > 0, size=x.size)
            return x[MASK].mean(axis=0) + jnp.where(x > 0, x, 0).sum() + idx.sum()
        """,
        "f(jnp.ones(3))",
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
    # np.* -> tf.math.*: not on Python values, NumPy arrays and static shapes.
    "JIT204 NumPy on Python values and static shapes": (
        "JIT204",
        """
        import numpy as np
        import tensorflow as tf
        TABLE = np.array([1.0, 2.0, 3.0], dtype="float32")
        @tf.function
        def f(x):
            scale = np.sqrt(2.0) * np.maximum(x.shape[0], 1)
            return x * scale + np.sum(TABLE) + np.abs(-1.0)
        """,
        "f(tf.ones(3))",
    ),
    # tf.constant(value): not for a Python value that does not change between calls.
    "JIT207 a constant Python value that is only cast": (
        "JIT207",
        """
        import tensorflow as tf
        @tf.function
        def f(x, step):
            return x * tf.cast(step, tf.float32)
        def run():
            for _ in range(3):
                f(tf.ones(3), 2)
        """,
        "run()",
    ),
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
        "no automatic fix: a branch is not an array (a string, `None`, a set or a function)",
    ),
    "JIT101 frozensets": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            if jnp.linalg.det(x) > 0:
                return frozenset({"proper"})
            return frozenset({"improper"})
        """,
        "no automatic fix: a branch is not an array",
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
    # With a plain `@tf.function` the decorator is dropped instead (the eager fix); an
    # input_signature is an option that fix does not take away.
    "JIT207 a tf.function with a signature reads the call's argument": (
        "JIT207",
        """
        import tensorflow as tf
        def shifted(xs, offset):
            @tf.function(input_signature=[tf.TensorSpec([2])])
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


# name: (rule, source whose finding must stay without a fix: the model does not know enough)
HELD_BACK = {
    # early return -> tf.cond with the assignments moved above: not when a statement in
    # between is not a plain assignment, has a side effect, or rebinds a name the test or
    # the early value reads (they would then see the new value).
    "JIT205 an early return before statements that cannot move": (
        "JIT205",
        """
        import tensorflow as tf
        def f(x):
            if tf.reduce_max(x) > 0:
                return x
            print("negative")
            y = x * 2.0
            return y
        def g(x):
            if tf.reduce_max(x) > 0:
                return x
            x = -x
            return x * 2.0
        def h(x, seen):
            if tf.reduce_max(x) > 0:
                return x
            y = seen.append(x)
            return x * 2.0
        fast_f = tf.function(f, autograph=False)
        fast_g = tf.function(g, autograph=False)
        fast_h = tf.function(h, autograph=False)
        """,
    ),
    # np.* -> tf.math.*: a keyword the twin lacks, a NumPy array beside the tensor (its
    # dtype may differ), a function without a twin of the same signature.
    "JIT204 NumPy calls without a same-signature twin": (
        "JIT204",
        """
        import numpy as np
        import tensorflow as tf
        @tf.function
        def f(x):
            y = tf.exp(x)
            return np.abs(y, out=None), np.minimum(y, np.ones(3)), np.mean(y), np.clip(y, 0, 1)
        """,
    ),
    # tf.constant(value): the function needs the Python value, reads it other than by
    # tf.cast, or meets it with a tensor of a dtype the model does not know (the constant's
    # inferred dtype may not be the tensor's).
    "JIT207 a parameter read other than by tf.cast or beside a known dtype": (
        "JIT207",
        """
        import tensorflow as tf
        @tf.function
        def scale(x, factor):
            return x * factor
        @tf.function
        def both(x, n):
            return tf.ones(3) * tf.cast(n, tf.float32) + n
        @tf.function
        def rebound(x, n):
            n = tf.cast(n, tf.float32)
            return x * n
        @tf.function
        def loops(x, n):
            for _ in range(n):
                x = x + tf.ones(3)
            return x
        @tf.function
        def literal(x, n):
            return tf.ones(3) * (n * 2)
        def run(x):
            for step in range(3):
                scale(x, step)
                both(x, step)
                rebound(x, step)
                loops(x, step)
                literal(x, step)
        """,
    ),
    # the formatted text is also returned: a template would change what is returned
    "JIT102 a status line that is also returned": (
        "JIT102",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            loss = jnp.sum(x)
            status = f"loss={loss:.3f}"
            print(status)
            return x, status
        """,
    ),
    # a `break`, and a name the body sets that is read after the loop: no carry holds them
    "JIT101 while loops the carry cannot hold": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            while x.sum() > 1:
                x = x / 2
                if x.max() < 0.1:
                    break
            return x
        @jax.jit
        def g(x):
            while jnp.abs(x).sum() > 1:
                half = x / 2
                x = half
            return x + half
        """,
    ),
    # an early return whose value the following assignments change, or with a print
    # between: moving them above the choice would change what it returns or prints
    "JIT101 early returns the tail would change": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            if jnp.sum(x) > 0:
                return x
            x = x * 2
            return x + 1
        @jax.jit
        def g(x):
            if jnp.sum(x) > 0:
                return x
            print("negative")
            return -x
        """,
    ),
    # a `for` over a traced count that breaks out early: fori_loop has no `break`
    "JIT102 a counted loop with a break": (
        "JIT102",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x, steps):
            for _ in range(steps.sum()):
                x = x * 0.5
                if x.shape[0] > 3:
                    break
            return x
        """,
    ),
    # library functions the analysis does not follow: neither stacked nor switched
    "JIT102 a list of functions": (
        "JIT102",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x, i):
            fns = [jnp.sin, jnp.cos]
            return fns[i](x)
        """,
    ),
    # `min(a, b)` for `jnp.minimum(a, b)`: not when an operand is traced (no Python int)
    "JIT103 a size from a traced minimum": (
        "JIT103",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            count = jnp.minimum(x.shape[0], jnp.sum(x > 0))
            return jnp.arange(count)
        """,
    ),
    # a size read from a pytree argument that also holds arrays: making it static would
    # fail to hash it (only tuples of int literals at every call are made static)
    "JIT103 a size from a pytree of arrays": (
        "JIT103",
        """
        from typing import NamedTuple
        import jax
        import jax.numpy as jnp
        class Sparse(NamedTuple):
            values: jax.Array
            shape: tuple
        @jax.jit
        def dense(mat):
            return jnp.zeros(mat.shape[0]).at[0].set(mat.values[0])
        print(dense(Sparse(jnp.ones(2), (4,))))
        """,
    ),
    # haiku modules create their parameters when called: `lax.switch` would hide them
    "JIT102 a list of haiku modules": (
        "JIT102",
        """
        import haiku as hk
        import jax
        class Stack(hk.Module):
            def __init__(self):
                super().__init__()
                self.blocks = [hk.Linear(4, name=f"block_{k}") for k in range(3)]
            def __call__(self, x):
                return jax.lax.fori_loop(0, 3, lambda i, h: self.blocks[i](h), x)
        model = hk.transform(lambda x: Stack()(x))
        apply = jax.jit(model.apply)
        """,
    ),
    # the middle operand of a chain is read twice: not a call
    "JIT101 a chain around a call": (
        "JIT101",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            return jnp.piecewise(x, [0 < jnp.sin(x) < 1], [1.0, 0.0])
        """,
    ),
    # size= reads the argument twice: not an expression; max/min of a selection need an
    # initial value, which is a judgement call
    "JIT105 an expression to count and a masked max": (
        "JIT105",
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            (idx,) = jnp.nonzero(x > 0)
            return x[x > 0].max(), idx
        """,
    ),
    # `n > 0` on an array parameter: a where-fix takes the branch, never static_argnames
    "JIT101 a threshold on an array chooses values": (
        "JIT101",
        """
        import jax
        @jax.jit
        def f(x):
            if x > 0:
                return x
            return -x
        """,
    ),
}


@pytest.mark.parametrize("name", list(HELD_BACK), ids=lambda n: n.replace(" ", "_"))
def test_fixes_are_held_back_where_the_values_are_unknown(name):
    code, text = HELD_BACK[name]
    source = _source(text)
    findings = lint_source(source, "case.py", select=[code])
    assert findings, "the hazard must still be reported"
    if name.endswith("chooses values"):
        fixed = fix_source(source, "case.py", select=[code], unsafe=True).source
        assert ".where(x > 0, x, -x)" in fixed and "static_argnames" not in fixed
        return
    assert all(d.fix is None for d in findings), [d.fix for d in findings]


def test_a_check_on_a_module_constant_is_removed_not_rebound():
    # `LIMIT = eqx.error_if(LIMIT, ...)` would make LIMIT local to the function, so its
    # first read would fail; the check on the global is removed instead (unsafe).
    source = _source(
        """
        import equinox as eqx
        import jax
        LIMIT = 3.0
        @jax.jit
        def f(x):
            if LIMIT < x:
                raise ValueError("too large")
            return LIMIT * 2
        """
    )
    fixed = fix_source(source, "case.py", select=["JIT101"], unsafe=True).source
    assert "error_if" not in fixed and "pass  # a check on a traced value, removed" in fixed
