"""False positives found on research code (bench/research.py, issues 27 and 28), each as a
minimal negative shaped like the real code, beside a positive neighbour that stays found."""

from __future__ import annotations

import textwrap
from pathlib import Path

from helpers import found
from test_project import check, where, write

TRAINING_UTILS = """\
import tensorflow as tf


def training_step(epochs, data):
    loss = single_epoch(data)
    for _ in tf.range(epochs - 1):
        loss = single_epoch(data)
    return loss


def single_epoch(data):
    @tf.function
    def on_minibatch(indices):
        return tf.reduce_sum(tf.gather(data, indices))

    for indices in tf.split(tf.range(8), 4):
        loss = on_minibatch(indices)
    return loss
"""


def _unnamed_package(tmp_path: Path, learner: str) -> Path:
    """A repository that is its own package, checked out under a folder name that is no
    identifier (`owner+seed`, `seed-main`): its files import it as `seed`."""
    root = tmp_path / "owner+seed"
    write(root, {"__init__.py": "", "utils.py": TRAINING_UTILS, "learner.py": learner})
    return root


def test_a_package_folder_named_otherwise_resolves_its_own_imports(tmp_path):
    # The learner's tf.function traces training_step, so the tf.range loop is a graph loop
    # and on_minibatch is made only while the learner traces (seed_rl's PPO step).
    root = _unnamed_package(
        tmp_path,
        """\
        import tensorflow as tf
        from seed import utils

        class Learner:
            @tf.function
            def minimize(self):
                return utils.training_step(3, self.data)
        """,
    )
    status, found, err = check(root, ".")
    assert status == 0, (found, err)


def test_an_eager_caller_still_makes_the_inner_function_repeatedly(tmp_path):
    root = _unnamed_package(
        tmp_path,
        """\
        import tensorflow as tf
        from seed import utils

        def main(data):
            for _ in range(10):
                utils.training_step(3, data)
        """,
    )
    _, found, _ = check(root, ".")
    assert ("utils.py", 12, "JIT207") in where(found)


ENCODER = """\
import tensorflow as tf


class Encoder(tf.keras.layers.Layer):
    def call(self, image):
        check = tf.Assert(tf.reduce_max(image) <= 1.0, [tf.reduce_max(image)])
        with tf.control_dependencies([check]):
            return image * 255.0
"""
TOKENIZER = """\
import tensorflow as tf
from pkg import encoder


class Tokenizer(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self._encoder = encoder.Encoder()

    def call(self, image):
        return self._encoder(image)
"""


def _layers(tmp_path: Path, user: str) -> Path:
    files = {"pkg/__init__.py": "", "pkg/encoder.py": ENCODER, "pkg/tokenizer.py": TOKENIZER}
    return write(tmp_path, {**files, "pkg/network.py": user})


def test_a_layer_used_only_by_a_network_of_another_library_is_not_at_auto(tmp_path):
    # robotics_transformer: the tokenizer layer lives in a tf_agents network, which no Keras
    # loop runs; the file that creates it has no Keras class of its own.
    root = _layers(
        tmp_path,
        """\
        import tensorflow as tf
        from agents_lib import network
        from pkg import tokenizer

        class Network(network.Network):
            def __init__(self):
                super().__init__()
                self._tokenizer = tokenizer.Tokenizer()
        """,
    )
    status, found, err = check(root)
    assert status == 0, (found, err)


def test_a_layer_in_a_model_left_at_auto_is_still_reported(tmp_path):
    root = _layers(
        tmp_path,
        """\
        import keras
        from pkg import tokenizer

        def build():
            model = keras.Sequential([keras.Input((8, 8, 3)), tokenizer.Tokenizer()])
            model.compile(loss="mse")
            return model
        """,
    )
    _, found, _ = check(root)
    assert ("pkg/encoder.py", 6, "JIT209") in where(found)


def _retracing(source: str) -> set[tuple[int, str]]:
    return found(textwrap.dedent(source), {"JIT207"})


def test_a_tf_function_made_once_per_host_and_kept_is_not_a_retrace():
    # seed_rl's server set-up: per host, functions bound to that host's server and stored
    # on it, a factory per inference device whose results are collected, never called in
    # the loop.
    assert not _retracing(
        """
        import tensorflow as tf

        def init_servers(hosts, specs):
            for host in hosts:
                server = make_server(host)

                @tf.function(input_signature=[])
                def pending():
                    return host.done < host.wanted

                def make_inference(device):
                    @tf.function(input_signature=specs)
                    def inference(x):
                        return host.agent(x)

                    return inference

                def make_config(config):
                    @tf.function(input_signature=[])
                    def get_config():
                        return config

                    return get_config

                host.inference_fns = [make_inference(d) for d in host.devices]
                host.pending = pending
                server.bind(pending)
                server.bind(make_config(host.config))
                server.bind([make_inference(d) for d in host.devices])
        """
    )


def test_a_tf_function_made_and_called_in_each_iteration_is_still_a_retrace():
    assert _retracing(
        """
        import tensorflow as tf

        def evaluate(hosts, x):
            for host in hosts:
                @tf.function
                def pending():  # called right away: made again every iteration
                    return host.done < host.wanted

                host.pending = pending
                pending()

                def make_step(scale):
                    @tf.function
                    def step(v):
                        return v * scale

                    return step

                make_step(2.0)(x)
                per_host = tf.function(lambda v: v + 1)
                tf.while_loop(lambda i: i < 3, per_host, [0])
        """
    ) == {(6, "JIT207"), (14, "JIT207"), (21, "JIT207")}


def test_a_container_of_cells_owns_no_variable_but_the_cells_made_with_it_do():
    # seed_rl's agent test: cells made in a helper that graph code calls, stacked to ask
    # for an initial state; the cells are the state made on every trace, not the stack.
    assert found(
        """
        import tensorflow as tf

        def initial_state(batch_size):
            cells = [tf.keras.layers.LSTMCell(size) for size in [256]]
            stack = tf.keras.layers.StackedRNNCells(cells)
            return stack.get_initial_state(batch_size=batch_size, dtype=tf.float32)

        @tf.function
        def unroll(x):
            both = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(4))
            return both(x), initial_state(3)
        """,
        {"JIT206"},
    ) == {(5, "JIT206"), (11, "JIT206")}


def test_a_jit_rebuilt_only_when_a_flag_asks_for_it_is_not_a_jit_per_iteration():
    # tapnet's clustering loop: the partial's static values change only when a fork sets
    # need_compile again; the guarded body clears it.
    source = """
        import functools
        import jax

        def update(state, batch, num_cats):
            return state

        def train(state, batches, forks):
            num_cats = 2
            need_compile = True
            for step, batch in enumerate(batches):
                if step in forks:
                    num_cats += 1
                    need_compile = True
                if need_compile:
                    update_jit = jax.jit(functools.partial(update, num_cats=num_cats))
                    need_compile = False
                state = update_jit(state, batch)
                if step % 10 == 0:
                    logged = jax.jit(functools.partial(update, num_cats=num_cats))
                    logged(state, batch)
            return state
        """
    assert found(source, {"JIT113"}) == {(20, "JIT113")}


def test_a_list_annotation_of_a_jitted_op_handed_to_a_dispatcher_is_not_a_value():
    # jaxonnxruntime's Unsqueeze: the handler fills `axis` with tuples and returns the
    # jitted op for the runtime to call with the node's attributes.
    handler = """
        import functools
        import jax
        import jax.numpy as jnp

        class Unsqueeze:
            @classmethod
            def version_13(cls, node, inputs):
                node.attrs["axis"] = tuple(inputs[1].tolist())
                return onnx_unsqueeze

        @functools.partial(jax.jit, static_argnames="axis")
        def onnx_unsqueeze(*inputs, axis: list[int]):
            return jnp.expand_dims(inputs[0], axis)
        """
    assert not found(handler, {"JIT110"})
    # Called in its module with the parameter, or never mentioned (an API): the annotation
    # is what callers go by.
    called = handler + "\n        onnx_unsqueeze(jnp.ones(3), axis=axes_from_config())\n"
    assert found(called, {"JIT110"}) == {(12, "JIT110")}
    api = """
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnames="axis")
        def unsqueeze(x, axis: list[int]):
            return jnp.expand_dims(x, axis)
        """
    assert found(api, {"JIT110"}) == {(6, "JIT110")}


def test_numpy_split_of_a_tracer_is_not_a_conversion():
    """scenic's `np.split(input_mask, indices, axis=1)` under jit: NumPy's split slices and
    calls `swapaxes` on the array, so it works on a tracer (run under jax 0.10.2); NumPy's
    arithmetic on a piece still converts it."""
    source = textwrap.dedent(
        """
        import jax
        import numpy as np

        @jax.jit
        def masks(mask):
            first, rest = np.split(mask, [2], axis=1)
            return first, np.sin(rest)  # error: JIT104
        """
    )
    assert found(source, {"JIT104"}) == {(8, "JIT104")}


SEGMENTS = """\
import jax
import jax.numpy as jnp


def segment(x, num_segments=None, segment_ids=None):
    if segment_ids is not None:
        return jax.ops.segment_sum(x, segment_ids, num_segments=num_segments)
    if num_segments is None:
        num_segments = 2
    else:
        assert num_segments == 2
    return x.reshape(num_segments, -1)
"""

DIVERGENCE = """\
from typing import Optional

from pkg import segments


def divergence(x, num_segments: Optional[int] = None, segment_ids=None, sizes=None):
    return segments.segment(x, num_segments=num_segments, segment_ids=segment_ids)
"""


def _segment_project(tmp_path: Path, call: str) -> Path:
    """A function jitted in a test file of the project and called there with `call`; it
    hands its parameters on to a function of a third file (ott-jax's segmented divergence).
    `Optional[int]` says an int may be passed, which jit would trace."""
    test = f"""\
        import jax
        import jax.numpy as jnp
        from pkg import divergence

        def test_divergence():
            jitted = jax.jit(divergence.divergence, static_argnames=["sizes"])
            return {call}
        """
    files = {"__init__.py": "", "segments.py": SEGMENTS, "divergence.py": DIVERGENCE}
    write(tmp_path / "pkg", files)
    write(tmp_path, {"test_divergence.py": test})
    return tmp_path


def test_a_parameter_no_call_of_the_jitted_function_passes_keeps_its_default(tmp_path):
    # Every call leaves num_segments and segment_ids at None: no tracer reaches either branch.
    root = _segment_project(tmp_path, "jitted(jnp.ones(4), sizes=(2, 2))")
    status, found, err = check(root, ".")
    assert status == 0, (found, err)


def test_a_parameter_a_call_of_the_jitted_function_passes_is_traced(tmp_path):
    root = _segment_project(tmp_path, "jitted(jnp.ones(4), num_segments=2)")
    _, found, _ = check(root, ".")
    assert ("pkg/segments.py", 11, "JIT101") in where(found)


def test_a_jitted_function_that_escapes_keeps_every_defaulted_parameter_open(tmp_path):
    # Handed on, it may be called with anything: the parameter is not known to stay None.
    root = _segment_project(tmp_path, "(jitted(jnp.ones(4)), [jitted])")
    _, found, _ = check(root, ".")
    assert ("pkg/segments.py", 11, "JIT101") in where(found)


def _maker_project(tmp_path: Path, use: str) -> Path:
    """The same jitted function made by a local factory that returns `jax.jit(partial(...))`,
    the factory's result called at once (FoldJAX's backend comparison script)."""
    test = f"""\
        from functools import partial

        import jax
        import jax.numpy as jnp
        from pkg import divergence

        def test_divergence():
            def make(sizes):
                return jax.jit(partial(divergence.divergence, sizes=sizes))

            return {use}
        """
    files = {"__init__.py": "", "segments.py": SEGMENTS, "divergence.py": DIVERGENCE}
    write(tmp_path / "pkg", files)
    write(tmp_path, {"test_divergence.py": test})
    return tmp_path


def test_a_parameter_no_call_of_a_factorys_jitted_function_passes_keeps_its_default(tmp_path):
    root = _maker_project(tmp_path, "make((2, 2))(jnp.ones(4)), make((1, 3))(jnp.ones(4))")
    status, found, err = check(root, ".")
    assert status == 0, (found, err)


def test_a_parameter_a_call_of_a_factorys_jitted_function_passes_is_traced(tmp_path):
    root = _maker_project(tmp_path, "make((2, 2))(jnp.ones(4), num_segments=2)")
    _, found, _ = check(root, ".")
    assert ("pkg/segments.py", 11, "JIT101") in where(found)


def test_a_factorys_jitted_function_that_escapes_keeps_every_defaulted_parameter_open(tmp_path):
    root = _maker_project(tmp_path, "make((2, 2))(jnp.ones(4)), make((2, 2))")
    _, found, _ = check(root, ".")
    assert ("pkg/segments.py", 11, "JIT101") in where(found)


PLACEMENT = """\
import tensorflow as tf


def on_device(f, device):
    def wrapper(*args):
        with tf.device(device):
            return f(*args)

    return wrapper


def jit(f, device=None):
    return tf.function(on_device(f, device))
"""


def _placement_project(tmp_path: Path, loop: str) -> Path:
    """A jax-like `jit` that returns a tf.function for its caller to keep, and a test of
    another file that calls it in a loop (sonnet's functional API)."""
    test = (
        "import tensorflow as tf\n"
        "from pkg import placement\n\n\n"
        "def accelerators():\n"
        '    return [d.name for d in tf.config.list_logical_devices("GPU")]\n\n\n'
        "def test_placement(x, dataset):\n" + textwrap.indent(textwrap.dedent(loop), "    ")
    )
    files = {"__init__.py": "", "placement.py": PLACEMENT, "placement_test.py": test}
    return write(tmp_path / "pkg", files).parent


def test_a_factory_called_once_per_device_of_a_list_makes_no_retrace(tmp_path):
    # Each iteration builds the function for another device and traces it once.
    root = _placement_project(
        tmp_path,
        """\
        for device in accelerators():
            y = placement.jit(lambda v: v, device=device)(x)
        """,
    )
    status, found, err = check(root)
    assert status == 0, (found, err)


def test_a_factory_called_once_per_batch_of_a_dataset_still_retraces(tmp_path):
    root = _placement_project(
        tmp_path,
        """\
        for batch in dataset:
            y = placement.jit(lambda v: v, device="GPU:0")(batch)
        """,
    )
    _, found, _ = check(root)
    assert ("pkg/placement.py", 13, "JIT207") in where(found)


def test_a_local_factory_called_per_element_of_a_list_makes_no_retrace():
    source = """\
        import tensorflow as tf

        def devices():
            return [d.name for d in tf.config.list_logical_devices("GPU")]

        def jit(f, device):
            def wrapper(*args):
                with tf.device(device):
                    return f(*args)
            return tf.function(wrapper)

        def per_device(x):
            for device in devices():
                jit(abs, device)(x)

        def per_batch(dataset):
            for batch in dataset:
                jit(abs, batch)(batch)
        """
    assert _retracing(source) == {(10, "JIT207")}  # the dataset's loop: per batch
    assert not _retracing(source[: source.index("        def per_batch")])


def test_a_function_that_makes_and_runs_a_tf_function_per_element_still_retraces():
    # Not a factory: each chunk of a list goes through a tf.function made for it, the same
    # work traced again for every chunk (epitome's run_predictions).
    source = """\
        import tensorflow as tf

        def predict(model, batches):
            @tf.function
            def step(x):
                return model(x)
            return [step(b) for b in batches]

        def main(model, data):
            chunks = [data[i : i + 4] for i in range(0, 16, 4)]
            for chunk in chunks:
                predict(model, chunk)
        """
    assert _retracing(source) == {(4, "JIT207")}


# ---- round 3 session 4, JAX dev block: internal errors that hid a whole project's findings ----
SOURCE_WITH_SUPER_FIELD = """\
import equinox as eqx
import jax


class Component(eqx.Module):
    bbox: tuple
    x: jax.Array

    def __call__(self):
        return self.x


class Source(Component):
    def __call__(self):
        base = super()
        model = base.__call__()
        model = jax.lax.dynamic_slice(model, base.bbox, (2,))
        if model.sum() > 0:  # error: JIT101
            return model
        return -model


@jax.jit
def render(x):
    return Source((0,), x)()
"""


def test_a_base_class_field_read_through_super_is_unknown_not_a_crash(tmp_path):
    # scarlet2's Source.__call__ reads `super().bbox`, a field of its equinox base: the
    # lookup found a field where the member code expected a method (KeyError in JIT107).
    write(tmp_path, {"source.py": SOURCE_WITH_SUPER_FIELD})
    status, reported, err = check(tmp_path, ".")
    assert status == 1, err
    assert "internal error" not in err, err
    assert where(reported) == [("source.py", 18, "JIT101")]


def test_one_line_calling_a_helper_by_position_and_by_keyword_is_no_crash(tmp_path):
    # kfac-jax's tests call one imported helper twice on a line, once positionally and once
    # by keyword: sorting the two records compared the keyword None with a str.
    write(
        tmp_path,
        {
            "util.py": """\
            def h(x=None, y=None):
                if x > 0:  # traced when a jitted caller passes an array to x
                    return x
                return y
            """,
            "main.py": """\
            import jax
            from util import h


            @jax.jit
            def step(a):
                return h(a) + h(y=a)
            """,
        },
    )
    status, reported, err = check(tmp_path, ".")
    assert status == 1, err
    assert "internal error" not in err, err
    assert where(reported) == [("util.py", 2, "JIT101")]


# An equinox module's public methods are traced by contract, its constructor only where the
# project asks (`assume-traced = ["module-constructors"]`): scarlet2's `Scene.fit` and its
# renderers' constructors run in Python at set-up. Even then, one whose parameters the code
# never says are arrays is a setup or driver step, not traced; one that takes an array is.
EQUINOX_SETUP_METHODS = """\
import equinox as eqx
import jax
import jax.numpy as jnp


class Renderer(eqx.Module):
    box: tuple
    weights: jax.Array

    def __init__(self, model_frame, obs_frame):
        low = jnp.floor(jnp.min(obs_frame.coords(model_frame)))
        self.box = (int(low), 8)
        self.weights = jnp.ones(8)

    def fit(self, observations, *args, max_iter=100):
        scale = jnp.where(self.weights.sum() > 0, 2.0, 1.0)
        return float(scale), observations

    def render(self, image: jax.Array):
        if image.sum() > 0:  # error: JIT101
            return image
        return -image
"""


def test_equinox_setup_methods_without_array_parameters_are_not_traced_by_contract(tmp_path):
    write(tmp_path, {"renderer.py": EQUINOX_SETUP_METHODS})
    for asked in ((), ("--assume-traced", "module-constructors")):
        status, reported, err = check(tmp_path, *asked, ".")
        assert status == 1, err
        assert where(reported) == [("renderer.py", 20, "JIT101")]


# e3nn-jax: a routine takes an array or a pytree class of its own, and past its isinstance
# guard reads the class's static metadata; a jitted caller in another file passes a plain
# array, which the guard turns away before the metadata is read.
TAGGED = """\
import jax


class Tagged:
    def __init__(self, tags, array):
        self.tags = tags
        self.array = array


jax.tree_util.register_pytree_node(
    Tagged, lambda t: ((t.array,), t.tags), lambda tags, c: Tagged(tags, c[0])
)


def _check_single(tags):
    [(count, name)] = tags
    if not (count == 1 and name == "a"):
        raise ValueError("one tag")
    return name


def first_tag(out, input):
    if isinstance(out, int):
        if not isinstance(input, Tagged):
            raise ValueError("need a Tagged")
        return _check_single(input.tags)
    return None


def flipped(input):
    if input.T[0, 0] > 0:
        return input
    return -input
"""


def _tagged(tmp_path: Path, user: str) -> Path:
    return write(tmp_path, {"pkg/__init__.py": "", "pkg/tagged.py": TAGGED, "pkg/conv.py": user})


def test_an_attribute_arrays_lack_read_past_an_isinstance_guard_is_not_traced(tmp_path):
    root = _tagged(
        tmp_path,
        """\
        import jax
        import jax.numpy as jnp
        from pkg import tagged

        @jax.jit
        def kernel(x):
            grid = jnp.stack([x, x])
            return tagged.first_tag(3, input=grid)
        """,
    )
    status, found, err = check(root)
    assert status == 0, (found, err)


def test_an_array_valued_attribute_of_the_passed_array_stays_traced(tmp_path):
    root = _tagged(
        tmp_path,
        """\
        import jax
        import jax.numpy as jnp
        from pkg import tagged

        @jax.jit
        def kernel(x):
            grid = jnp.stack([x, x])
            return tagged.flipped(grid)
        """,
    )
    _, found, _ = check(root)
    assert ("pkg/tagged.py", 31, "JIT101") in where(found)


# learned_optimization: a jitted step in one file aggregates its metrics with a helper of
# another file, asking for the `jax.random` branch with a literal True that the helper passes
# on; the NumPy draw of the other branch never runs under the trace.
SUMMARY = """\
import jax
import numpy as onp


def aggregate(v, use_jnp=False, key=None):
    if use_jnp:
        i = jax.random.randint(key, [], 0, v.shape[0])
    else:
        i = onp.random.randint(0, v.shape[0])
    return v[i]


def aggregate_all(values, use_jnp=False, key=None):
    return {k: aggregate(v, use_jnp=use_jnp, key=key) for k, v in values.items()}
"""


def _summary(tmp_path: Path, use_jnp: str) -> Path:
    step = f"""\
        import jax
        from pkg import summary

        @jax.jit
        def step(x, key):
            return summary.aggregate_all({{"loss": x}}, use_jnp={use_jnp}, key=key)
        """
    files = {"pkg/__init__.py": "", "pkg/summary.py": SUMMARY, "pkg/train.py": step}
    return write(tmp_path, files)


def test_a_literal_flag_passed_to_another_file_decides_its_branch(tmp_path):
    status, found, err = check(_summary(tmp_path, "True"))
    assert status == 0, (found, err)


def test_the_draw_the_literal_flag_asks_for_stays_reported(tmp_path):
    _, found, _ = check(_summary(tmp_path, "False"))
    assert ("pkg/summary.py", 9, "JIT107") in where(found)


# mace-jax: a scatter helper computes its output size from the index only when the caller
# gives none; the traced caller in another file passes a shape element, an int.
SCATTER = """\
import jax


def scatter_sum(src, index, dim_size=None):
    if dim_size is None:
        dim_size = int(index.max()) + 1
    return jax.ops.segment_sum(src, index, num_segments=dim_size)
"""


def _scatter(tmp_path: Path, size: str) -> Path:
    model = f"""\
        import jax
        from pkg.scatter import scatter_sum

        @jax.jit
        def message(x, receiver):
            return scatter_sum(x, receiver{size})
        """
    files = {"pkg/__init__.py": "", "pkg/scatter.py": SCATTER, "pkg/model.py": model}
    return write(tmp_path, files)


def test_a_size_passed_from_another_file_as_a_shape_element_is_not_none(tmp_path):
    status, found, err = check(_scatter(tmp_path, ", dim_size=x.shape[0]"))
    assert status == 0, (found, err)


def test_a_size_left_out_by_the_traced_caller_stays_reported(tmp_path):
    _, found, _ = check(_scatter(tmp_path, ""))
    assert ("pkg/scatter.py", 6, "JIT102") in where(found)


# mace-jax again: the other traced callers pass the first dimension of what a layer built
# from another file's wrapper class returned (`node_feats = self.linear_up(node_feats)`), or
# `ctx.num_graphs`, an `int` field of a NamedTuple that a function of a third file returns.
GRAPH = """\
from typing import NamedTuple, Optional

import jax.numpy as jnp


class GraphContext(NamedTuple):
    num_graphs: int
    vectors: jnp.ndarray
    num_heads: Optional[int]
    label: object


def prepare_graph(data, heads=None):
    vectors = jnp.asarray(data["vectors"])
    num_graphs = int(data["ptr"].shape[0] - 1)
    return GraphContext(num_graphs=num_graphs, vectors=vectors, num_heads=heads, label=heads)
"""

WRAPPERS = """\
from flax import nnx


class Linear:
    def __new__(cls, n_in, n_out, rngs=None):
        return nnx.Linear(n_in, n_out, rngs=rngs)
"""


def _graph(tmp_path: Path, energy_size: str, block_size: str = "node_feats.shape[0]") -> Path:
    models = f"""\
        from flax import nnx

        from pkg.scatter import scatter_sum
        from pkg.utils import prepare_graph


        class Energy(nnx.Module):
            def __call__(self, data, x):
                ctx = prepare_graph(data)
                return scatter_sum(x, data["batch"], dim_size={energy_size})
        """
    blocks = f"""\
        import jax.numpy as jnp
        from flax import nnx

        from pkg.scatter import scatter_sum
        from pkg.wrappers import Linear


        class Block(nnx.Module):
            def __init__(self, n, *, rngs: nnx.Rngs) -> None:
                self.linear_up = Linear(n, n, rngs=rngs)

            def __call__(self, node_feats: jnp.ndarray, edge_index: jnp.ndarray):
                node_feats = self.linear_up(node_feats)
                mji = node_feats[edge_index[0]]
                return scatter_sum(mji, edge_index[1], dim_size={block_size})
        """
    files = {
        "pkg/__init__.py": "",
        "pkg/scatter.py": SCATTER,
        "pkg/utils.py": GRAPH,
        "pkg/wrappers.py": WRAPPERS,
        "pkg/models.py": models,
        "pkg/blocks.py": blocks,
    }
    return write(tmp_path, files)


def test_a_layer_output_dimension_and_an_int_field_of_another_file_are_not_none(tmp_path):
    status, found, err = check(_graph(tmp_path, "ctx.num_graphs"))
    assert status == 0, (found, err)
    # Arithmetic of such ints is an int too.
    status, found, err = check(_graph(tmp_path, "ctx.num_graphs + 1", "node_feats.shape[0] * 2"))
    assert status == 0, (found, err)


def test_a_field_declared_optional_or_unannotated_stays_maybe_none(tmp_path):
    for size in ("ctx.num_heads", "ctx.label"):
        _, found, _ = check(_graph(tmp_path, size))
        assert ("pkg/scatter.py", 6, "JIT102") in where(found), size


def test_a_traced_caller_that_passes_none_among_ints_stays_reported(tmp_path):
    _, found, _ = check(_graph(tmp_path, "ctx.num_graphs", "None"))
    assert ("pkg/scatter.py", 6, "JIT102") in where(found)
    # ... or a value that is None on one path.
    block = "node_feats.shape[0] if edge_index.ndim == 2 else None"
    _, found, _ = check(_graph(tmp_path, "ctx.num_graphs", block))
    assert ("pkg/scatter.py", 6, "JIT102") in where(found)


CHAIN_COUNT = """\
import jax
import jax.numpy as jnp


def heads(x, n_chains: int | None = None):
    if n_chains is None:
        n_chains = int(x.max()) + 1
    return jnp.stack([x * i for i in range(n_chains)])


def run(x, n_chains{annotation}, scale: float = 1.0):
    return heads(x, n_chains=n_chains) * scale


def main(x, n):
    return jax.jit(run, static_argnums=(1,))(x, n)
"""


def test_a_static_argument_annotated_as_a_python_int_is_never_none():
    # FoldJAX's ESMFold2: the chain count travels as a static `int`, read off the host data.
    assert not found(CHAIN_COUNT.format(annotation=": int"), {"JIT102"})


def test_a_static_argument_that_may_be_none_still_reaches_the_fallback():
    for annotation in ("", ": int | None", ": int = None"):
        source = CHAIN_COUNT.format(annotation=annotation)
        assert found(source, {"JIT102"}) == {(7, "JIT102")}, annotation
