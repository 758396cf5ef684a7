from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from jitlint.model.tf.api import TF_FUNCTION
from jitlint.model.tf.function import tf_function_options
from jitlint.rules.base import Rule

_LOOPS = (cst.For, cst.While)
_FUNCTIONS = (cst.FunctionDef, cst.Lambda)


def _enclosing_loop(path: Sequence[cst.CSTNode]) -> cst.For | cst.While | None:
    """The innermost loop whose body holds the end of `path`, within the same function."""
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        if type(node) in _FUNCTIONS:
            return None
        if type(node) in _LOOPS and path[index + 1] is node.body:  # type: ignore[attr-defined]
            return node  # type: ignore[return-value]
    return None


def _inside_function(path: Sequence[cst.CSTNode]) -> bool:
    return any(type(n) in _FUNCTIONS for n in path[:-1])


class Retracing(Rule):
    """
    ## What it does
    Finds code that makes a `tf.function` trace again and again:

    - a `tf.function` created inside a loop (`tf.function(f)` or a decorated `def` in the
      loop body), or created and called at once inside a function (`tf.function(f)(x)`),
      so that every iteration or call starts from a new, untraced function;
    - a `tf.function` without `input_signature` called in a Python loop with the loop's
      variable (a Python number) as an argument: every distinct Python value is a new
      trace.

    ## Why is this bad
    Tracing runs the Python function and builds a graph (and, with `jit_compile=True`,
    compiles it with XLA). It is meant to happen once per input signature. A new function
    object has an empty cache, and Python scalars are part of the cache key by value, so
    these patterns trace (and compile) on every call. TensorFlow only warns:

    ```text
    WARNING:tensorflow:5 out of the last 5 calls to <function f> triggered tf.function
    retracing. Tracing is expensive ...
    ```

    ## Example
    ```python
    import tensorflow as tf


    @tf.function
    def scale(x, factor):
        return x * factor


    x = tf.constant([1.0, 2.0])
    for step in range(10):
        x = scale(x, step)  # error: JIT207
    ```

    ## Use instead
    ```python
    import tensorflow as tf


    @tf.function
    def scale(x, factor):
        return x * factor


    x = tf.constant([1.0, 2.0])
    for step in range(10):
        x = scale(x, tf.constant(step, tf.float32))
    ```

    ## Fix safety
    No automatic fix: passing a tensor instead of a Python number changes Python-level
    branching on that argument, and hoisting a `tf.function` out of a loop requires that it
    does not close over the loop's variables.

    ## Known problems
    Only callees bound in the same file (a decorated `def`, or a name assigned
    `tf.function(...)`) are checked, and only loop variables of `range(...)` and of literal
    lists. Python arguments that are genuinely configuration (`training=True`) retrace by
    design and are not loop variables, so they are not reported.
    """

    code = "JIT207"
    name = "retracing"
    summary = "A tf.function is retraced on every call or every loop iteration."
    severity = "warning"
    framework = "tensorflow"
    requires = ("function",)
    runtime_error = None

    VALID = (
        # A tensor argument, and a Python argument that does not vary.
        """
import tensorflow as tf
@tf.function
def f(x, n):
    return x * n
for i in tf.range(10):
    f(i, 2)
for batch in dataset:
    f(batch, 3)
""",
        # input_signature turns Python numbers into tensors.
        """
import tensorflow as tf
@tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
def f(n):
    return n + 1
for i in range(10):
    f(i)
""",
        # Built once, called in a loop.
        """
import tensorflow as tf
def train(model, data):
    step = tf.function(model.train_step)
    for batch in data:
        step(batch)
""",
        # A factory that returns the function is called once.
        """
import tensorflow as tf
def make(f):
    return tf.function(f, jit_compile=True)
""",
    )
    INVALID = (
        """
import tensorflow as tf
def f(x):
    return x * 2
for i in range(3):
    g = tf.function(f)  # error: JIT207
    g(tf.constant(1.0))
""",
        """
import tensorflow as tf
def run(x):
    return tf.function(lambda v: v + 1)(x)  # error: JIT207
""",
        """
import tensorflow as tf
def step(x, lr):
    return x * lr
fast_step = tf.function(step)
x = tf.constant(1.0)
for lr in [0.1, 0.01, 0.001]:
    x = fast_step(x, lr=lr)  # error: JIT207
""",
        """
import tensorflow as tf
for layer in range(4):
    @tf.function  # error: JIT207
    def f(x):
        return x
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        kind = type(func)
        if kind is cst.Attribute and func.attr.value == "function":  # type: ignore[attr-defined]
            self._built(node)
        elif kind is cst.Name:
            if func.value == "function":  # type: ignore[attr-defined]
                self._built(node)
            else:
                self._called(node, func)  # type: ignore[arg-type]

    def _built(self, node: cst.Call) -> None:
        if not any(a.keyword is None for a in node.args):
            return  # the decorator factory tf.function(jit_compile=True)
        path = self.ctx.path_to(node)
        loop = _enclosing_loop(path)
        called_at_once = type(path[-2]) is cst.Call and path[-2].func is node  # type: ignore[attr-defined]
        if loop is None and not (called_at_once and _inside_function(path)):
            return
        if not self.ctx.names.resolves_to(node.func, path, TF_FUNCTION):
            return
        if self.ctx.tf.context(path) is not None:
            return  # inside graph code a nested tf.function is inlined into the outer graph
        where = "inside a loop" if loop is not None else "and called on every call"
        self.report(
            node,
            f"a new tf.function is created {where}: each one traces (and compiles) again",
            help="create the tf.function once, outside the loop or at module level",
        )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not node.decorators:
            return
        path = self.ctx.path_to(node)
        if _enclosing_loop(path) is None:
            return
        for decorator in node.decorators:
            spec = self.ctx.tf.tf_function_spec(decorator.decorator, [*path, decorator])
            if spec is not None:
                self.report(
                    decorator.decorator,
                    f"`{node.name.value}` is a new tf.function on every loop iteration: each "
                    "one traces (and compiles) again",
                    help="define the tf.function once, outside the loop",
                )
                return

    def _called(self, node: cst.Call, func: cst.Name) -> None:
        path = self.ctx.path_to(node)
        loop = _enclosing_loop(path)
        if type(loop) is not cst.For or not self._python_numbers(loop, path):
            return
        targets = _target_names(loop.target)
        arg = next(
            (a for a in node.args if type(a.value) is cst.Name and a.value.value in targets),
            None,
        )
        if arg is None:
            return
        options = self._tf_function_binding(func, path)
        if options is None or options[2]:  # no tf.function, or an input_signature
            return
        if self.ctx.tf.context(path) is not None:
            return
        self.report(
            arg.value,
            f"`{func.value}` is a tf.function called with the loop variable "
            f"`{arg.value.value}`, a Python number: every distinct value traces "  # type: ignore[attr-defined]
            "(and compiles) the function again",
            help="pass a tensor (tf.constant(value)), or give the function an input_signature",
        )

    def _python_numbers(self, loop: cst.For, path: Sequence[cst.CSTNode]) -> bool:
        iterable = loop.iter
        if type(iterable) is cst.Call:
            return self.ctx.names.resolves_to(iterable.func, path, {"builtins.range"})
        if type(iterable) in (cst.List, cst.Tuple):
            return bool(iterable.elements) and all(  # type: ignore[attr-defined]
                type(e.value) in (cst.Integer, cst.Float)
                for e in iterable.elements  # type: ignore[attr-defined]
            )
        return False

    def _tf_function_binding(
        self, func: cst.Name, path: Sequence[cst.CSTNode]
    ) -> tuple[bool | None, bool, bool, bool] | None:
        found = self.ctx.names.lookup_with_path(func.value, path)
        if found is None or len(found[0]) != 1:
            return None
        binding, scope_path = found[0][0], found[1]
        node = binding.node
        if binding.kind == "def" and type(node) is cst.FunctionDef:
            for decorator in node.decorators:
                spec = self.ctx.tf.tf_function_spec(
                    decorator.decorator, [*scope_path, node, decorator]
                )
                if spec is not None:
                    return spec
            return None
        if (
            binding.kind == "assign"
            and type(node) is cst.Call
            and self.ctx.names.resolves_to(node.func, [*scope_path, node], TF_FUNCTION)
        ):
            return tf_function_options(node.args)
        return None


def _target_names(target: cst.CSTNode) -> set[str]:
    if type(target) is cst.Name:
        return {target.value}  # type: ignore[attr-defined]
    return set()
