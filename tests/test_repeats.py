"""How often code runs (model/domain/repeats.py), and the JAX and TF plug-ins' answers."""

from __future__ import annotations

import textwrap

import libcst as cst

from jitlint.api import lint_source
from jitlint.model.context import FileContext
from jitlint.model.domain.repeats import (
    enclosing_loops,
    grid_pass,
    local_repetition,
    passes_grid,
    scan_calls,
)
from jitlint.python.walker import iter_children


def _context(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext(cst.parse_module(source), "case.py", source)


def _path_to_call(module: cst.Module, leaf: str) -> list[cst.CSTNode]:
    """The path to the first call of `leaf(...)` / `x.leaf(...)`."""
    stack: list[list[cst.CSTNode]] = [[module]]
    while stack:
        path = stack.pop()
        node = path[-1]
        if type(node) is cst.Call:
            func = node.func
            name = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", "")
            if name == leaf:
                return path
        stack.extend([*path, child] for child in reversed(list(iter_children(node))))
    raise AssertionError(f"no call of {leaf}")


def _function(module: cst.Module, name: str) -> cst.FunctionDef:
    for node in scan_calls(module).methods:
        if node[1].name.value == name:
            return node[1]
    for stmt in module.body:
        if type(stmt) is cst.FunctionDef and stmt.name.value == name:
            return stmt
    raise AssertionError(name)


def test_local_repetition_kinds():
    module = cst.parse_module(
        textwrap.dedent(
            """
            def f(xs, fn):
                a(1)
                for x in xs:
                    b(x)
                [c(x) for x in d(xs)]
                if fn is None:
                    fn = e()
                g = lambda: h()
            """
        )
    )
    kinds = {
        leaf: (lambda r: None if r is None else r.kind)(
            local_repetition(_path_to_call(module, leaf))
        )
        for leaf in "abcdeh"
    }
    # `d(xs)` is the outermost iterable: evaluated once per call, not per element.
    assert kinds == {
        "a": "call",
        "b": "loop",
        "c": "comprehension",
        "d": "call",
        "e": None,
        "h": None,
    }


def test_repeated_functions_by_loop_contract_and_one_level_down():
    ctx = _context(
        """
        import jax
        def helper():
            return 1
        def deeper():
            return 2
        def unused():
            return 3
        def conditional():
            return 4
        def step():
            helper()
            if flag:
                conditional()
        class Agent:
            def act(self, obs):
                return obs
            def reset(self):
                return None
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                return None
        for _ in range(3):
            step()
        """
    )
    why = {
        name: ctx.repeated.why.get(id(_function(ctx.module, name)))
        for name in ("step", "helper", "deeper", "unused", "conditional", "act", "reset", "do_POST")
    }
    assert why["step"] == "called in a loop"
    assert why["helper"] == "called from a function called in a loop"
    assert why["act"] is not None and "agent" in why["act"]
    assert why["do_POST"] is not None and "request handler" in why["do_POST"]
    for name in ("deeper", "unused", "conditional", "reset"):
        assert why[name] is None, name


def test_a_function_jax_traces_is_not_repeated_per_call():
    ctx = _context(
        """
        import jax
        class Trainer:
            @jax.jit
            def train_step(self, x):
                return x
            def predict(self, x):
                return x
        """
    )
    assert ctx.repeated.why.get(id(_function(ctx.module, "train_step"))) is None
    assert ctx.repeated.why.get(id(_function(ctx.module, "predict"))) is not None


def test_tf_keras_callback_hooks_are_repeated_by_contract():
    ctx = _context(
        """
        import tensorflow as tf
        class Report(tf.keras.callbacks.Callback):
            def on_epoch_end(self, epoch, logs=None):
                pass
            def helper(self):
                pass
        class NotACallback:
            def on_epoch_end(self, epoch, logs=None):
                pass
        """
    )
    callback, plain = (s for s in ctx.module.body if type(s) is cst.ClassDef)
    hook, helper = callback.body.body
    assert "callback" in ctx.tf.repeats.why[id(hook)]
    assert id(helper) not in ctx.tf.repeats.why
    assert id(plain.body.body[0]) not in ctx.tf.repeats.why


def _codes(source: str) -> list[tuple[str, int]]:
    found = lint_source(textwrap.dedent(source), select=["JIT113", "JIT207"])
    return [(d.code, d.line) for d in found]


def test_a_model_loaded_per_request_is_reported_once_per_shape():
    source = """
        import tensorflow as tf
        from flask import Flask
        app = Flask(__name__)
        MODEL = "model.keras"
        @app.route("/predict")
        def serve():
            model = tf.keras.models.load_model(MODEL)
            return model.predict(request_data())
        @app.route("/train")
        def train():
            model = tf.keras.models.load_model(MODEL)
            model.fit(request_data())
            return model.predict(request_data())
        def once():
            model = tf.keras.models.load_model(MODEL)
            return model.predict(request_data())
        """
    assert _codes(source) == [("JIT207", 8)]


def test_a_jit_in_a_route_handler_is_reported():
    source = """
        import jax
        from fastapi import FastAPI
        app = FastAPI()
        def forward(x):
            return x
        @app.post("/infer")
        def infer(x):
            return jax.jit(lambda y: forward(y))(x)
        @app.post("setting")
        def not_a_route(x):
            return jax.jit(lambda y: forward(y))(x)
        """
    assert _codes(source) == [("JIT113", 9)]


def test_a_method_of_a_base_class_called_through_self_in_a_loop():
    source = """
        import jax
        class Base:
            def batched(self, xs):
                fast = jax.jit(lambda v: v * 2)
                return fast(xs)
        class Runner(Base):
            def run(self, data):
                for xs in data:
                    self.batched(xs)
        class Alone:
            def batched(self, xs):
                fast = jax.jit(lambda v: v * 2)
                return fast(xs)
        """
    assert _codes(source) == [("JIT113", 5)]


def test_what_a_loop_builds_once_per_device_and_keeps_is_not_repeated():
    # One actor thread per device: the jitted helper is made once per thread and reused by
    # the rollout that thread runs (a research project's shape). The second loop uses what
    # it makes right away, every iteration: that one recompiles.
    source = """
        import threading
        import jax
        import jax.numpy as jnp

        def get_rollout_fn(device):
            @jax.jit
            def prepare(x):
                return jnp.stack(x)

            def rollout():
                for _ in range(10):
                    prepare([jnp.ones(3)])

            return rollout

        def get_actor_thread(device):
            return threading.Thread(target=get_rollout_fn(device))

        def run(devices):
            threads = []
            for device in devices:
                thread = get_actor_thread(device)
                thread.start()
                threads.append(thread)

        def step_fn(x):
            step = jax.jit(lambda y: y + 1)
            return step(x)

        def train(xs):
            for x in xs:
                step_fn(x)
        """
    assert _codes(source) == [("JIT113", 28)]


def test_a_loop_that_ends_in_break_or_return_runs_its_body_once():
    module = cst.parse_module(
        textwrap.dedent(
            """
            def f(xs):
                while True:
                    try:
                        a()
                        break
                    except IOError:
                        continue
                for x in xs:
                    b(x)
                    return x
                while True:
                    c()
                    if ready():
                        break
                while True:
                    if skip():
                        continue
                    d()
                    break
                while True:
                    try:
                        e()
                        break
                    finally:
                        close()
                while True:
                    f()
                    if ready():
                        break
                    else:
                        raise RuntimeError("stuck")
                for x in xs:
                    g(x)
                    if x:
                        return x
                    elif ready():
                        sys.exit(1)
                    else:
                        break
                for x in [xs]:
                    h(x)
                for _ in range(1):
                    m(xs)
                for x in (xs, xs):
                    i(x)
                while True:
                    j()
                    if ready():
                        break
                    else:
                        log()
                for p in xs:
                    for x in [p]:
                        k(x)
            """
        )
    )
    kinds = {
        leaf: (lambda r: None if r is None else r.kind)(
            local_repetition(_path_to_call(module, leaf))
        )
        for leaf in "abcdefghijkm"
    }
    # A retry loop repeats only after a failure; `b` returns on the first pass, `e` breaks
    # after its `finally`, every branch of `f`'s and `g`'s last `if` leaves, `h`'s and
    # `m`'s loops are over one element. `c` runs until a condition holds, `d` is skipped
    # by a `continue`, `i`'s loop has two elements, one branch of `j`'s `if` goes on; `k`'s
    # once-only loop sits in one that repeats.
    assert kinds == {
        "a": "call",
        "b": "call",
        "c": "loop",
        "d": "loop",
        "e": "call",
        "f": "call",
        "g": "call",
        "h": "call",
        "i": "loop",
        "j": "loop",
        "k": "loop",
        "m": "call",
    }


def test_a_tf_function_built_in_a_retried_call_is_not_a_retrace():
    source = textwrap.dedent(
        """
        import tensorflow as tf

        def train_model(strategy):
            @tf.function
            def step(x):
                return x * 2
            for x in range(10):
                strategy.run(step, args=(x,))

        def train():
            while True:
                try:
                    strategy = tf.distribute.MirroredStrategy()
                    train_model(strategy)
                    break
                except tf.errors.UnavailableError:
                    continue

        def train_all(configs):
            for strategy in configs:
                train_model(strategy)
        """
    )
    found = lint_source(source, "case.py", select=["JIT207"])
    # Built once per call of train_model: repeated only because train_all loops over it.
    assert [d.line for d in found] == [5]
    once = source.replace("for strategy in configs", "for strategy in configs[:0]")
    once = once.split("def train_all")[0]
    assert lint_source(once, "case.py", select=["JIT207"]) == []


def test_a_loop_the_framework_stages_is_no_repetition():
    module = cst.parse_module(
        textwrap.dedent(
            """
            def f(xs, n):
                for x in xs:
                    for _ in staged(n):
                        a(x)
                for _ in staged(n):
                    b()
                [c() for _ in staged(n)]
            """
        )
    )

    def staged(loop, path):
        iterable = loop.iter
        return type(iterable) is cst.Call and iterable.func.value == "staged"

    kinds = {
        leaf: (lambda r: None if r is None else r.kind)(
            local_repetition(_path_to_call(module, leaf), staged)
        )
        for leaf in "abc"
    }
    # The Python loop around the staged one still repeats; a comprehension is not a loop
    # the framework stages.
    assert kinds == {"a": "loop", "b": "call", "c": "comprehension"}
    assert local_repetition(_path_to_call(module, "b")).kind == "loop"
    loops = enclosing_loops(_path_to_call(module, "a"), staged)
    assert [type(loop.iter) for loop in loops] == [cst.Name]


def _staged_loops(source: str) -> dict[str, bool]:
    """For each top-level function: whether TF's model stages its first loop."""
    ctx = _context(source)
    out = {}
    for stmt in ctx.module.body:
        if type(stmt) is not cst.FunctionDef:
            continue
        loop = next((s for s in stmt.body.body if type(s) in (cst.For, cst.While)), None)
        if loop is None:
            continue
        out[stmt.name.value] = ctx.tf.staged_loop(loop, [ctx.module, stmt, stmt.body, loop])
    return out


def test_tf_stages_a_loop_over_a_tensor_only_in_code_that_must_run_as_graph_code():
    staged = _staged_loops(
        """
        import tensorflow as tf

        @tf.function
        def over_range(n):
            for _ in tf.range(n):
                work()

        @tf.function
        def over_dataset(x):
            for batch in tf.data.Dataset.from_tensor_slices(x).batch(2):
                work()

        @tf.function
        def while_tensor(x):
            while tf.reduce_sum(x) < 10.0:
                x = x + 1.0

        @tf.function
        def python_range(n):
            for _ in range(3):
                work()

        @tf.function(autograph=False)
        def unconverted(n):
            for _ in tf.range(n):
                work()

        def eager(n):
            for _ in tf.range(n):
                work()

        def helper(n):
            for _ in tf.range(n):
                work()

        @tf.function
        def step(n):
            helper(n)

        helper(tf.constant(3))
        """
    )
    assert staged == {
        "over_range": True,
        "over_dataset": True,
        "while_tensor": True,
        "python_range": False,
        "unconverted": False,
        "eager": False,
        "helper": False,  # also called eagerly: there it iterates in Python
    }


# ---- what a function object captures, and what changes per repetition (captures.py) ------


def _varying(source: str, leaf: str) -> dict[str, str]:
    """Name -> kind of the captured values of the function jitted by the first `leaf(...)`
    call (its first argument) that change per repetition."""
    ctx = _context(source)
    path = _path_to_call(ctx.module, leaf)
    repetition = local_repetition(path)
    assert repetition is not None
    found = ctx.captures.varying(path[-1].args[0].value, path, repetition)  # type: ignore[attr-defined]
    assert found is not None
    return {c.name: c.kind for c in found}


def test_captured_values_that_change_per_pass_and_their_kinds():
    source = """
    import functools
    import jax
    import jax.numpy as jnp
    def f(x, **kw):
        return x
    def run(x, names, cfg):
        table = jnp.ones((4, 3))
        for name in ["a", "b"]:
            for i in range(3):
                row = table[i]
                same = cfg
                jax.jit(lambda y: f(y, name=name, i=i, row=row, cfg=same, g=f))(x)
    """
    # The inner loop repeats the jit: `name` (the outer loop's) does not change in it, nor do
    # `f` and `cfg`; `same` is rebound each pass to a value of unknown kind.
    assert _varying(source, "jit") == {"i": "count", "row": "array", "same": "unknown"}


def test_a_local_function_contributes_what_it_reads_and_a_mutated_object_what_it_stores():
    source = """
    import jax
    import jax.numpy as jnp
    def run(x, config, state):
        for k in ["lr", "wd"]:
            config[k] = 0.1
            state.w = jnp.zeros(3)
            def inner(y):
                return y * config[k] * state.w
            jax.jit(inner)(x)
    """
    assert _varying(source, "jit") == {"config": "python", "k": "python", "state": "array"}


def test_a_repeated_functions_parameter_changes_only_where_its_loop_call_changes_it():
    source = """
    import jax
    import jax.numpy as jnp
    def evaluate(state, obs, name):
        @jax.jit
        def policy(o):
            return state * o * len(name)
        label = name + "!"
        jax.jit(lambda o: policy(o) + len(label))(obs)
    def main(obs):
        state = jnp.zeros(3)
        for step in range(5):
            state = state + 1.0
            evaluate(state, obs, "fixed")
    """
    # `state` changes per call (an array), `name` is the same string at the only loop call.
    assert _varying(source, "jit") == {"state": "array"}
    # A new string per call: `name` is configuration, and so may be `label`, derived from it
    # (its kind is the function's own analysis's, where parameters are unknown).
    moved = source.replace('"fixed")', "str(step))")
    assert _varying(moved, "jit") == {"label": "unknown", "name": "python", "state": "array"}


def test_an_if_on_a_setting_the_loop_assigns_rebuilds_only_when_it_changes():
    source = """
    import jax
    def run(x, sizes):
        last = None
        for i, size in enumerate(sizes):
            changed = size != last
            if changed:
                jax.jit(lambda y: y * size)(x)
            if i % 10 == 0:
                jax.jit(lambda y: y * 2)(x)
            last = size
    """
    ctx = _context(source)
    guarded = _path_to_call(ctx.module, "jit")
    assert ctx.captures.recompile_guard(guarded)
    stack = [[ctx.module]]
    periodic = None
    while stack:
        path = stack.pop()
        node = path[-1]
        if type(node) is cst.If and "i % 10" in ctx.module.code_for_node(node.test):
            periodic = [*path, node.body]
        stack.extend([*path, child] for child in iter_children(node))
    assert periodic is not None
    assert not ctx.captures.recompile_guard(periodic)


def _all_varying(source: str) -> list[dict[str, str]]:
    """`_varying` for every `jax.jit(...)` call, in source order."""
    ctx = _context(source)
    kinds = []
    stack: list[list[cst.CSTNode]] = [[ctx.module]]
    while stack:
        path = stack.pop()
        node = path[-1]
        if type(node) is cst.Call and ctx.module.code_for_node(node.func) == "jax.jit":
            repetition = local_repetition(path)
            assert repetition is not None
            found = ctx.captures.varying(node.args[0].value, path, repetition)  # type: ignore[attr-defined]
            assert found is not None
            kinds.append({c.name: c.kind for c in found})
        stack.extend([*path, child] for child in reversed(iter_children(node)))
    return kinds


def test_a_loop_value_that_decides_the_program_is_a_size_not_a_step_count():
    source = """
    import functools
    import jax
    import jax.numpy as jnp
    SETTINGS = [{"width": 2}, {"width": 3}]
    def stack(y, depth):
        for _ in range(depth):
            y = jnp.tanh(y)
        return y
    def scale(y, factor):
        return y * factor
    def run(x, data):
        for n in range(1, 4):
            grid = jnp.linspace(0.0, 1.0, n)
            row = data[n]
            jax.jit(functools.partial(stack, depth=n))(x)
            jax.jit(functools.partial(scale, factor=n))(x)
            jax.jit(lambda y: jnp.zeros((n, 2)) + y * grid + row)(x)
        for i in range(2):
            jax.jit(lambda y: y * SETTINGS[i]["width"])(x)
    """
    # `depth` reaches `range`, `n` a shape, `grid` is shaped by `n`, `i` indexes a Python
    # list: one program per value. `factor` is arithmetic, so `n` is a step count there;
    # `row` is read from an argument whose kind is unknown.
    assert _all_varying(source) == [
        {"n": "size"},
        {"n": "count"},
        {"grid": "size", "n": "size", "row": "unknown"},
        {"i": "size"},
    ]
    # An array read by the step count keeps its shape: it should be an argument.
    local = source.replace("def run(x, data):", "def run(x):\n        data = jnp.ones((4, 2))")
    assert _all_varying(local)[2] == {"grid": "size", "n": "size", "row": "array"}


def test_unpacked_loop_targets_take_the_kinds_of_what_they_unpack():
    source = """
    import itertools
    import jax
    import jax.numpy as jnp
    def run(x, table):
        xs = jnp.ones((4, 3))
        for (lr, width), (xb, name) in zip(itertools.product([0.1], [2]), zip(xs, ["a"])):
            jax.jit(lambda y: y * lr * width * xb * len(name))(x)
        for step, (key, size) in enumerate({"small": 2}.items()):
            jax.jit(lambda y: y * step * len(key) * size)(x)
        for label, entry in table.items():
            jax.jit(lambda y: y * len(label) * entry)(x)
    """
    assert _all_varying(source) == [
        {"lr": "python", "name": "python", "width": "python", "xb": "array"},
        {"key": "python", "size": "python", "step": "count"},
        {"entry": "unknown", "label": "unknown"},
    ]


# ---- a grid of configurations: one fact, asked by TF's repeats and by JIT113 ------------


def _grid_calls(source: str, leaf: str, names: bool = True) -> list[bool]:
    """`passes_grid` for every call of `leaf(...)`, in order."""
    ctx = _context(source)
    found = []
    for call, path in sorted(
        scan_calls(ctx.module).loop_calls, key=lambda c: ctx.positions[c[0]].start.line
    ):
        func = call.func
        if type(func) is cst.Name and func.value == leaf:
            found.append(passes_grid(call, path, ctx.names if names else None))
    return found


def test_a_grid_of_configurations_is_every_loop_over_written_out_literals_it_passes():
    source = """
    DTYPES = ("float32", "bfloat16")
    SIZES = [2, 4]
    SIZES = load()
    def sweep(x, xs):
        for fft in [True, False]:
            for size in [None, (20, 20), -1]:
                run(x, fft=fft, size=size)
        for dtype, n in (("float32", 2), ("bfloat16", 3)):
            run(x, dtype, n)
        for dtype in DTYPES:
            run(x, dtype)
        for dtype in DTYPES:
            run(x)
        for x in xs:
            run(x)
        for dtype in DTYPES:
            for x in xs:
                run(x, dtype)
        for dtype in DTYPES:
            [run(y, dtype) for y in xs]
        for n in SIZES:
            run(x, n)
        for n in range(3):
            run(x, n)
        for n in [x, 2]:
            run(x, n)
    """
    assert _grid_calls(source, "run") == [
        True,  # nested written-out lists, each element passed
        True,  # tuple targets over a tuple of tuples
        True,  # a name bound once to a tuple of literals
        False,  # the element is not passed: the same call each pass
        False,  # data
        False,  # a data loop inside the grid repeats one configuration
        False,  # so does a comprehension
        False,  # a name bound twice
        False,  # a count
        False,  # not all literals
    ]
    # Without the module's names only what is written out in place is a grid.
    assert _grid_calls(source, "run", names=False)[:3] == [True, True, False]


def test_a_grid_may_name_values_that_exist_already_and_configure_under_an_if():
    source = """
    import tensorflow as tf
    from codes import Flooding, Layered
    FAST = "fast"
    def sweep(x, a, b):
        for dt in (tf.float32, tf.float64):
            run(x, dt)
        for schedule in [FAST, Flooding, Layered]:
            run(x, schedule)
        for v in [a, b]:
            run(x, v)
        for v in [make(), b]:
            run(x, v)
        for dt in (tf.float32, tf.float64):
            if dt == tf.float64:
                precision = "double"
            else:
                precision = "single"
            run(x, precision)
        for dt in (tf.float32, tf.float64):
            precision = "single"
            run(x, precision)
        for model in [Unbound, FAST]:
            run(x, model)
    """
    assert _grid_calls(source, "run") == [
        True,  # attribute chains
        True,  # names bound once: an assignment, imports
        False,  # parameters: data
        False,  # a value made per element
        True,  # bound under an `if` on the element
        False,  # bound the same way on every pass
        False,  # a name bound nowhere the module shows
    ]
    # Without the module's names, only literals.
    assert _grid_calls(source, "run", names=False)[:2] == [False, False]


def _per_grid(source: str, leaf: str) -> list[bool]:
    """`Captures.per_grid` for the function jitted by each `leaf(...)` call, in order."""
    ctx = _context(source)
    found = []
    calls = _calls(ctx.module, leaf)
    for call, path in sorted(calls, key=lambda c: ctx.positions[c[0]].start.line):
        repetition = local_repetition(path)
        assert repetition is not None
        found.append(ctx.captures.per_grid(call.args[0].value, path, repetition))
    return found


def _calls(module: cst.Module, leaf: str) -> list[tuple[cst.Call, list[cst.CSTNode]]]:
    found = []
    stack: list[list[cst.CSTNode]] = [[module]]
    while stack:
        path = stack.pop()
        node = path[-1]
        func = getattr(node, "func", None)
        if type(node) is cst.Call and type(func) is cst.Attribute and func.attr.value == leaf:
            found.append((node, path))
        stack.extend([*path, child] for child in iter_children(node))
    return found


def test_a_jitted_function_that_captures_each_configuration_of_a_grid():
    source = """
    import jax
    DTYPES = ("float32", "bfloat16")
    def check(x, dtype, scale):
        return jax.jit(lambda y: y.astype(dtype) * scale)(x)
    def other(x, dtype):
        return jax.jit(lambda y: y * 2)(x)
    def sweep(x, xs):
        for dtype in DTYPES:
            for scale in [1, 2]:
                jax.jit(lambda y: y.astype(dtype) * scale)(x)
                jax.jit(lambda y: y.astype(dtype))(x)
        for dtype in DTYPES:
            check(x, dtype, 1.0)
            other(x, dtype)
        for x in xs:
            jax.jit(lambda y: y * 2)(x)
        for dtype in DTYPES:
            [jax.jit(lambda y: y.astype(dtype))(z) for z in xs]
    """
    assert _per_grid(source, "jit") == [
        True,  # `check`: every call that repeats it passes a grid's element it captures
        False,  # `other` captures nothing of it
        True,  # both loops' elements captured
        False,  # `scale` is not: the same function twice per dtype
        False,  # data batches: the same closure each pass
        False,  # a comprehension over data inside the grid
    ]
    # A call that repeats `check` from a data loop too: not every pass is a configuration.
    more = source.rstrip() + "\n    for z in xs:\n        check(z, z, 1.0)\n"
    assert _per_grid(more, "jit")[0] is False


def test_grid_pass_reads_the_names_a_function_object_captures():
    module = cst.parse_module("for d in ['a', 'b']:\n    f(lambda: d)\n")
    path = _path_to_call(module, "f")
    assert grid_pass(path, {"d"})
    assert not grid_pass(path, {"e"})


def test_a_memoized_function_is_not_repeated_by_its_loop_calls():
    # An `lru_cache`d or `cache`d function runs its body once per distinct arguments: the
    # jit it builds and runs is built once per setting, however often the loop asks.
    source = """
        import functools
        from functools import lru_cache
        import jax
        import jax.numpy as jnp
        def scale(x, n):
            return x * n
        @functools.lru_cache(maxsize=None)
        def table(n):
            return jax.jit(functools.partial(scale, n=n))(jnp.arange(4.0))
        @lru_cache
        def helper(n):
            inner(n)
        def inner(n):
            return jax.jit(functools.partial(scale, n=n))(jnp.arange(4.0))
        def uncached(n):
            return jax.jit(functools.partial(scale, n=n))(jnp.arange(4.0))
        def main():
            for step in range(100):
                table(3)
                helper(3)
                uncached(3)
        """
    assert _codes(source) == [("JIT113", 17)]
