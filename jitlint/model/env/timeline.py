"""The order of a module's top-level statements as the environment sees it: which
environment variables it writes, and what had already happened (a jax import, a backend
start, a TF op) when it did. Shared by JIT301 (XLA_FLAGS) and JIT302 (JAX_*).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

import libcst as cst

from jitlint.python.walker import contains, iter_children

if TYPE_CHECKING:
    from jitlint.model.context import FileContext
# field holds the first node that made it happen, or None.
#
# Observed on jax 0.10.2 / tensorflow-cpu 2.21 by writing a bogus flag (the process aborts
# with "Unknown flag in XLA_FLAGS" at the moment the variable is parsed):
# - jax parses XLA_FLAGS when the backend starts: the first device query (`jax.devices()`,
#   `jax.device_count()`, `jax.default_backend()`, `jax.process_index()`) or computation
#   (`jnp.ones`, `jnp.float32(1.0)`, `jax.random.key`, `jax.nn.relu`, `lax.add`, calling a
#   jitted, vmapped or grad function). `import jax`, `jax.config.update`, applying `jax.jit`,
#   `jnp.finfo`/`jnp.dtype`/`jnp.issubdtype`/`jnp.result_type`, `jax.ShapeDtypeStruct`,
#   `jax.tree.map`, `jax.eval_shape` and `jax.make_jaxpr` do not start it.
# - tensorflow parses TF_XLA_FLAGS at the first eager op, device listing, dataset, summary
#   writer or tf.function call; not at import, `tf.function` decoration, `tf.config.threading`,
#   `tf.config.optimizer`, `tf.random.set_seed`, `tf.TensorSpec`, Keras layer construction or
#   mixed-precision policies.
# - tensorflow parses XLA_FLAGS at the first XLA compilation (a `jit_compile=True` function
#   call), not at eager ops or plain tf.function calls.
# - jax reads `JAX_*` configuration variables with os.getenv when `import jax` defines the
#   options, so later writes are ignored, and `os.putenv` (which bypasses os.environ) is never
#   seen by jax at all.


@dataclass(frozen=True)
class Happened:
    """The framework events certainly past at a point of the module."""

    jax_import: cst.CSTNode | None = None
    jax_backend: cst.CSTNode | None = None
    tf_runtime: cst.CSTNode | None = None
    tf_xla: cst.CSTNode | None = None

    def meet(self, other: Happened) -> Happened:
        """What certainly happened on both of two paths."""
        return Happened(
            *(
                mine if mine is not None and theirs is not None else None
                for mine, theirs in zip(self._fields(), other._fields(), strict=True)
            )
        )

    def _fields(self) -> tuple[cst.CSTNode | None, ...]:
        return (self.jax_import, self.jax_backend, self.tf_runtime, self.tf_xla)


WriteKind = Literal["setitem", "augassign", "update", "setdefault", "putenv"]


@dataclass(frozen=True)
class EnvWrite:
    """A write of an environment variable, and what had happened before it."""

    key: str
    kind: WriteKind
    node: cst.CSTNode  # the statement part or call to report
    value: cst.BaseExpression | None
    before: Happened
    path: tuple[cst.CSTNode, ...]  # module ... node


# Libraries whose import runs `import jax` (so JAX_* options are already read).
JAX_IMPORTERS = frozenset(
    {
        *("jax", "jaxlib", "flax", "optax", "equinox", "haiku", "chex", "numpyro", "jraph"),
        *("orbax", "distrax", "rlax", "diffrax", "lineax", "optimistix", "jaxopt", "blackjax"),
        *("objax", "trax", "jmp", "penzai"),
    }
)
_JAX_BACKEND_CALLS = frozenset(
    f"jax.{name}"
    for name in (
        *("devices", "local_devices", "device_count", "local_device_count", "process_index"),
        *("process_count", "default_backend", "device_put", "device_put_replicated"),
        *("device_put_sharded", "block_until_ready", "make_mesh", "live_arrays"),
        *("lib.xla_bridge.get_backend", "extend.backend.get_backend"),
    )
)
_JAX_COMPUTE_PREFIXES = ("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.", "jax.scipy.")
_JAX_NOT_COMPUTING = frozenset(
    f"jax.numpy.{name}"
    for name in (
        *("finfo", "iinfo", "dtype", "issubdtype", "result_type", "promote_types"),
        *("can_cast", "isdtype", "ndim", "shape", "size"),
    )
)
_JAX_TRANSFORMS = frozenset(
    f"jax.{name}"
    for name in (
        *("jit", "pjit", "vmap", "pmap", "grad", "value_and_grad", "jacfwd", "jacrev"),
        *("hessian", "checkpoint", "remat", "jvp", "vjp", "linearize"),
    )
)
_TF_DEVICE_QUERIES = frozenset(
    f"tensorflow.{name}"
    for name in (
        *("config.list_physical_devices", "config.list_logical_devices"),
        *("config.get_visible_devices", "config.experimental.list_physical_devices"),
        *("config.experimental.list_logical_devices", "config.experimental.get_visible_devices"),
        *("test.is_gpu_available", "test.gpu_device_name", "summary.create_file_writer"),
    )
)
_TF_OPS = frozenset(
    f"tensorflow.{name}"
    for name in (
        *("constant", "Variable", "zeros", "ones", "fill", "range", "convert_to_tensor", "eye"),
        *("cast", "reshape", "concat", "stack", "zeros_like", "ones_like", "linspace"),
        *("add", "multiply", "matmul", "reduce_sum", "reduce_mean", "one_hot", "identity"),
    )
)
_TF_OP_PREFIXES = (
    *("tensorflow.math.", "tensorflow.linalg.", "tensorflow.data.", "tensorflow.image."),
    *("tensorflow.signal.", "tensorflow.strings.", "tensorflow.random."),
)
_TF_NOT_OPS = frozenset({"tensorflow.random.set_seed"})
_TF_FUNCTION = frozenset({"tensorflow.function"})
_ENVIRON = frozenset({"os.environ"})
_PUTENV = frozenset({"os.putenv"})
# A write followed by one of these may be meant for a child process, which reads it afresh.
_CHILD_PROCESS_HINTS = ("subprocess", "multiprocessing", "Popen", "os.system", "os.exec")
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def _is_jax_compute(name: str) -> bool:
    if name in _JAX_BACKEND_CALLS:
        return True
    if not name.startswith(_JAX_COMPUTE_PREFIXES) or name in _JAX_NOT_COMPUTING:
        return False
    if name.startswith("jax.nn.initializers."):
        return False  # initializer factories return functions
    leaf = name.rpartition(".")[2]
    # lax.Precision(...), lax.GatherDimensionNumbers(...) are plain Python objects.
    return not (name.startswith("jax.lax.") and leaf[:1].isupper())


def _is_tf_runtime(name: str) -> bool:
    if name in _TF_DEVICE_QUERIES or name in _TF_OPS:
        return True
    if not name.startswith(_TF_OP_PREFIXES) or name in _TF_NOT_OPS:
        return False
    leaf = name.rpartition(".")[2]
    return not leaf[:1].isupper() or name == "tensorflow.data.Dataset"


def literal_str(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _block_statements(block: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The statements of an IndentedBlock, or the small statements of a one-line suite."""
    return getattr(block, "body", ())


class EnvTimeline:
    """Every literal-keyed environment write in the module, with what had happened before it.

    Statements run in order. A branch counts only if every path took it (an `if` without
    `else`, a loop body that may run zero times, and `if TYPE_CHECKING:` imports count for
    nothing after them). A function body starts from what had happened where the `def`
    statement ran: it cannot be called earlier.
    """

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.writes: list[EnvWrite] = []
        self.child_processes = any(hint in ctx.source for hint in _CHILD_PROCESS_HINTS)
        self._block(ctx.module.body, Happened(), (ctx.module,))

    def _block(
        self, statements: Sequence[cst.CSTNode], state: Happened, path: tuple[cst.CSTNode, ...]
    ) -> Happened:
        for statement in statements:
            state = self._statement(statement, state, (*path, statement))
        return state

    def _suite(self, owner_path: tuple[cst.CSTNode, ...], block: cst.CSTNode, state: Happened):
        return self._block(_block_statements(block), state, (*owner_path, block))

    def _statement(
        self, node: cst.CSTNode, state: Happened, path: tuple[cst.CSTNode, ...]
    ) -> Happened:
        kind = type(node)
        if kind is cst.SimpleStatementLine:
            return self._block(node.body, state, path)  # type: ignore[attr-defined]
        if kind is cst.FunctionDef:
            state = self._expressions(_def_header(node), state, path)
            self._suite(path, node.body, state)  # type: ignore[attr-defined]
            return state
        if kind is cst.ClassDef:
            state = self._expressions(_def_header(node), state, path)
            return self._suite(path, node.body, state)  # type: ignore[attr-defined]
        if kind is cst.If:
            state = self._expressions([node.test], state, path)  # type: ignore[attr-defined]
            taken = self._suite(path, node.body, state)  # type: ignore[attr-defined]
            orelse = node.orelse  # type: ignore[attr-defined]
            if orelse is None:
                return taken.meet(state)
            if isinstance(orelse, cst.If):
                other = self._statement(orelse, state, (*path, orelse))
            else:
                other = self._suite((*path, orelse), orelse.body, state)
            return taken.meet(other)
        if kind is cst.For or kind is cst.While:
            head = node.iter if kind is cst.For else node.test  # type: ignore[attr-defined]
            state = self._expressions([head], state, path)
            self._suite(path, node.body, state)  # type: ignore[attr-defined]
            if node.orelse is not None:  # type: ignore[attr-defined]
                self._suite((*path, node.orelse), node.orelse.body, state)  # type: ignore[attr-defined]
            return state
        if kind is cst.Try or kind is cst.TryStar:
            after = self._suite(path, node.body, state)  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                self._suite((*path, handler), handler.body, state)
            if node.orelse is not None:  # type: ignore[attr-defined]
                after = self._suite((*path, node.orelse), node.orelse.body, after)  # type: ignore[attr-defined]
            if node.finalbody is not None:  # type: ignore[attr-defined]
                self._suite((*path, node.finalbody), node.finalbody.body, state)  # type: ignore[attr-defined]
            return after
        if kind is cst.With:
            items = [item.item for item in node.items]  # type: ignore[attr-defined]
            state = self._expressions(items, state, path)
            return self._suite(path, node.body, state)  # type: ignore[attr-defined]
        if kind is cst.Match:
            state = self._expressions([node.subject], state, path)  # type: ignore[attr-defined]
            for case in node.cases:  # type: ignore[attr-defined]
                self._suite((*path, case), case.body, state)
            return state
        if kind is cst.Import or kind is cst.ImportFrom:
            if state.jax_import is None and _imports_jax(node):
                return replace(state, jax_import=node)
            return state
        return self._small(node, state, path)

    def _small(self, node: cst.CSTNode, state: Happened, path: tuple[cst.CSTNode, ...]):
        kind = type(node)
        if kind is cst.Assign or kind is cst.AugAssign:
            targets = (
                [t.target for t in node.targets]  # type: ignore[attr-defined]
                if kind is cst.Assign
                else [node.target]  # type: ignore[attr-defined]
            )
            for target in targets:
                key = self._environ_key(target, path)
                if key is not None:
                    write_kind: WriteKind = "setitem" if kind is cst.Assign else "augassign"
                    self.writes.append(
                        EnvWrite(key, write_kind, node, node.value, state, path)  # type: ignore[attr-defined]
                    )
        return self._expressions(iter_children(node), state, path)

    def _environ_key(self, target: cst.CSTNode, path: Sequence[cst.CSTNode]) -> str | None:
        if not isinstance(target, cst.Subscript) or len(target.slice) != 1:
            return None
        index = target.slice[0].slice
        if not isinstance(index, cst.Index):
            return None
        key = literal_str(index.value)
        if key is None or not self.ctx.names.resolves_to(target.value, path, _ENVIRON):
            return None
        return key

    def _expressions(
        self, roots: Sequence[cst.CSTNode], state: Happened, path: tuple[cst.CSTNode, ...]
    ) -> Happened:
        for call in _calls(roots):
            self._write_call(call, state, path)
            state = self._event(call, state, path)
        return state

    def _write_call(self, call: cst.Call, state: Happened, path: tuple[cst.CSTNode, ...]):
        func = call.func
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method in ("update", "setdefault"):
            if not self.ctx.names.resolves_to(func.value, path, _ENVIRON):
                return
            if method == "setdefault":
                key = literal_str(call.args[0].value) if call.args else None
                value = call.args[1].value if len(call.args) > 1 else None
                if key is not None:
                    self.writes.append(EnvWrite(key, "setdefault", call, value, state, path))
                return
            for arg in call.args:
                if arg.keyword is not None:
                    self.writes.append(
                        EnvWrite(arg.keyword.value, "update", call, arg.value, state, path)
                    )
                elif isinstance(arg.value, cst.Dict):
                    for element in arg.value.elements:
                        if isinstance(element, cst.DictElement):
                            key = literal_str(element.key)
                            if key is not None:
                                self.writes.append(
                                    EnvWrite(key, "update", call, element.value, state, path)
                                )
        elif method == "putenv" and call.args:
            key = literal_str(call.args[0].value)
            if key is not None and self.ctx.names.resolves_to(func, path, _PUTENV):
                value = call.args[1].value if len(call.args) > 1 else None
                self.writes.append(EnvWrite(key, "putenv", call, value, state, path))

    def _event(self, call: cst.Call, state: Happened, path: tuple[cst.CSTNode, ...]) -> Happened:
        if state.jax_backend is None and self._jax_computes(call, path):
            state = replace(state, jax_backend=call)
        if state.tf_xla is None or state.tf_runtime is None:
            tf = self._tf_runs(call, path)
            if tf is not None:
                state = replace(state, tf_runtime=state.tf_runtime or call)
                if tf == "xla" and state.tf_xla is None:
                    state = replace(state, tf_xla=call)
        return state

    def _jax_computes(self, call: cst.Call, path: tuple[cst.CSTNode, ...]) -> bool:
        func = call.func
        if isinstance(func, cst.Call):
            # jax.jit(f)(x), jax.vmap(f)(x), jax.grad(f)(x): runs a computation.
            return self.ctx.names.resolves_to(func.func, path, _JAX_TRANSFORMS)
        names = self.ctx.names.qualified_names(func, path)
        if names and all(_is_jax_compute(name) for name in names):
            return True
        if isinstance(func, cst.Name):
            return self.ctx.jit.jitted_callee(call, path) is not None
        return False

    def _tf_runs(self, call: cst.Call, path: tuple[cst.CSTNode, ...]) -> str | None:
        """ "xla" for a call that compiles with XLA, "op" for one that starts the runtime."""
        func = call.func
        if isinstance(func, cst.Call):
            spec = self._tf_function_spec(func, path, applied=True)
            return spec
        names = self.ctx.names.qualified_names(func, path)
        if names and all(_is_tf_runtime(name) for name in names):
            return "op"
        if isinstance(func, cst.Name):
            bindings = self.ctx.names.lookup(func.value, path)
            if bindings and len(bindings) == 1 and bindings[0].kind == "def":
                definition = bindings[0].node
                for decorator in definition.decorators:  # type: ignore[union-attr]
                    spec = self._tf_function_spec(decorator.decorator, path, applied=False)
                    if spec is not None:
                        return spec
        return None

    def _tf_function_spec(
        self, expr: cst.CSTNode, path: tuple[cst.CSTNode, ...], applied: bool
    ) -> str | None:
        """For `tf.function` / `tf.function(...)`: "xla" with `jit_compile=True`, else "op".

        `applied` is True for `tf.function(f, ...)` called directly: it needs the function.
        """
        if not applied and self.ctx.names.resolves_to(expr, path, _TF_FUNCTION):
            return "op"
        if not isinstance(expr, cst.Call):
            return None
        if not self.ctx.names.resolves_to(expr.func, path, _TF_FUNCTION):
            return None
        positional = [a for a in expr.args if a.keyword is None]
        if applied != bool(positional):
            return None
        for arg in expr.args:
            if (
                arg.keyword is not None
                and arg.keyword.value == "jit_compile"
                and isinstance(arg.value, cst.Name)
                and arg.value.value == "True"
            ):
                return "xla"
        return "op"


def _def_header(node: cst.FunctionDef | cst.ClassDef) -> list[cst.CSTNode]:
    """What runs when a def/class statement runs: decorators, defaults, bases."""
    parts: list[cst.CSTNode] = [d.decorator for d in node.decorators]
    if isinstance(node, cst.FunctionDef):
        params = node.params
        every = (*params.posonly_params, *params.params, *params.kwonly_params)
        parts += [p.default for p in every if p.default is not None]
    else:
        parts += [a.value for a in (*node.bases, *node.keywords)]
    return parts


def _calls(roots: Sequence[cst.CSTNode]) -> Iterator[cst.Call]:
    """Calls that run when these expressions are evaluated (not inside lambdas), in order."""
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is _Done:
            yield node.call  # type: ignore[attr-defined]
            continue
        if kind is cst.Lambda or kind is cst.FunctionDef or kind is cst.ClassDef:
            continue
        if kind is cst.Call:
            # Arguments are evaluated before the call itself happens.
            stack.append(_Done(node))  # type: ignore[arg-type]
        stack.extend(reversed(iter_children(node)))


@dataclass(frozen=True)
class _Done:
    """On `_calls`' stack: the call's arguments are past, the call itself comes next."""

    call: cst.Call


def index_containing(body: Sequence[cst.CSTNode], node: cst.CSTNode) -> int | None:
    return next((i for i, statement in enumerate(body) if contains(statement, node)), None)


def imported_before(body: Sequence[cst.CSTNode], name: str, statement: cst.CSTNode) -> bool:
    """Whether a module-level import binding `name` comes before `statement`."""
    for current in body:
        if current is statement:
            return False
        if isinstance(current, cst.SimpleStatementLine):
            for small in current.body:
                if isinstance(small, cst.Import | cst.ImportFrom) and not isinstance(
                    small.names, cst.ImportStar
                ):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname else alias.name
                        while isinstance(bound, cst.Attribute):
                            bound = bound.value
                        if isinstance(bound, cst.Name) and bound.value == name:
                            return True
    return False


def _imports_jax(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Import):
        return any(_head(alias.name) in JAX_IMPORTERS for alias in node.names)
    if isinstance(node, cst.ImportFrom):
        return not node.relative and node.module is not None and _head(node.module) in JAX_IMPORTERS
    return False


def _head(node: cst.CSTNode) -> str:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


def timeline(ctx: FileContext) -> EnvTimeline:
    """The module's environment writes, computed once per file and shared by JIT301/JIT302."""
    found = getattr(ctx, "_env_timeline", None)
    if found is None:
        found = EnvTimeline(ctx)
        ctx._env_timeline = found  # type: ignore[attr-defined]
    return found


def describe(ctx: FileContext, node: cst.CSTNode) -> str:
    """A short rendering of an event, e.g. `jax.devices()`."""
    if isinstance(node, cst.Call):
        return f"`{ctx.module.code_for_node(node.func)}(...)`"
    text = ctx.module.code_for_node(node).strip()
    return f"`{text}`" if len(text) < 60 else "an import of jax"
