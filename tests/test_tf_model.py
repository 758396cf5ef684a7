"""The TensorFlow model (analysis/tf_*.py): graph and XLA contexts, values, dtypes."""

from __future__ import annotations

import textwrap
from itertools import pairwise

import libcst as cst
import pytest

from jitlint.model.context import FileContext
from jitlint.model.tf.dtypes import _calls_in
from jitlint.python.walker import iter_children


def model(source: str) -> tuple[FileContext, dict[str, object]]:
    """The context and, per function name, its graph context (None when not graph code)."""
    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    ctx = FileContext(module, "m.py", source)
    found: dict[str, object] = {}
    stack: list[cst.CSTNode] = [module]
    from jitlint.python.walker import iter_children

    while stack:
        node = stack.pop()
        if type(node) is cst.FunctionDef:
            found[node.name.value] = ctx.tf.function_context(node)
        stack.extend(iter_children(node))
    return ctx, found


def test_tf_function_spellings():
    _, found = model(
        """
        import tensorflow as tf
        from functools import partial
        from tensorflow import function as tf_function
        @tf.function
        def plain(x): return x
        @tf.function(jit_compile=True)
        def xla(x): return x
        @tf.function(experimental_compile=True, autograph=False)
        def old_xla(x): return x
        @partial(tf.function, jit_compile=True)
        def via_partial(x): return x
        @tf_function(input_signature=[tf.TensorSpec([None])])
        def signed(x, y): return x
        def bound(x): return x
        fast = tf.function(bound, jit_compile=True, reduce_retracing=True)
        def eager(x): return x
        @tf.function(jit_compile=FLAG)
        def unknown_flag(x): return x
        """
    )
    assert found["eager"] is None
    assert found["plain"].xla is False and found["plain"].autograph
    assert found["xla"].xla and found["via_partial"].xla and found["bound"].xla
    assert found["old_xla"].xla and not found["old_xla"].autograph
    assert found["signed"].tensor_params == {"x"}  # the one spec covers `x` only
    assert found["unknown_flag"].xla is False  # UNKNOWN never counts as XLA


def test_names_resolve_through_imports():
    _, found = model(
        """
        import mylib as tf
        @tf.function(jit_compile=True)
        def f(x): return x
        """
    )
    assert found["f"] is None


def test_helpers_nested_functions_and_callbacks_inherit():
    _, found = model(
        """
        import tensorflow as tf
        def leaf(x): return x
        def helper(x): return leaf(x)
        def only_eager(x): return x
        @tf.function(jit_compile=True)
        def step(x):
            def body(i, acc): return i + 1, acc + helper(x)
            return tf.while_loop(lambda i, acc: i < 3, body, [0, 0.0])
        only_eager(1)
        """
    )
    assert found["helper"].xla and not found["helper"].root
    assert found["leaf"].xla
    assert found["body"].xla
    assert found["only_eager"] is None


def test_tf_data_and_do_not_convert():
    _, found = model(
        """
        import tensorflow as tf
        def parse(x): return x
        def keep(x): return x
        def unrelated(x): return x
        ds = tf.data.Dataset.range(4).map(parse, num_parallel_calls=4).filter(keep)
        items = [1, 2]
        out = map(unrelated, items)
        @tf.autograph.experimental.do_not_convert
        def raw(x): return x
        g = tf.function(raw)
        """
    )
    assert found["parse"] is not None and found["keep"] is not None
    assert found["unrelated"] is None
    assert found["raw"].autograph is False


def test_empty_module_has_no_graph_code():
    ctx, _ = model("")
    assert ctx.tf.contexts == {}


def _contexts_by_class(source: str) -> dict[str, object]:
    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    ctx = FileContext(module, "m.py", source)
    out: dict[str, object] = {}
    for stmt in module.body:
        if type(stmt) is cst.ClassDef:
            for item in stmt.body.body:
                if type(item) is cst.FunctionDef:
                    out[f"{stmt.name.value}.{item.name.value}"] = ctx.tf.function_context(item)
    return out


def test_keras_linking_per_class():
    found = _contexts_by_class(
        """
        import tensorflow as tf
        from tensorflow import keras
        class Inner(keras.layers.Layer):
            def call(self, x): return x
        class Outer(keras.Model):
            def __init__(self):
                super().__init__()
                self.inner = Inner()
            def call(self, x): return self.inner(x)
            def train_step(self, data): return {}
        class Unused(keras.layers.Layer):
            def call(self, x): return x
        class Legacy(tf_keras.layers.Layer):
            def call(self, x): return x
        class NotKeras:
            def call(self, x): return x
        def build():
            model = Outer()
            model.compile(loss="mse", jit_compile=True)
        import tf_keras
        """
    )
    assert found["Outer.call"].xla and found["Outer.train_step"].xla
    assert found["Inner.call"].xla  # created by the compiled model
    assert found["Unused.call"] is not None and not found["Unused.call"].xla
    assert found["Outer.call"].autograph is False  # Keras 3 runs call without autograph
    assert found["Legacy.call"].autograph is True  # tf_keras (Keras 2) autographs it
    assert found["NotKeras.call"] is None
    assert found["Outer.__init__"] is None


def _value_of(source: str, marker: str):
    """The value and dtype of the expression on the line that ends with `# <marker>`."""
    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    ctx = FileContext(module, "m.py", source)
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    target_line = next(i for i, line in enumerate(source.splitlines(), 1) if f"# {marker}" in line)

    result = {}

    class Finder(cst.CSTVisitor):
        def __init__(self):
            self.stack = []

        def on_visit(self, node):
            self.stack.append(node)
            if (
                type(node) is cst.Assign
                and positions[node].start.line == target_line
                and "value" not in result
            ):
                path = [*self.stack, node.value]
                result["value"] = ctx.tf.values.value(node.value, path)
                result["dtype"] = ctx.tf.dtypes.dtype(node.value, path)
            return True

        def on_leave(self, node):
            self.stack.pop()

    module.visit(Finder())
    return result["value"], result["dtype"]


@pytest.mark.parametrize(
    ("line", "kind", "origins"),
    [
        ("v = tf.shape(x)[0] // 2  # here", "tensor", set()),
        ("v = x.shape[0]  # here", "python", set()),
        ("v = tf.reduce_max(x)  # here", "tensor", {"param"}),
        ("v = tf.random.uniform([], 0, 3, dtype=tf.int32)  # here", "tensor", {"rng"}),
        ("v = x  # here", "unknown", {"param"}),
        ("v = counter + 1  # here", "tensor", {"variable"}),
    ],
)
def test_value_origins_in_xla_code(line, kind, origins):
    value, _ = _value_of(
        f"""
        import tensorflow as tf
        counter = None
        @tf.function(jit_compile=True)
        def f(x):
            counter = tf.Variable(1)
            {line}
            return v
        """,
        "here",
    )
    assert value.kind == kind and set(value.origins) == origins


def test_loop_variables_are_never_constant():
    value, _ = _value_of(
        """
        import tensorflow as tf
        @tf.function(jit_compile=True)
        def f(x):
            for i in tf.range(3):
                v = i + 1  # here
            return x
        """,
        "here",
    )
    assert value.kind == "tensor" and value.origins == {"loop"}


@pytest.mark.parametrize(
    ("expr", "dtype"),
    [
        ("tf.constant(1.0)", "float32"),
        ("tf.constant([1, 2])", "int32"),
        ("tf.constant(1.0, dtype=FLOAT)", "float64"),
        ("tf.cast(x, FLOAT)", "float64"),
        ("tf.constant(np.ones(3))", "float64"),
        ("tf.zeros([2], 'float16')", "float16"),
        ("tf.zeros([2])", "float32"),
        ("tf.zeros([2], dtype='float16')", "float16"),
        ("tf.exp(tf.cast(x, tf.double))", "float64"),
        ("x", None),
    ],
)
def test_dtypes(expr, dtype):
    _, found = _value_of(
        f"""
        import numpy as np
        import tensorflow as tf
        FLOAT = tf.float64
        def f(x):
            v = {expr}  # here
            return v
        """,
        "here",
    )
    assert found == dtype


def test_a_keras_class_owns_state_when_it_makes_weights_or_sublayers_with_variables():
    ctx, _ = model(
        """
        import tensorflow as tf
        from tensorflow import Variable as V
        from store import Variable
        class Weighted(tf.keras.layers.Layer):
            def build(self, shape):
                self.w = self.add_weight(shape=(), initializer="ones")
        class Counter(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.counts = [V(0)]  # in a list: found as a variable, not a sublayer
        class Dense(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.inner = tf.keras.layers.Dense(3)
        class Padded(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.pad = tf.keras.layers.ZeroPadding2D((1, 1))
                self.kind = "pad"
        class Foreign(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.values = [Variable(1.0)]  # not TensorFlow's or Keras's
        """
    )
    classes = {n.name.value: n for n in ctx.module.body if type(n) is cst.ClassDef}
    owns = {name: ctx.tf.owns_state(cls) for name, cls in classes.items()}
    assert owns == {
        "Weighted": True,
        "Counter": True,
        "Dense": True,
        "Padded": False,
        "Foreign": False,
    }


def test_dataset_elements_that_vary_in_shape():
    """`varying_element_shapes`: padded per batch, bucketed, a generator's `None` length
    through shape-keeping steps vary; fixed padded shapes, a plain `.batch`, a ragged or
    unspelled generator signature, and an unknown step (`.map`) do not."""
    source = textwrap.dedent(
        """
        import tensorflow as tf
        spec = tf.TensorSpec([None], tf.int32)
        gen = tf.data.Dataset.from_generator(g, output_signature=spec)
        a = gen.padded_batch(4).prefetch(1)
        b = gen.apply(tf.data.experimental.bucket_by_sequence_length(f, [3], [2, 2]))
        c = gen.batch(1).shuffle(8)
        d = gen.padded_batch(4, padded_shapes=[16])
        e = tf.data.Dataset.range(10).batch(3)
        f = tf.data.Dataset.from_generator(g, output_types=tf.int32)
        h = tf.data.Dataset.from_generator(g, output_signature=tf.RaggedTensorSpec([None, None]))
        i = gen.padded_batch(4).map(crop)
        j = gen.padded_batch(4, [None])
        """
    )
    module = cst.parse_module(source)
    ctx = FileContext(module, "m.py", source)
    why = {}
    for stmt in module.body:
        small = stmt.body[0]  # type: ignore[attr-defined]
        if type(small) is not cst.Assign:
            continue
        target = small.targets[0].target
        if target.value in "abcdefhij":
            why[target.value] = ctx.tf.varying_element_shapes(small.value, [module, stmt, small])
    assert why["a"] is not None and "padded_batch" in why["a"]
    assert why["b"] is not None and "bucket_by_sequence_length" in why["b"]
    assert why["c"] is not None and "from_generator" in why["c"]
    assert why["j"] is not None and "padded_batch" in why["j"]
    assert [k for k in "defhi" if why[k] is not None] == []


def test_project_imports_name_modules_as_written():
    # Joined without a codegen where the name is plain; spaces and line continuations
    # inside a dotted name are kept as the source writes them.
    ctx, _ = model(
        """
        import pkg.sub.mod
        import pkg . spaced as sp
        from .rel.inner import (helper as h, other)
        from .. import up
        from pkg.\\
            cont import thing
        """
    )
    dotted = [name for _, _, name in ctx.tf.project_imports()]
    assert dotted == [
        "pkg.sub.mod",
        "pkg . spaced",
        ".rel.inner.helper",
        ".rel.inner.other",
        "..up",
        "pkg.\\\n    cont.thing",
    ]


def test_dtype_call_sites_are_every_call_in_walk_order():
    ctx, _ = model(
        """
        import tensorflow as tf
        @tf.function(jit_compile=True)
        def f(x, dtype=tf.float32):
            return tf.cast(g(x), dtype) + [h(y) for y in k(x)][0]
        class C:
            def m(self):
                return tf.constant(1.0, dtype=outer(inner()))
        """
    )
    calls = ctx.tf.dtypes.module_calls
    spelled = [ctx.module.code_for_node(call.func) for call, _ in calls]
    # The walker's order: a function's body before its decorators.
    assert spelled == ["tf.cast", "g", "h", "k", "tf.function", "tf.constant", "outer", "inner"]
    # The scan's walk gives what a walk of its own gave.
    module = ctx.module
    assert calls == list(_calls_in(module, (module,)))
    for call, path in calls:
        assert path[0] is ctx.module and path[-1] is call
        for parent, child in pairwise(path):
            assert any(c is child for c in iter_children(parent))


@pytest.mark.parametrize(
    ("source", "marked"),
    [
        ("f = tf.function(g)\n", True),
        ("@tf.function\ndef f(x):\n    return x\n", True),
        ("from tensorflow import function as tff\n", True),
        ("ds = ds.map(f)\n", True),
        ("class Net(keras.layers.Layer):\n    pass\n", True),
        ("model.compile(optimizer='adam')\n", True),
        ("m = load_model('m.keras')\n", True),
        ("m = keras.models.clone_model(base)\n", True),
        ("m = model_from_json(text)\n", True),
        ("net = Sequential([layer])\n", True),
        # Its call's spelling is in the text, but not as a word of its own.
        ("net = mySequential([layer])\n", False),
        ("net = Sequential\n", False),
        ("import tensorflow as tf\nx = tf.constant(1.0)\n", False),
        ("class Plain(object):\n    pass\n", False),
        ("def function_of(x):\n    return x\n", False),
    ],
)
def test_graph_code_needs_one_of_the_markers(source, marked):
    # Each marker is searched alone (model/tf/model.py `_has_graph_marker`).
    ctx, _ = model(source)
    assert ctx.tf.may_have_graph_code is marked
