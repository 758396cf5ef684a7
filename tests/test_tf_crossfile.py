"""TensorFlow/Keras instances across the files of a run (issue 28, item 2): constructor
arguments given in one file reach `__init__` and the `self` attributes of a class defined
in another; a Keras base class of another module makes its subclass a Keras class; a helper
of one file that graph code of another calls is graph code on that path, and eager too when
eager code calls it (item 3). All travel as the TF records (model/tf_records.py)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from test_project import check, where, write

from jitlint import lint_source
from jitlint.model.context import FileContext
from jitlint.model.jax.crossfile.records import record_from_json
from jitlint.model.project.tf_outbound import tf_outbound
from jitlint.model.tf_records import TfInbound, TfRecord, decode_arguments, encode_arguments

TF_CODES = "JIT2"  # every TensorFlow rule
BASE = "import tensorflow as tf\n\n\nclass Base(tf.keras.layers.Layer):\n    pass\n"

LAYERS = """\
import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def __init__(self, units, dtype_=None):
        super().__init__()
        self.units = units
        self.dtype_ = dtype_

    def call(self, x):
        w = tf.ones([self.units], dtype=self.dtype_)
        if self.units > 2:
            w = w * 2.0
        return w + tf.constant([1.0, 2.0])
"""


def tf_findings(files: dict[str, str], tmp_path) -> list[tuple[object, object, object]]:
    root = write(tmp_path, {"pkg/__init__.py": "", **files})
    status, found, err = check(root, "--select", TF_CODES, "pkg")
    assert status in (0, 1), err
    return where(found)


# ---- constructor arguments reach `__init__` and `self` -----------------------------------
@pytest.mark.parametrize(
    "creation",
    [
        "Scale(4, dtype_=tf.float64)",
        "Scale(4, tf.float64)",
        'Scale(units=4, dtype_="float64")',
        "Scale(4, dtype_=DOUBLE)",  # a name of the creating module bound to a dtype
    ],
)
def test_a_dtype_given_in_another_file_reaches_the_attribute(tmp_path, creation):
    train = (
        "import tensorflow as tf\nfrom pkg.layers import Scale\n"
        f"DOUBLE = tf.float64\nlayer = {creation}\n"
    )
    assert tf_findings({"pkg/layers.py": LAYERS, "pkg/train.py": train}, tmp_path) == [
        ("pkg/layers.py", 14, "JIT201")
    ]
    # Only the creation in the other file says float64: alone, the layer's file is clean.
    assert lint_source(LAYERS, "pkg/layers.py") == []


@pytest.mark.parametrize(
    "creations",
    [
        "Scale(4, dtype_=tf.float32)",  # the constant's own dtype: no mismatch
        "Scale(4)",  # left at its default, None: float32
        "Scale(4, dtype_=chosen)",  # unknown stays unknown
        "Scale(4, dtype_=tf.float64), Scale(4, dtype_=chosen)",  # one of them unknown
        "Scale(4, dtype_=tf.float64), Scale(4, dtype_=tf.float32)",  # two dtypes: unknown
        "Scale(4, **options)",  # a `**` argument may give it
    ],
)
def test_no_finding_without_one_known_dtype(tmp_path, creations):
    train = (
        "import tensorflow as tf\nfrom pkg.layers import Scale\n\n\n"
        f"def make(chosen, options):\n    return [{creations}]\n"
    )
    assert tf_findings({"pkg/layers.py": LAYERS, "pkg/train.py": train}, tmp_path) == []


def test_a_python_int_attribute_stays_python(tmp_path):
    # `self.units` is 4: the `if` on it and the shape made from it are Python, under a
    # tf.function compiled with XLA too; no finding of a tensor in either.
    train = """\
import tensorflow as tf
from pkg.layers import Scale

layer = Scale(4, dtype_=tf.float32)


@tf.function(jit_compile=True)
def step(x):
    return layer(x)
"""
    assert tf_findings({"pkg/layers.py": LAYERS, "pkg/train.py": train}, tmp_path) == []


def test_the_layer_dtype_given_where_it_is_created(tmp_path):
    layers = """\
import tensorflow as tf


class Shift(tf.keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def call(self, x):
        return x + tf.constant([1.0, 2.0])
"""
    for dtype, expected in (('"float64"', [("pkg/layers.py", 9, "JIT201")]), ('"float32"', [])):
        train = f"import keras\nfrom pkg import layers\n\nmodel = layers.Shift(dtype={dtype})\n"
        found = tf_findings({"pkg/layers.py": layers, "pkg/train.py": train}, tmp_path)
        assert found == expected, dtype


SUBLAYER = """\
import tensorflow as tf


class Block(tf.keras.layers.Layer):
    def __init__(self, units, dtype=None):
        super().__init__()
        self.proj = tf.keras.layers.Dense(units, dtype=dtype)

    def call(self, x):
        return self.proj(x) + tf.constant([1.0, 2.0])
"""


@pytest.mark.parametrize(
    ("dtype", "expected"), [("tf.float64", [("pkg/block.py", 10, "JIT201")]), ("unknown", [])]
)
def test_a_sublayer_made_with_the_constructor_dtype(tmp_path, dtype, expected):
    train = (
        "import tensorflow as tf\nfrom pkg.block import Block\n\n\n"
        f"def make(unknown):\n    return Block(2, dtype={dtype})\n"
    )
    assert tf_findings({"pkg/block.py": SUBLAYER, "pkg/train.py": train}, tmp_path) == expected


def test_a_tensor_given_to_the_constructor_keeps_its_dtype(tmp_path):
    layers = """\
import tensorflow as tf


class Scaled(tf.keras.layers.Layer):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def call(self, x):
        return tf.constant([1.0, 2.0]) * self.scale
"""
    for scale, expected in (
        ("tf.constant(2.0, dtype=tf.float64)", [("pkg/layers.py", 10, "JIT201")]),
        ("tf.constant(2.0)", []),  # float32, as the other constant
        ("2.0", []),  # a Python float adapts
    ):
        train = (
            f"import tensorflow as tf\nfrom pkg.layers import Scaled\n\nlayer = Scaled({scale})\n"
        )
        found = tf_findings({"pkg/layers.py": layers, "pkg/train.py": train}, tmp_path)
        assert found == expected, scale


# ---- a Keras base class in another module --------------------------------------------------
SUB = """\
import tensorflow as tf
{imports}


class Sub({base}):
    def call(self, x):
        if tf.reduce_sum(x) > 0:
            return x
        return -x
"""


@pytest.mark.parametrize(
    ("imports", "base"),
    [
        ("from pkg.base import Base", "Base"),
        ("from .base import Base", "Base"),
        ("from pkg import base", "base.Base"),
        ("from pkg.base import Base as Root", "Root"),
    ],
)
def test_a_keras_base_class_of_another_module(tmp_path, imports, base):
    files = {
        "pkg/base.py": BASE,
        "pkg/sub.py": SUB.format(imports=imports, base=base),
    }
    # Its `call` is graph code by contract, as with the base in the same file.
    assert tf_findings(files, tmp_path) == [("pkg/sub.py", 7, "JIT205")]


@pytest.mark.parametrize("mentions_tf", ["import tensorflow\n", ""])
@pytest.mark.parametrize("spelled", ["from pkg.base import Base", "from . import base as Base"])
def test_a_keras_base_two_modules_away(tmp_path, mentions_tf, spelled):
    base = "Base" if spelled.endswith("import Base") else "Base.Base"
    files = {
        "pkg/base.py": BASE,
        "pkg/mid.py": f"{mentions_tf}{spelled}\n\n\nclass Mid({base}): ...\n",
        "pkg/sub.py": SUB.format(imports="from pkg.mid import Mid", base="Mid"),
    }
    assert tf_findings(files, tmp_path) == [("pkg/sub.py", 7, "JIT205")]


def test_a_chain_of_plain_classes_is_not_keras(tmp_path):
    files = {
        "pkg/base.py": "class Base:\n    pass\n",
        "pkg/mid.py": "from pkg.base import Base\n\n\nclass Mid(Base): ...\n",
        "pkg/sub.py": SUB.format(imports="from pkg.mid import Mid", base="Mid"),
    }
    assert tf_findings(files, tmp_path) == []


PLAIN_SUB = """\
from pkg.base import Base


class Sub(Base):
    def call(self, x):
        if x.numpy() > 0:
            print("positive", x)
        return x
"""


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        (BASE, [("pkg/sub.py", 6, "JIT204"), ("pkg/sub.py", 7, "JIT208")]),
        ("class Base:\n    pass\n", []),
    ],
)
def test_a_subclass_that_mentions_neither_tensorflow_nor_keras(tmp_path, base, expected):
    # Its base's file says the class is a Keras layer: its TF rules then read it.
    files = {"pkg/base.py": base, "pkg/sub.py": PLAIN_SUB}
    assert tf_findings(files, tmp_path) == expected


def test_a_plain_base_class_of_another_module_is_not_keras(tmp_path):
    files = {
        "pkg/base.py": "class Base:\n    pass\n",
        "pkg/sub.py": SUB.format(imports="from pkg.base import Base", base="Base"),
    }
    assert tf_findings(files, tmp_path) == []


# ---- graph code on a path: may / must across files ----------------------------------------
UTIL = """\
import tensorflow as tf


def check(x):
    if tf.reduce_sum(x) > 0:
        raise ValueError("positive")
    return x


def apply_each(xs):
    out = []
    for x in xs:
        f = tf.function(lambda v: v + 1)
        out.append(f(x))
    return out
{eager}"""
TRAIN = """\
import tensorflow as tf
from pkg.util import apply_each, check


@tf.function
def step(x):
    return check(x) * 2 + apply_each([x, x])[0]
{eager}"""
EAGER_CALL = "\n\nprint(check(tf.constant([1.0])), apply_each([tf.constant(1.0)]))\n"


@pytest.mark.parametrize(
    ("util_eager", "train_eager", "eager_path"),
    [
        ("", "", False),  # graph code only calls the helpers: must
        ("", EAGER_CALL, True),  # eager code of the calling file calls them too: may
        (EAGER_CALL, "", True),  # eager code of their own file
    ],
)
def test_a_helper_graph_code_of_another_file_calls(tmp_path, util_eager, train_eager, eager_path):
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/util.py": UTIL.format(eager=util_eager),
            "pkg/train.py": TRAIN.format(eager=train_eager),
        },
    )
    _status, found, err = check(root, "--select", "JIT205,JIT207", "pkg")
    # The graph-only hazard holds on the path from `step` in the other file, named so.
    graph = [d for d in found if d["code"] == "JIT205"]
    assert where(graph) == [("pkg/util.py", 6, "JIT205")], err
    message = str(graph[0]["message"])
    assert "in `tf.function` (through `step`), reached from pkg/train.py:" in message
    # The eager-only hazard (a new tf.function per iteration) holds on an eager path only.
    eager = [d for d in found if d["code"] == "JIT207"]
    assert where(eager) == ([("pkg/util.py", 13, "JIT207")] if eager_path else [])


def _context(source: str, inbound: list[TfInbound], name: str) -> object:
    module = cst.parse_module(source)
    ctx = FileContext(module, "pkg/util.py", source)
    ctx.tf_inbound = list(inbound)
    func = next(s for s in module.body if type(s) is cst.FunctionDef and s.name.value == name)
    return ctx.tf.function_context(func)


def test_received_graph_and_eager_calls_make_a_may_context():
    source = UTIL.format(eager="")
    graph = TfInbound("check", "pkg/train.py", "graph", origin="`tf.function`")
    eager = TfInbound("check", "pkg/main.py", "eager")
    assert _context(source, [graph], "check").must  # type: ignore[attr-defined]
    may = _context(source, [graph, eager], "check")
    assert may is not None and not may.must  # type: ignore[attr-defined]
    assert "reached from pkg/train.py" in may.origin  # type: ignore[attr-defined]
    assert _context(source, [eager], "check") is None  # eager only: no graph context


# ---- the records ---------------------------------------------------------------------------
def _outbound(source: str) -> list[TfRecord]:
    source = textwrap.dedent(source)
    ctx = FileContext(cst.parse_module(source), "pkg/train.py", source)
    return tf_outbound(ctx.tf, source)


def test_creations_and_eager_calls_are_recorded():
    records = _outbound(
        """
        import numpy as np
        import tensorflow as tf
        from pkg.layers import Scale
        from pkg.util import check

        def make(n, *rest):
            return Scale(n, tf.float64, data=np.ones(3), size=4, scale=tf.constant(1.0), *rest)

        check(tf.ones([2]))
        """
    )
    new = [r for r in records if r.kind == "new"]
    assert [r.target for r in new] == ["pkg.layers.Scale"]
    assert decode_arguments(new[0].status) == [
        (None, "?"),
        (None, "dtype:float64"),
        ("data", "?"),
        ("size", "py"),
        ("scale", "tensor:float32"),
        ("*", "?"),
    ]
    assert [r.target for r in records if r.kind == "eager"] == ["pkg.util.check"]
    for record in new:
        assert record_from_json(record.to_json()) == record  # through the JSON cache


def test_eager_calls_of_names_imported_over_several_lines_are_recorded():
    records = _outbound(
        """
        import tensorflow as tf
        from pkg.util import (check,  # the first line
                              set_mode)
        from pkg.errors import \\
            report as tell

        def run():
            set_mode("predict")
            tell(tf.ones([2]))
        """
    )
    eager = sorted(r.target for r in records if r.kind == "eager")
    assert eager == ["pkg.errors.report", "pkg.util.set_mode"]


def test_malformed_creation_arguments_say_nothing():
    assert decode_arguments("not json") is None
    assert decode_arguments('[["dtype", 3]]') is None
    assert decode_arguments(encode_arguments([("dtype", "dtype:float64")])) == [
        ("dtype", "dtype:float64")
    ]


def test_a_subclass_of_a_local_class_exports_its_bases_of_other_modules():
    # WordEmbedder's base is known only through TextInputter's: the runner can follow it to
    # a Keras class before this file is linted with its base's facts (OpenNMT-tf).
    records = _outbound(
        """
        import tensorflow as tf
        from pkg import inputter
        from pkg.mixins import Adapter


        class TextInputter(inputter.Inputter):
            pass


        class WordEmbedder(TextInputter, Adapter):
            pass


        class Plain:
            pass


        class Child(Plain):
            pass
        """
    )
    exports = {r.target: r.status for r in records if r.kind == "export"}
    assert exports["TextInputter"] == "keras:?pkg.inputter.Inputter"
    assert exports["WordEmbedder"] == "keras:?pkg.inputter.Inputter,pkg.mixins.Adapter"
    assert "Child" not in exports


# ---- a factory another file's comprehension keeps, one function per element ---------------
_FACTORY = """\
import tensorflow as tf


def make_fn(f, scale):
    fn = lambda x: f(x) * scale
    fn = tf.function(fn, jit_compile=True)
    return fn
"""


@pytest.mark.parametrize(
    ("user", "expected"),
    [
        # Each element's function is kept in the list and called later: one trace each.
        ("fns = [emp.make_fn(f, scale=s) for s in scales]\n    return [g(x) for g in fns]", []),
        ("fns = {s: emp.make_fn(f, scale=s) for s in scales}\n    return fns", []),
        # Made and called at once on the data of each pass: the same work traced again.
        ("return [emp.make_fn(f, scale=2.0)(x) for x in xs]", [("pkg/emp.py", 6, "JIT207")]),
    ],
)
def test_a_factory_kept_per_element_by_another_files_comprehension(tmp_path, user, expected):
    header = "import tensorflow as tf\nfrom pkg import emp\n\n\n"
    source = f"{header}def run(f, scales, x, xs):\n    {user}\n"
    found = tf_findings({"pkg/emp.py": _FACTORY, "pkg/use.py": source}, tmp_path)
    assert [(str(p), line, code) for p, line, code in found] == expected


# ---- a grid of configurations in another file, reaching a factory one call down ----------
_VISUALIZE = """\
import tensorflow as tf


def _make_step(scale):
    @tf.function
    def step(image):
        return image * scale

    return step


def visualize(image, scale=1.0, steps=8):
    step = _make_step(scale)
    for _ in range(steps):
        image = step(image)
    return image
"""


@pytest.mark.parametrize(
    ("loops", "expected"),
    [
        # Every pass is a new configuration from written-out lists: one trace each.
        ("for scale in [0.5, 2.0]:\n        for steps in [2, 4]:", []),
        # A range is a count, not a grid (an epoch loop retraces the same step).
        ("for scale in range(3):\n        for steps in [2, 4]:", [("pkg/vis.py", 5, "JIT207")]),
        # A data loop inside the grid repeats one configuration.
        ("for scale in [0.5, 2.0]:\n        for steps in batches:", [("pkg/vis.py", 5, "JIT207")]),
    ],
)
def test_a_grid_of_configurations_in_another_file_rebuilds_per_configuration(
    tmp_path, loops, expected
):
    source = (
        "import tensorflow as tf\nfrom pkg import vis\n\n\n"
        f"def test_grid(image, batches):\n    {loops}\n"
        "            vis.visualize(image, scale=scale, steps=steps)\n"
    )
    found = tf_findings({"pkg/vis.py": _VISUALIZE, "pkg/test_vis.py": source}, tmp_path)
    assert [(str(p), line, code) for p, line, code in found] == expected


@pytest.mark.parametrize(
    ("header", "loops", "expected"),
    [
        # A module-level tuple of literals, bound once, is as written out as a list in place.
        ("SCALES = (0.5, 2.0)\n", "for scale in SCALES:\n        for steps in [2, 4]:", []),
        # Rebound later, it may hold anything by the time the loop runs.
        (
            "SCALES = (0.5, 2.0)\nSCALES = load()\n",
            "for scale in SCALES:\n        for steps in [2, 4]:",
            [("pkg/vis.py", 5, "JIT207")],
        ),
    ],
)
def test_a_grid_over_a_module_level_tuple_of_literals(tmp_path, header, loops, expected):
    source = (
        f"import tensorflow as tf\nfrom pkg import vis\n{header}\n\n"
        f"def test_grid(image, batches):\n    {loops}\n"
        "            vis.visualize(image, scale=scale, steps=steps)\n"
    )
    found = tf_findings({"pkg/vis.py": _VISUALIZE, "pkg/test_vis.py": source}, tmp_path)
    assert [(str(p), line, code) for p, line, code in found] == expected


def test_a_repeat_record_keeps_its_grid_flag_through_json():
    record = TfRecord(".vis.visualize", 7, "repeat", per_element=True, grid=True)
    assert record_from_json(record.to_json()) == record
    old = {"tf": [".vis.visualize", 7, "repeat", "", False, False, True, "", 0, True]}
    assert record_from_json(old) == TfRecord(".vis.visualize", 7, "repeat", per_element=True)


# ---- what graph code of another file passes a helper ("graph" records' arguments) ----------
EDGES = """\
import numpy as np
import tensorflow as tf


def add_loops(edge_index, num_nodes, scale=None):
    loops = tf.stack([tf.range(num_nodes)] * 2, axis=0)
    grown = tf.concat([edge_index, loops], axis=1)
    if not tf.is_tensor(edge_index):
        grown = grown.numpy()
    return grown
"""

LOOP_LAYER = """\
import numpy as np
import tensorflow as tf
from pkg.edges import add_loops

TABLE = np.array([[0, 1], [1, 0]])


class SelfLoops(tf.keras.layers.Layer):
    def call(self, inputs):
        x, edge_index = inputs[0], inputs[1]
        return add_loops({edge_index}, tf.shape(x)[0])
"""


def test_a_keras_input_passed_to_another_file_is_a_tensor_there(tmp_path):
    # Keras converts NumPy inputs before `call`: the helper's NumPy branch never runs there.
    files = {"pkg/edges.py": EDGES, "pkg/layers.py": LOOP_LAYER.format(edge_index="edge_index")}
    assert tf_findings(files, tmp_path) == []


def test_a_numpy_table_passed_to_another_file_keeps_the_branch(tmp_path):
    files = {"pkg/edges.py": EDGES, "pkg/layers.py": LOOP_LAYER.format(edge_index="TABLE")}
    assert tf_findings(files, tmp_path) == [("pkg/edges.py", 9, "JIT204")]


def test_a_whole_input_passed_to_another_file_may_be_a_list(tmp_path):
    # `tf.is_tensor` of a list of tensors is False: the helper's NumPy branch runs.
    files = {
        "pkg/edges.py": EDGES,
        "pkg/layers.py": LOOP_LAYER.replace("inputs[0], inputs[1]", "inputs[0], inputs").format(
            edge_index="edge_index"
        ),
    }
    assert tf_findings(files, tmp_path) == [("pkg/edges.py", 9, "JIT204")]


def test_graph_records_carry_what_each_argument_is():
    records = _outbound(
        """
        import numpy as np
        import tensorflow as tf
        from pkg.edges import add_loops

        @tf.function(input_signature=[tf.TensorSpec([2, 3])])
        def step(x, *rest):
            add_loops(tf.ones([2, 3]), 4, scale=np.ones(2), *rest)
            add_loops(x, 4)
            return add_loops(tf.ones([2, 3]), 4)
        """
    )
    graph = sorted((r for r in records if r.kind == "graph"), key=lambda r: r.status)
    assert [r.target for r in graph] == ["pkg.edges.add_loops"] * 3
    assert [decode_arguments(r.status) for r in graph] == [
        # A literal argument carries its value (for the helper's branches it decides).
        [(None, "tensor"), (None, "py=4"), ("scale", "?"), ("*", "?")],
        [(None, "tensor"), (None, "py=4")],
        [(None, "tensors"), (None, "py=4")],  # the whole argument: maybe a list of tensors
    ]
    for record in graph:
        assert record_from_json(record.to_json()) == record  # through the JSON cache


def _edges_branch_context(records: list[TfInbound]) -> object:
    """The graph context at `grown.numpy()` in EDGES, given these records."""
    module = cst.parse_module(EDGES)
    ctx = FileContext(module, "pkg/edges.py", EDGES)
    ctx.tf_inbound = list(records)
    func = next(s for s in module.body if type(s) is cst.FunctionDef)
    branch = next(s for s in func.body.body if type(s) is cst.If)
    statement = branch.body.body[0]
    return ctx.tf.context([module, func, func.body, branch, branch.body, statement])


@pytest.mark.parametrize(
    ("status", "graph_code"),
    [
        (encode_arguments([(None, "tensor"), (None, "py")]), False),
        (encode_arguments([(None, "tensors"), (None, "py")]), True),  # maybe a list
        (encode_arguments([(None, "py"), (None, "py")]), True),
        (encode_arguments([(None, "?"), (None, "py")]), True),
        (encode_arguments([("*", "?")]), True),  # a star argument may fill it: unknown
        ("", True),  # a callback's record, or one of an older version: no arguments
    ],
)
def test_received_arguments_decide_the_tensor_test(status, graph_code):
    record = TfInbound("add_loops", "pkg/layers.py", "graph", status, origin="`tf.function`")
    assert (_edges_branch_context([record]) is not None) is graph_code


def test_every_graph_caller_must_pass_a_tensor():
    tensor = encode_arguments([(None, "tensor"), (None, "py")])
    python = encode_arguments([(None, "py"), (None, "py")])
    records = [
        TfInbound("add_loops", "pkg/a.py", "graph", tensor, origin="`tf.function`"),
        TfInbound("add_loops", "pkg/b.py", "graph", python, origin="`tf.function`"),
    ]
    assert _edges_branch_context(records) is not None


# ---- a flag every graph caller of another file leaves at its default -----------------------
DECODE = """\
import tensorflow as tf


def decode(index, verbose=False):
    index = tf.cast(index, tf.int32)
    if verbose:
        print(index.numpy())
    return index * 2
"""

DECODE_XLA = """\
import tensorflow as tf
from pkg.codes import decode


@tf.function(jit_compile=True)
def decode_xla(index):
    return decode(index{passed})
"""


@pytest.mark.parametrize(
    ("passed", "expected"),
    [
        ("", []),  # `verbose` left at False by every graph call: the branch never runs there
        (", verbose=True", [("pkg/codes.py", 7, "JIT204")]),
        (", verbose=LOUD", [("pkg/codes.py", 7, "JIT204")]),  # not known: kept
    ],
)
def test_a_flag_left_at_its_default_by_graph_callers(tmp_path, passed, expected):
    files = {
        "pkg/codes.py": DECODE,
        "pkg/xla.py": "LOUD = True\n" + DECODE_XLA.format(passed=passed),
    }
    found = [f for f in tf_findings(files, tmp_path) if f[2] == "JIT204"]
    assert found == expected


# ---- a flag a graph root forwards, left at its default by every call of the root ----------
FORWARD_XLA = """\
import tensorflow as tf
from pkg.codes import decode


def check(index):
    @tf.function(jit_compile=True)
    def decode_xla(index, verbose=False):
        return decode(index, verbose=verbose)

    modes = {{"eager": decode, "xla": decode_xla}}
    for name, run in modes.items():
        run(index{passed})
{after}"""


@pytest.mark.parametrize(
    ("passed", "after", "expected"),
    [
        # Every call of the root (through the dict it is only iterated from) leaves
        # `verbose` at False, and the root forwards it: the branch never runs in the graph.
        ("", "", []),
        (", verbose=True", "", [("pkg/codes.py", 7, "JIT204")]),
        ("", "    return modes\n", [("pkg/codes.py", 7, "JIT204")]),  # called elsewhere too
    ],
)
def test_a_flag_a_root_forwards_from_calls_that_leave_it_at_its_default(
    tmp_path, passed, after, expected
):
    files = {
        "pkg/codes.py": DECODE,
        "pkg/xla.py": FORWARD_XLA.format(passed=passed, after=after),
    }
    found = [f for f in tf_findings(files, tmp_path) if f[2] == "JIT204"]
    assert found == expected
