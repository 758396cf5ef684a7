"""Which functions run more than once, and which of their parameters receive Python values
that change from call to call: what decides whether a `tf.function` retraces (hazards T13).

A function runs repeatedly when it is called in a loop body (`for`/`while`, in any function
or at module level), or called from a function that runs repeatedly. Calls resolve to
module-level functions, methods through `self`, and methods through a name bound to an
instance of a module class (`trainer = Trainer(); trainer.epoch()`); calls in loops of other
files arrive as "repeat" records (another file's loop calling this module's function, or a
method of its class).

A loop call passes a *varying* Python value when the argument is the loop's variable over
`range(...)` or over a literal list or tuple (of numbers, strings, bools, or lists of
them), or a name the loop body reassigns with Python arithmetic (`epsilon *= 0.9`).

A function made in a loop iteration is *kept* when the iteration stores it without calling
it: on an object (`host.step = step`), in a container or a comprehension's result, or handed
to a call that does not run it right away (`server.bind(step)`, `fns.append(step)`). It is
built once per element of the loop (a host, a device, a data split) and then reused: one
trace per element, not one per call (issue 28; google-research/seed_rl sets up its servers
so). A function whose every loop call keeps its result (a factory) is in `keeps_result`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jitlint.model.tf.api import RUNS_ITS_ARGUMENT
from jitlint.model.tf.scan import Func, Path
from jitlint.python import binding
from jitlint.python.binding import Signature
from jitlint.python.walker import iter_children

# The TF model (model.py imports this module, so it is not imported back).
TfModel = Any

_LOOPS = (cst.For, cst.While)
_FUNCTIONS = (cst.FunctionDef, cst.Lambda)
_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)


def enclosing_loop(path: Sequence[cst.CSTNode]) -> cst.For | cst.While | None:
    """The innermost loop whose body holds the end of `path`, within the same function."""
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        if type(node) in _FUNCTIONS:
            return None
        if type(node) in _LOOPS and path[index + 1] is node.body:  # type: ignore[attr-defined]
            return node  # type: ignore[return-value]
    return None


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def in_loop(path: Sequence[cst.CSTNode]) -> bool:
    """The end of `path` runs once per iteration of a loop or comprehension of its own
    function."""
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        kind = type(node)
        if kind in _FUNCTIONS:
            return False
        if kind in _LOOPS and path[index + 1] is node.body:  # type: ignore[attr-defined]
            return True
        if kind in _COMPREHENSIONS:
            return True
    return False


def enclosing_loops(path: Sequence[cst.CSTNode]) -> list[cst.For | cst.While]:
    """Every loop whose body holds the end of `path`, innermost first, same function."""
    found = []
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        if type(node) in _FUNCTIONS:
            break
        if type(node) in _LOOPS and path[index + 1] is node.body:  # type: ignore[attr-defined]
            found.append(node)
    return found  # type: ignore[return-value]


@dataclass
class Repeats:
    repeated: dict[int, str] = field(default_factory=dict)  # function id -> why (messages)
    # function id -> parameters that receive varying Python values, with the call site
    varying: dict[int, dict[str, str]] = field(default_factory=dict)
    # loop calls of names of other modules: (call, path, method or "") for "repeat" records
    foreign: list[tuple[cst.Call, Path, cst.CSTNode, str]] = field(default_factory=list)
    # functions repeated only by loop calls of this module that keep what they return
    keeps_result: set[int] = field(default_factory=set)


def find_repeats(model: TfModel) -> Repeats:
    scan = model.scan
    out = Repeats()
    for call, path in scan.loop_calls:
        target = callee(model, call, path)
        if target is None:
            foreign = foreign_callee(model, call, path)
            if foreign is not None:
                out.foreign.append((call, path, *foreign))
            continue
        func, bound = target
        where = "called in a loop"
        if id(func) not in out.repeated:
            out.keeps_result.add(id(func))
        if not kept_per_iteration(model, path):
            out.keeps_result.discard(id(func))
        out.repeated.setdefault(id(func), where)
        for param, arg in bind(func, call, bound):
            if varying_python(model, arg, path):
                out.varying.setdefault(id(func), {})[param] = where
    for record in model.inbound:
        if record.kind != "repeat":
            continue
        for stmt in model.module.body:
            if type(stmt) is cst.FunctionDef and stmt.name.value == record.function:
                out.repeated.setdefault(id(stmt), f"called in a loop at {record.site}")
                out.keeps_result.discard(id(stmt))  # what the loop does with it is not known
            elif type(stmt) is cst.ClassDef and stmt.name.value == record.function:
                for item in stmt.body.body:  # type: ignore[attr-defined]
                    if type(item) is cst.FunctionDef and item.name.value == record.status:
                        out.repeated.setdefault(id(item), f"called in a loop at {record.site}")
                        out.keeps_result.discard(id(item))
    # What a repeated function calls unconditionally runs repeatedly too; one level only:
    # further down, callees tend to cache what they build (`if self.fn is None: ...`).
    for key, why in list(out.repeated.items()):
        for call, path in scan.calls.get(key, ()):
            if _conditional(path):
                continue
            target = callee(model, call, path)
            if target is not None and id(target[0]) not in out.repeated:
                out.repeated[id(target[0])] = f"called from a function {why}"
    return out


_CONTAINERS = (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.Element, cst.DictElement)
_COLLECTING = (cst.ListComp, cst.SetComp, cst.GeneratorExp)


def kept_per_iteration(model: TfModel, path: Path, depth: int = 0) -> bool:
    """The function made (or returned by the call) at the end of `path`, in a loop body or
    comprehension, is kept by the iteration and not called in it (see the module's
    docstring): stored on an object or in a container, collected by a comprehension, or
    handed to a call that does not run it now."""
    value = path[-1]
    for index in range(len(path) - 2, 0, -1):
        parent = path[index]
        kind = type(parent)
        if kind in _CONTAINERS or _collects(parent, value):
            value = parent
        elif kind is cst.Arg:
            call = path[index - 1]
            return type(call) is cst.Call and not _runs_arguments(model, call, path[:index])
        elif kind is cst.Assign or kind is cst.AnnAssign:
            targets = (
                [t.target for t in parent.targets]  # type: ignore[attr-defined]
                if kind is cst.Assign
                else [parent.target]  # type: ignore[attr-defined]
            )
            if all(type(t) in (cst.Attribute, cst.Subscript) for t in targets):
                return not _calls_stored(model, path, targets)
            names = [t.value for t in targets if type(t) is cst.Name]  # type: ignore[attr-defined]
            if len(names) != len(targets):
                return False
            if type(value) in _CONTAINERS or type(value) in (*_COLLECTING, cst.DictComp):
                return True  # a collection of functions, one per element
            return _name_kept(model, names[0], path, depth)
        else:
            return False
    return False


def _collects(node: cst.CSTNode, value: cst.CSTNode) -> bool:
    """`node` is a comprehension whose elements are `value`."""
    kind = type(node)
    if kind in _COLLECTING:
        return node.elt is value  # type: ignore[attr-defined]
    return kind is cst.DictComp and node.value is value  # type: ignore[attr-defined]


def def_kept_per_iteration(model: TfModel, path: Path) -> bool:
    """A `def` at the end of `path`, in a loop body, that the iteration keeps uncalled."""
    func = path[-1]
    return type(func) is cst.FunctionDef and _name_kept(model, func.name.value, path)


def _runs_arguments(model: TfModel, call: cst.Call, path: Path) -> bool:
    """A call that calls its function arguments right away: TensorFlow's own functions
    (`tf.while_loop`, `tf.map_fn`), tf.data's `map`, a strategy's `run`."""
    func = call.func
    leaf = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", None)  # type: ignore[attr-defined]
    if leaf in RUNS_ITS_ARGUMENT:
        return True
    names = model.names.qualified_names(func, [*path, call])
    return any(n.split(".")[0] in ("tensorflow", "builtins") for n in names)


def _iteration(path: Path) -> cst.CSTNode | None:
    """The innermost loop body or comprehension holding the end of `path`, same function."""
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        kind = type(node)
        if kind in _FUNCTIONS:
            return None
        if kind in _LOOPS and path[index + 1] is node.body:  # type: ignore[attr-defined]
            return node.body  # type: ignore[attr-defined]
        if kind in _COMPREHENSIONS:
            return node
    return None


def _name_kept(model: TfModel, name: str, path: Path, depth: int = 0) -> bool:
    """`name`, bound in an iteration, is never called there and is kept by every other read
    of it there (at least one)."""
    body = _iteration(path)
    if body is None or depth > 2:
        return False
    kept = False
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(body, ())]
    outer = list(path[: next(i for i, n in enumerate(path) if n is body)])
    while stack:
        node, above = stack.pop()
        kind = type(node)
        if kind is cst.Name and node.value == name:  # type: ignore[attr-defined]
            parent = above[-1] if above else None
            if type(parent) is cst.Call and parent.func is node:  # type: ignore[attr-defined]
                return False
            if type(parent) in (cst.AssignTarget, cst.FunctionDef, cst.Param) or (
                type(parent) in (cst.Attribute, cst.Arg) and node is not parent.value  # type: ignore[attr-defined]
            ):
                continue  # the binding itself, an attribute's or a keyword's name
            if not kept_per_iteration(model, [*outer, *above, node], depth + 1):
                return False
            kept = True
            continue
        stack.extend((child, (*above, node)) for child in iter_children(node))
    return kept


def _calls_stored(model: TfModel, path: Path, targets: list[cst.BaseExpression]) -> bool:
    """The iteration calls what it stored (`self.fn = tf.function(g)`, then `self.fn(x)`)."""
    body = _iteration(path)
    if body is None:
        return True
    code = model.module.code_for_node
    stored = {code(t) for t in targets}
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if (
            type(node) is cst.Call
            and type(node.func) in (cst.Attribute, cst.Subscript)  # type: ignore[attr-defined]
            and code(node.func) in stored  # type: ignore[attr-defined]
        ):
            return True
        stack.extend(iter_children(node))
    return False


def _conditional(path: Sequence[cst.CSTNode]) -> bool:
    """Under an `if` or `try` of its own function: may not run on every call."""
    for node in reversed(path[:-1]):
        kind = type(node)
        if kind in _FUNCTIONS:
            return False
        if kind in (cst.If, cst.Try, cst.IfExp):
            return True
    return False


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


def varying_python(model: TfModel, arg: cst.BaseExpression, path: Path) -> bool:
    """A Python value that changes from one iteration of an enclosing loop to the next."""
    if type(arg) is not cst.Name:
        return False
    for loop in enclosing_loops(path):
        if type(loop) is cst.For and arg.value in target_names(loop.target):
            return python_iterable(model, loop.iter, path)
        if reassigned_with_python(loop.body, arg.value):
            return True
    return False


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
        elements = iterable.elements  # type: ignore[attr-defined]
        return bool(elements) and all(_python_literal(e.value) for e in elements)
    if kind is cst.Name and depth < 2:
        bindings = model.names.lookup(iterable.value, path)  # type: ignore[attr-defined]
        if bindings and len(bindings) == 1 and bindings[0].kind == "assign":
            node = bindings[0].node
            return node is not None and python_iterable(model, node, path, depth + 1)
    return False


def _python_literal(node: cst.CSTNode) -> bool:
    kind = type(node)
    if kind in _LITERALS:
        return True
    if kind is cst.Name:
        return node.value in ("True", "False", "None")  # type: ignore[attr-defined]
    if kind is cst.UnaryOperation:
        return _python_literal(node.expression)  # type: ignore[attr-defined]
    if kind in (cst.List, cst.Tuple):
        return all(_python_literal(e.value) for e in node.elements)  # type: ignore[attr-defined]
    return False


def reassigned_with_python(body: cst.CSTNode, name: str) -> bool:
    """`name op= <literal or name>` or `name = name op <literal>` in a loop body."""
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
                    return _arithmetic(node.value)  # type: ignore[attr-defined]
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
