from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.branches import read_after
from jitlint.model.domain.guards import runs_once_per_key
from jitlint.model.tf.api import TF_LOG_MODULES, TF_PRINT
from jitlint.model.tf.function import GraphContext, graph_site
from jitlint.model.tf.values import says_traced
from jitlint.python.attributes import (
    assigned_anywhere,
    read_only_into_text,
    reset_earlier_in_function,
    self_attr_name,
)
from jitlint.python.builtins_facts import LIST_MUTATORS, LOG_METHODS, LOG_MODULES, PRINT
from jitlint.python.uses import assigned_names, before_exit, echoes, read_only_by_checks
from jitlint.rules.base import Rule

_LOGGING_MODULES = tuple(f"{m}." for m in sorted(LOG_MODULES | TF_LOG_MODULES))


class TfTraceTimeSideEffect(Rule):
    """
    ## What it does
    Finds Python side effects in TensorFlow graph code (a `tf.function`, the helpers it
    calls, a `tf.data` function, a Keras layer's `call` or a model's `train_step`): `print`
    of a tensor, appending to a list that lives outside the function (or on the object:
    `self.history.append(...)` where the class sets `self.history = []`), updating a Python
    number kept on the object (`self.step += 1`), and writing module globals. Also an
    f-string of a tensor given to `tf.print` (`tf.print(f"loss = {loss}")`): the string is
    made once while tracing, so every call prints `Tensor("Mean:0", shape=(), ...)`, not
    the value (observed, TF 2.21); the fix passes the tensors as arguments.
    And a `logging`/`absl.logging`/`tf.compat.v1.logging` call whose arguments show a
    tensor (`str(loss)`, `f"{loss}"`, the tensor itself): it logs once, while tracing, with
    the symbolic tensor.

    Also a local list grown in a loop that autograph stages (`for i in tf.range(n):`, a
    `for` over a tensor, a `while` on a tensor) and read after it: the loop body is traced
    once into a `tf.while_loop`, so the list receives one symbolic tensor from inside the
    loop, and using it after the loop raises `InaccessibleTensorError: <tf.Tensor
    'while/mul:0' ...> is out of scope and cannot be used here` (observed, TF 2.21; with a
    `while` loop `len(out)` is silently 1). A `tf.TensorArray` is the staged list.

    And state changed through an object other than `self` that comes from outside the traced
    function (a module global, or a Python argument of the `tf.function`): `stats.count += 1`
    moves once per trace (observed, TF 2.21: 1 after 3 calls), and `config.step = step` keeps
    the symbolic tensor (`Tensor("step:0", shape=(), dtype=int32)`), not a value.

    ## Why is this bad
    TensorFlow runs the Python body only while tracing. The traced graph is then reused, so
    `print` prints once (with symbolic tensors such as `Tensor("x:0", shape=(2,),
    dtype=float32)`), not on every call, and an outer list grows once per trace rather than
    once per call. Nothing raises; the program just does something else than it says.

    ## Example
    ```python
    import tensorflow as tf


    @tf.function
    def step(x):
        print("x:", x)  # error: JIT208
        return x * 2.0


    for _ in range(3):
        step(tf.constant([1.0, 2.0]))
    ```

    ## Use instead
    ```python
    import tensorflow as tf


    @tf.function
    def step(x):
        tf.print("x:", x)
        return x * 2.0


    for _ in range(3):
        step(tf.constant([1.0, 2.0]))
    ```

    ## Fix safety
    `print(...)` → `tf.print(...)` is offered as an unsafe fix outside XLA: it prints on
    every call, with values, which is the intent but a change of behaviour. Under
    `jit_compile=True` no fix is offered, because `tf.print` has no XLA kernel (JIT203):
    return the value and print it outside instead. Calls with `file=` or `flush=` are not
    rewritten.

    `items.append(t)` as a statement, on a list bound outside the function and `t` a tensor
    (or an argument of the traced function), becomes `tf.py_function(items.append, [t], [])`
    as an unsafe fix, again only outside XLA (`py_function` has no XLA kernel): the append
    runs on every call and the list receives eager tensors with values instead of one
    symbolic tensor per trace, and the function now holds a Python call, which a
    `tf.function` cannot serialize (SavedModel) or run on another host. The same holds for
    `self.items.append(t)` on a list the class sets up. Under Keras' default
    `jit_compile="auto"` these fixes also give the layer `self.supports_jit = False` (as
    JIT213's fix does), so that Keras never compiles it with XLA; without such a layer in
    the file, no fix.

    A log call as a statement (`logging.info("loss " + str(loss))`) runs on every call as
    `tf.py_function(lambda loss: logging.info("loss " + str(loss)), [loss], [])`, handed
    the tensors it reads: they arrive as eager tensors, so it logs what eager code logs
    (`tf.Tensor(0.5, shape=(), dtype=float32)`). Only when every other name it reads is
    the module's or a builtin (a local Python value would arrive as a tensor); unsafe for
    the same reasons as the append.

    A Python number kept on a Keras model or layer (`self.step += 1` in `train_step`) gets
    `run_eagerly=True` added to the file's only `compile(...)` of a model: Keras then runs
    every step as Python, so the update runs on every step and later steps read the new
    value (the model then counts the class as eager code). Unsafe: training runs op by op,
    much slower, and never with XLA.

    ## Known problems
    Printing Python values at trace time is often intended (logging a message or a shape
    once per trace). In the traced function itself (the `tf.function`, the Keras `call`)
    `print` is therefore reported only when an argument is a tensor: a TensorFlow op's
    result, or an argument of the traced function. In a helper that graph code calls (in
    this module or another), a `print` of Python values is reported too: such helpers read
    like eager code, and their debug prints silently become trace-time prints (PtychoPINN's
    `print(f"DEBUG ...")` in reshaping helpers of Keras layers), unless the helper hands
    what it prints to a logging call as well (a logging helper that also shows its message
    on the console: a log line, judged as log calls are). A message that says it is
    about tracing, compiling or building is left alone, and so is code that runs the first
    time only in any mode: behind a run-once flag, or past `if key in cache: return ...` in
    a function that fills that cache (a plugin loader's messages). No `tf.print` fix is
    offered where XLA may compile the code (`jit_compile=True`, or Keras' default "auto").
    Only lists bound by a literal outside the function are tracked for `append`/`extend`.
    """

    code = "JIT208"
    name = "tf-trace-time-side-effect"
    summary = "A Python side effect in a tf.function runs once per trace, not once per call."
    severity = "warning"
    framework = "tensorflow"
    fix_availability = "sometimes"
    requires = ("tensorflow", "keras")
    runtime_error = None

    VALID = (
        # A loader that caches what it builds per key and returns early on a hit: its
        # messages print the first time only, eagerly or while a layer's `call` is traced.
        """
import tensorflow as tf
_built = {}
def load(name, verbose=True):
    if name in _built:
        return _built[name]
    if verbose:
        print("loading kernel", name)
    kernel = tf.constant(2.0)
    _built[name] = kernel
    if verbose:
        print("done.")
    return kernel
def warm(name):
    if name not in _built:
        print("first use of", name)
        _built[name] = tf.constant(1.0)
    return _built[name]
class Scaled(tf.keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._warned = False
    def warn_once(self):
        if not self._warned:
            print("Scaled: the scale is fixed at 2")
            self._warned = True
    def call(self, x):
        self.warn_once()
        return x * load("scale") * warm("shift")
""",
        # A test's log of traces: outside the function only assertions read it, and it
        # grows once per trace on purpose (sonnet's conformance tests count traces so).
        """
import tensorflow as tf
def test_traces_once_per_signature(self):
    traced = []
    @tf.function
    def f(x):
        traced.append(x.shape.as_list())
        return x + 1
    f(tf.zeros([2]))
    f(tf.ones([2]))
    if len(traced) == 0:
        self.skipTest("nothing traced")
    assert len(traced) == 1
    self.assertEqual(traced[0], [2])
""",
        # A per-trace counter that only names what each trace makes.
        """
import keras
import tensorflow as tf
class Enqueue(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.call_id = 0
    def call(self, x):
        self.call_id += 1
        name = "enqueue_{}".format(self.call_id)
        return tf.identity(x, name=name)
""",
        # Objects made inside the traced function, Python values set on outer objects, and
        # updates in eager code.
        """
import types
import tensorflow as tf
config = types.SimpleNamespace(step=0, scale=2.0)
@tf.function
def f(x):
    local = types.SimpleNamespace(count=0)
    local.count += 1
    local.last = x
    config.mode = "train"
    return x * config.scale + local.count
def eager(x):
    config.step += 1
    config.last = x
""",
        # Lists grown by Python loops (unrolled while tracing), not read after a staged
        # loop, and a TensorArray in a staged one.
        """
import tensorflow as tf
@tf.function
def f(x, n):
    rows = []
    for i in range(3):
        rows.append(x * i)
    seen = []
    for i in tf.range(n):
        seen.append(i)
    acc = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
        acc = acc.write(i, x[0] * tf.cast(i, tf.float32))
    return tf.stack(rows), acc.stack()
""",
        # Logging Python values and static shapes while tracing is what the author meant.
        """
import logging
import tensorflow as tf
@tf.function
def f(x, name="x"):
    logging.info("tracing %s with shape %s", name, x.shape)
    return x * 2.0
""",
        # f-strings of Python values, and tensors passed to tf.print as arguments.
        """
import tensorflow as tf
@tf.function
def f(x, name="x"):
    for i in range(2):
        tf.print(f"step {i} of {name}:", x)
    tf.print("mean", tf.reduce_mean(x))
    return x
""",
        # A logging helper that also prints its message to the console: a configuration
        # message logged once per trace, which is when it is meant.
        """
import logging
import tensorflow as tf
def note(message, *values):
    print("note:", message % values, flush=True)
    logging.info(message, *values)
@tf.function
def f(x):
    note("using %d preprocessing stages", 3)
    return x
""",
        # Outside graph code print runs every time.
        """
import tensorflow as tf
def eager(x):
    print(x)
    return x
""",
        # A list on the object that `call` starts afresh at its top: per-call scratch, so
        # one append per trace is all it holds (keras-tcn's skip connections).
        """
import keras
class Stack(keras.layers.Layer):
    def __init__(self, blocks, **kwargs):
        super().__init__(**kwargs)
        self.blocks = blocks
        self.outputs_seen = []
    def call(self, x):
        self.outputs_seen = [x]
        for block in self.blocks:
            x = block(x)
            self.outputs_seen.append(x)
        return keras.layers.add(self.outputs_seen)
""",
        # tf.print, and a local list.
        """
import tensorflow as tf
@tf.function
def f(x):
    tf.print(x)
    parts = []
    parts.append(x)
    return tf.stack(parts)
""",
        # Trace-time logging of Python values.
        """
import tensorflow as tf
@tf.function
def f(x):
    print("tracing f for shape", x.shape)
    return x
""",
        # A helper's trace logging that says so.
        """
import tensorflow as tf
def helper(x, n):
    print(f"tracing helper with n={n}")
    return x * n
@tf.function
def f(x):
    return helper(x, 2)
""",
        # `print` rebound to something else.
        """
import tensorflow as tf
from rich import print
@tf.function
def f(x):
    print(x)
    return x
""",
        # Registering a variable made in the function (creating it there is JIT206's).
        """
import tensorflow as tf
class Factory(tf.Module):
    def __init__(self):
        super().__init__()
        self.made = []
    @tf.function
    def new(self, shape):
        w = tf.Variable(tf.zeros(shape))
        self.made.append(w)
        return w
""",
        # A list made by the traced function itself, appended to by a nested helper: each
        # trace builds its own list (Keras' Lambda layer does this).
        """
import tensorflow as tf
@tf.function
def f(x):
    made = []
    def creator(v):
        made.append(v)
        return v
    y = creator(x * 2)
    return y, len(made)
""",
    )
    INVALID = (
        # The same loader without its cache hit returning early, and one whose cache is a
        # local dict (empty on every call): each prints on every call eagerly, once per
        # trace here.
        """
import tensorflow as tf
_built = {}
def load(name):
    if name in _built:
        print("loading again", name)  # error: JIT208
    kernel = tf.constant(2.0)
    _built[name] = kernel
    return kernel
def load_local(name):
    built = {}
    if name in built:
        return built[name]
    print("loading", name)  # error: JIT208
    built[name] = tf.constant(3.0)
    return built[name]
class Scaled(tf.keras.layers.Layer):
    def call(self, x):
        return x * load("scale") * load_local("shift")
""",
        # The same log and counter, read as data: the mean of what was logged, and the
        # counter in arithmetic; only one entry per trace is there.
        """
import keras
import numpy as np
import tensorflow as tf
def train(batches):
    losses = []
    @tf.function
    def step(x):
        loss = tf.reduce_mean(x)
        losses.append(loss)  # error: JIT208
        return loss
    for batch in batches:
        step(batch)
    assert losses
    return np.mean(losses)
class Decay(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.call_id = 0
    def call(self, x):
        self.call_id += 1  # error: JIT208
        name = "scaled_{}".format(self.call_id)
        return tf.multiply(x, 0.99**self.call_id, name=name)
""",
        # State on objects from outside the traced function.
        """
import tensorflow as tf
class Counter:
    def __init__(self):
        self.count = 0
calls = Counter()
@tf.function
def step(x, stats):
    stats.count += 1  # error: JIT208
    calls.count += 1  # error: JIT208
    calls.last = x  # error: JIT208
    return x * 2.0
""",
        # A local list grown in a loop autograph stages, read after it.
        """
import tensorflow as tf
@tf.function
def collect(x, n):
    out = []
    for i in tf.range(n):
        out.append(x * tf.cast(i, tf.float32))  # error: JIT208
    return tf.stack(out)
""",
        # Logging text made from tensors in graph code: once, with symbolic tensors.
        """
import tensorflow as tf
@tf.function
def train(batches, step_fn):
    for step, batch in enumerate(batches):
        loss = step_fn(batch)
        if step % 100 == 0:
            tf.compat.v1.logging.info(str(step) + " " + str(tf.reduce_mean(loss)))  # error: JIT208
""",
        # An f-string of a tensor is made at trace time: it prints `Tensor("Mean:0", ...)`.
        """
import tensorflow as tf
@tf.function
def step(x):
    loss = tf.reduce_mean(x)
    tf.print(f"loss = {loss}")  # error: JIT208
    return loss
""",
        """
import tensorflow as tf
@tf.function
def f(x):
    print("x", x)  # error: JIT208
    return x
""",
        # Outer list and global.
        """
import tensorflow as tf
seen = []
count = 0
@tf.function
def f(x):
    global count
    seen.append(x)  # error: JIT208
    count = count + 1  # error: JIT208
    return x
""",
        # A list and a Python counter kept on a Keras object.
        """
import keras
import tensorflow as tf
class Recorder(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.recorded = []
        self.calls = 0
        self.total = self.add_weight(shape=(), initializer="zeros")
    def call(self, x):
        self.recorded.append(tf.reduce_mean(x))  # error: JIT208
        self.calls += 1  # error: JIT208
        self.total.assign_add(tf.reduce_sum(x))
        return x
""",
        # A debug print of Python values in a helper of a Keras layer's `call`.
        """
import tensorflow as tf
import logging
def to_channels(img, gridsize):
    print(f"DEBUG to_channels: gridsize={gridsize}")  # error: JIT208
    logging.info("reshaping to channels")
    return tf.reshape(img, (-1, gridsize, gridsize, 1))
class ToChannels(tf.keras.layers.Layer):
    def call(self, x):
        return to_channels(x, 2)
""",
        # print under XLA: reported, no tf.print fix.
        """
import tensorflow as tf
def show(x):
    print("sum", tf.reduce_sum(x))  # error: JIT208
g = tf.function(lambda x: show(x), jit_compile=True)
""",
    )

    def _traced_context(self, path: list[cst.CSTNode]) -> GraphContext | None:
        """The graph context of the end of `path`, unless that code runs the first time
        only in any mode (behind a run-once flag or a cache the function fills: a plugin
        loader's build messages): once per trace is then once, as it is eagerly."""
        context = self.ctx.tf.context(path)
        if context is None or runs_once_per_key(path):
            return None
        return context

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        kind = type(func)
        if kind is cst.Name and func.value == "print":  # type: ignore[attr-defined]
            self._print(node)
        elif kind is cst.Attribute and func.attr.value == "print":  # type: ignore[attr-defined]
            self._formatted_tf_print(node)
        elif kind is cst.Attribute and func.attr.value in LOG_METHODS:  # type: ignore[attr-defined]
            self._log(node)
        elif kind is cst.Attribute and func.attr.value in LIST_MUTATORS:  # type: ignore[attr-defined]
            receiver = func.value  # type: ignore[attr-defined]
            if type(receiver) is cst.Name:
                self._append(node, receiver)
            elif self_attr_name(receiver) is not None:
                self._append_to_attribute(node, receiver)

    def _append_to_attribute(self, node: cst.Call, target: cst.Attribute) -> None:
        """`self.history.append(x)` where the class sets `self.history = []`: the object's
        list grows once per trace."""
        path = self.ctx.path_to(node)
        context = self._traced_context(path)
        if context is None:
            return
        values = self._attribute_values(path, target.attr.value)
        if not values or not all(type(v) in (cst.List, cst.ListComp) for v in values):
            return
        if reset_earlier_in_function(path, target.attr.value):
            # `self.outputs = []` at the top of `call`: a per-call scratch list, which each
            # trace rebuilds from empty, so one append per trace is all it ever holds.
            return
        if node.args and self.ctx.tf.values.new_variable(node.args[0].value, path):
            # Registering a variable made in the function: creating it per call is JIT206's
            # finding, and once it is created only once, registering it once is the intent.
            return
        self.report(
            node,
            f"`self.{target.attr.value}.{node.func.attr.value}` in {graph_site(context)} changes a "  # type: ignore[attr-defined]
            "list kept on the object once per trace, not on every call",
            help="return the values from the function, or keep them in a tf.Variable",
            fix=self._append_fix(node, context, path),
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        """`config.step = step` (a tensor) on an object from outside the traced function:
        stored once per trace, and what it stores is the symbolic tensor."""
        for target in node.targets:
            found = self._outer_object(target.target)
            if found is None:
                continue
            owner, context, path = found
            if not self.ctx.tf.values.tensor_like(node.value, path, context.root):
                continue
            self.report(
                target.target,
                f"`{self.ctx.module.code_for_node(target.target)}` is set on {owner} in "
                f"{graph_site(context)}: it is set once per trace, not on every call, and what it "
                'keeps is the symbolic tensor (`Tensor("x:0", ...)`), not a value',
                help="return the value from the function and store it outside, or keep it "
                "in a tf.Variable (`.assign(...)`)",
            )

    def _outer_object(self, target: cst.BaseExpression):  # type: ignore[no-untyped-def]
        """For `name.attr` in graph code whose object comes from outside the traced function:
        (a description of the object, the graph context, the path); None otherwise."""
        if type(target) is not cst.Attribute or type(target.value) is not cst.Name:
            return None
        path = self.ctx.path_to(target)
        context = self._traced_context(path)
        if context is None:
            return None
        owner = self.ctx.tf.values.outer_object(target.value, path)
        return None if owner is None else (owner, context, path)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        """`self.step += 1` where the class sets `self.step = 0`: a Python counter that
        only moves while the function is traced."""
        attr = self_attr_name(node.target)
        if attr is None:
            self._outer_update(node)
            return
        path = self.ctx.path_to(node)
        context = self._traced_context(path)
        if context is None:
            return
        values = self._attribute_values(path, attr)
        if not values or not all(type(v) in (cst.Integer, cst.Float) for v in values):
            return
        cls = next(n for n in reversed(path) if type(n) is cst.ClassDef)
        if read_only_into_text(cls, attr):
            # It only names things (`name = "{}".format(self.call_id)`): a new name per
            # trace is what a per-trace counter is for.
            return
        from jitlint.fixes.xla_fix import run_eagerly_fix

        self.report(
            node,
            f"`self.{attr}` is a Python number updated in {graph_site(context)}: the "
            "update runs once per trace, not on every call, and the traced code keeps the "
            "value it had when it was traced",
            help="keep it in a tf.Variable (self.x.assign_add(1)), updated in the graph",
            # A Keras model compiled in this file can run its steps as Python instead.
            fix=run_eagerly_fix(self.ctx) if context.layer is not None else None,
        )

    def _outer_update(self, node: cst.AugAssign) -> None:
        """`other.count += 1` on an object from outside the traced function."""
        found = self._outer_object(node.target)
        if found is None:
            return
        owner, context, _ = found
        self.report(
            node,
            f"`{self.ctx.module.code_for_node(node.target)}` on {owner} is updated in "
            f"{graph_site(context)}: the update runs once per trace, not on every call",
            help="keep the state in a tf.Variable (`.assign_add(1)`), updated in the graph, "
            "or update it outside the traced function",
        )

    @staticmethod
    def _attribute_values(path: list[cst.CSTNode], attr: str) -> list[cst.CSTNode]:
        """The values the enclosing class assigns to `self.<attr>` (every method)."""
        cls = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
        return [] if cls is None else assigned_anywhere(cls, attr)

    def _print(self, node: cst.Call) -> None:
        path = self.ctx.path_to(node)
        context = self._traced_context(path)
        if context is None:
            return
        if not self.ctx.names.resolves_to(node.func, path, PRINT):
            return
        # Printing Python values (a message, a shape) once per trace is often intended;
        # printing a tensor that way shows `Tensor("x:0", ...)` once, which never is.
        values = self.ctx.tf.values
        positional = [a for a in node.args if a.keyword is None]
        tensor = any(values.tensor_like(a.value, path, context.root) for a in positional)
        if not tensor and (context.root or says_traced(positional)):
            # A Python value printed in the traced function itself is usually trace
            # logging; in a helper that graph code reaches it is a debug print written for
            # eager use, which now runs only while tracing.
            return
        if not tensor and (before_exit(path) or values.off_by_default(path)):
            # An error message before the process ends, or a print that no call turns on.
            return
        if not tensor and self._echoes_log(node, path):
            # A logging helper that shows its message on the console too: a log line of
            # Python values, which trace-time logging means (as `_log` leaves it).
            return
        fix = None
        if context.xla or context.auto_xla:
            # Under Keras' "auto", tf.print would fail where XLA turns on (JIT213).
            help = (
                "tf.print has no XLA kernel (JIT203): return the value and print it outside "
                "the compiled function"
            )
        else:
            help = "use tf.print, which runs on every call"
            if "tensorflow" in self.ctx.source:
                spelled, imports = self.ctx.import_name("tensorflow", "tf")
                from jitlint.fixes.tf_print import tf_print_fix

                fix = tf_print_fix(node, spelled, (imports,) if imports else ())
        if tensor:
            message = f"`print` in {graph_site(context)} runs once per trace, not on every call"
        else:
            message = (
                "`print` runs only while the graph is traced (once per trace, e.g. when the "
                f"model is built), not on every call: it is in {graph_site(context)}"
            )
        self.report(node, message, help=help, fix=fix)

    def _echoes_log(self, node: cst.Call, path: list[cst.CSTNode]) -> bool:
        """The function around the `print` `node` also hands what it prints to a logging
        call (python/uses.py `echoes`): the print is that log message, shown on the console."""
        func = next((n for n in reversed(path) if type(n) is cst.FunctionDef), None)
        if func is None:
            return False
        for other in echoes(func, node):
            names = self.ctx.names.qualified_names(other.func, self.ctx.path_to(other))
            if names and all(n.startswith(_LOGGING_MODULES) for n in names):
                return True
        return False

    def _formatted_tf_print(self, node: cst.Call) -> None:
        """`tf.print(f"loss {loss}")`: the f-string is made once, while tracing, from the
        symbolic tensor; every call then prints `Tensor("Mean:0", ...)`, never the value."""
        strings = [
            a.value for a in node.args if a.keyword is None and type(a.value) is cst.FormattedString
        ]
        if not strings:
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None or not self.ctx.names.resolves_to(node.func, path, TF_PRINT):
            return
        for string in strings:
            if self.ctx.tf.values.formats_tensor(string, path):  # type: ignore[arg-type]
                from jitlint.fixes.tf_print import split_fstring_fix

                self.report(
                    string,
                    f"this f-string is formatted once, while {graph_site(context)} is traced: "
                    '`tf.print` then prints the symbolic tensor (`Tensor("...", shape=...)`) '
                    "on every call, not its value",
                    help='pass the tensors to tf.print as arguments: tf.print("loss =", loss)',
                    fix=split_fstring_fix(string, node),  # type: ignore[arg-type]
                )
                return

    def _log(self, node: cst.Call) -> None:
        """`logging.info(str(step) + " " + str(loss))` in graph code: it logs once, while
        tracing, with `Tensor("Mean:0", ...)` in place of the values."""
        path = self.ctx.path_to(node)
        names = self.ctx.names.qualified_names(node.func, path)
        if not names or not all(n.startswith(_LOGGING_MODULES) for n in names):
            return
        context = self._traced_context(path)
        if context is None:
            return
        if not any(self.ctx.tf.values.shows_tensor(a.value, path) for a in node.args):
            return
        if says_traced(list(node.args)):
            return  # "tracing f with Tensor(...)": the author logs the trace on purpose
        self.report(
            node,
            f"this log call in {graph_site(context)} runs once, while tracing, and writes the "
            'symbolic tensor (`Tensor("Mean:0", shape=(), ...)`), not its value; later calls '
            "log nothing",
            help="return the value and log it outside the traced function, or use "
            'tf.print("loss:", loss) inside it',
            fix=self._log_fix(node, context, path),
        )

    def _log_fix(self, node: cst.Call, context, path: list[cst.CSTNode]) -> NodeFix | None:  # type: ignore[no-untyped-def]
        """The log call as a statement run by `tf.py_function` on every call, handed the
        tensors it reads (fixes/tf_print.py); only when every other name it reads is the
        module's or a builtin (a local Python value would become a tensor)."""
        if context.xla or "tensorflow" not in self.ctx.source or type(path[-2]) is not cst.Expr:
            return None
        tensors = self.ctx.tf.values.tensors_read(node, path)
        if tensors is None:
            return None  # it reads a local value of unknown kind (a Python int, `self`)
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        code = self.ctx.module.code_for_node(node)
        from jitlint.fixes.tf_print import py_function_call_fix

        fix = py_function_call_fix(node, code, tensors, spelled, (imports,) if imports else ())
        from jitlint.fixes.xla_fix import keep_layer_off_xla

        return keep_layer_off_xla(self.ctx, fix, path, context)

    def _append(self, node: cst.Call, target: cst.Name) -> None:
        path = self.ctx.path_to(node)
        context = self._traced_context(path)
        if context is None:
            return
        found = self.ctx.names.lookup_with_path(target.value, path)
        if found is None:
            return
        bindings, scope_path = found
        if self.ctx.tf.context(scope_path) is not None:
            # Bound inside the traced code (the same function or an enclosing one that is
            # traced too): each trace builds a new list, unless a loop autograph stages
            # grows it.
            self._append_in_staged_loop(node, target, context, path, bindings)
            return
        if not all(
            b.kind == "assign" and type(b.node) in (cst.List, cst.ListComp) for b in bindings
        ):
            return
        scope = scope_path[-1]
        below = path[next(i for i, n in enumerate(path) if n is scope) + 1 :]
        staged = next((n for n in below if type(n) in (cst.FunctionDef, cst.Lambda)), None)
        if staged is not None and read_only_by_checks(scope, target.value, staged):
            # Outside the traced function only assertions read it: a log of traces that a
            # test checks, growing once per trace on purpose.
            return
        self.report(
            node,
            f"`{target.value}.{node.func.attr.value}` in {graph_site(context)} changes an outer "  # type: ignore[attr-defined]
            "list once per trace, not on every call",
            help="return the values from the function, or use a tf.TensorArray",
            fix=self._append_fix(node, context, path),
        )

    def _append_in_staged_loop(self, node, target, context, path, bindings) -> None:  # type: ignore[no-untyped-def]
        """`out.append(v)` in `for i in tf.range(n):` (or `while` on a tensor), `out` a
        local list read after the loop: autograph makes the loop a tf.while_loop whose body
        is traced once, so the list gets one symbolic value from inside the loop."""
        if not context.autograph or not all(
            b.kind == "assign" and type(b.node) is cst.List for b in bindings
        ):
            return
        loop = self.ctx.tf.values.staged_loop(path)
        if loop is None:
            return
        func = next((n for n in reversed(path) if type(n) is cst.FunctionDef), None)
        if func is None or not read_after(func, loop, target.value):
            return
        self.report(
            node,
            f"`{target.value}.{node.func.attr.value}` in a loop that autograph turns into a "  # type: ignore[attr-defined]
            f"tf.while_loop, in {graph_site(context)}: the body is traced once, so the list gets "
            "one symbolic value from inside the loop, which cannot be used after it "
            "(InaccessibleTensorError: ... is out of scope and cannot be used here), or a "
            "wrong count (`len` is 1)",
            help="collect the values in a tf.TensorArray: `ta = ta.write(i, v)` in the loop, "
            "`ta.stack()` after it",
        )

    def _append_fix(self, node: cst.Call, context, path: list[cst.CSTNode]) -> NodeFix | None:  # type: ignore[no-untyped-def]
        """`items.append(t)` as a statement, `t` a tensor: appended on every call with
        `tf.py_function`. Not under XLA, which has no kernel for it; under Keras' "auto"
        only with the layer kept off XLA."""
        if context.xla or "tensorflow" not in self.ctx.source:
            return None
        if node.func.attr.value != "append" or len(node.args) != 1:  # type: ignore[attr-defined]
            return None
        arg = node.args[0]
        if arg.keyword is not None or arg.star or len(path) < 2:
            return None
        if type(path[-2]) is not cst.Expr:
            return None
        if not self.ctx.tf.values.tensor_like(arg.value, path, context.root):
            return None
        code = self.ctx.module.code_for_node
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        from jitlint.fixes.tf_print import py_function_append_fix

        fix = py_function_append_fix(
            node, code(node.func), code(arg.value), spelled, (imports,) if imports else ()
        )
        from jitlint.fixes.xla_fix import keep_layer_off_xla

        return keep_layer_off_xla(self.ctx, fix, path, context)

    def visit_Global(self, node: cst.Global) -> None:
        path = self.ctx.path_to(node)
        context = self._traced_context(path)
        if context is None:
            return
        func = next((n for n in reversed(path) if type(n) in (cst.FunctionDef, cst.Lambda)), None)
        if type(func) is not cst.FunctionDef:
            return
        names = {n.name.value for n in node.names}
        for target in assigned_names(func):
            if target.value in names and not self.ctx.tf.trace_time_setting(func, target.value):
                self.report(
                    target,
                    f"writing global `{target.value}` in {graph_site(context)} happens once per "
                    "trace, not on every call",
                    help="return the value, or keep the state in a tf.Variable",
                )
