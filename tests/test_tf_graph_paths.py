"""Graph contexts as may/must per path: which functions MAY run as graph code, which MUST
(TF calls them, or every caller the file shows is graph code), the root of the path as data,
and what the graph-only rules say about a helper that eager code calls too."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jitlint.engine.linter import lint_text
from jitlint.model.context import FileContext
from jitlint.model.library.versions import OPTIONS_KEY
from jitlint.model.tf.function import GraphContext, graph_path_note, graph_site
from jitlint.python.walker import iter_children


def contexts(source: str) -> dict[str, GraphContext | None]:
    """Per function (`name`, or `Class.name` for a method): its graph context."""
    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    ctx = FileContext(module, "m.py", source)
    found: dict[str, GraphContext | None] = {}
    stack: list[tuple[cst.CSTNode, str]] = [(module, "")]
    while stack:
        node, prefix = stack.pop()
        if type(node) is cst.FunctionDef:
            found[prefix + node.name.value] = ctx.tf.function_context(node)
        elif type(node) is cst.ClassDef:
            prefix = f"{node.name.value}."
        stack.extend((child, prefix) for child in iter_children(node))
    return found


def path_of(context: GraphContext | None) -> tuple[bool, str, str] | None:
    """(must, root kind, root name), or None for a function with no graph context."""
    if context is None:
        return None
    return context.must, context.root_kind, context.root_name


def test_a_helper_only_graph_code_calls_must_run_as_graph_code():
    found = contexts(
        """
        import tensorflow as tf
        def inner(x): return x + 1
        def helper(x): return inner(x) * 2
        @tf.function
        def step(x): return helper(x)
        """
    )
    assert path_of(found["step"]) == (True, "tf.function", "step")
    assert path_of(found["helper"]) == (True, "tf.function", "step")
    assert path_of(found["inner"]) == (True, "tf.function", "step")
    assert found["step"].root and not found["helper"].root


def test_a_helper_eager_code_calls_too_may_run_as_graph_code():
    found = contexts(
        """
        import tensorflow as tf
        def inner(x): return x + 1
        def helper(x): return inner(x) * 2
        def only_eager(x): return x
        @tf.function
        def step(x): return helper(x)
        print(helper(tf.ones([2])), only_eager(1))
        """
    )
    assert path_of(found["step"]) == (True, "tf.function", "step")  # TF calls it
    assert path_of(found["helper"]) == (False, "tf.function", "step")
    # Called only from `helper`, which runs eagerly at module level: eager there too.
    assert path_of(found["inner"]) == (False, "tf.function", "step")
    assert found["only_eager"] is None  # reached only from eager code: no graph context


@pytest.mark.parametrize(
    "eager_call",
    [
        "def main():\n    return helper(1.0)",  # a plain function (never called: still eager)
        "@tf.function\ndef other(x):\n    if tf.executing_eagerly():\n"
        "        return helper(x)\n    return x",  # the eager branch of graph code
    ],
)
def test_eager_callers_that_are_not_at_module_level(eager_call):
    found = contexts(
        "import tensorflow as tf\n"
        "def helper(x): return x * 2\n"
        "@tf.function\n"
        "def step(x): return helper(x)\n" + eager_call + "\n"
    )
    assert path_of(found["helper"]) == (False, "tf.function", "step")


def test_a_graph_root_called_eagerly_stays_a_must():
    # Calling a tf.function from eager code runs its graph: the body is graph code.
    found = contexts(
        """
        import tensorflow as tf
        @tf.function
        def step(x): return x
        step(tf.ones([2]))
        """
    )
    assert path_of(found["step"]) == (True, "tf.function", "step")


def test_root_kinds_and_names():
    found = contexts(
        """
        import tensorflow as tf
        from tensorflow import keras
        def parse(x): return x
        def my_loss(y, p): return tf.reduce_mean(y - p)
        class Block(keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.scale = self._scale(2.0)
            def _scale(self, v): return v * 2
            def call(self, x): return self._scale(x)
        ds = tf.data.Dataset.range(3).map(parse)
        model = keras.Sequential([Block()])
        model.compile(loss=my_loss)
        """
    )
    assert path_of(found["parse"]) == (True, "tf.data", "parse")
    assert path_of(found["my_loss"]) == (True, "loss", "my_loss")
    assert path_of(found["Block.call"]) == (True, "keras", "Block.call")
    # `__init__` runs eagerly and calls `_scale` too.
    assert path_of(found["Block._scale"]) == (False, "keras", "Block.call")
    assert found["Block.__init__"] is None


def test_the_path_note_for_messages():
    found = contexts(
        """
        import tensorflow as tf
        def helper(x): return x
        def graph_only(x): return x
        @tf.function
        def step(x): return helper(x) + graph_only(x)
        helper(1)
        """
    )
    assert graph_path_note(found["helper"]) == " when called from `step`"
    assert graph_site(found["helper"]) == "`tf.function` when called from `step`"
    assert graph_path_note(found["graph_only"]) == " (through `step`)"
    assert graph_site(found["graph_only"]) == "`tf.function` (through `step`)"
    assert graph_path_note(found["step"]) == ""  # the finding is in the root itself


RAISING_HELPER = """\
import tensorflow as tf


def check(x):
    if tf.reduce_sum(x) > 0:
        raise ValueError("positive")
    return x
{graph}{eager}"""
GRAPH_CALLER = "\n\n@tf.function\ndef step(x):\n    return check(x) * 2\n"
EAGER_CALLER = "\n\nprint(check(tf.constant([1.0])))\n"


@pytest.mark.parametrize(
    ("graph", "eager", "expected"),
    [
        (GRAPH_CALLER, "", "in `tf.function` (through `step`): autograph"),  # graph only
        (GRAPH_CALLER, EAGER_CALLER, "in `tf.function` when called from `step`: autograph"),
        ("", EAGER_CALLER, None),  # eager only: the hazard never happens
    ],
)
def test_a_graph_only_rule_names_the_path_it_holds_on(graph, eager, expected):
    source = RAISING_HELPER.format(graph=graph, eager=eager)
    found = lint_text(source, "m.py", {"JIT205"}, {OPTIONS_KEY: {}}).diagnostics
    if expected is None:
        assert found == []
        return
    assert [d.line for d in found] == [6]
    assert expected in found[0].message


LOOP_HELPER = """\
import tensorflow as tf


def apply_each(xs):
    out = []
    for x in xs:
        f = tf.function(lambda v: v + 1)
        out.append(f(x))
    return out


@tf.function
def step(x):
    return apply_each([x, x])
{eager}"""


@pytest.mark.parametrize(
    ("eager", "flagged"),
    [
        ("", False),  # graph code only: the nested tf.function is traced into `step` once
        ("\n\nprint(apply_each([tf.constant(1.0), tf.constant(2.0)]))\n", True),
    ],
)
def test_an_eager_only_hazard_holds_on_the_eager_path_of_a_may_helper(eager, flagged):
    # JIT207 (a new tf.function per loop iteration) is a hazard of eager code: a helper
    # that graph code calls is exempt only when no eager code calls it too.
    source = LOOP_HELPER.format(eager=eager)
    found = lint_text(source, "m.py", {"JIT207"}, {OPTIONS_KEY: {}}).diagnostics
    assert [d.line for d in found] == ([7] if flagged else [])


KERAS_CALLS_DECORATED = """\
import tensorflow as tf


@tf.function{options}
def guard(loss):
    if tf.math.is_nan(loss):
        return 0.0
    return loss


def plain(labels):
    if tf.equal(tf.size(labels), 0):
        return 0.0
    return tf.reduce_mean(labels)


class Head(tf.keras.layers.Layer):
    def call(self, x):
        return guard(plain(x))


class Spectral(tf.keras.layers.Layer):
    @tf.function{options}
    def call(self, x, n=3):
        for _ in tf.range(n):
            x = x * 2.0
        return x
"""


@pytest.mark.parametrize(
    ("options", "lines"),
    [
        # Its own decorator converts a `tf.function`'s body, whoever calls it (observed on
        # TF 2.21 / Keras 3.15: under `fit` and a `tf.function`); `plain` is reached only
        # from the Keras 3 `call`, which autograph does not convert.
        ("", [12]),
        ("(autograph=False)", [6, 12, 25]),
    ],
)
def test_a_tf_function_called_from_a_keras_call_keeps_its_own_autograph(options, lines):
    source = KERAS_CALLS_DECORATED.format(options=options)
    found = lint_text(source, "m.py", {"JIT205"}, {OPTIONS_KEY: {}}).diagnostics
    assert [d.line for d in found] == lines


PHASE_SETTING = """\
import tensorflow as tf

TRAIN, PREDICT = "train", "predict"
PHASE = TRAIN


def set_phase(phase: str):
    global PHASE
    PHASE = {value}


def get_phase():
    return PHASE


class Head(tf.keras.layers.Layer):
    def call(self, x):
        if get_phase() == TRAIN:
            return x * 2
        return x


class Net(tf.keras.Model):
    def train_step(self, data):
        set_phase(TRAIN)
        return {{"loss": self.head(data)}}
{more}"""


@pytest.mark.parametrize(
    ("value", "more", "flagged"),
    [
        # A mode set by the step and read, while tracing, by the layers it calls: a setting
        # of the trace, which needs the write once per trace.
        ("phase", "", False),
        # Read by code that runs eagerly too: it sees the last trace's value, not the call's.
        ("phase", "\n\nprint(get_phase())\n", True),
        ("phase", "\n\nif PHASE == TRAIN:\n    print('training')\n", True),
        # The program calls the setter eagerly as well: a setting of its own, which graph code
        # only sets as it traces (may path of the setter).
        ("phase", "\n\nset_phase(PREDICT)\nprint(get_phase())\n", False),
        # A counter, or a tensor kept past its trace, is no setting.
        ("PHASE + phase", "", True),
        ("tf.constant(phase)", "", True),
    ],
)
def test_a_global_setting_read_only_while_tracing_is_not_a_side_effect(value, more, flagged):
    source = PHASE_SETTING.format(value=value, more=more)
    found = lint_text(source, "m.py", {"JIT208"}, {OPTIONS_KEY: {}}).diagnostics
    assert [d.line for d in found] == ([9] if flagged else [])
