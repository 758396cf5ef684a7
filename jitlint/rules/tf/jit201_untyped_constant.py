from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.tf.api import FLOAT_DTYPES, WIDE_DTYPES
from jitlint.model.tf.dtypes import (
    NUMPY_FIRST_FIXES_DTYPE,
    DType,
    Event,
    literal_kind,
    sink_description,
)
from jitlint.python.binding import keyword_argument, positional_argument
from jitlint.rules.base import Rule


class UntypedConstant(Rule):
    """
    ## What it does
    Finds `tf.constant(...)` (or `tf.convert_to_tensor(...)`) of Python floats without
    `dtype=` whose value then meets another float dtype: it is cast to `float64`, combined
    with a `float64` (or `float16`, ...) tensor by an operator or a TensorFlow op, or used
    with a module-level dtype constant such as `FLOAT = tf.float64`.

    The other way round too: `tf.constant(a)`, `tf.convert_to_tensor(a)` or `tf.Variable(a)`
    of a NumPy array `a` without `dtype=` keeps NumPy's default `float64` (`np.hanning`,
    `np.linspace`, `np.zeros`, `np.random.rand`, `np.array` of Python floats,
    `.astype(np.float64)`), and it reports where that tensor meets a tensor the code states
    is `float32` (`tf.ones`, `dtype=tf.float32`, a Keras layer's input under `floatx` or a
    layer `dtype=`) in an operator, `tf.matmul`, `tf.concat` and the other ops whose inputs
    share one dtype.
    A raw NumPy float64 array passed first to `tf.matmul` or `tf.add` before a float32
    tensor is reported too: those ops convert it on its own, to float64.

    ## Why is this bad
    Without `dtype=`, Python floats become a `float32` tensor. Combined with a `float64`
    tensor, TensorFlow does not promote; it fails:

    ```text
    TypeError: Input 'y' of 'AddV2' Op has type float32 that does not match type float64 of
    argument 'x'.
    InvalidArgumentError: cannot compute AddV2 as input #1(zero-based) was expected to be a
    double tensor but is a float tensor [Op:AddV2]
    ```

    Cast to `float64` afterwards, it does not fail but the values were already rounded to
    `float32`: `tf.cast(tf.constant([1e-6]), tf.float64)` is `9.99999997e-07`, not `1e-06`.
    A plain Python float (`x + 1.0`) adapts to the tensor's dtype and is fine.

    NumPy arrays default to `float64`, and a tensor made from one keeps it, so
    `tf.constant(np.hanning(8)) * tf.ones([8])` fails the same way (observed, TF 2.21):

    ```text
    InvalidArgumentError: cannot compute Mul as input #1(zero-based) was expected to be a
    float tensor but is a double tensor [Op:Mul]
    ```

    The raw array is mostly fine: `tf.ones([8]) * np.hanning(8)`, `tf.matmul(x, np.eye(2))`,
    `tf.multiply(np.ones(8), x)` and `tf.concat([np.zeros(2), x], 0)` convert it to the
    tensor's `float32`. But `tf.matmul(np.ones((2, 2)), x)` and `tf.add(np.ones(2), x)`
    convert their first argument on its own, to `float64`, and fail the same way.

    ## Example
    ```python
    import tensorflow as tf

    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    y = x + tf.constant(0.5)  # error: JIT201
    ```

    ```python
    import numpy as np
    import tensorflow as tf

    signal = tf.ones([8])
    window = tf.constant(np.hanning(8))  # error: JIT201
    smoothed = signal * window
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    y = x + tf.constant(0.5, dtype=tf.float64)
    ```

    ```python
    import numpy as np
    import tensorflow as tf

    signal = tf.ones([8])
    window = tf.constant(np.hanning(8), dtype=tf.float32)
    smoothed = signal * window
    ```

    ## Fix safety
    Where the constant meets a tensor of another dtype directly in an operator or an op,
    adding `dtype=` is safe: the old code always raised. Where the constant is bound to a
    name first, the fix is unsafe, since other uses of the name change dtype too.
    `tf.cast(tf.constant(v), D)` → `tf.constant(v, dtype=D)` is unsafe: the values change in
    their last bits (they are no longer rounded through float32).
    For a tensor of NumPy float64 data, the fix adds `dtype=tf.float32` (the values are
    rounded to float32, as the float32 tensor it meets already is): safe where it meets the
    float32 tensor directly, unsafe through a name. For a raw NumPy array first in
    `tf.matmul`/`tf.add`, it wraps the array in `tf.cast(..., tf.float32)` (safe: the old code
    always raised).

    It also follows the constant: through names, arithmetic with Python numbers and ops
    that keep the dtype (a value *made from* it meets the float64 tensor), into the
    parameters of the module's functions (calls, `functools.partial` keywords, methods
    through `self` or an instance), and into functions of other modules of the run that
    cast the parameter to float64 or make it meet one (their summary, through the project
    pass).

    ## Known problems
    Only dtypes the code states are known: `dtype=` arguments and `tf.cast` targets (also
    spelled through dtype constants, class attributes such as `Const.FLOAT` and functions
    returning a dtype, in this or an imported module), NumPy data (float64), Keras inputs
    (a layer's `dtype=`, `set_floatx`), arguments at the module's call sites (NumPy arrays
    become tensors when the callee is a `tf.function`), `self` attributes, and ops that
    keep their input's dtype. Everything else is unknown and never reported. `floatx` set
    in a module that is not imported by the layer's module is not seen; so a Keras layer's
    input counts as `float32` only where the layer's module (or one it imports) sets
    `floatx` or the layer states its `dtype=`, not by Keras's default. A weight made by
    `self.add_weight` is not followed: under Keras 3 its operators promote
    (`self.w * tf.constant(np.hanning(8))` runs, as float64). Where the file turns on
    `tf.experimental.numpy.experimental_enable_numpy_behavior()`, operators promote and
    are not reported (ops such as `tf.matmul` still are); turned on in another file, it is
    not seen.
    """

    code = "JIT201"
    name = "untyped-constant"
    summary = "A float tf.constant without dtype= meets a tensor of another float dtype."
    framework = "tensorflow"
    fix_availability = "sometimes"
    requires = ("constant", "convert_to_tensor", "Variable", "matmul", "add(")
    runtime_error = "does not match type float64|expected to be a double tensor"

    VALID = (
        # dtype given; meeting only float32; Python literals adapt.
        """
import tensorflow as tf
x = tf.constant([1.0, 2.0], dtype=tf.float64)
y = x + tf.constant(0.5, dtype=tf.float64) + 1.0
z = tf.ones([2]) * tf.constant(2.0)
w = tf.cast(tf.constant([1.0]), tf.float32)
""",
        # Integer data cast to float64 is exact.
        """
import tensorflow as tf
steps = tf.cast(tf.constant([1, 2, 3]), tf.float64)
""",
        # The dtype of a parameter is unknown.
        """
import tensorflow as tf
def f(x):
    return x * tf.constant(2.0)
""",
        # A parameter bound to float32 only; a NumPy array given to a plain function.
        """
import numpy as np
import tensorflow as tf
def scale(x):
    return x * tf.constant([0.5, 2.0])
scale(tf.ones([2]))
scale(np.ones(2))
""",
        # NumPy arrays adapt to the tensor's dtype in an operator.
        """
import tensorflow as tf
import numpy as np
y = tf.constant(1.0) * np.ones(3)
""",
        # Raw NumPy arrays convert to the tensor's float32 in operators and ops; a float64
        # tensor of NumPy data with float64 tensors, or given dtype=float32; integer data;
        # a parameter and a Keras weight of unknown (or promoting) dtype.
        """
import numpy as np
import tensorflow as tf
import keras
x = tf.ones([8])
a = x * np.hanning(8) + tf.matmul(tf.ones([2, 2]), np.eye(2))[0, 0]
b = tf.concat([x, np.zeros(2)], 0)
c = tf.constant(np.linspace(0.0, 1.0, 8)) * tf.zeros([8], dtype=tf.float64)
d = tf.constant(np.hanning(8), dtype=tf.float32) * x
e = tf.constant(np.arange(8)) + tf.constant(np.full(8, 1))
f = tf.convert_to_tensor(np.hanning(8).astype(np.float32)) * x
g = tf.multiply(np.ones(8), x) + tf.add(x, np.ones(8))
def scale(t):
    return t * tf.constant(np.hanning(8))
class Window(keras.layers.Layer):
    def build(self, shape):
        self.w = self.add_weight(shape=(8,), initializer="ones")
    def call(self, inputs):
        return self.w * tf.constant(np.hanning(8))
""",
    )
    INVALID = (
        # The MMD scenario: sigmas cast to float64 after float32 rounding.
        """
import tensorflow as tf
FLOAT = tf.float64
SIGMAS = [1e-6, 1e-3, 1.0, 10.0]
def gaussian_kernel(x, y):
    sigmas = tf.cast(tf.constant(SIGMAS), FLOAT)  # error: JIT201
    beta = 1.0 / (2.0 * tf.expand_dims(sigmas, 1))
    return tf.exp(-beta)
""",
        """
import tensorflow as tf
x = tf.zeros([3], dtype="float64")
scale = tf.constant([0.5, 0.5, 0.5])  # error: JIT201
y = tf.multiply(x, scale) + tf.matmul(tf.reshape(x, [3, 1]), tf.constant([[2.0]]))  # error: JIT201
""",
        # Rebinding the name to its cast: the cast reads the constant.
        """
import tensorflow as tf
FLOAT = tf.float64
def mmd_kernel(x):
    sigmas = tf.constant([1.0, 2.0, 4.0])  # error: JIT201
    sigmas = tf.cast(sigmas, FLOAT)
    return x / sigmas
""",
        """
import numpy as np
import tensorflow as tf
data = tf.constant(np.linspace(0.0, 1.0, 5))
shifted = data - tf.constant(0.5)  # error: JIT201
""",
        # set_floatx makes Keras layer inputs float64; a constant bound through partial
        # reaches a loss whose inputs are float64; a NumPy float64 array reaches a
        # tf.function; a float32 threshold meets a float64 sample; a TensorArray of float64.
        """
import functools
import numpy as np
import tensorflow as tf
tf.keras.backend.set_floatx("float64")
class Scaler(tf.keras.layers.Layer):
    def call(self, inputs):
        return inputs * tf.constant([0.5, 2.0])  # error: JIT201
def weighted(y_true, y_pred, weights):
    return tf.reduce_mean(weights * tf.square(y_true - y_pred))
loss = functools.partial(weighted, weights=tf.constant([0.2, 0.8]))  # error: JIT201
@tf.function
def energy(signal):
    window = tf.constant([0.25, 0.5])  # error: JIT201
    return tf.reduce_sum(signal * window)
@tf.function
def accept(sample):
    threshold = tf.constant(0.5)  # error: JIT201
    ta = tf.TensorArray(tf.float64, size=2)
    ta = ta.write(0, tf.constant(1.5))  # error: JIT201
    return sample < threshold, ta.stack()
model = tf.keras.Sequential([tf.keras.Input((2,)), Scaler()])
model.compile(loss=loss)
energy(np.linspace(0.0, 1.0, 2))
accept(tf.constant(0.3, tf.float64))
""",
        # NumPy float64 data kept by tf.constant / convert_to_tensor / Variable without
        # dtype=, meeting float32 tensors: eagerly, in a helper, in a tf.function, in a
        # Keras layer whose dtype is float32.
        """
import numpy as np
import tensorflow as tf
x = tf.ones([8])
window = tf.constant(np.hanning(8))  # error: JIT201
smoothed = x * window
grid = tf.convert_to_tensor(np.linspace(0.0, 1.0, 8))  # error: JIT201
shifted = tf.concat([x, grid], 0)
weights = tf.Variable(np.random.rand(8, 8))  # error: JIT201
hidden = tf.matmul(tf.reshape(x, [1, 8]), weights)
def taper(t):
    return t * tf.constant(np.array([0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5]))  # error: JIT201
taper(tf.zeros([8], dtype=tf.float32))
@tf.function
def ramp(t):
    r = tf.constant(np.arange(0, 8, 1.0))  # error: JIT201
    return t + r
ramp(x)
class Taper(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__(dtype="float32")
    def call(self, inputs):
        return inputs * tf.constant(np.hamming(8))  # error: JIT201
""",
        # A raw NumPy array first in tf.matmul / tf.add is converted on its own.
        """
import numpy as np
import tensorflow as tf
weights = tf.Variable(tf.random.normal([4, 2]))
logits = tf.matmul(np.random.uniform(size=(3, 4)), weights)  # error: JIT201
""",
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._reported: set[int] = set()  # a constant may meet many wide values
        model = self.ctx.tf
        # `tf.experimental.numpy.experimental_enable_numpy_behavior()` makes operators
        # promote float32 with float64; seen only in this file's text.
        self._numpy_behavior = "enable_numpy_behavior" in (model.source or "")
        values = model.values
        dtypes = model.dtypes
        # Without an untyped float constant or a tensor of NumPy float64 data, only a NumPy
        # array first in `tf.matmul`/`tf.add` can be reported: the other events need not be
        # computed (they are most of the rule's cost).
        marked = dtypes.marks
        if not marked and not dtypes.numpy_first_calls:
            return
        if not any(
            literal_kind(call.args[0].value, values, path) == "float"
            or dtypes.info(call, path).arrays
            for call, path in model.scan.constants
        ) and "numpy" not in (model.source or ""):
            return  # no untyped float constant, no NumPy data: nothing to follow
        for event in dtypes.events() if marked else dtypes.numpy_first_events():
            if event.kind == "meet":
                self._meet(event)
            elif event.kind == "cast":
                self._cast(event)
            elif event.kind == "call":
                self._call(event)

    def _constants(self, found: DType) -> list[cst.Call]:
        constants = self.ctx.tf.dtypes.constants
        return [constants[c] for c in sorted(found.consts) if c in constants]

    def _meet(self, event: Event) -> None:
        if event.where == "an operator" and self._numpy_behavior:
            return  # operators promote under NumPy behavior (observed, TF 2.21)
        self._meet_arrays(event)
        operands = [o for o in event.operands if not o.numpy]
        wide = {o.name for o in operands if o.name in FLOAT_DTYPES and o.name != "float32"}
        if not wide:
            self._meet_per_call(event)
            return
        if len(wide) != 1:
            return
        dtype = wide.pop()
        for index, operand in enumerate(event.operands):
            if operand.numpy or not operand.from_constants:
                continue
            direct = event.exprs[index] if index < len(event.exprs) else None
            for call in self._constants(operand):
                self._report_meeting(call, call is direct, dtype, event)

    def _meet_arrays(self, event: Event) -> None:
        """A tensor made from NumPy float64 data without `dtype=` meets a tensor the code
        states is float32 (`tf.ones`, `dtype=tf.float32`, a Keras layer's input). A float32
        made by untyped Python-float constants is left to the report on those constants."""
        operands = [o for o in event.operands if not o.numpy]
        if event.target in NUMPY_FIRST_FIXES_DTYPE:
            self._numpy_first(event, operands)
        names = {o.name for o in operands if o.name in FLOAT_DTYPES}
        if names != {"float32", "float64"}:
            return
        if not any(o.name == "float32" and not o.consts for o in operands):
            return
        arrays = self.ctx.tf.dtypes.arrays
        for index, operand in enumerate(event.operands):
            if operand.numpy or operand.name != "float64":
                continue
            direct = event.exprs[index] if index < len(event.exprs) else None
            for made in sorted(operand.arrays):
                if made in arrays:
                    self._report_array(arrays[made], arrays[made] is direct, event)

    def _numpy_first(self, event: Event, operands: list[DType]) -> None:
        """`tf.matmul(array, x)`: the op converts the NumPy float64 array first, on its own,
        so it does not adapt to the float32 `x` after it."""
        first = event.operands[0] if event.operands and event.exprs else None
        if first is None or not first.numpy or first.name != "float64":
            return
        expr = event.exprs[0]
        if literal_kind(expr, self.ctx.tf.values, event.path) is not None:
            return  # Python numbers adapt
        if not any(o.name == "float32" and not o.consts for o in operands):
            return
        if id(expr) in self._reported:
            return
        self._reported.add(id(expr))
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        from jitlint.fixes.tensor_argument import cast_to_float32_fix

        fix = cast_to_float32_fix(expr, spelled, imports, self.ctx.module.code_for_node)
        self.report(
            expr,
            f"this NumPy array is float64, and {event.where} converts its first argument on "
            "its own: the float64 tensor then meets a float32 tensor, and TensorFlow does not "
            "promote but raises a dtype mismatch",
            help=f"cast it: {spelled}.cast(..., {spelled}.float32), or put the tensor first",
            fix=fix,
        )

    def _report_array(self, call: cst.Call, direct: bool, event: Event) -> None:
        if id(call) in self._reported:
            return
        self._reported.add(id(call))
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        # Direct, the old code always raised; through a name, other uses change dtype too.
        fix = self._add_dtype(call, f"{spelled}.float32", "safe" if direct else "unsafe", imports)
        api = self.ctx.module.code_for_node(call.func)
        where = event.where
        function = _function_name(event.path)
        if function and not direct:
            where = f"{where} in `{function}`"
        made = "it meets" if direct else "a value made from it meets"
        self.report(
            call,
            f"this {api}(...) has no dtype, so it keeps the NumPy array's float64, but {made} "
            f"a float32 tensor in {where}: TensorFlow does not promote and raises a dtype "
            "mismatch",
            help=f"pass dtype={spelled}.float32 (NumPy arrays default to float64)",
            fix=fix,
        )

    def _meet_per_call(self, event: Event) -> None:
        """A helper's parameter whose calls pass different dtypes (joined, it has none):
        the constant meets the wide one on the path through that call."""
        func = next((n for n in reversed(event.path) if type(n) is cst.FunctionDef), None)
        if func is None:
            return
        own = {p.name.value for p in (*func.params.posonly_params, *func.params.params)}
        constants = [o for o in event.operands if not o.numpy and o.from_constants]
        if not constants:
            return
        dtypes = self.ctx.tf.dtypes
        for operand in event.operands:
            if operand.numpy or operand.name is not None or operand.consts:
                continue
            for param in sorted(operand.params & own):
                for call, found in dtypes.site_dtypes(func, param):
                    if found.numpy or found.name not in FLOAT_DTYPES or found.name == "float32":
                        continue
                    line = self.ctx.positions[call].start.line
                    for constant in constants:
                        for made in self._constants(constant):
                            self._report_per_call(made, param, found.name, line, event, func)
                    return

    def _report_per_call(
        self,
        call: cst.Call,
        param: str,
        dtype: str,
        line: int,
        event: Event,
        func: cst.FunctionDef,
    ) -> None:
        if id(call) in self._reported:
            return
        self._reported.add(id(call))
        self.report(
            call,
            f"this tf.constant has no dtype, so its Python floats become float32, and a value "
            f"made from it meets `{param}` in {event.where} in `{func.name.value}`; the call on "
            f"line {line} passes a {dtype} `{param}`: TensorFlow does not promote and raises "
            "a dtype mismatch there",
            help=f"take the parameter's dtype: tf.constant(..., dtype={param}.dtype)",
        )

    def _report_meeting(self, call: cst.Call, direct: bool, dtype: str, event: Event) -> None:
        if id(call) in self._reported:
            return
        self._reported.add(id(call))
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        fix = self._add_dtype(call, f"{spelled}.{dtype}", "safe" if direct else "unsafe", imports)
        where = event.where
        function = _function_name(event.path)
        if not direct:
            where = f"{where} in `{function}`" if function else where
            message = (
                f"this tf.constant has no dtype, so its Python floats become float32, and a "
                f"value made from it meets a {dtype} tensor in {where}: TensorFlow does not "
                "promote and raises a dtype mismatch"
            )
        else:
            message = (
                f"this tf.constant has no dtype, so its Python floats become float32, but it "
                f"meets a {dtype} tensor in {where}: TensorFlow does not promote and raises a "
                "dtype mismatch"
            )
        self.report(call, message, help=f"pass dtype={spelled}.{dtype}", fix=fix)

    def _add_dtype(
        self, call: cst.Call, dtype_code: str, applicability: str, imports: str | None
    ) -> NodeFix:
        code = self.ctx.module.code_for_node
        from jitlint.fixes.tensor_argument import add_dtype_fix

        return add_dtype_fix(call, dtype_code, applicability, imports, code)  # type: ignore[arg-type]

    def _cast(self, event: Event) -> None:
        dtype = event.target
        if dtype not in WIDE_DTYPES or not event.operands[0].from_constants:
            return
        node: cst.Call = event.node  # type: ignore[assignment]
        target = keyword_argument(node, "dtype") or positional_argument(node, 1)
        data = positional_argument(node, 0)
        code = self.ctx.module.code_for_node
        for call in self._constants(event.operands[0]):
            if id(call) in self._reported:
                continue
            self._reported.add(id(call))
            direct = data is not None and data.value is call
            if direct and target is not None:
                from jitlint.fixes.tensor_argument import typed_constant_fix

                fix = typed_constant_fix(node, call, dtype, target, code)
                how = f"before the cast to {dtype}"
            else:
                spelled, imports = self.ctx.import_name("tensorflow", "tf")
                fix = self._add_dtype(call, f"{spelled}.{dtype}", "unsafe", imports)
                function = _function_name(event.path)
                how = f"before a value made from it is cast to {dtype}" + (
                    f" in `{function}`" if function else ""
                )
            self.report(
                call,
                f"this tf.constant has no dtype, so its Python floats are rounded to float32 "
                f"{how}: the {dtype} values differ from the literals",
                help=f"create it as {dtype}: tf.constant(..., dtype=...)",
                fix=fix,
            )

    def _call(self, event: Event) -> None:
        """Untyped float constants passed to a function of another module that casts the
        parameter to float64, or makes it meet a float64 tensor (its summary)."""
        for key, found in event.arguments:
            if not found.from_constants:
                continue
            sink = sink_description(event.where, key)
            if sink is None:
                continue
            dtype, what = sink
            name = event.target.rsplit(".", 1)[-1] if event.target else "the function"
            for call in self._constants(found):
                if id(call) in self._reported:
                    continue
                self._reported.add(id(call))
                spelled, imports = self.ctx.import_name("tensorflow", "tf")
                fix = self._add_dtype(call, f"{spelled}.{dtype}", "unsafe", imports)
                self.report(
                    call,
                    f"this tf.constant has no dtype, so its Python floats become float32, and "
                    f"`{name}` (in {event.target}) {what}: a dtype mismatch, or float32 "
                    "rounding of the literals",
                    help=f"pass dtype={spelled}.{dtype}",
                    fix=fix,
                )


def _function_name(path: Sequence[cst.CSTNode]) -> str | None:
    for node in reversed(path):
        if type(node) is cst.FunctionDef:
            return node.name.value
    return None
