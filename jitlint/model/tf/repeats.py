"""TensorFlow's part of "how often does this run" (model/domain/repeats.py answers it), and
which parameters of a repeated function receive Python values that change from call to call:
what decides whether a `tf.function` retraces (hazards T13).

The domain finds the functions called in loops and what they call; this module resolves
calls with the TF model (module functions, `self` methods, methods of an instance of a
module class: `trainer = Trainer(); trainer.epoch()`), adds calls in loops of other files
("repeat" records: another file's loop calling this module's function, or a method of its
class) and the functions TensorFlow's world calls repeatedly by contract: a Keras
callback's `on_batch_end`/`on_epoch_end` hooks (called eagerly between steps), besides
the domain's (a model's `predict`, an agent's `act`, a request handler). What a loop
iteration keeps uncalled (a function per host or device) is not a repetition; TensorFlow's
own calls (`tf.while_loop`, `dataset.map`) run their function arguments right away. A
loop autograph stages (over a tensor or a dataset, in code that must run as graph code:
`TfModel.staged_loop`) is traced once per trace, so a call in it is no loop call.

A loop call passes a *varying* Python value when the argument is the loop's variable over
`range(...)` or over a literal list or tuple (of numbers, strings, bools, or lists of
them), or a name the loop body reassigns with Python arithmetic (`epsilon *= 0.9`)
(`varying_kind`: "count", or "grid" for a written-out list: a handful of configurations,
which retrace for nothing only where a tensor would serve the function's reads; a grid's
variable held over a repeating inner loop does not vary per call). A loop
call in a *grid* of configurations (every loop around it a `for` over a written-out list or
tuple of literals, or a name bound once to one, whose value it passes, in this file or
another: domain/repeats.py `passes_grid`, which JIT113 asks too) runs its function once per
configuration, and so do the functions that function alone repeats, on every path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jitlint.model.domain.guards import runs_once_per_key
from jitlint.model.domain.repeats import (
    Keeping,
    Repeated,
    calls_into,
    collects,
    conditional,
    enclosing_loops,
    find_repeated,
    local_repetition,
    method_contract,
    passes_grid,
    per_pass,
    used_repeatedly,
    written_out,
)
from jitlint.model.tf.api import OPTIMIZER_APPLY_METHODS, RUNS_ITS_ARGUMENT, TF_FUNCTION
from jitlint.model.tf.function import tf_function_options
from jitlint.model.tf.scan import Func, Path
from jitlint.python import binding
from jitlint.python.binding import Signature
from jitlint.python.scopes import module_functions
from jitlint.python.uses import bound_names, calls_in, returned_values
from jitlint.python.walker import iter_children

# The TF model (model.py imports this module, so it is not imported back).
TfModel = Any

_FUNCTIONS = (cst.FunctionDef, cst.Lambda)
# Methods a Keras callback's owner calls on every batch or epoch, eagerly, between steps.
_CALLBACK_HOOK = re.compile(r"on_(train_|test_|predict_)?(batch|epoch)_(begin|end)$")


@dataclass
class Repeats(Repeated):
    """How often TF code runs, with the Python values that change per call."""

    # function id -> parameters that receive varying Python values, with the call site
    varying: dict[int, dict[str, str]] = field(default_factory=dict)
    # function id -> those of them that some loop call passes a grid's element
    # (`varying_kind` "grid"), and those that some loop call passes a counted value
    grid_varying: dict[int, set[str]] = field(default_factory=dict)
    counted_varying: dict[int, set[str]] = field(default_factory=dict)
    # loop calls of names of other modules: (call, path, name, method or "", whether the call
    # passes the loop's element: `configured`, whether it runs over a written-out grid of
    # configurations: domain/repeats.py `passes_grid`) for "repeat" records
    foreign: list[tuple[cst.Call, Path, cst.CSTNode, str, bool, bool]] = field(default_factory=list)
    # ids of functions every loop call of which passes a value that changes per iteration
    # (`for n in [1, 3, 7]: make(n)`, `for device in devices: make(f, device)`): each run
    # builds for another configuration, or another element of a collection; and the
    # functions that only such functions repeat, by calling them on every path
    configured: set[int] = field(default_factory=set)

    def configured_owner(self, path: Path) -> bool:
        """The function holding the end of `path` runs once per configuration of a loop."""
        owner = next((n for n in reversed(path) if type(n) in _FUNCTIONS), None)
        return owner is not None and id(owner) in self.configured

    def remade_by_owner(self, node: cst.CSTNode, path: Path, owner_path: Path) -> str | None:
        """Why `node` (a `tf.function` or model made at the end of `path`) is made anew on
        each of several runs of the function around it (`owner_path` ends inside that
        function); None where the function runs once, or makes it the first time per key
        only (a memoised loader, domain/guards.py), or each run uses it once, or each run is
        for another configuration of a loop (each needs its own trace)."""
        why = self.inside(path)
        if (
            why is None
            or runs_once_per_key(path)
            or not used_repeatedly(node, path, self.keeps_result)
            or self.configured_owner(owner_path)
        ):
            return None
        return why

    @property
    def repeated(self) -> dict[int, str]:
        return self.why


def keeping(model: TfModel) -> Keeping:
    """What a loop iteration keeps uncalled; TensorFlow's own calls run their function
    arguments right away."""
    return Keeping(model.module, lambda call, path: _runs_arguments(model, call, path))


def find_repeats(model: TfModel) -> Repeats:
    scan = model.scan
    keep = keeping(model)

    def resolve(call: cst.Call, path: Sequence[cst.CSTNode]) -> Any:
        found = callee(model, call, path)  # type: ignore[arg-type]
        return found[0] if found is not None else None

    looped = per_pass(scan.loop_calls, model.staged_loop)
    found = find_repeated(
        looped, scan.calls, resolve, _contracts(model), keep.kept_per_iteration, names=model.names
    )
    out = Repeats(found.why, found.keeps_result)
    loop_calls: dict[int, int] = {}
    varied_calls: dict[int, int] = {}
    grid_calls: dict[int, int] = {}
    for call, path in looped:
        target = callee(model, call, path)
        if target is None:
            foreign = foreign_callee(model, call, path)
            if foreign is not None:
                element = _passes_element(model, call, path) or _kept_element(call, path)
                out.foreign.append(
                    (call, path, *foreign, element, passes_grid(call, path, model.names))
                )
            continue
        func, bound = target
        loop_calls[id(func)] = loop_calls.get(id(func), 0) + 1
        varied = False
        for param, arg in bind(func, call, bound):
            kind = varying_kind(model, arg, path)
            if kind is not None:
                out.varying.setdefault(id(func), {})[param] = "called in a loop"
                if kind == "grid":
                    out.grid_varying.setdefault(id(func), set()).add(param)
                else:
                    out.counted_varying.setdefault(id(func), set()).add(param)
                varied = True
        grid = passes_grid(call, path, model.names)
        grid_calls[id(func)] = grid_calls.get(id(func), 0) + grid
        varied = varied or grid or (_passes_element(model, call, path) and _factory(model, func))
        varied_calls[id(func)] = varied_calls.get(id(func), 0) + varied
    out.configured = {f for f, count in loop_calls.items() if varied_calls[f] == count}
    gridded = {f for f, count in loop_calls.items() if grid_calls[f] == count}
    # Another file's loops: configured when every one passes its element (and this file's
    # loops, if any, do too): a factory then, any function where every loop is a grid.
    records: dict[str, bool] = {}
    grids: dict[str, bool] = {}
    for r in model.records("repeat"):
        key = f"{r.function}.{r.status}" if r.status else r.function
        records[key] = records.get(key, True) and r.per_element
        grids[key] = grids.get(key, True) and r.grid
    for func, key in _repeated_defs(model):
        if not records.get(key) or loop_calls.get(id(func), 0) != varied_calls.get(id(func), 0):
            continue
        if grids.get(key) and loop_calls.get(id(func), 0) == grid_calls.get(id(func), 0):
            gridded.add(id(func))
        if grids.get(key) or _factory(model, func):
            out.configured.add(id(func))
    out.configured |= gridded | _gridded_callees(model, out, gridded, resolve)
    return out


def _gridded_callees(model: TfModel, out: Repeats, gridded: set[int], resolve: Any) -> set[int]:
    """The functions that run repeatedly only because functions run over grids of
    configurations (`gridded`) call them on every path (`optimize(config)` calling
    `make_step(...)`): they run once per configuration too. One also repeated by a loop, a
    contract, or another repeated caller is not."""
    callers: dict[int, set[int]] = {}
    for key in out.why:
        for call, path in model.scan.calls.get(key, ()):
            if conditional(path):
                continue
            func = resolve(call, path)
            if func is not None:
                callers.setdefault(id(func), set()).add(key)
    return {
        key
        for key, found in callers.items()
        if key not in out.sites
        and key not in found
        and out.why.get(key, "").startswith("called from a function")
        and found <= gridded
    }


def _repeated_defs(model: TfModel) -> list[tuple[cst.FunctionDef, str]]:
    """The module's top-level functions and its classes' methods, with the name a "repeat"
    record gives them (`f`, `Class.method`)."""
    return module_functions(model.module.body)


def _factory(model: TfModel, func: Func) -> bool:
    """`func` returns a tf.function it makes (`return tf.function(g)`, or a nested `def`
    decorated with it): its caller keeps and calls what it returns. A loop that calls it
    once per element of a collection (a device, a configuration) makes one per element;
    one that makes a tf.function and calls it on the data it is given (`for chunk in
    chunks: predict(chunk)`) retraces the same work for every element."""
    if type(func) is not cst.FunctionDef:
        return False
    path = [model.module, func, func.body]
    for value in returned_values(func) or ():
        if type(value) is cst.Call and model.names.resolves_to(value.func, path, TF_FUNCTION):
            return True
        if type(value) is cst.Name:
            held = _held_at_return(model, func, value)
            if held and all(
                type(v) is cst.Call and model.names.resolves_to(v.func, path, TF_FUNCTION)  # type: ignore[attr-defined]
                for v, _ in held
            ):
                return True
            bindings = model.names.lookup(value.value, path)
            node = bindings[0].node if bindings and len(bindings) == 1 else None
            if type(node) is cst.FunctionDef and any(
                model.tf_function_spec(d.decorator, [*path, node, d]) is not None
                for d in node.decorators
            ):
                return True
    return False


def _held_at_return(
    model: TfModel, func: cst.FunctionDef, name: cst.Name
) -> list[tuple[cst.CSTNode, Sequence[cst.CSTNode]]] | None:
    """What `name` may hold where a top-level `return name` of `func` reads it (the
    assignments that reach it: `fn = tf.function(fn)` after `fn = lambda ...`), or None."""
    base = (*model.scope_path(func), func.body)
    for statement in func.body.body:  # type: ignore[union-attr]
        if type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                if type(small) is cst.Return and small.value is name:
                    return model.values.assigned_values(name, (*base, statement, small))
    return None


def _passes_element(model: TfModel, call: cst.Call, path: Path) -> bool:
    """A loop call passes the loop's element of a Python collection (`for device in
    devices: make(f, device=device)`): with a factory (`_factory`), each iteration makes a
    function for another element, which needs its own trace; not the same work repeated."""
    for arg in call.args:
        value = arg.value
        if arg.star or type(value) is not cst.Name:
            continue
        for loop in enclosing_loops(path):
            if type(loop) is cst.For and value.value in target_names(loop.target):
                if python_collection(model, loop.iter, path):
                    return True
                break
    return False


def _kept_element(call: cst.Call, path: Path) -> bool:
    """The call is the element a comprehension collects (`[make(f, i) for i in ...]`): what
    a factory makes there is kept, one per element, not remade for the same work."""
    parent = path[-2] if path and path[-1] is call else (path[-1] if path else None)
    return parent is not None and collects(parent, call)


_DISPLAYS = (cst.List, cst.Tuple, cst.Set, cst.ListComp, cst.SetComp)


def python_collection(model: TfModel, iterable: cst.CSTNode, path: Path, depth: int = 0) -> bool:
    """A collection Python builds: `range(...)`, a list, tuple or set display or
    comprehension, a name bound once to one, or a call of a module function that returns
    one (`for device in get_devices()`); not a dataset or a tensor."""
    kind = type(iterable)
    if kind in _DISPLAYS or python_iterable(model, iterable, path):
        return True
    if depth >= 2:
        return False
    if kind is cst.Name:
        bindings = model.names.lookup(iterable.value, path)  # type: ignore[attr-defined]
        if bindings and len(bindings) == 1 and bindings[0].kind == "assign":
            node = bindings[0].node
            return node is not None and python_collection(model, node, path, depth + 1)
        return False
    if kind is cst.Call and type(iterable.func) is cst.Name:  # type: ignore[attr-defined]
        func = model.names.only_def(iterable.func.value, path)  # type: ignore[attr-defined]
        returned = returned_values(func) if func is not None else None
        return returned is not None and all(type(r) in _DISPLAYS for r in returned)
    return False


def _contracts(model: TfModel) -> list[tuple[cst.FunctionDef, str]]:
    """Functions repeated by another file's loop ("repeat" records), by a Keras callback's
    hooks, or by the conventions every framework shares (domain/repeats.py)."""
    records = model.records("repeat")
    functions = {r.function: r.site for r in records}
    methods = {(r.function, r.status): r.site for r in records}
    found: list[tuple[cst.FunctionDef, str]] = []
    for stmt in model.module.body:
        if type(stmt) is cst.FunctionDef:
            site = functions.get(stmt.name.value)
            why = f"called in a loop at {site}" if site else method_contract(None, stmt)
            if why:
                found.append((stmt, why))
        elif type(stmt) is cst.ClassDef:
            callback = _is_callback(model, stmt)
            for item in stmt.body.body:  # type: ignore[attr-defined]
                if type(item) is not cst.FunctionDef:
                    continue
                site = methods.get((stmt.name.value, item.name.value))
                if site:
                    found.append((item, f"called in a loop at {site}"))
                elif callback and _CALLBACK_HOOK.match(item.name.value):
                    found.append((item, f"a Keras callback's `{item.name.value}`, called "
                                  "on every batch or epoch"))  # fmt: skip
                else:
                    why = method_contract(stmt, item)
                    if why:
                        found.append((item, why))
    return found


def _is_callback(model: TfModel, cls: cst.ClassDef) -> bool:
    path = [model.module, cls]
    return any(
        any(n.endswith("callbacks.Callback") for n in model.names.qualified_names(b.value, path))
        for b in cls.bases
    )


def _runs_arguments(model: TfModel, call: cst.Call, path: Path) -> bool:
    """A call that calls its function arguments right away: TensorFlow's own functions
    (`tf.while_loop`, `tf.map_fn`), tf.data's `map`, a strategy's `run`."""
    func = call.func
    leaf = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", None)  # type: ignore[attr-defined]
    if leaf in RUNS_ITS_ARGUMENT:
        return True
    return calls_into(model.names, call, path, ("tensorflow", "builtins"))


def callee(model: TfModel, call: cst.Call, path: Path) -> tuple[Func, int] | None:
    """The module function or method a call runs, and how many leading parameters it
    binds implicitly (1 for a method called on an instance)."""
    func = call.func
    found = model.resolve_function(func, path)
    if found is not None:
        target = found[0]
        bound = 1 if type(func) is cst.Attribute else 0  # self.method(...)
        return target, bound
    if type(func) is cst.Attribute and type(func.value) is cst.Name:
        cls = instance_class(model, func.value, path)
        if cls is not None:
            for stmt in cls.body.body:  # type: ignore[attr-defined]
                if type(stmt) is cst.FunctionDef and stmt.name.value == func.attr.value:
                    return stmt, 1
    return None


def instance_class(model: TfModel, name: cst.Name, path: Path) -> cst.ClassDef | None:
    """The module class whose instance `name` is bound to (`trainer = Trainer(model)`)."""
    bindings = model.names.lookup(name.value, path)
    if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
        return None
    value = bindings[0].node
    if type(value) is not cst.Call or type(value.func) is not cst.Name:
        return None
    classes = model.names.lookup(value.func.value, path)
    if classes and len(classes) == 1 and classes[0].kind == "class":
        node = classes[0].node
        return node if type(node) is cst.ClassDef else None
    return None


def called_def(model: TfModel, call: cst.Call, path: Path) -> tuple[cst.FunctionDef, int] | None:
    """The `def` (or method) of this module `call` runs, and its implicitly bound leading
    parameters; None for a static method or `Class.method(obj, ...)`."""
    func = call.func
    if type(func) is cst.Name:
        target = model.names.only_def(func.value, path)
        return (target, 0) if target is not None else None
    if type(func) is not cst.Attribute or type(func.value) is not cst.Name:
        return None
    owner = model.names.lookup(func.value.value, path)
    if owner and any(b.kind == "class" for b in owner):
        return None  # `Class.method(obj, ...)`: nothing is bound implicitly
    found = callee(model, call, path)
    if found is None or type(found[0]) is not cst.FunctionDef:
        return None
    method = found[0]
    if any(type(d.decorator) is cst.Name and d.decorator.value == "staticmethod"
           for d in method.decorators):  # fmt: skip
        return None
    return method, found[1]


def traced_def(model: TfModel, call: cst.Call, path: Path) -> tuple[cst.FunctionDef, int] | None:
    """The `def` whose body the tf.function `call` runs traces, with its implicitly bound
    leading parameters: `called_def`, or, for a name bound once to `tf.function(f, ...)`,
    the module function `f` that it wraps."""
    found = called_def(model, call, path)
    if found is not None or type(call.func) is not cst.Name:
        return found
    bound = model.names.lookup_with_path(call.func.value, path)
    if bound is None or len(bound[0]) != 1 or bound[0][0].kind != "assign":
        return None
    node, scope_path = bound[0][0].node, bound[1]
    if (
        type(node) is not cst.Call
        or not node.args
        or node.args[0].keyword is not None
        or type(node.args[0].value) is not cst.Name
        or not model.names.resolves_to(node.func, [*scope_path, node], TF_FUNCTION)
    ):
        return None
    target = model.names.only_def(node.args[0].value.value, [*scope_path, node])
    return (target, 0) if target is not None else None


def called_tf_function(model: TfModel, call: cst.Call, path: Path) -> str | None:
    """The name of the tf.function without an input_signature that `call` runs (a decorated
    `def` or method, or a name assigned `tf.function(...)`), else None."""
    found = called_tf_function_options(model, call, path)
    return found[0] if found is not None and not found[1][2] else None


def called_tf_function_options(
    model: TfModel, call: cst.Call, path: Path
) -> tuple[str, tuple[bool | None, bool, bool, bool]] | None:
    """The name and the options (xla, autograph, input_signature, reduce_retracing) of the
    tf.function `call` runs (a decorated `def` or method, or a name assigned
    `tf.function(...)`), else None."""
    func = call.func
    if type(func) is cst.Name:
        options = _tf_function_binding(model, func, path)
        return (func.value, options) if options is not None else None
    found = callee(model, call, path)  # self.method(...), instance.method(...)
    if found is None or type(found[0]) is not cst.FunctionDef:
        return None
    method = found[0]
    for decorator in method.decorators:
        spec = model.tf_function_spec(decorator.decorator, [*path, decorator])
        if spec is not None:
            return method.name.value, spec
    return None


def _tf_function_binding(
    model: TfModel, func: cst.Name, path: Path
) -> tuple[bool | None, bool, bool, bool] | None:
    """The tf.function options of what `func` is bound to, None when it is no tf.function."""
    found = model.names.lookup_with_path(func.value, path)
    if found is None or len(found[0]) != 1:
        return None
    binding, scope_path = found[0][0], found[1]
    node = binding.node
    if binding.kind == "def" and type(node) is cst.FunctionDef:
        for decorator in node.decorators:
            spec = model.tf_function_spec(decorator.decorator, [*scope_path, node, decorator])
            if spec is not None:
                return spec
        return None
    if (
        binding.kind == "assign"
        and type(node) is cst.Call
        and model.names.resolves_to(node.func, [*scope_path, node], TF_FUNCTION)
    ):
        return tf_function_options(node.args)
    return None


def tf_function_applying(
    model: TfModel, call: cst.Call, path: Path, passed: Sequence[cst.BaseExpression]
) -> str | None:
    """The name of the module tf.function `call` runs, when one of the `passed` arguments
    reaches a parameter it applies as an optimizer (`param.apply_gradients(...)`,
    `param.minimize(...)`); None otherwise."""
    target = model.resolve_function(call.func, path)
    if target is None or type(target[0]) is not cst.FunctionDef:
        return None
    context = model.function_context(target[0])
    if context is None or not context.root:
        return None
    bound = 1 if type(call.func) is cst.Attribute else 0
    params = {param for param, arg in bind(target[0], call, bound) if any(arg is p for p in passed)}
    for inner in calls_in(target[0].body):
        method = inner.func
        if (
            type(method) is cst.Attribute
            and method.attr.value in OPTIMIZER_APPLY_METHODS
            and type(method.value) is cst.Name
            and method.value.value in params
        ):
            return target[0].name.value
    return None


def foreign_callee(model: TfModel, call: cst.Call, path: Path) -> tuple[cst.CSTNode, str] | None:
    """(the expression naming a name of another module, method) for a loop call of an
    imported function, or of a method of an instance of an imported class."""
    func = call.func
    if type(func) is cst.Name:
        return func, ""
    if type(func) is not cst.Attribute or type(func.value) is not cst.Name:
        return None
    receiver = func.value
    bindings = model.names.lookup(receiver.value, path)
    if bindings and len(bindings) == 1 and bindings[0].kind == "import":
        return func, ""  # module.function(...)
    if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
        return None
    value = bindings[0].node
    if type(value) is cst.Call and type(value.func) in (cst.Name, cst.Attribute):
        return value.func, func.attr.value
    return None


def bind(func: Func, call: cst.Call, bound: int) -> list[tuple[str, cst.BaseExpression]]:
    """(parameter, argument) pairs of a call whose first `bound` positional parameters are
    bound already, for the arguments whose parameter is known."""
    return list(binding.bind_call(Signature.of(func, bound), call).arguments.items())


def varying_kind(model: TfModel, arg: cst.BaseExpression, path: Path) -> str | None:
    """How a Python value read at the end of `path` changes from one call there to the
    next: "count" for the variable of a loop over `range(...)` or a name the loop reassigns
    with Python arithmetic (a new value on every pass, as many as there are passes), "grid"
    for the variable of a loop over a written-out list or tuple of literals (a handful of
    values, each one pass: configurations); None when it does not. The variable of a grid
    with a repeating loop inside it, around the read, holds one value over all of that
    loop's passes: one trace per configuration, reused by the inner passes (`for phase in
    ["pretrain", "distill"]: for epoch in range(n): step(phase)`), so it does not change."""
    if type(arg) is not cst.Name:
        return None
    inner = False
    for loop in enclosing_loops(path):
        if type(loop) is cst.For and arg.value in target_names(loop.target):
            if not python_iterable(model, loop.iter, path):
                return None
            if not written_out(loop.iter, path, model.names):
                return "count"  # range(...)
            return None if inner else "grid"
        if reassigned_with_python(loop.body, arg.value):
            return "count"
        inner = True
    return None


def received_varying(model: TfModel, name: cst.Name, path: Path) -> str | None:
    """Where the parameter read as `name` at the end of `path` receives a Python value that
    changes from call to call ("called in a loop"), if it does: only where the parameter's
    own binding is all that reaches the read. A name rebound before it
    (`obs = np.asarray(obs, "float32")`) holds another value, and one the model does not
    follow is no evidence of a changing Python value."""
    owner = next((n for n in reversed(path) if type(n) in _FUNCTIONS), None)
    if type(owner) is not cst.FunctionDef:
        return None
    where = model.repeats.varying.get(id(owner), {}).get(name.value)
    if where is None:
        return None
    defs = model.values.name_defs(name, path)
    if not defs or any(d.kind != "param" or d.path[-1] is not owner for d in defs):
        return None
    return where


def received_grid_only(model: TfModel, name: cst.Name, path: Path) -> bool:
    """The parameter read as `name` (`received_varying`) changes only as the element of
    written-out grids of configurations: no loop call passes it a counted value."""
    owner = next((n for n in reversed(path) if type(n) in _FUNCTIONS), None)
    repeats = model.repeats
    return (
        owner is not None
        and name.value in repeats.grid_varying.get(id(owner), set())
        and name.value not in repeats.counted_varying.get(id(owner), set())
    )


# ---- reads a tensor would serve as well as the Python value ---------------------------------
# `tf.constant(value)` has the dtype TensorFlow infers for a Python value (int32, float32), which
# may not be the one the function's ops meet: `x * factor` with a float32 `x` refuses an int32
# factor where it accepted the Python int. A read is served as well by a tensor when it is the
# value `tf.cast(param, dtype)` converts, the indices of `tf.gather(params, param)`, or an
# operand of an arithmetic operator or ordering comparison beside a tensor (which converts a
# Python operand to its own dtype). JIT207 asks it of a changing Python argument, and its fix
# (fixes/tensor_argument.py) spells the conversion.

_READ_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp,
           cst.DictComp, cst.GeneratorExp)  # fmt: skip


_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo,
               cst.Power)  # fmt: skip
_ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
Parent = cst.CSTNode | None
_Chain = tuple[cst.CSTNode, ...]


# Arguments TensorFlow converts with the dtype `tf.constant` infers (int32, or int64 when a
# value does not fit; float32): position and keyword. `tf.cast` then casts; `tf.gather`'s
# indices accept the int32/int64 a list of Python ints becomes.
_CONVERTED = {
    "tensorflow.cast": (0, "x"),
    "tensorflow.dtypes.cast": (0, "x"),
    "tensorflow.gather": (1, "indices"),
}


def conversion_dtype(
    func: cst.FunctionDef,
    func_path: _Chain,
    name: str,
    qualified: Callable[[cst.Call, _Chain], set[str]],
    dtype_of: Callable[[cst.BaseExpression, _Chain], str | None],
) -> str | None:
    """How `tf.constant` must convert the value parameter `name` of `func` receives: ""
    (its inferred dtype) when every read is an argument TensorFlow converts that way (the
    first of `tf.cast`, the indices of `tf.gather`), a dtype name when every read is an
    operand beside a tensor of that known dtype; None otherwise, or when the body rebinds
    the parameter or reads it in a nested scope. `func_path` is the path from the module
    to `func`, ending with it; the callbacks get a node's full path (`qualified`: what a
    call's callee can be)."""
    casts = 0
    dtypes: set[str | None] = set()
    stack: list[tuple[cst.CSTNode, _Chain]] = [(func.body, (*func_path, func.body))]
    while stack:
        node, path = stack.pop()
        parent, grandparent = path[-2], path[-3]
        kind = type(node)
        if kind in _READ_SCOPES:
            if _mentions(node, name):
                return None  # a nested function, class or comprehension reads or binds it
            continue
        if kind in (cst.Global, cst.Nonlocal):
            return None
        if kind is cst.Name and node.value == name:  # type: ignore[attr-defined]
            if _converted_argument(parent, grandparent, path[:-2], qualified):
                casts += 1
                continue
            other = _other_operand(node, parent, grandparent)
            if other is None:
                return None  # any other read, or a binding
            at = parent if type(parent) is not cst.ComparisonTarget else grandparent
            dtypes.add(dtype_of(other, (*path[: path.index(at) + 1], other)))
            continue
        if kind is cst.Attribute:  # `obj.name` is not the parameter
            stack.append((node.value, (*path, node.value)))  # type: ignore[attr-defined]
            continue
        stack.extend((child, (*path, child)) for child in iter_children(node))
    if casts and not dtypes:
        return ""
    if not casts and len(dtypes) == 1 and None not in dtypes:
        return next(iter(dtypes))
    return None


def _converted_argument(
    parent: Parent,
    grandparent: Parent,
    call_path: _Chain,
    qualified: Callable[[cst.Call, _Chain], set[str]],
) -> bool:
    """`parent` is the argument of call `grandparent` that TensorFlow converts as
    `tf.constant` would (`_CONVERTED`)."""
    if type(parent) is not cst.Arg or type(grandparent) is not cst.Call or parent.star:
        return False
    slots = {_CONVERTED.get(n) for n in qualified(grandparent, call_path)}
    if len(slots) != 1 or None in slots:
        return False
    position, keyword = slots.pop()  # type: ignore[misc]
    if parent.keyword is not None:
        return parent.keyword.value == keyword
    positional = [a for a in grandparent.args if a.keyword is None]
    if any(a.star for a in positional[: positional.index(parent)]):
        return False
    return positional.index(parent) == position


def _other_operand(
    node: cst.Name, parent: Parent, grandparent: Parent
) -> cst.BaseExpression | None:
    """The other operand of the arithmetic operator or single ordering comparison that
    `node` is an operand of."""
    if type(parent) is cst.BinaryOperation and type(parent.operator) in _ARITHMETIC:
        return parent.right if parent.left is node else parent.left
    comparison = parent if type(parent) is cst.Comparison else grandparent
    if type(comparison) is not cst.Comparison or len(comparison.comparisons) != 1:
        return None
    (target,) = comparison.comparisons
    if type(target.operator) not in _ORDERING:
        return None
    if comparison.left is node:
        return target.comparator
    return comparison.left if target.comparator is node else None


def _mentions(node: cst.CSTNode, name: str) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name and current.value == name:  # type: ignore[attr-defined]
            return True
        stack.extend(iter_children(current))
    return False


def tensor_serves(model: TfModel, call: cst.Call, path: Path, value: cst.BaseExpression) -> bool:
    """The tf.function `call` runs (a `def` of the module, `traced_def`) reads the parameter
    that the argument `value` binds only where a tensor would serve as well as the Python
    value (`conversion_dtype`, whatever the other operand's dtype): each distinct Python
    value then traces again for nothing."""
    found = traced_def(model, call, path)
    if found is None:
        return False
    func, bound = found
    params = [param for param, arg in bind(func, call, bound) if arg is value]
    if len(params) != 1:
        return False

    def qualified(call: cst.Call, path: Sequence[cst.CSTNode]) -> set[str]:
        return model.names.qualified_names(call.func, path)

    func_path = tuple(model.scope_path(func))
    return conversion_dtype(func, func_path, params[0], qualified, lambda e, p: "any") is not None


def retracing_argument(
    model: TfModel, call: cst.Call, path: Path, value: cst.BaseExpression
) -> tuple[str, str | None] | None:
    """Whether the argument `value` of the tf.function call `call` is evidence of retracing
    for nothing: ("loop", None) for a Python value that changes on every pass of a loop
    around the call (`varying_kind`), ("received", where) for a parameter that receives one
    (`received_varying`); None otherwise. A value that changes only as the element of
    written-out grids of configurations is one trace per configuration, needed where the
    function reads it as a Python value (a shape, a branch, a constructor's option): it is
    evidence only where a tensor would serve every read as well (`tensor_serves`)."""
    if type(value) is not cst.Name:
        return None
    kind = varying_kind(model, value, path)
    if kind is not None:
        if kind == "grid" and not tensor_serves(model, call, path, value):
            return None
        return ("loop", None)
    where = received_varying(model, value, path)
    if where is None:
        return None
    if received_grid_only(model, value, path) and not tensor_serves(model, call, path, value):
        return None
    return ("received", where)


def target_names(target: cst.CSTNode) -> set[str]:
    if type(target) is cst.Name:
        return {target.value}  # type: ignore[attr-defined]
    return set()


def python_iterable(model: TfModel, iterable: cst.CSTNode, path: Path, depth: int = 0) -> bool:
    """`range(...)`, or a literal list/tuple of Python literals (or of lists of them), or
    a name bound once to one."""
    kind = type(iterable)
    if kind is cst.Call:
        return model.names.resolves_to(iterable.func, path, {"builtins.range"})  # type: ignore[attr-defined]
    if kind in (cst.List, cst.Tuple):
        return written_out(iterable, path)
    if kind is cst.Name and depth < 2:
        bindings = model.names.lookup(iterable.value, path)  # type: ignore[attr-defined]
        if bindings and len(bindings) == 1 and bindings[0].kind == "assign":
            node = bindings[0].node
            return node is not None and python_iterable(model, node, path, depth + 1)
    return False


def reassigned_with_python(body: cst.CSTNode, name: str) -> bool:
    """`name op= <literal or name>` or `name = name op <literal>` in a loop body. A copy of
    another name (`obs = next_obs`) is no arithmetic: it holds whatever that name holds,
    which is not followed here (an observation from `env.step` is an array)."""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _FUNCTIONS or kind is cst.ClassDef:
            continue
        if kind is cst.AugAssign:
            target = node.target  # type: ignore[attr-defined]
            if type(target) is cst.Name and target.value == name:
                return _arithmetic(node.value)  # type: ignore[attr-defined]
        elif kind is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target.target) is cst.Name and target.target.value == name:
                    value = node.value  # type: ignore[attr-defined]
                    return type(value) is not cst.Name and _arithmetic(value)
        stack.extend(iter_children(node))
    return False


def _arithmetic(node: cst.CSTNode) -> bool:
    kind = type(node)
    if kind in (cst.Integer, cst.Float, cst.Name):
        return True
    if kind is cst.UnaryOperation:
        return _arithmetic(node.expression)  # type: ignore[attr-defined]
    if kind is cst.BinaryOperation:
        return _arithmetic(node.left) and _arithmetic(node.right)  # type: ignore[attr-defined]
    return False


# ---- Keras models made again where they run repeatedly -----------------------------------

_PREFIXES = ("keras", "tensorflow.keras", "tf_keras")
KERAS_MODEL_MAKERS = frozenset(
    f"{prefix}{module}.{leaf}"
    for prefix in _PREFIXES
    for module, leaves in (
        (".models", ("load_model", "clone_model", "model_from_json", "Sequential", "Model")),
        (".saving", ("load_model",)),
        ("", ("Sequential", "Model")),
    )
    for leaf in leaves
)
# Each new model traces its own predict function (TensorFlow warns "triggered tf.function
# retracing"); fitting or compiling it means a new model is wanted (a fold, a trial).
_INFERENCE = {"predict", "predict_on_batch"}
_TRAINING = {"fit", "compile", "train_on_batch", "evaluate", "fit_generator", "load_weights"}


def model_remade_for_inference(
    model: TfModel, call: cst.Call, path: Path
) -> tuple[str, str] | None:
    """(the name, where) when `call` loads or builds a Keras model (`load_model("m.h5")`,
    `Sequential([...])`) that is the same every time, where the code runs repeatedly (a
    loop, or a function called in one or by contract), and the code only predicts with it:
    each new model traces its predict function again (tensorflow/tensorflow#43501, a
    `load_model` per incoming sample). None when unknown: the arguments read something
    the repeating code binds (a path per iteration), or the model is also trained there,
    or a memoised loader loads it the first time per key only (domain/guards.py)."""
    repetition = local_repetition(path, model.staged_loop)
    if repetition is None or not model.names.resolves_to(call.func, path, KERAS_MODEL_MAKERS):
        return None
    if runs_once_per_key(path):
        return None
    parent = path[-2]
    if type(parent) is not cst.Assign or len(parent.targets) != 1:  # type: ignore[attr-defined]
        return None
    target = parent.targets[0].target  # type: ignore[attr-defined]
    unit = repetition.unit
    if type(target) is not cst.Name or not _invariant(model, call, path, unit):
        return None
    # `model.add(layer)`: what builds the model up must be the same every time too.
    builders = _method_calls(unit, target.value, exclude=_INFERENCE)
    if not all(_invariant(model, builder, path, unit) for builder in builders):
        return None
    used = {c.func.attr.value for c in _method_calls(repetition.unit, target.value)}  # type: ignore[attr-defined]
    if not used & _INFERENCE or used & _TRAINING:
        return None
    func = repetition.function
    if func is None:
        return target.value, repetition.where
    why = model.repeats.why.get(id(func))
    return (
        None
        if why is None
        else (target.value, f"on every call of `{func.name.value}`, which is {why}")
    )


def _invariant(model: TfModel, call: cst.Call, path: Path, unit: cst.CSTNode) -> bool:
    """Every name the call's arguments read is bound at module level (a constant path, an
    imported name) and not again in `unit` (a module-level loop rebinds its names on each
    pass), or in `unit` only to values that are so in turn and never changed in
    place there (`layer = Dense(4)`, not `layers = []` then `layers.append(...)`): the same
    model every time. A parameter, a loop's variable or anything else bound locally may
    differ between runs."""
    stack: list[cst.CSTNode] = [a.value for a in call.args]
    followed: set[str] = set()
    unit_binds: set[str] | None = None  # what a module-level loop rebinds on each pass
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Name:
            name = node.value  # type: ignore[attr-defined]
            found = model.names.lookup_with_path(name, path)
            if found is None:
                return False
            if name in followed:
                continue
            if found[1][-1] is model.module:
                if unit_binds is None:
                    unit_binds = bound_names(unit)
                if name not in unit_binds:
                    continue  # bound outside the repeating code: the same every time
            bindings = found[0]
            if any(b.kind != "assign" or b.node is None for b in bindings):
                return False
            if len(followed) >= 8 or _changed_in_place(unit, name):
                return False
            followed.add(name)
            stack.extend(b.node for b in bindings)  # type: ignore[misc]
            continue
        if kind is cst.Attribute:
            stack.append(node.value)  # type: ignore[attr-defined]
            continue
        if kind in _FUNCTIONS:
            return False
        stack.extend(iter_children(node))
    return True


def _changed_in_place(unit: cst.CSTNode, name: str) -> bool:
    """`unit` calls a method of `name` or assigns to an item or attribute of it: what it
    holds may differ from what it was bound to."""
    if _method_calls(unit, name):
        return True
    stack: list[cst.CSTNode] = [unit]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.AssignTarget or kind is cst.AugAssign:
            target = node.target  # type: ignore[attr-defined]
            while type(target) in (cst.Subscript, cst.Attribute):
                target = target.value  # type: ignore[attr-defined]
            if target is not node.target and type(target) is cst.Name and target.value == name:  # type: ignore[attr-defined]
                return True
        if kind in _FUNCTIONS and node is not unit:
            continue
        stack.extend(iter_children(node))
    return False


def _method_calls(
    unit: cst.CSTNode, name: str, exclude: frozenset[str] | set[str] = frozenset()
) -> list[cst.Call]:
    """The calls of methods of `name` in `unit` (`name.predict(...)`), but those named in
    `exclude`, nested functions aside."""
    found: list[cst.Call] = []
    stack: list[cst.CSTNode] = [unit]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            func = node.func  # type: ignore[attr-defined]
            if (
                type(func) is cst.Attribute
                and type(func.value) is cst.Name
                and func.value.value == name
                and func.attr.value not in exclude
            ):
                found.append(node)  # type: ignore[arg-type]
        if type(node) in _FUNCTIONS and node is not unit:
            continue
        stack.extend(iter_children(node))
    return found
