from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.tf.api import FLOAT_DTYPES, SAME_DTYPE_OPS, WIDE_DTYPES
from jitlint.model.tf.dtypes import literal_kind
from jitlint.rules.base import Rule

_CONSTANTS = {
    "tensorflow.constant",
    "tensorflow.convert_to_tensor",
    "tensorflow.compat.v2.constant",
}
_CASTS = {"tensorflow.cast", "tensorflow.dtypes.cast"}
_ARITHMETIC = {
    cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power,
    cst.MatrixMultiply, cst.Modulo,
}  # fmt: skip
_ASSIGNED_CONSTANT = re.compile(
    r"\s*(\w+)\s*(?::[^=\n]*)?=\s*[\w.]*(?:constant|convert_to_tensor)\("
)
_OP_LEAVES = frozenset(n.rsplit(".", 1)[-1] for n in SAME_DTYPE_OPS) | {"cast"}


class UntypedConstant(Rule):
    """
    ## What it does
    Finds `tf.constant(...)` (or `tf.convert_to_tensor(...)`) of Python floats without
    `dtype=` whose value then meets another float dtype: it is cast to `float64`, combined
    with a `float64` (or `float16`, ...) tensor by an operator or a TensorFlow op, or used
    with a module-level dtype constant such as `FLOAT = tf.float64`.

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

    ## Example
    ```python
    import tensorflow as tf

    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    y = x + tf.constant(0.5)  # error: JIT201
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    y = x + tf.constant(0.5, dtype=tf.float64)
    ```

    ## Fix safety
    Where the constant meets a tensor of another dtype directly in an operator or an op,
    adding `dtype=` is safe: the old code always raised. Where the constant is bound to a
    name first, the fix is unsafe, since other uses of the name change dtype too.
    `tf.cast(tf.constant(v), D)` → `tf.constant(v, dtype=D)` is unsafe: the values change in
    their last bits (they are no longer rounded through float32).

    ## Known problems
    Only dtypes the file states are known: `dtype=` arguments, `tf.cast` targets, dtype
    constants, float64 NumPy data converted with `tf.constant`, and ops that keep their
    input's dtype. Function arguments have unknown dtypes.
    """

    code = "JIT201"
    name = "untyped-constant"
    summary = "A float tf.constant without dtype= meets a tensor of another float dtype."
    framework = "tensorflow"
    fix_availability = "sometimes"
    requires = ("constant", "convert_to_tensor")
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
        # NumPy arrays adapt to the tensor's dtype in an operator.
        """
import tensorflow as tf
import numpy as np
y = tf.constant(1.0) * np.ones(3)
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
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._reported: set[int] = set()  # a constant bound to a name may meet many uses
        # Names the file assigns a tf.constant to: a textual superset, so that operands that
        # cannot be an untyped constant are dismissed before any name resolution.
        self._constant_names = {
            match.group(1)
            for line in self.ctx.source.splitlines()
            if "constant(" in line or "convert_to_tensor(" in line
            for match in [_ASSIGNED_CONSTANT.match(line)]
            if match
        }

    def _may_be_constant(self, expr: cst.CSTNode) -> bool:
        kind = type(expr)
        if kind is cst.Name:
            return expr.value in self._constant_names  # type: ignore[attr-defined]
        if kind is not cst.Call:
            return False
        func = expr.func  # type: ignore[attr-defined]
        leaf = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", None)
        return leaf in ("constant", "convert_to_tensor")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if type(node.operator) not in _ARITHMETIC:
            return
        if not (self._may_be_constant(node.left) or self._may_be_constant(node.right)):
            return
        path = self.ctx.path_to(node)
        self._meet([node.left, node.right], path, "an operator")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Attribute:
            leaf = func.attr.value
        elif type(func) is cst.Name:
            leaf = func.value
        else:
            return
        if leaf not in _OP_LEAVES or not node.args:
            return
        if not any(self._may_be_constant(a.value) for a in node.args) and not any(
            type(a.value) in (cst.List, cst.Tuple)
            and any(self._may_be_constant(e.value) for e in a.value.elements)  # type: ignore[attr-defined]
            for a in node.args
        ):
            return
        path = self.ctx.path_to(node)
        names = self.ctx.names.qualified_names(func, path)
        if not names:
            return
        if names <= _CASTS:
            self._cast(node, path)
        elif names <= SAME_DTYPE_OPS:
            operands = [a.value for a in node.args if a.keyword is None and not a.star]
            if leaf in ("concat", "stack", "add_n") and operands:
                first = operands[0]
                if type(first) in (cst.List, cst.Tuple):
                    operands = [e.value for e in first.elements]  # type: ignore[attr-defined]
            elif leaf == "where":
                operands = operands[1:]
            api = min(names).replace("tensorflow.", "tf.", 1)
            self._meet(operands, path, f"`{api}`")

    # ----- the untyped constant ----------------------------------------------------------

    def _untyped(
        self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]
    ) -> tuple[cst.Call, bool] | None:
        """(the tf.constant call, reached directly) if `expr` is an untyped float constant,
        or a name bound only to one."""
        if type(expr) is cst.Call:
            return (expr, True) if self._is_untyped_call(expr, path) else None
        if type(expr) is cst.Name:
            assigned = self.ctx.tf.values.assigned_values(expr, path)
            if assigned and len(assigned) == 1:
                value, value_path = assigned[0]
                if type(value) is cst.Call and self._is_untyped_call(value, value_path):
                    return value, False
        return None

    def _is_untyped_call(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> bool:
        func = call.func
        if type(func) is cst.Attribute:
            leaf = func.attr.value
        elif type(func) is cst.Name:
            leaf = func.value
        else:
            return False
        if leaf not in ("constant", "convert_to_tensor"):
            return False
        positional = [a for a in call.args if a.keyword is None]
        if len(positional) != 1 or any(
            a.keyword is not None and a.keyword.value in ("dtype", "dtype_hint") for a in call.args
        ):
            return False
        if not self.ctx.names.resolves_to(func, path, _CONSTANTS):
            return False
        return literal_kind(positional[0].value, self.ctx.tf.values, path) == "float"

    def _is_numpy(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> bool:
        """NumPy arrays adapt to the tensor's dtype in operators (observed), so they do not
        count as meeting a float64 tensor."""
        if type(expr) is cst.Name:
            assigned = self.ctx.tf.values.assigned_values(expr, path)
            return bool(assigned) and all(self._is_numpy(v, p) for v, p in assigned)
        if type(expr) is cst.Call and type(expr.func) in (cst.Attribute, cst.Name):
            names = self.ctx.names.qualified_names(expr.func, path)
            return bool(names) and all(n.startswith("numpy.") for n in names)
        return False

    # ----- meeting points ----------------------------------------------------------------

    def _meet(
        self, operands: Sequence[cst.CSTNode], path: Sequence[cst.CSTNode], where: str
    ) -> None:
        untyped = [(i, self._untyped(op, path)) for i, op in enumerate(operands)]
        if not any(found for _, found in untyped):
            return
        others = {}
        for i, op in enumerate(operands):
            if untyped[i][1] is None and not self._is_numpy(op, path):
                dtype = self.ctx.tf.dtypes.dtype(op, path)
                if dtype is not None:
                    others[i] = dtype
        wrong = {d for d in others.values() if d in FLOAT_DTYPES and d != "float32"}
        if len(wrong) != 1:
            return
        dtype = wrong.pop()
        for _, found in untyped:
            if found is None:
                continue
            call, direct = found
            self._report_meeting(call, direct, dtype, where)

    def _report_meeting(self, call: cst.Call, direct: bool, dtype: str, where: str) -> None:
        if id(call) in self._reported:
            return
        self._reported.add(id(call))
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        fix = self._add_dtype(call, f"{spelled}.{dtype}", "safe" if direct else "unsafe", imports)
        self.report(
            call,
            f"this tf.constant has no dtype, so its Python floats become float32, but it "
            f"meets a {dtype} tensor in {where}: TensorFlow does not promote and raises a "
            "dtype mismatch",
            help=f"pass dtype={spelled}.{dtype}",
            fix=fix,
        )

    def _add_dtype(
        self, call: cst.Call, dtype_code: str, applicability: str, imports: str | None
    ) -> NodeFix:
        code = self.ctx.module.code_for_node
        data = code(call.args[0].value)
        return NodeFix(
            applicability,  # type: ignore[arg-type]
            f"Add dtype={dtype_code}",
            ((call, f"{code(call.func)}({data}, dtype={dtype_code})"),),
            (imports,) if imports else (),
        )

    def _cast(self, node: cst.Call, path: Sequence[cst.CSTNode]) -> None:
        positional = [a for a in node.args if a.keyword is None]
        target = next((a for a in node.args if a.keyword and a.keyword.value == "dtype"), None)
        if target is None and len(positional) >= 2:
            target = positional[1]
        if not positional or target is None:
            return
        found = self._untyped(positional[0].value, path)
        if found is None:
            return
        dtype = self.ctx.tf.dtypes.dtype_name(target.value, path)
        if dtype not in WIDE_DTYPES:
            return
        call, direct = found
        if id(call) in self._reported:
            return
        self._reported.add(id(call))
        code = self.ctx.module.code_for_node
        fix = None
        if direct:
            fix = NodeFix(
                "unsafe",
                f"Create the constant as {dtype} directly",
                (
                    (
                        node,
                        f"{code(call.func)}({code(call.args[0].value)}, "
                        f"dtype={code(target.value)})",
                    ),
                ),
            )
        self.report(
            call,
            f"this tf.constant has no dtype, so its Python floats are rounded to float32 "
            f"before the cast to {dtype}: the {dtype} values differ from the literals",
            help=f"create it as {dtype}: tf.constant(..., dtype={code(target.value)})",
            fix=fix,
        )
