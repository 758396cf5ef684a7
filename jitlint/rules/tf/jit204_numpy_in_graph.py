from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.tf.api import EAGER_VALUE_METHOD, NUMPY_METADATA_FUNCTIONS, TF_PRINT, numpy_api
from jitlint.model.tf.function import graph_site
from jitlint.model.tf.values import TENSOR
from jitlint.python.builtins_facts import PRINT
from jitlint.rules.base import Rule


class NumpyInGraph(Rule):
    """
    ## What it does
    Finds `.numpy()` on a tensor, and NumPy functions applied to a symbolic tensor, in graph
    code: a `tf.function`, the helpers it calls, a `tf.data` function, a Keras layer's `call`
    or a model's `train_step`.

    ## Why is this bad
    Inside a graph a tensor has no value yet; it is a placeholder in the graph being built.
    `.numpy()` does not exist on it and NumPy cannot convert it:

    ```text
    AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    NotImplementedError: Cannot convert a symbolic tf.Tensor (a:0) to a numpy array.
    ```

    ## Example
    ```python
    import numpy as np
    import tensorflow as tf


    @tf.function
    def norm(x):
        return np.sqrt(np.sum(tf.square(x)))  # error: JIT204


    norm(tf.constant([3.0, 4.0]))
    ```

    ## Use instead
    ```python
    import tensorflow as tf


    @tf.function
    def norm(x):
        return tf.sqrt(tf.reduce_sum(tf.square(x)))


    norm(tf.constant([3.0, 4.0]))
    ```

    ## Fix safety
    A NumPy function whose TensorFlow twin takes the same arguments gets an unsafe fix to
    that twin: elementwise functions of one tensor (`np.sqrt`, `np.exp`, `np.log`, `np.abs`,
    `np.square`, `np.tanh`, `np.sin`, `np.cos`, `np.sign`, `np.floor`, `np.ceil`,
    `np.log1p`, `np.expm1`, `np.negative` to `tf.math.*`), `np.maximum`/`np.minimum` of two
    values, and `np.sum`/`np.max`/`np.min` (also `amax`/`amin`) with at most an axis and
    `keepdims=` (to `tf.math.reduce_*`). Every argument must be a tensor or a number
    literal, and no other keyword is allowed. It is unsafe because NumPy and TensorFlow
    differ in dtypes: NumPy promotes (`np.sqrt` of an integer tensor is float64, `np.sum` of
    booleans counts them) where the TensorFlow op keeps the tensor's dtype or refuses it,
    and code that also runs eagerly now gets a tensor where it got a NumPy array.
    `print(x.numpy())` as a statement (also `tf.print(x.numpy())`, with at most `sep=`
    and `end=`) becomes `tf.print(x)`: unsafe, the tensor is now printed on every call, in
    TensorFlow's format and on stderr, where the original could not run at all. Other
    NumPy functions and `.numpy()` in a Keras class's method (a metric's `update_state`, a
    layer's `call`, a `train_step`, or a helper of the file only it runs) get
    `run_eagerly=True` added to the file's only `compile(...)` of a model: Keras then runs
    the steps as plain Python, where tensors have values (the model no longer counts such a
    class as graph code). Unsafe: training and prediction run op by op, much slower, and
    never with XLA; where that `compile` is not the one running the class, the finding
    stays. In a module-level function given to one `.map(f)` of a `tf.data` pipeline (and
    used nowhere else), the map gets `lambda a, b: tuple(tf.py_function(f, [a, b],
    [dtypes]))`, where every `return` gives values of known dtypes in the same places (the
    dtype `tf.convert_to_tensor`/`tf.cast`/`tf.constant` names, or `p.dtype` for a
    parameter returned as it came): `f` then runs as Python on eager tensors. Unsafe: the
    elements lose their static shapes, every element runs Python (slower, holding the
    GIL), and the pipeline cannot be serialized. Elsewhere no fix: use the `tf.`
    equivalent, `tf.experimental.numpy`, or return the tensor and convert it outside the
    function.

    ## Known problems
    Only values known to be tensors are checked: results of TensorFlow ops, arguments of
    a `tf.function` with an `input_signature`, and the inputs of a Keras `call`. `.numpy()`
    is also reported on any `tf.function` argument. NumPy functions that only read
    `.shape`/`.ndim` (`np.shape`, `np.ndim`) work and are not reported.

    A Keras class's `call` is graph code by contract unless the run shows every instance
    called only eagerly (followed through names, parameters and returned values, and into
    the class's module from the file that makes it; handed to a third module, it keeps the
    contract). A debugging copy that no file imports, beside the module the project runs
    (`loss_bak.py` and `loss.py` defining the same classes), is skipped in a project run of
    an application; the one-file run of that copy still reports it. A class whose
    constructor (its own, or one it inherits or calls through `super()` from a class of its
    module) calls `tf.config.run_functions_eagerly(True)` on every path has no graph code:
    each of its instances is made after every `tf.function`, Keras' own included, is set to
    run eagerly. So is a module whose last top-level switch, outside any branch, turns it on:
    its `tf.function`s and Keras classes run eagerly (its `tf.data` functions are still
    traced). The same switch in a branch or a function is not followed.
    So is a class whose constructor passes `dynamic=True` to `super().__init__()`: Keras 2
    runs it (and a model holding it) eagerly, and Keras 3 refuses the argument.
    A branch that runs only where `tf.is_tensor(x)` fails (`if not tf.is_tensor(x):`, its
    `else`, or a flag bound once to the test) is not graph code where graph code gives `x` as
    one tensor: an element of a Keras `call`'s inputs (Keras converts NumPy inputs), an op's
    result, or what every caller passes, in this file or, through their records, in others.
    The whole input of a `call` or a `tf.function` may be a list, and decides nothing.
    """

    code = "JIT204"
    name = "numpy-in-graph"
    summary = "NumPy conversion of a symbolic tensor inside a tf.function."
    framework = "tensorflow"
    fix_availability = "sometimes"
    requires = ("tensorflow", "keras")
    runtime_error = "no attribute 'numpy'|Cannot convert a symbolic"

    VALID = (
        # `if verbose:` in a helper whose graph caller leaves `verbose` at its default
        # False: the conversion runs only where eager code asks for it (sionna's
        # decode_mcs_index).
        """
import tensorflow as tf
def decode(index, verbose=False):
    index = tf.cast(index, tf.int32)
    if verbose:
        print(index.numpy())
    return index * 2
@tf.function(jit_compile=True)
def decode_xla(index):
    return decode(index)
decode_xla(tf.constant([1, 2]))
decode(tf.constant([3]), verbose=True)
""",
        # Under `isinstance(image, Image.Image)` the value is a PIL image, never a tensor:
        # NumPy converts it (keras-vision-models' image processors).
        """
import keras
import numpy as np
from PIL import Image
class Processor(keras.layers.Layer):
    def call(self, image):
        if isinstance(image, Image.Image):
            image = np.array(image)
        return keras.ops.convert_to_tensor(image)
""",
        # A model made in a function, returned to the module and passed back, and trained
        # by a helper under a plain GradientTape: every call is eager.
        """
import tensorflow as tf
class Controller(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.logits = tf.keras.layers.Dense(4)
    def call(self, state):
        probs = tf.nn.softmax(self.logits(state))
        print(probs.numpy())
        return probs
def train_controller(model, state, steps):
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = -tf.reduce_sum(tf.math.log(model(state)))
        tape.gradient(loss, model.trainable_variables)
def search(state, controller=None):
    if controller is None:
        controller = Controller()
    train_controller(controller, state, steps=10)
    return state, controller
_, controller = search(tf.ones((1, 3)))
search(tf.ones((1, 3)), controller=controller)
""",
        # A model made once at module level and only called by an eager training loop: its
        # `call` runs eagerly, where NumPy takes the tensors.
        """
import numpy as np
import tensorflow as tf
class Ranker(tf.keras.Model):
    def __init__(self):
        super(Ranker, self).__init__()
        self.score = tf.keras.layers.Dense(1)
    def call(self, ids):
        unique, index = np.unique(ids, return_inverse=True)
        return self.score(tf.gather(tf.cast(unique, tf.float32)[:, None], index))
ranker = Ranker()
optimizer = tf.keras.optimizers.SGD(0.1)
def train(batches):
    for ids in batches:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(ranker(ids))
        grads = tape.gradient(loss, ranker.trainable_variables)
        optimizer.apply_gradients(zip(grads, ranker.trainable_variables))
""",
        # `tf.init_scope()` lifts its body out of the graph: ops there run eagerly
        # (observed on TF 2.21: `.numpy()` and `if` on them work inside tf.function).
        """
import tensorflow as tf
@tf.function
def f(x):
    with tf.init_scope():
        scale = tf.constant(2.0).numpy()
        if tf.reduce_sum(tf.ones(3)) > 0:
            scale = 3.0
    return x * scale
""",
        # A tf.Variable made in the function, read inside `tf.init_scope()`: the variable
        # lives outside the graph, so the read there is eager (sonnet's replicator test).
        """
import tensorflow as tf
@tf.function
def f(x):
    v = tf.Variable(tf.ones([]))
    with tf.init_scope():
        start = v.numpy()
    return x * start
""",
        # Eager code may call .numpy().
        """
import tensorflow as tf
import numpy as np
def eager(x):
    return np.sum(tf.square(x).numpy())
""",
        # NumPy on Python values and on static shapes inside a tf.function.
        """
import tensorflow as tf
import numpy as np
@tf.function
def f(x):
    scale = np.sqrt(2.0)
    n = np.prod(x.shape)
    return x * scale / n + np.shape(x)[0]
""",
        # A parameter that may be a Python value.
        """
import tensorflow as tf
import numpy as np
@tf.function
def f(x, table):
    return x * np.asarray(table)
""",
        # A model whose constructor switches every tf.function to eager execution (a bridge
        # to another framework's model): its `call`, and a subclass's, get eager tensors,
        # also under `predict` and a `tf.function` step.
        """
import numpy as np
import tensorflow as tf
class HostBridge(tf.keras.Model):
    def __init__(self, host_fn):
        super().__init__()
        self.host_fn = host_fn
        tf.config.run_functions_eagerly(True)
    def call(self, inputs):
        return tf.constant(self.host_fn(np.asarray(inputs)))
class TransposedBridge(HostBridge):
    def call(self, inputs):
        return tf.constant(self.host_fn(np.moveaxis(np.asarray(inputs), 1, 0)))
class ScaledBridge(HostBridge):
    def __init__(self, host_fn, scale):
        super().__init__(host_fn)
        self.scale = scale
    def call(self, inputs):
        return tf.constant(self.host_fn(np.asarray(inputs) * self.scale))
""",
        # Every tf.function switched to eager execution at the module's top (a debugging
        # script): the step's Python runs eagerly, its tensors have values.
        """
import numpy as np
import tensorflow as tf
tf.config.run_functions_eagerly(True)
@tf.function
def step(x):
    return tf.constant(np.mean(x.numpy()))
class Probe(tf.keras.layers.Layer):
    def call(self, x):
        return x * float(np.max(x.numpy()))
def train(x, y):
    model = tf.keras.Sequential([Probe()])
    model.compile(loss="mse")
    model.fit(x, y)
    return step(x)
""",
        # A layer built with `dynamic=True` (Keras 2): Keras runs it, and any model that
        # holds it, eagerly; Keras 3 rejects the argument, so no graph of it exists.
        """
import numpy as np
import tensorflow as tf
class TreeEncoder(tf.keras.layers.Layer):
    def __init__(self, depth, **kwargs):
        super().__init__(dynamic=True, **kwargs)
        self.depth = depth
    def call(self, inputs):
        return tf.constant(np.cumsum(inputs.numpy(), axis=-1))
""",
        # Code written for NumPy and tensor inputs alike: it converts back to NumPy only
        # under a failed `tf.is_tensor` (directly, in an `else`, or through a flag), and the
        # layer's inputs reach it as tensors (Keras' `__call__` converts NumPy inputs).
        """
import numpy as np
import tensorflow as tf
def drop_edges(inputs, rate):
    edge_index, *attrs = inputs
    was_tensor = tf.is_tensor(edge_index)
    if not was_tensor:
        edge_index = tf.convert_to_tensor(edge_index)
    keep = tf.where(tf.random.uniform(tf.shape(edge_index[0])) > rate)[:, 0]
    kept = tf.gather(edge_index, keep, axis=-1)
    for i in range(len(attrs)):
        if tf.is_tensor(attrs[i]):
            attrs[i] = tf.gather(attrs[i], keep, axis=-1)
        else:
            attrs[i] = np.take(attrs[i], keep, axis=-1)
    if not was_tensor:
        kept = kept.numpy()
    return [kept] + attrs
def add_loops(edge_index, num_nodes):
    loops = tf.stack([tf.range(num_nodes)] * 2, axis=0)
    grown = tf.concat([edge_index, loops], axis=1)
    if not tf.is_tensor(edge_index):
        grown = grown.numpy()
    return grown
class DropEdge(tf.keras.Model):
    def call(self, inputs):
        return drop_edges(inputs, 0.5)
class SelfLoops(tf.keras.layers.Layer):
    def call(self, inputs):
        x, edge_index = inputs[0], inputs[1]
        return add_loops(edge_index, tf.shape(x)[0])
""",
    )
    INVALID = (
        # Under `isinstance(inputs, list)` a Keras call's whole input is a list of tensors:
        # its elements are still graph tensors.
        """
import tensorflow as tf
class Shift(tf.keras.layers.Layer):
    def call(self, inputs):
        if isinstance(inputs, list):
            images, offsets = inputs[0], inputs[1]
        else:
            raise ValueError("expects [images, offsets]")
        print(offsets.numpy())  # error: JIT204
        return images
""",
        # A graph call that passes `verbose` may run the conversion in the graph.
        """
import tensorflow as tf
def decode(index, verbose=False):
    index = tf.cast(index, tf.int32)
    if verbose:
        print(index.numpy())  # error: JIT204
    return index * 2
@tf.function
def decode_loud(index):
    return decode(index, verbose=True)
decode_loud(tf.constant([1, 2]))
""",
        # The same model, called by the helper through a `tf.function` step.
        """
import tensorflow as tf
class Controller(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.logits = tf.keras.layers.Dense(4)
    def call(self, state):
        probs = tf.nn.softmax(self.logits(state))
        print(probs.numpy())  # error: JIT204
        return probs
@tf.function
def step(model, state):
    return model(state)
def train_controller(model, state, steps):
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = -tf.reduce_sum(tf.math.log(step(model, state)))
        tape.gradient(loss, model.trainable_variables)
def search(state, controller=None):
    if controller is None:
        controller = Controller()
    train_controller(controller, state, steps=10)
    return state, controller
_, controller = search(tf.ones((1, 3)))
search(tf.ones((1, 3)), controller=controller)
""",
        # The same kind of module-level model, called by a `tf.function` step.
        """
import numpy as np
import tensorflow as tf
class Ranker(tf.keras.Model):
    def __init__(self):
        super(Ranker, self).__init__()
        self.score = tf.keras.layers.Dense(1)
    def call(self, ids):
        unique, index = np.unique(ids, return_inverse=True)  # error: JIT204
        return self.score(tf.gather(tf.cast(unique, tf.float32)[:, None], index))
ranker = Ranker()
@tf.function
def step(ids):
    return ranker(ids)
""",
        # `dynamic` left False: the layer's call is graph code.
        """
import numpy as np
import tensorflow as tf
class TreeEncoder(tf.keras.layers.Layer):
    def __init__(self, depth, **kwargs):
        super().__init__(dynamic=False, **kwargs)
        self.depth = depth
    def call(self, inputs):
        return tf.constant(np.cumsum(inputs.numpy(), axis=-1))  # error: JIT204
""",
        # The switch only when a flag says so: the default keeps graph code.
        """
import numpy as np
import tensorflow as tf
class HostBridge(tf.keras.Model):
    def __init__(self, host_fn, debug=False):
        super().__init__()
        self.host_fn = host_fn
        if debug:
            tf.config.run_functions_eagerly(True)
    def call(self, inputs):
        return tf.constant(self.host_fn(np.asarray(inputs)))  # error: JIT204
""",
        # The module-level switch turned off again, or in a branch: graph code stays; and a
        # `tf.data` function is traced whatever the switch says.
        """
import numpy as np
import tensorflow as tf
tf.config.run_functions_eagerly(True)
tf.config.run_functions_eagerly(False)
@tf.function
def step(x):
    return x.numpy() + 1  # error: JIT204
""",
        """
import sys
import tensorflow as tf
if "--debug" in sys.argv:
    tf.config.run_functions_eagerly(True)
@tf.function
def step(x):
    return x.numpy() + 1  # error: JIT204
""",
        """
import numpy as np
import tensorflow as tf
tf.config.run_functions_eagerly(True)
def scale(x):
    return np.float32(2.0) * x.numpy()  # error: JIT204
dataset = tf.data.Dataset.range(4).map(scale)
""",
        """
import tensorflow as tf
@tf.function
def f(x):
    return x.numpy() + 1  # error: JIT204
""",
        # A variable read in the graph, and a graph op's result read inside `tf.init_scope()`.
        """
import tensorflow as tf
@tf.function
def f(x):
    v = tf.Variable(tf.ones([]))
    start = v.numpy()  # error: JIT204
    y = tf.exp(x)
    with tf.init_scope():
        top = y.numpy()  # error: JIT204
    return x * start * top
""",
        """
import tensorflow as tf
import numpy as np
@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def f(x):
    y = tf.exp(x)
    return np.mean(y), np.array(x)  # error: JIT204
""",
        """
import tensorflow as tf
import numpy as np
class Model(tf.keras.Model):
    def train_step(self, data):
        loss = tf.reduce_mean(data)
        print(float(loss.numpy()))  # error: JIT204
        return {"loss": loss}
""",
        # A layer's whole input may be a list of tensors, for which `tf.is_tensor` is False:
        # the branch runs in the graph.
        """
import numpy as np
import tensorflow as tf
class Merge(tf.keras.layers.Layer):
    def call(self, inputs):
        if not tf.is_tensor(inputs):
            inputs = np.stack(inputs)  # error: JIT204
        return inputs * 2
""",
        # The same test on a NumPy table graph code captures: the branch runs in the graph.
        """
import numpy as np
import tensorflow as tf
TABLE = np.arange(4)
@tf.function
def lookup(i):
    table = TABLE
    out = tf.gather(table, i)
    if not tf.is_tensor(table):
        out = out.numpy()  # error: JIT204
    return out
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is not cst.Attribute:
            return
        if func.attr.value == EAGER_VALUE_METHOD and not node.args:
            self._numpy_method(node, func)
        elif node.args:
            self._numpy_function(node, func)

    def _numpy_method(self, node: cst.Call, func: cst.Attribute) -> None:
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None:
            return
        value = self.ctx.tf.values.value(func.value, path)
        # A raw argument of the traced function: `.numpy()` means it is meant to be a tensor.
        if value.kind != TENSOR and not (value.origins == {"param"} and context.root):
            return
        if self.ctx.tf.values.eager_variable_read(func.value, path):
            return
        self.report(
            node,
            f"`.numpy()` on a symbolic tensor in {graph_site(context)}: graph tensors have no "
            "value while the function is traced (AttributeError: 'SymbolicTensor' object has no "
            "attribute 'numpy')",
            help="use the tensor directly (tf ops, tf.print), or return it and convert outside",
            fix=self._print_fix(node, func, path) or self._eager_fix(context, path),
        )

    def _eager_fix(self, context, path: list[cst.CSTNode]) -> NodeFix | None:  # type: ignore[no-untyped-def]
        """In a Keras class's method (or a helper only it runs): the model's `compile` in
        this file gets `run_eagerly=True`, so the method gets tensors with values. In a
        module-level `tf.data` map function: it runs through `tf.py_function`."""
        if context.layer is not None:
            from jitlint.fixes.xla_fix import run_eagerly_fix

            return run_eagerly_fix(self.ctx)
        if context.root and context.root_kind == "tf.data" and type(path[1]) is cst.FunctionDef:
            spelled, imports = self.ctx.import_name("tensorflow", "tf")
            imported = (imports,) if imports else ()
            from jitlint.fixes.numpy_to_tf import dataset_py_function_fix

            return dataset_py_function_fix(self.ctx, path[1], spelled, imported)
        return None

    def _print_fix(
        self, node: cst.Call, func: cst.Attribute, path: list[cst.CSTNode]
    ) -> NodeFix | None:
        """`print(x.numpy())` as a statement -> `tf.print(x)`, which prints on every call."""
        if len(path) < 4 or "tensorflow" not in self.ctx.source:
            return None
        arg, call, statement = path[-2], path[-3], path[-4]
        if type(arg) is not cst.Arg or arg.keyword is not None or arg.star:
            return None
        if type(call) is not cst.Call or type(statement) is not cst.Expr:
            return None
        if any(a.keyword is not None and a.keyword.value not in ("sep", "end") for a in call.args):
            return None
        printer = self.ctx.names.qualified_names(call.func, [*path[:-3], call])
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        receiver = self.ctx.module.code_for_node(func.value)
        replacements: tuple[tuple[cst.CSTNode, str], ...] = ((node, receiver),)
        if printer == PRINT:
            replacements = ((call.func, f"{spelled}.print"), *replacements)
        elif not printer or not printer <= TF_PRINT:
            return None
        return NodeFix(
            "unsafe",
            f"print the tensor with `{spelled}.print` (printed on every call, as TensorFlow "
            "formats it)",
            replacements,
            (imports,) if imports else (),
        )

    def _numpy_function(self, node: cst.Call, func: cst.Attribute) -> None:
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)  # cheap once built; name resolution is not
        if context is None:
            return
        names = self.ctx.names.qualified_names(func, path)
        if not numpy_api(names):
            return
        if names & NUMPY_METADATA_FUNCTIONS:
            return
        values = self.ctx.tf.values

        def is_tensor(expr: cst.BaseExpression) -> bool:
            return values.value(expr, path).kind == TENSOR

        for arg in node.args:
            if arg.keyword is None and is_tensor(arg.value):
                api = min(names).replace("numpy.", "np.", 1)
                self.report(
                    node,
                    f"`{api}` on a symbolic tensor in {graph_site(context)}: NumPy cannot "
                    "convert a graph tensor (NotImplementedError: Cannot convert a symbolic "
                    "tf.Tensor)",
                    help="use the tf equivalent (or tf.experimental.numpy), or convert outside "
                    "the function",
                    fix=self._fix(node, names, is_tensor) or self._eager_fix(context, path),
                )
                return

    def _fix(self, node: cst.Call, names: set[str] | frozenset[str], is_tensor) -> NodeFix | None:
        if len(names) != 1 or "tensorflow" not in self.ctx.source:
            return None
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        numpy_name = next(iter(names)).removeprefix("numpy.")
        from jitlint.fixes.numpy_to_tf import numpy_to_tf_fix

        return numpy_to_tf_fix(node, numpy_name, is_tensor, spelled, (imports,) if imports else ())
