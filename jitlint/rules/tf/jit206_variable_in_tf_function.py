from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.repeats import enclosing_loops
from jitlint.model.tf.api import (
    VARIABLE_CONSTRUCTORS,
    VARIABLE_FUNCTIONS,
    WEIGHT_MAKERS,
    canonical,
)
from jitlint.model.tf.function import graph_site
from jitlint.model.tf.keras import (
    SETUP_METHODS,
    in_setup_method,
    keras_state,
)
from jitlint.model.tf.repeats import tf_function_applying
from jitlint.python.names import leaf_name
from jitlint.python.uses import calls_in
from jitlint.rules.base import Rule


class VariableInTfFunction(Rule):
    """
    ## What it does
    Finds TensorFlow state created unconditionally in graph code (a `tf.function` body, a
    helper it calls, a Keras layer's `call`, a model's `train_step`, a loss given to
    `compile`): `tf.Variable(...)` and `keras.Variable(...)`, and Keras objects that own
    variables: layers with weights (`Dense`, `Conv2D`, a project layer that makes weights or
    sublayers), models (`Sequential`, `Model`), optimizers and metrics. Containers whose
    variables are those of the layers given to them (`StackedRNNCells`, `RNN`,
    `TimeDistributed`) are not reported; the layers made for them are.

    Also a weight made by a layer's own `self.add_weight(...)` outside `__init__`/`build`
    (in `call`, or a method it runs), and `tf.keras.backend.variable(...)` in graph code.
    With Keras 3 (TensorFlow 2.16 and later) `add_weight` is reported behind a lazy `if`
    too: a built layer refuses new weights ("You cannot add new elements of state ... to a
    layer that is already built", observed with Keras 3.15); with Keras 2 the lazy
    pattern is the fix, and is not reported. Keras 3 is known from the declared versions
    (`keras-version`, `tensorflow-version`, the project's requirements), from a
    Keras-3-only module the project's code or the file uses (`keras.ops`, `keras.config`);
    an undecided project (README, "Framework versions") is not Keras 3 here.

    And a Keras optimizer made anew on every iteration of a loop in eager code and passed
    to a `tf.function` that applies it (`optimizer.apply_gradients(...)`): each new
    optimizer is a new Python argument, so the function traces again, and that trace makes
    the optimizer's slot variables (observed, TF 2.21 / Keras 3: the second iteration
    raises). An optimizer whose `build(...)` runs before the call, and a plain `SGD`
    (no momentum, so no slot), are left alone.

    ## Why is this bad
    A `tf.function` may create variables only on its first trace. A body that creates one
    on every trace fails on the first call:

    ```text
    ValueError: tf.function only supports singleton tf.Variables created on the first call.
    Make sure the tf.Variable is only created once or created outside tf.function.
    ```

    ## Example
    ```python
    import tensorflow as tf


    @tf.function
    def accumulate(x):
        total = tf.Variable(0.0)  # error: JIT206
        total.assign_add(tf.reduce_sum(x))
        return total.read_value()


    accumulate(tf.constant([1.0, 2.0]))
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    total = tf.Variable(0.0)


    @tf.function
    def accumulate(x):
        total.assign_add(tf.reduce_sum(x))
        return total.read_value()


    accumulate(tf.constant([1.0, 2.0]))
    ```

    ## Fix safety
    `name = Ctor(...)` alone on a line of a module-level function's own block moves above
    the function, created once when the module runs, when its arguments read nothing the
    function binds and `name` is used nowhere else in the module; the line left behind
    says where it went. Unsafe: every call now shares the object (a variable keeps its
    value between calls instead of starting again from its initial value), and its initial
    value is computed at import.

    In a method (a layer's `call`, a `tf.function` method) the object is created once at
    the end of the class's `__init__`, as a new attribute (`self.head = Sequential(...)`,
    named after the name it was assigned to or its class: `self.conv2d`), and the method
    uses the attribute. Only when the constructor reads `self` and module-level names bound
    once, each `self.x` it reads is set in `__init__` (or is a name of the class body), it
    is not made in a loop or comprehension of the method (that makes one object per
    iteration), nor in a `try`, `with` or lambda; the class must have its own `__init__`
    ending with a simple statement, no decorator, and only plain classes of the module or
    TensorFlow/Keras classes as bases. Unsafe like the first: the object is made once per
    instance, so a variable keeps its value between calls, and it is made when the
    instance is, before the first call. Made in the body of a `for name in range(...)`
    loop of the method's own block (one object per iteration), it is made in `__init__` as
    a list (`self.denses = [Dense(4) for _ in range(self.depth)]`, the `range(...)` held to
    the same conditions) and the loop takes its own: `for _, dense in zip(range(self.depth),
    self.denses):`. Elsewhere (another loop, arguments read from the call or the loop's
    variable, a nested function) a `tf.Variable` made directly in the body of the
    `tf.function` (a factory: `new_weight(self, shape)` makes one per call) gets the
    decorator dropped, when the module only calls the function (`obj.new_weight(...)`) and
    the decorator sets no option but `jit_compile`, `reduce_retracing` or `autograph`: it
    runs eagerly, and every call makes its own variable, as its Python code says. Unsafe:
    it no longer runs as a graph, and Python code in it runs on every call. Otherwise there
    is no automatic fix, and the help says why: create it in `__init__`/`build`, or lazily
    behind `if self.v is None:`.

    A Keras layer, model, optimizer or metric created there makes its variables when it is
    first called, inside the traced function, and a new object each trace is not tracked by
    the model: its weights are never trained (Keras 3 raises on such layers in `fit`, or
    the `tf.function` error above).

    ## Known problems
    Creation under any `if` is taken to be the lazy singleton pattern and is not reported,
    except `add_weight` where Keras 3 is known to be the target. Where the project's Keras
    major is not known (nothing declared, no Keras-3-only module used), a lazy `add_weight`
    is not reported: under Keras 3 it fails once the layer is built, under Keras 2 it is
    the fix.
    Keras layers without weights (`Flatten`, `Reshape`, pooling, padding, `Activation`,
    merging layers) are not reported. Classes of other modules of the project are not
    known here.
    """

    code = "JIT206"
    fix_availability = "sometimes"
    name = "variable-in-tf-function"
    summary = "A tf.Variable is created on every call of a tf.function."
    framework = "tensorflow"
    requires = ("Variable", "keras")
    runtime_error = "tf.function only supports singleton tf.Variables"

    VALID = (
        # One optimizer for every iteration, or one built (its variables made) before the
        # tf.function sees it.
        """
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
@tf.function
def train_step(x, y, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
def fit(batches):
    optimizer = tf.keras.optimizers.Adam(0.01)
    for x, y in batches:
        train_step(x, y, optimizer)
def search(batches, rates):
    for rate in rates:
        optimizer = tf.keras.optimizers.SGD(rate)
        optimizer.build(model.trainable_variables)
        for x, y in batches:
            train_step(x, y, optimizer)
""",
        # A layer whose only sublayer owns no variable owns none either: one per trace is fine.
        """
import tensorflow as tf
class Mask(tf.keras.layers.Layer):
    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.pad = tf.keras.layers.ZeroPadding2D((n, n))
    def call(self, x):
        return self.pad(x)
class Model(tf.keras.layers.Layer):
    def call(self, x):
        return Mask(2)(x) * x
""",
        # Weights made in build, or lazily behind an `if`; a `variable` that is not Keras's.
        """
import tensorflow as tf
from store import variable
class Scale(tf.keras.layers.Layer):
    def build(self, shape):
        self.w = self.add_weight(shape=(), initializer="ones")
    def call(self, x):
        return x * self.w + variable(1.0)
""",
        # A lazy `add_weight` where the Keras major is not known: Keras 2 allows it.
        """
import tensorflow as tf
class Scale(tf.keras.layers.Layer):
    def call(self, x):
        if not hasattr(self, "bias"):
            self.bias = self.add_weight(shape=(), initializer="zeros")
        return x + self.bias
""",
        # Created once, outside.
        """
import tensorflow as tf
v = tf.Variable(1.0)
@tf.function
def f(x):
    return x * v
""",
        # The lazy singleton.
        """
import tensorflow as tf
class M(tf.Module):
    def __init__(self):
        self.v = None
    @tf.function
    def __call__(self, x):
        if self.v is None:
            self.v = tf.Variable(tf.ones_like(x))
        return x * self.v
""",
        # A helper that makes the variable, called only behind the lazy singleton's guard.
        """
import tensorflow as tf
def _memory(t):
    return tf.Variable(tf.zeros_like(t), trainable=False)
class Memory(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.kept = None
    def call(self, x):
        if self.kept is None:
            self.kept = _memory(x)
        return x + self.kept
""",
        # Weightless layers, and a layer created once behind a guard.
        """
import tensorflow as tf
class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.head = None
    def call(self, x):
        if self.head is None:
            self.head = tf.keras.layers.Dense(2)
        x = tf.keras.layers.Flatten()(tf.keras.layers.MaxPooling2D()(x))
        return self.head(x)
""",
        # Sublayers made by a helper method that only a set-up step calls, behind a flag the
        # step sets itself and inside `tf.init_scope()` (the build-from-signature pattern).
        """
import tensorflow as tf
class Attention(tf.keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.units = units
        self._ready = False
    def _set_up(self, query):
        self._ready = True
        with tf.init_scope():
            self._project()
    def _project(self):
        self.query_dense = tf.keras.layers.Dense(self.units)
    def call(self, query):
        if not self._ready:
            self._set_up(query)
        return self.query_dense(query)
""",
        # A container of ready cells owns no variable (the cells do, made once).
        """
import tensorflow as tf
cells = [tf.keras.layers.LSTMCell(8)]
@tf.function
def initial_state(batch):
    stack = tf.keras.layers.StackedRNNCells(cells)
    return stack.get_initial_state(batch_size=batch)
""",
        # Keras build() creates weights once.
        """
import tensorflow as tf
class L(tf.keras.layers.Layer):
    def build(self, shape):
        self.w = tf.Variable(tf.zeros(shape[-1:]))
    def call(self, x):
        return x * self.w
""",
        # Not graph code.
        """
import tensorflow as tf
def make():
    return tf.Variable(0.0)
""",
    )
    INVALID = (
        # A helper method that `call` runs on every trace makes a new layer each time.
        """
import tensorflow as tf
class Head(tf.keras.layers.Layer):
    def _project(self):
        return tf.keras.layers.Dense(4)  # error: JIT206
    def call(self, x):
        return self._project()(x)
""",
        # A new optimizer per iteration, passed to the tf.function that applies it.
        """
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
@tf.function
def train_step(x, y, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
def search(x, y, rates):
    for rate in rates:
        optimizer = tf.keras.optimizers.Adam(rate)  # error: JIT206
        train_step(x, y, optimizer)
""",
        # A weight made in `call`: Keras 3 refuses new state once the layer is built.
        """
import tensorflow as tf
class Scale(tf.keras.layers.Layer):
    def call(self, x):
        w = self.add_weight(shape=(), initializer="ones")  # error: JIT206
        return x * w
""",
        # Keras 3 refuses it even behind a lazy `if` (the layer is built by then): the
        # file uses `keras.ops`, so Keras 3 is its target.
        """
import keras
class Scale(keras.layers.Layer):
    def call(self, x):
        if not hasattr(self, "bias"):
            self.bias = self.add_weight(shape=(), initializer="zeros")  # error: JIT206
        return keras.ops.add(x, self.bias)
""",
        # Keras's backend API makes a tf.Variable on every trace.
        """
import tensorflow as tf
@tf.function
def scaled(x):
    k = tf.keras.backend.variable(2.0)  # error: JIT206
    return x * k
""",
        """
import tensorflow as tf
@tf.function
def f(x):
    v = tf.Variable(1.0)  # error: JIT206
    return x * v
""",
        # A tf.function that makes a variable, called eagerly behind a guard.
        """
import tensorflow as tf
@tf.function
def affine(x):
    b = tf.Variable(12.0)  # error: JIT206
    return x + b
if __name__ == "__main__":
    print(affine(tf.ones(2)))
""",
        # The same helper called on every trace.
        """
import tensorflow as tf
def _memory(t):
    return tf.Variable(tf.zeros_like(t), trainable=False)  # error: JIT206
class Memory(tf.keras.layers.Layer):
    def call(self, x):
        return x + _memory(x)
""",
        # TF 1's spelling fails the same way on TF 2.
        """
import tensorflow as tf
@tf.function
def f(x):
    v = tf.compat.v1.Variable(1.0)  # error: JIT206
    return x * v
""",
        # Keras objects with variables, created in call and in a tf.function.
        """
import tensorflow as tf
class Block(tf.keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.norm = tf.keras.layers.LayerNormalization()
    def call(self, x):
        return self.norm(x)
class Net(tf.keras.Model):
    def call(self, x):
        x = tf.keras.layers.Dense(4)(x)  # error: JIT206
        x = Block()(x)  # error: JIT206
        head = tf.keras.Sequential([tf.keras.layers.Dense(2)])  # error: JIT206
        return head(tf.keras.layers.Flatten()(x))
@tf.function
def train_step(model, x):
    optimizer = tf.keras.optimizers.Adam(0.01)  # error: JIT206
    return optimizer
""",
        """
import tensorflow as tf
from tensorflow import keras
class Scale(keras.layers.Layer):
    def call(self, inputs):
        self.scale = tf.Variable(2.0)  # error: JIT206
        return inputs * self.scale
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        kind = type(func)
        if kind is cst.Attribute:
            leaf = func.attr.value  # type: ignore[attr-defined]
        elif kind is cst.Name:
            leaf = func.value  # type: ignore[attr-defined]
        else:
            return
        if leaf in WEIGHT_MAKERS or leaf == "variable":
            self._weight_call(node, func, leaf)
            return
        if not leaf[:1].isupper():
            return  # variables, layers, models, optimizers and metrics are classes
        path = self.ctx.path_to(node)
        context = self.ctx.tf.context(path)
        if context is None:
            self._optimizer_per_iteration(node, func, leaf, path)
            return
        if self._created_once(path):
            return
        what = self._creates_state(func, leaf, path)
        if what is None or self._inside_reported_creation(path):
            return
        from jitlint.fixes.hoist_fix import hoist_creation_fix_or_reason

        found = hoist_creation_fix_or_reason(self.ctx, node, path)
        if isinstance(found, str) and type(path[1]) is cst.ClassDef:
            from jitlint.fixes.hoisting.out import TF_BASES, hoist_call_fix_or_reason

            found = hoist_call_fix_or_reason(
                self.ctx, node, path, self._new_names, _base(node, path, leaf),
                module_level=False, prefixes=TF_BASES, what=f"the `{leaf}`",
            )  # fmt: skip
        if isinstance(found, str) and found.startswith("it is made in a loop"):
            from jitlint.fixes.hoisting.loop import per_iteration_fix_or_reason
            from jitlint.fixes.hoisting.out import TF_BASES

            found = per_iteration_fix_or_reason(
                self.ctx, node, path, self._new_names, _base(node, path, leaf),
                TF_BASES, f"the `{leaf}`",
            )  # fmt: skip
        if isinstance(found, str) and what == "variable":
            found = self._eager_fix(path) or found
        fix, no_fix = (
            (found, "") if isinstance(found, NodeFix) else (None, f"; no automatic fix: {found}")
        )
        if what == "variable":
            self.report(
                node,
                f"`{leaf}` is created on every trace of {graph_site(context)}; TensorFlow allows "
                "variables only on the first call (ValueError: tf.function only supports "
                "singleton tf.Variables)",
                help="create it once: at module level, in __init__/build, or behind "
                f"`if self.v is None:`{no_fix}",
                fix=fix,
            )
            return
        self.report(
            node,
            f"a new {what} `{leaf}` is created on every trace of {graph_site(context)}: its "
            "variables are created inside the traced function (TensorFlow allows them only "
            "on the first call), and a new one each time is never trained or tracked",
            help=f"create the {what} once, in `__init__` (or `build`), and call it here{no_fix}",
            fix=fix,
        )

    def _optimizer_per_iteration(
        self, node: cst.Call, func: cst.BaseExpression, leaf: str, path: list[cst.CSTNode]
    ) -> None:
        """`opt = Adam()` in a loop of eager code, `opt` then passed to a tf.function that
        applies it: every new optimizer retraces the function, and that later trace makes
        the optimizer's slot variables."""
        loops = enclosing_loops(path)
        if not loops or self._creates_state(func, leaf, path) != "Keras optimizer":
            return
        if (
            leaf == "SGD"
            and len(node.args) < 2
            and not any(a.keyword is not None and a.keyword.value == "momentum" for a in node.args)
        ):
            return  # plain SGD keeps no slot: nothing to make in the trace (Keras 3)
        parent = path[-2]
        if type(parent) is cst.Assign and len(parent.targets) == 1:  # type: ignore[attr-defined]
            target = parent.targets[0].target  # type: ignore[attr-defined]
            name = target.value if type(target) is cst.Name else None
        else:
            name = None
        for call in calls_in(loops[0].body):
            method = call.func
            if (
                type(method) is cst.Attribute
                and method.attr.value == "build"
                and _is_name(method.value, name)
            ):
                return  # `opt.build(...)` first: its variables exist before the trace
            step = self._applying_tf_function(call, node, name)
            if step is not None:
                self.report(
                    node,
                    f"a new Keras optimizer `{leaf}` is made on every iteration and passed to "
                    f"`{step}`, a tf.function that applies it: each new optimizer retraces "
                    "it, and that trace creates the optimizer's slot variables, which "
                    "TensorFlow allows only on the first call (ValueError: tf.function only "
                    "supports singleton tf.Variables created on the first call)",
                    help="make the optimizer once, before the loop; where each iteration "
                    "needs a fresh one, make the tf.function in the loop too "
                    "(`step = tf.function(train_step)`), so its first trace makes them",
                )
                return

    def _applying_tf_function(self, call: cst.Call, made: cst.Call, name: str | None) -> str | None:
        """The name of the tf.function `call` calls, when it passes the optimizer (`made`,
        or the name bound to it) for a parameter the function applies
        (`param.apply_gradients(...)`, `param.minimize(...)`)."""
        passed = [a.value for a in call.args if a.value is made or _is_name(a.value, name)]
        if not passed:
            return None
        return tf_function_applying(self.ctx.tf, call, self.ctx.path_to(call), passed)

    def _weight_call(self, node: cst.Call, func: cst.BaseExpression, leaf: str) -> None:
        """`self.add_weight(...)` in a layer's `call` (or another traced method), and
        `tf.keras.backend.variable(...)` in graph code: a variable made on every trace."""
        if leaf in WEIGHT_MAKERS:
            receiver = func.value if type(func) is cst.Attribute else None  # type: ignore[attr-defined]
            if type(receiver) is not cst.Name or receiver.value != "self":  # type: ignore[attr-defined]
                return
        path = self.ctx.path_to(node)
        if leaf == "variable":
            names = canonical(self.ctx.names.qualified_names(func, path))
            if not names or not names <= VARIABLE_FUNCTIONS:
                return
        context = self.ctx.tf.context(path)
        if context is None:
            return
        # Keras 3 refuses new weights once the layer is built, also behind a lazy `if`
        # (observed, Keras 3.15); only `__init__`/`build` may make them. Keras 2 allows
        # the lazy `if`, so that is reported only where Keras 3 is known to be the target.
        lazy_allowed = leaf not in WEIGHT_MAKERS or not self._keras_3
        if self._created_once(path) if lazy_allowed else in_setup_method(path):
            return
        if leaf in WEIGHT_MAKERS:
            self.report(
                node,
                f"`self.{leaf}` makes a weight on every trace of {graph_site(context)}: a Keras 3 "
                "layer that is already built refuses new state ('You cannot add new elements "
                "of state ... to a layer that is already built'); in TF 2's Keras it is a new "
                "variable per trace (ValueError: tf.function only supports singleton "
                "tf.Variables)",
                help="make the weight in `build()` (or `__init__`) and read `self.<name>` here",
            )
            return
        self.report(
            node,
            f"`{leaf}` creates a variable on every trace of {graph_site(context)}; TensorFlow "
            "allows variables only on the first call (ValueError: tf.function only supports "
            "singleton tf.Variables)",
            help="create it once: at module level, in __init__/build, or behind "
            "`if self.v is None:`",
        )

    @cached_property
    def _keras_3(self) -> bool:
        """Keras 3 is the target: configured, declared (itself or through TensorFlow), shown
        by the project's code or this file's Keras-3-only modules (the model decides).
        Unknown is not Keras 3 here: unknown never yields an error."""
        return self.ctx.tf.keras_3_known

    def _eager_fix(self, path: list[cst.CSTNode]) -> NodeFix | None:
        """Drop the `tf.function` decorating the function that makes the variable: run
        eagerly, each call makes its own, as the Python code says (fixes/eager_fix.py)."""
        depth = next(k for k in range(len(path) - 1, -1, -1) if type(path[k]) is cst.FunctionDef)
        func = path[depth]
        for decorator in func.decorators:  # type: ignore[attr-defined]
            where = [*path[: depth + 1], decorator]
            if self.ctx.tf.tf_function_spec(decorator.decorator, where) is not None:
                from jitlint.fixes.eager_fix import eager_fix

                return eager_fix(self.ctx, func, decorator, path[: depth + 1])  # type: ignore[arg-type]
        return None

    @cached_property
    def _new_names(self) -> tuple[set[str], set[str]]:
        """Names and attribute names a fix out of a method must not choose."""
        from jitlint.fixes.hoist_fix import names_in
        from jitlint.fixes.hoisting.scope import attribute_names

        return names_in(self.ctx.module), attribute_names(self.ctx.module)

    def _inside_reported_creation(self, path: list[cst.CSTNode]) -> bool:
        """`Sequential([Dense(4)])`: the layers given to a model (or a wrapper layer) are
        part of the one creation reported."""
        for index in range(len(path) - 2, 0, -1):
            ancestor = path[index]
            kind = type(ancestor)
            if kind in (cst.FunctionDef, cst.Lambda, cst.SimpleStatementLine):
                return False
            if kind is cst.Call:
                func = ancestor.func  # type: ignore[attr-defined]
                leaf = leaf_name(func)
                if (
                    leaf[:1].isupper()
                    and self._creates_state(func, leaf, path[: index + 1]) is not None
                ):
                    return True
        return False

    def _created_once(self, path: list[cst.CSTNode], seen: frozenset[int] = frozenset()) -> bool:
        """Under an `if` (the lazy singleton), in `with tf.init_scope():`, or in a method
        Keras runs once to set the object up."""
        for ancestor in reversed(path):
            ancestor_kind = type(ancestor)
            if ancestor_kind is cst.If or ancestor_kind is cst.IfExp:
                return True
            if ancestor_kind is cst.With and "init_scope" in self.ctx.module.code_for_node(
                ancestor.items[0]  # type: ignore[attr-defined]
            ):
                return True
            if ancestor_kind is cst.FunctionDef:
                if ancestor.name.value in SETUP_METHODS:  # type: ignore[attr-defined]
                    return True
                # A helper that makes the object for its callers: once where each caller
                # here calls it once (`if self.v is None: self.v = make(x)`).
                if id(ancestor) in seen:
                    return False  # a recursive helper
                sites = self.ctx.tf.local_call_sites(ancestor)  # type: ignore[arg-type]
                inner = seen | {id(ancestor)}
                # Each call in graph code (an eager call of a tf.function says nothing).
                return bool(sites) and all(
                    self.ctx.tf.context(list(site_path)) is not None
                    and self._created_once(list(site_path), inner)
                    for _, site_path in sites
                )
        return False

    def _creates_state(
        self, func: cst.BaseExpression, leaf: str, path: list[cst.CSTNode]
    ) -> str | None:
        """ "variable", "layer", "model", "optimizer", "metric" for a call that creates
        TensorFlow state; None for anything else (weightless layers, unknown classes)."""
        names = canonical(self.ctx.names.qualified_names(func, path))
        if names and names <= VARIABLE_CONSTRUCTORS:
            return "variable"
        found = {keras_state(name, self.ctx.tf.keras_major) for name in names}
        if len(found) == 1 and None not in found:
            return found.pop()
        if type(func) is cst.Name:
            bindings = self.ctx.names.lookup(func.value, path)
            if bindings and len(bindings) == 1 and bindings[0].kind == "class":
                cls = bindings[0].node
                found_kind = self.ctx.tf.keras_class_kind(cls, path)  # type: ignore[arg-type]
                if (
                    found_kind is not None
                    and found_kind[1] in ("layer", "metric")
                    and self.ctx.tf.owns_state(cls)  # type: ignore[arg-type]
                ):
                    return "Keras layer" if found_kind[1] == "layer" else "Keras metric"
        return None


def _is_name(expr: cst.CSTNode, name: str | None) -> bool:
    return name is not None and type(expr) is cst.Name and expr.value == name


def _base(node: cst.Call, path: Sequence[cst.CSTNode], leaf: str) -> str:
    """A name for the object made once: the name or attribute it is assigned to (`head`,
    `self.head`), else its class's (`Conv2D` -> `conv2d`)."""
    parent = path[-2] if len(path) >= 2 else None
    if type(parent) is cst.Assign and len(parent.targets) == 1:  # type: ignore[attr-defined]
        target = parent.targets[0].target  # type: ignore[attr-defined]
        if type(target) is cst.Name:
            return target.value
        if type(target) is cst.Attribute:
            from jitlint.fixes.hoisting.out import snake

            return target.attr.value.lstrip("_") or snake(leaf)
    from jitlint.fixes.hoisting.out import snake

    return snake(leaf)
