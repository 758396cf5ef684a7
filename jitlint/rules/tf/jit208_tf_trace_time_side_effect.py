from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.tf.function import graph_site
from jitlint.model.tf.values import TENSOR, Value
from jitlint.python.walker import iter_children
from jitlint.rules.base import Rule

_MUTATORS = {"append", "extend", "insert"}
_VARIABLE = {
    "tensorflow.Variable",
    "tensorflow.compat.v1.Variable",
    "tensorflow.compat.v2.Variable",
}
_PRINT_KEYWORDS = {"sep", "end"}  # the keywords tf.print accepts as print does


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
    `tf.function` cannot serialize (SavedModel) or run on another host.

    ## Known problems
    Printing Python values at trace time is often intended (logging a message or a shape
    once per trace). In the traced function itself (the `tf.function`, the Keras `call`)
    `print` is therefore reported only when an argument is a tensor: a TensorFlow op's
    result, or an argument of the traced function. In a helper that graph code calls (in
    this module or another), a `print` of Python values is reported too: such helpers read
    like eager code, and their debug prints silently become trace-time prints (PtychoPINN's
    `print(f"DEBUG ...")` in reshaping helpers of Keras layers). A message that says it is
    about tracing, compiling or building is left alone. No `tf.print` fix is offered where
    XLA may compile the code (`jit_compile=True`, or Keras' default "auto"). Only lists bound
    by a literal outside the function are tracked for `append`/`extend`.
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
        # Outside graph code print runs every time.
        """
import tensorflow as tf
def eager(x):
    print(x)
    return x
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
def to_channels(img, gridsize):
    print(f"DEBUG to_channels: gridsize={gridsize}")  # error: JIT208
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

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        kind = type(func)
        if kind is cst.Name and func.value == "print":  # type: ignore[attr-defined]
            self._print(node)
        elif kind is cst.Attribute and func.attr.value == "print":  # type: ignore[attr-defined]
            self._formatted_tf_print(node)
        elif kind is cst.Attribute and func.attr.value in _LOG_LEVELS:  # type: ignore[attr-defined]
            self._log(node)
        elif kind is cst.Attribute and func.attr.value in _MUTATORS:  # type: ignore[attr-defined]
            receiver = func.value  # type: ignore[attr-defined]
            if type(receiver) is cst.Name:
                self._append(node, receiver)
            elif _self_attribute(receiver):
                self._append_to_attribute(node, receiver)

    def _append_to_attribute(self, node: cst.Call, target: cst.Attribute) -> None:
        """`self.history.append(x)` where the class sets `self.history = []`: the object's
        list grows once per trace."""
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None:
            return
        values = self._attribute_values(path, target.attr.value)
        if not values or not all(type(v) in (cst.List, cst.ListComp) for v in values):
            return
        if node.args and self._new_variable(node.args[0].value, path):
            # Registering a variable made in the function: creating it per call is JIT206's
            # finding, and once it is created only once, registering it once is the intent.
            return
        self.report(
            node,
            f"`self.{target.attr.value}.{node.func.attr.value}` in {graph_site(context)} changes a "  # type: ignore[attr-defined]
            "list kept on the object once per trace, not on every call",
            help="return the values from the function, or keep them in a tf.Variable",
        )

    def _new_variable(self, expr: cst.BaseExpression, path: list[cst.CSTNode]) -> bool:
        """`expr` is `tf.Variable(...)`, or a name bound only to such calls."""
        candidates: list[tuple[cst.CSTNode, object]] = [(expr, path)]
        if type(expr) is cst.Name:
            assigned = self.ctx.tf.values.assigned_values(expr, path)
            if not assigned:
                return False
            candidates = list(assigned)  # type: ignore[arg-type]
        for value, here in candidates:
            if type(value) is not cst.Call:
                return False
            if not self.ctx.names.resolves_to(value.func, here, _VARIABLE):  # type: ignore[attr-defined]
                return False
        return True

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        """`self.step += 1` where the class sets `self.step = 0`: a Python counter that
        only moves while the function is traced."""
        target = node.target
        if not _self_attribute(target):
            return
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None:
            return
        values = self._attribute_values(path, target.attr.value)  # type: ignore[attr-defined]
        if not values or not all(type(v) in (cst.Integer, cst.Float) for v in values):
            return
        self.report(
            node,
            f"`self.{target.attr.value}` is a Python number updated in {graph_site(context)}: the "  # type: ignore[attr-defined]
            "update runs once per trace, not on every call, and the traced code keeps the "
            "value it had when it was traced",
            help="keep it in a tf.Variable (self.x.assign_add(1)), updated in the graph",
        )

    def _attribute_values(self, path: list[cst.CSTNode], attr: str) -> list[cst.CSTNode]:
        """The values the enclosing class assigns to `self.<attr>` (every method)."""
        cls = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
        if cls is None:
            return []
        found: list[cst.CSTNode] = []
        stack: list[cst.CSTNode] = [cls.body]
        while stack:
            current = stack.pop()
            kind = type(current)
            if kind is cst.Assign:
                for target in current.targets:  # type: ignore[attr-defined]
                    if _self_attribute(target.target) and target.target.attr.value == attr:
                        found.append(current.value)  # type: ignore[attr-defined]
            elif kind is cst.AnnAssign:
                target = current.target  # type: ignore[attr-defined]
                if _self_attribute(target) and target.attr.value == attr and current.value:  # type: ignore[attr-defined]
                    found.append(current.value)  # type: ignore[attr-defined]
            if kind is cst.ClassDef:
                continue
            stack.extend(iter_children(current))
        return found

    def _print(self, node: cst.Call) -> None:
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None:
            return
        if not self.ctx.names.resolves_to(node.func, path, {"builtins.print"}):
            return
        # Printing Python values (a message, a shape) once per trace is often intended;
        # printing a tensor that way shows `Tensor("x:0", ...)` once, which never is.
        values = self.ctx.tf.values
        positional = [a for a in node.args if a.keyword is None]
        tensor = any(_tensor_like(values.value(a.value, path), context.root) for a in positional)
        if not tensor and (context.root or _says_traced(positional)):
            # A Python value printed in the traced function itself is usually trace
            # logging; in a helper that graph code reaches it is a debug print written for
            # eager use, which now runs only while tracing.
            return
        if not tensor and (_before_exit(path) or self._off_by_default(path)):
            # An error message before the process ends, or a print that no call turns on.
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
            keywords = {a.keyword.value for a in node.args if a.keyword is not None}
            if keywords <= _PRINT_KEYWORDS and "tensorflow" in self.ctx.source:
                spelled, imports = self.ctx.import_name("tensorflow", "tf")
                fix = NodeFix(
                    "unsafe",
                    "Replace `print` with `tf.print`",
                    ((node.func, f"{spelled}.print"),),
                    (imports,) if imports else (),
                )
        if tensor:
            message = f"`print` in {graph_site(context)} runs once per trace, not on every call"
        else:
            message = (
                "`print` runs only while the graph is traced (once per trace, e.g. when the "
                f"model is built), not on every call: it is in {graph_site(context)}"
            )
        self.report(
            node,
            message,
            help=help,
            fix=fix,
        )

    def _off_by_default(self, path) -> bool:  # type: ignore[no-untyped-def]
        """Under `if verbose:`, a parameter of the helper that defaults to off (False, None,
        0) and that no call from graph code seen in the module turns on."""
        for index in range(len(path) - 2, -1, -1):
            node = path[index]
            if type(node) in (cst.FunctionDef, cst.Lambda):
                return False
            if type(node) is not cst.If or path[index + 1] is not node.body:
                continue
            test = node.test
            func = next((n for n in reversed(path[:index]) if type(n) is cst.FunctionDef), None)
            if type(test) is not cst.Name or func is None:
                continue
            param = next(
                (
                    p
                    for p in (*func.params.params, *func.params.kwonly_params)
                    if p.name.value == test.value
                ),
                None,
            )
            if param is None or not _off(param.default):
                continue
            passed = self.ctx.tf.values.passed_to_helper(func, test.value)
            if passed is not None and all(_off(arg) for arg in passed):
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
        if context is None or not self.ctx.names.resolves_to(
            node.func, path, {"tensorflow.print", "tensorflow.compat.v1.print"}
        ):
            return
        values = self.ctx.tf.values
        for string in strings:
            parts = [p for p in string.parts if type(p) is cst.FormattedStringExpression]
            if any(values.value(p.expression, path).kind == TENSOR for p in parts):  # type: ignore[attr-defined]
                self.report(
                    string,
                    f"this f-string is formatted once, while {graph_site(context)} is traced: "
                    '`tf.print` then prints the symbolic tensor (`Tensor("...", shape=...)`) '
                    "on every call, not its value",
                    help='pass the tensors to tf.print as arguments: tf.print("loss =", loss)',
                    fix=_split_fstring_fix(string, node),
                )
                return

    def _log(self, node: cst.Call) -> None:
        """`logging.info(str(step) + " " + str(loss))` in graph code: it logs once, while
        tracing, with `Tensor("Mean:0", ...)` in place of the values."""
        path = self.ctx.path_to(node)
        names = self.ctx.names.qualified_names(node.func, path)
        if not names or not all(n.startswith(_LOGGING_MODULES) for n in names):
            return
        context = self.ctx.tf.context(path)
        if context is None:
            return
        values = self.ctx.tf.values
        if not any(_shows_tensor(a.value, values, path) for a in node.args):
            return
        if _says_traced(list(node.args)):
            return  # "tracing f with Tensor(...)": the author logs the trace on purpose
        self.report(
            node,
            f"this log call in {graph_site(context)} runs once, while tracing, and writes the "
            'symbolic tensor (`Tensor("Mean:0", shape=(), ...)`), not its value; later calls '
            "log nothing",
            help="return the value and log it outside the traced function, or use "
            'tf.print("loss:", loss) inside it',
        )

    def _append(self, node: cst.Call, target: cst.Name) -> None:
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None:
            return
        found = self.ctx.names.lookup_with_path(target.value, path)
        if found is None:
            return
        bindings, scope_path = found
        if self.ctx.tf.context(scope_path) is not None:
            # Bound inside the traced code (the same function or an enclosing one that is
            # traced too): each trace builds a new list.
            return
        if not all(
            b.kind == "assign" and type(b.node) in (cst.List, cst.ListComp) for b in bindings
        ):
            return
        self.report(
            node,
            f"`{target.value}.{node.func.attr.value}` in {graph_site(context)} changes an outer "  # type: ignore[attr-defined]
            "list once per trace, not on every call",
            help="return the values from the function, or use a tf.TensorArray",
            fix=self._append_fix(node, context, path),
        )

    def _append_fix(self, node: cst.Call, context, path: list[cst.CSTNode]) -> NodeFix | None:  # type: ignore[no-untyped-def]
        """`items.append(t)` as a statement, `t` a tensor -> `tf.py_function(items.append,
        [t], [])`: the append then runs on every call, with the tensor's value. Not under
        XLA (or Keras' "auto"), which has no kernel for `py_function`."""
        if context.xla or context.auto_xla or "tensorflow" not in self.ctx.source:
            return None
        if node.func.attr.value != "append" or len(node.args) != 1:  # type: ignore[attr-defined]
            return None
        arg = node.args[0]
        if arg.keyword is not None or arg.star or len(path) < 2:
            return None
        if type(path[-2]) is not cst.Expr:
            return None
        found = self.ctx.tf.values.value(arg.value, path)
        if not _tensor_like(found, context.root):
            return None
        code = self.ctx.module.code_for_node
        method, value = code(node.func), code(arg.value)
        if "\n" in method or "\n" in value:
            return None
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        return NodeFix(
            "unsafe",
            f"append on every call with `{spelled}.py_function` (the list gets eager tensors)",
            ((node, f"{spelled}.py_function({method}, [{value}], [])"),),
            (imports,) if imports else (),
        )

    def visit_Global(self, node: cst.Global) -> None:
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None:
            return
        func = self._innermost_function(path)
        if type(func) is not cst.FunctionDef:
            return
        names = {n.name.value for n in node.names}
        for target in self._assigned_names(func):  # type: ignore[arg-type]
            if target.value in names:
                self.report(
                    target,
                    f"writing global `{target.value}` in {graph_site(context)} happens once per "
                    "trace, not on every call",
                    help="return the value, or keep the state in a tf.Variable",
                )

    @staticmethod
    def _innermost_function(path: list[cst.CSTNode]) -> cst.CSTNode | None:
        for node in reversed(path):
            if type(node) in (cst.FunctionDef, cst.Lambda):
                return node
        return None

    @staticmethod
    def _assigned_names(func: cst.FunctionDef) -> list[cst.Name]:
        found: list[cst.Name] = []
        stack: list[cst.CSTNode] = [func.body]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is cst.Assign:
                found.extend(
                    t.target
                    for t in node.targets  # type: ignore[attr-defined]
                    if type(t.target) is cst.Name
                )
            elif kind is cst.AugAssign and type(node.target) is cst.Name:  # type: ignore[attr-defined]
                found.append(node.target)  # type: ignore[attr-defined]
            if kind in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                continue
            if kind in _STATEMENTS:
                stack.extend(iter_children(node))
        return found


def _self_attribute(node: cst.CSTNode) -> bool:
    return (
        type(node) is cst.Attribute
        and type(node.value) is cst.Name  # type: ignore[attr-defined]
        and node.value.value == "self"  # type: ignore[attr-defined]
    )


def _split_fstring_fix(string: cst.FormattedString, call: cst.Call) -> NodeFix | None:
    """`f"loss = {loss}, step {i}"` -> `"loss =", loss, ", step", i` when the f-string is
    the call's only positional argument and its fields are plain names or attributes (no
    format spec, no conversion, no `=`). tf.print puts a space between its arguments, so
    the spaces at the seams are dropped."""
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) != 1 or positional[0].value is not string or string.prefix != "f":
        return None
    pieces: list[str] = []
    for part in string.parts:
        if type(part) is cst.FormattedStringText:
            text = part.value.strip(" ")
            if text:
                if "\\" in text or "{" in text or "}" in text:
                    return None
                text = text.replace("{{", "{").replace("}}", "}")
                pieces.append(f'"{text}"' if '"' not in text else repr(text))
            continue
        field = part
        if (
            field.format_spec is not None  # type: ignore[attr-defined]
            or field.conversion is not None  # type: ignore[attr-defined]
            or field.equal is not None  # type: ignore[attr-defined]
            or type(field.expression) not in (cst.Name, cst.Attribute)  # type: ignore[attr-defined]
        ):
            return None
        pieces.append(cst.Module(body=[]).code_for_node(field.expression))  # type: ignore[attr-defined]
    return NodeFix(
        "unsafe",
        "Pass the tensors to `tf.print` as arguments",
        ((string, ", ".join(pieces)),),
        (),
    )


_LOG_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "log"})
_LOGGING_MODULES = (
    "logging.",
    "absl.logging.",
    "tensorflow.compat.v1.logging.",
    "tensorflow.logging.",
)


def _shows_tensor(expr: cst.BaseExpression, values, path) -> bool:  # type: ignore[no-untyped-def]
    """`expr` is a tensor, or text made from one: `str(t)`, `"a" + str(t)`, `f"{t}"`."""
    kind = type(expr)
    if kind is cst.FormattedString:
        return any(
            type(part) is cst.FormattedStringExpression
            and _shows_tensor(part.expression, values, path)  # type: ignore[attr-defined]
            for part in expr.parts  # type: ignore[attr-defined]
        )
    if kind is cst.BinaryOperation:
        return _shows_tensor(expr.left, values, path) or _shows_tensor(  # type: ignore[attr-defined]
            expr.right,  # type: ignore[attr-defined]
            values,
            path,
        )
    if (
        kind is cst.Call
        and type(expr.func) is cst.Name  # type: ignore[attr-defined]
        and expr.func.value in ("str", "repr")  # type: ignore[attr-defined]
        and len(expr.args) == 1  # type: ignore[attr-defined]
    ):
        return _shows_tensor(expr.args[0].value, values, path)  # type: ignore[attr-defined]
    if kind in (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float):
        return False
    return values.value(expr, path).kind == TENSOR


_TRACE_WORDS = ("trac", "compil", "build")


def _off(node: cst.CSTNode | None) -> bool:
    """`False`, `None` or `0` as written."""
    if type(node) is cst.Name:
        return node.value in ("False", "None")
    return type(node) is cst.Integer and node.value == "0"


_EXITS = frozenset({"exit", "quit", "sys.exit", "os._exit"})


def _before_exit(path) -> bool:  # type: ignore[no-untyped-def]
    """The print's statement is followed in its block by one that ends the process or
    raises (`print(msg, file=sys.stderr); exit(1)`): an error report, printed once."""
    for index in range(len(path) - 1, 0, -1):
        if type(path[index]) is cst.SimpleStatementLine:
            block = path[index - 1]
            if type(block) is not cst.IndentedBlock:
                return False
            statements = list(block.body)
            position = next(i for i, s in enumerate(statements) if s is path[index])
            return any(_exits(s) for s in statements[position + 1 :])
    return False


def _exits(statement: cst.CSTNode) -> bool:
    if type(statement) is not cst.SimpleStatementLine:
        return False
    for small in statement.body:
        if type(small) is cst.Raise:
            return True
        if type(small) is cst.Expr and type(small.value) is cst.Call:
            func = small.value.func
            name = func.value if type(func) is cst.Name else None
            if type(func) is cst.Attribute and type(func.value) is cst.Name:
                name = f"{func.value.value}.{func.attr.value}"
            if name in _EXITS:
                return True
    return False


def _says_traced(args: list[cst.Arg]) -> bool:
    """The printed text says it is about tracing ("tracing f for shape ..."): the author
    knows it runs once per trace."""
    for arg in args:
        stack: list[cst.CSTNode] = [arg.value]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is cst.SimpleString or kind is cst.FormattedStringText:
                text = node.value.lower()  # type: ignore[attr-defined]
            else:
                if kind in (cst.FormattedString, cst.ConcatenatedString, cst.BinaryOperation):
                    stack.extend(iter_children(node))
                continue
            if any(word in text for word in _TRACE_WORDS):
                return True
    return False


def _tensor_like(value: Value, root: bool) -> bool:
    """A tensor, or a raw argument of the traced function (a tensor or a retrace key)."""
    return value.kind == TENSOR or (root and value.origins == {"param"})


_STATEMENTS = {
    cst.IndentedBlock, cst.SimpleStatementLine, cst.If, cst.Else, cst.For, cst.While,
    cst.With, cst.Try, cst.ExceptHandler, cst.Finally,
}  # fmt: skip
