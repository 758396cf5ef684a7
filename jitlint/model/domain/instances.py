"""Where an object made by `name = Cls(...)` goes in its module: the places it is called,
the functions of other modules it is handed to, and whether it escapes anywhere else.

A Keras layer or model runs its `call` where it is called (issue 28): one that a project
only ever calls in eager code (a custom loop under `GradientTape`) runs no graph code, and
Keras' contract that `call` is graph code (issue 29) is only needed where the object goes
somewhere not seen. `follow_instances` follows each object through:

- local and module-level names, and plain aliases (`net = model`);
- `self` attributes (`self.model = model`), read in the methods of that class (one the
  caller `keeps`, and no class of the module subclasses);
- parameters of the module's functions it is passed to (by position or keyword);
- values returned by them (`return model`, `return hidden, model`), to the callers in the
  module that bind them (`net = train()`, `hidden, net = train()`) or drop them;
- calls of a function of another module that the caller says may take it (`handoff`):
  the other module follows that parameter in turn (its own `follow_instances`).

Harmless uses are tests of it (`if not model:`, `model is None`) and the attributes the
caller names (weights, saving weights). A call of it is a call site, except in a block
builder: a function that makes the object, calls it on one of its own parameters and
returns the result (`def block(x): layer = Net(); return layer(x)`), which may build a
functional model on symbolic inputs; that, and any other use, is an escape. So is a
value returned from a function another module may call (`exported`).

Framework-neutral: the caller says which attributes are harmless and which calls of
other modules may take the object.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from jitlint.python.binding import Signature, bind_call
from jitlint.python.names import Names, leaf_name, names_itself
from jitlint.python.walker import iter_children

Path = Sequence[cst.CSTNode]
Scope = cst.FunctionDef | cst.Module
# (the scope binding a name, the name): one variable, wherever it is read.
Variable = tuple[int, str]
# What a call of another module's function says of an argument: its position ("0") or
# keyword ("model"), and the function's name as the module's imports spell it; None where
# the call may not take the object (an escape).
Handoff = Callable[[cst.Call, Path, str], str | None]
# What `_bound_result` says of a result passed straight to another call (`Trainer(make())`).
_ARGUMENT: Variable = (-1, "")


@dataclass
class InstanceFlow:
    """What became of the objects followed."""

    calls: list[list[cst.CSTNode]] = field(default_factory=list)  # paths ending at the call
    handoffs: set[tuple[str, str]] = field(default_factory=set)  # (function, position)
    escaped: bool = False


class Reads:
    """Every `Name` of a module that reads a variable, by its text, and every read of a
    `self.name` attribute in a method, by `self.name`, each with its path (`of`)."""

    def __init__(self, module: cst.Module) -> None:
        # Each read with its ancestors as a linked list (innermost first): a path is built
        # only for the names asked about, not for every node of the module.
        self._links: dict[str, list[tuple[cst.BaseExpression, _Link]]] = {}
        self._paths: dict[str, list[tuple[cst.BaseExpression, list[cst.CSTNode]]]] = {}
        # Class names that a class statement of the module subclasses (by their last name).
        self.subclassed: set[str] = set()
        links = self._links
        stack: list[tuple[cst.CSTNode, _Link]] = [(module, None)]
        while stack:
            node, link = stack.pop()
            kind = type(node)
            if kind is cst.Name:
                if not _not_a_read(node, link):  # type: ignore[arg-type]
                    links.setdefault(node.value, []).append((node, link))  # type: ignore[attr-defined]
                continue  # a name has no children
            if (
                kind is cst.Attribute
                and _self_attribute(node)  # type: ignore[arg-type]
                and type(link[0]) is not cst.AssignTarget  # type: ignore[index]
            ):
                links.setdefault(f"self.{node.attr.value}", []).append((node, link))  # type: ignore[attr-defined]
            elif kind is cst.ClassDef:
                for base in node.bases:  # type: ignore[attr-defined]
                    self.subclassed.add(leaf_name(base.value))
            if kind not in (cst.Import, cst.ImportFrom):  # module names read nothing
                here = (node, link)
                stack.extend((child, here) for child in iter_children(node))

    def of(self, name: str) -> list[tuple[cst.BaseExpression, list[cst.CSTNode]]]:
        """The reads of `name` (a variable's text, or `self.attr`), each with its path from
        the module to the read."""
        found = self._paths.get(name)
        if found is None:
            found = self._paths[name] = [
                (node, _path(link, node)) for node, link in self._links.get(name, ())
            ]
        return found


# A node's ancestors, innermost first: (parent, the parent's ancestors).
_Link = tuple[cst.CSTNode, "_Link"] | None


def _path(link: _Link, node: cst.CSTNode) -> list[cst.CSTNode]:
    out = [node]
    while link is not None:
        out.append(link[0])
        link = link[1]
    out.reverse()
    return out


def _not_a_read(name: cst.Name, link: _Link) -> bool:
    """`not_a_read` of the name, given its ancestors (it reads at most the last three)."""
    if link is None:
        return False
    up = link[1]
    if up is None or up[1] is None:
        return not_a_read(name, [*_path(up, link[0]), name])
    return not_a_read(name, (up[1][0], up[0], link[0], name))


def follow_instances(
    names: Names,
    reads: Reads,
    creations: Sequence[Path],
    parameters: Sequence[tuple[cst.FunctionDef, str]],
    harmless: frozenset[str],
    handoff: Handoff,
    exported: Callable[[cst.FunctionDef], bool],
    keeps: Callable[[cst.ClassDef], bool] = lambda cls: True,
) -> InstanceFlow:
    """Follow the objects made by the calls at the end of `creations` (paths to each
    `Cls(...)` call) and those passed to `parameters` ((function, parameter name): from
    another module), as the module docstring says."""
    flow = InstanceFlow()

    def kept(cls: cst.ClassDef) -> bool:
        # A subclass's methods read the attribute too, and are not followed.
        return keeps(cls) and cls.name.value not in reads.subclassed

    pending: list[tuple[Variable, bool]] = []  # (variable, made in its own scope)
    seen: set[Variable] = set()

    def add(variable: Variable | None, made_here: bool = False) -> None:
        if variable is None:
            flow.escaped = True
        elif variable not in seen:
            seen.add(variable)
            pending.append((variable, made_here))

    for path in creations:
        add(_assigned_variable(names, path), made_here=True)
    for func, param in parameters:
        if param in parameter_names(func):
            add((id(func), param))
        else:
            flow.escaped = True
    while pending and not flow.escaped:
        (scope_id, name), made_here = pending.pop()
        for node, path in reads.of(name):
            if _read_variable(names, node, path) != (scope_id, name):
                continue
            _use(names, node, path, made_here, harmless, handoff, exported, kept, flow, add)
            if flow.escaped:
                break
    return flow


def _use(
    names: Names,
    node: cst.BaseExpression,
    path: list[cst.CSTNode],
    made_here: bool,
    harmless: frozenset[str],
    handoff: Handoff,
    exported: Callable[[cst.FunctionDef], bool],
    keeps: Callable[[cst.ClassDef], bool],
    flow: InstanceFlow,
    add: Callable[..., None],
) -> None:
    """One read of a followed variable or `self` attribute (`add(None)` where it escapes)."""
    parent = path[-2]
    kind = type(parent)
    if kind is cst.Call and parent.func is node:  # type: ignore[attr-defined]
        if made_here and _block_builder(names, parent, path[:-1]):  # type: ignore[arg-type]
            add(None)
        else:
            flow.calls.append(path[:-1])
    elif kind is cst.Attribute and parent.value is node:  # type: ignore[attr-defined]
        if parent.attr.value not in harmless:  # type: ignore[attr-defined]
            add(None)
    elif kind is cst.Arg and parent.value is node and not parent.star:  # type: ignore[attr-defined]
        _passed(names, parent, path, handoff, flow, add)  # type: ignore[arg-type]
    elif _tested(parent, path):
        pass
    elif kind is cst.Return or (kind is cst.Element and type(path[-3]) is cst.Tuple):
        _returned(names, path, exported, handoff, flow, add)
    elif kind is cst.Assign and parent.value is node and len(parent.targets) == 1:  # type: ignore[attr-defined]
        target = parent.targets[0].target  # type: ignore[attr-defined]
        if type(target) is cst.Name:
            add(_variable(names, target.value, path))
        elif type(target) is cst.Attribute and _self_attribute(target):
            add(_attribute_variable(target, path, keeps))
        else:
            add(None)
    else:
        add(None)


def _passed(
    names: Names,
    arg: cst.Arg,
    path: list[cst.CSTNode],
    handoff: Handoff,
    flow: InstanceFlow,
    add: Callable[..., None],
) -> None:
    """The object given as `arg` of a call: to a parameter of a function of the module,
    or to one of another module's (`handoff`); any other call is an escape."""
    call = path[-3]
    if type(call) is not cst.Call:
        add(None)
        return
    positional = [a for a in call.args if a.keyword is None]
    if arg.keyword is not None:
        position = arg.keyword.value
    elif any(a.star for a in positional[: positional.index(arg) + 1]):
        add(None)
        return
    else:
        position = str(positional.index(arg))
    func = _local_function(names, call.func, path[:-2])
    constructor = _local_constructor(names, call.func, path[:-2]) if func is None else None
    if constructor is not None:  # `Trainer(model)`: to `__init__`, after its `self`
        func = constructor
    if func is not None:
        signature = Signature.of(func, 1 if constructor is not None else 0)
        targets = bind_call(signature, call).targets
        param = next(t for a, t in zip(call.args, targets, strict=True) if a is arg)
        # Collected by `*args` or `**kwargs`, or taken by no parameter: an escape.
        if param is None or param in (signature.var_positional, signature.var_keyword):
            add(None)
        else:
            add((id(func), param))
        return
    target = handoff(call, path[:-2], position)
    if target is None:
        add(None)
    else:
        flow.handoffs.add((target, position))


def _returned(
    names: Names,
    path: list[cst.CSTNode],
    exported: Callable[[cst.FunctionDef], bool],
    handoff: Handoff,
    flow: InstanceFlow,
    add: Callable[..., None],
) -> None:
    """`return model` / `return hidden, model`: to what the module's callers bind."""
    index: int | None = None
    if type(path[-2]) is cst.Element:
        tuple_node, ret = path[-3], path[-4]
        if type(ret) is not cst.Return:
            add(None)
            return
        index = [e.value for e in tuple_node.elements].index(path[-1])  # type: ignore[attr-defined]
    func = next((n for n in reversed(path) if type(n) in (cst.FunctionDef, cst.Lambda)), None)
    if type(func) is not cst.FunctionDef or exported(func):
        add(None)
        return
    found = False
    for call, call_path in _calls_of(names, func):
        found = True
        bound = _bound_result(names, call, call_path, index)
        if bound is _ARGUMENT and index is None and not call_path[-2].star:  # type: ignore[attr-defined]
            _passed(names, call_path[-2], call_path, handoff, flow, add)  # type: ignore[arg-type]
        else:
            add(None if bound is _ARGUMENT else bound)
    if not found:
        add(None)  # returned to callers not seen


def _bound_result(
    names: Names, call: cst.Call, path: list[cst.CSTNode], index: int | None
) -> Variable | None:
    """The variable a call's result (or its `index`-th item) is bound to; ("", "") where
    the result is dropped; None where it goes anywhere else."""
    parent = path[-2]
    if type(parent) is cst.Expr:
        return (0, "")  # dropped
    if type(parent) is cst.Arg:
        return _ARGUMENT  # passed on: `_returned` follows it as an argument
    if type(parent) is not cst.Assign or parent.value is not call or len(parent.targets) != 1:
        return None
    target = parent.targets[0].target
    if index is None:
        return _variable(names, target.value, path) if type(target) is cst.Name else None
    if type(target) not in (cst.Tuple, cst.List):
        return None
    elements = target.elements  # type: ignore[attr-defined]
    if index >= len(elements) or any(type(e) is cst.StarredElement for e in elements):
        return None
    item = elements[index].value
    return _variable(names, item.value, path) if type(item) is cst.Name else None


def _calls_of(names: Names, func: cst.FunctionDef) -> list[tuple[cst.Call, list[cst.CSTNode]]]:
    """The calls of `func` by its name in the module (`f(...)`), each with its path."""
    out = []
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(names.module, [])]
    name = func.name.value
    while stack:
        node, above = stack.pop()
        here = [*above, node]
        if (
            type(node) is cst.Call
            and type(node.func) is cst.Name
            and node.func.value == name
            and _local_function(names, node.func, here) is func
        ):
            out.append((node, here))
        stack.extend((child, here) for child in iter_children(node))
    return out


def _block_builder(names: Names, call: cst.Call, path: list[cst.CSTNode]) -> bool:
    """A call on a parameter of the enclosing function whose result that function
    returns: `return layer(x)`, or `y = layer(x)` and `return y`."""
    func = next((n for n in reversed(path) if type(n) in (cst.FunctionDef, cst.Lambda)), None)
    if type(func) is not cst.FunctionDef:
        return func is not None
    params = set(parameter_names(func))
    read = {
        n.value
        for arg in call.args
        for n in _names_in(arg.value)
        if n.value in params and _binding_kind(names, n.value, path) == "param"
    }
    if not read:
        return False
    if any(type(n) is cst.Return for n in path):
        return True
    statement = path[-2]
    if type(statement) is not cst.Assign:
        return False
    bound = {n.value for t in statement.targets for n in _names_in(t.target)}
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        if (
            type(node) is cst.Return
            and node.value is not None
            and bound & {n.value for n in _names_in(node.value)}
        ):
            return True
        stack.extend(iter_children(node))
    return False


def _tested(parent: cst.CSTNode, path: list[cst.CSTNode]) -> bool:
    """`if model:`, `not model`, `model is None`: a test, no use of the object."""
    kind = type(parent)
    if kind in (cst.If, cst.While) and parent.test is path[-1]:  # type: ignore[attr-defined]
        return True
    if kind is cst.UnaryOperation and type(parent.operator) is cst.Not:  # type: ignore[attr-defined]
        return True
    if kind is cst.Comparison:
        return all(
            type(c.operator) in (cst.Is, cst.IsNot)
            for c in parent.comparisons  # type: ignore[attr-defined]
        )
    return False


def _assigned_variable(names: Names, path: Path) -> Variable | None:
    """The variable of `name = Cls(...)` when the call at the end of `path` is the whole
    value of a one-target statement; None for any other place."""
    if len(path) < 3:
        return None
    call, assign = path[-1], path[-2]
    if type(assign) is not cst.Assign or assign.value is not call or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    return _variable(names, target.value, path) if type(target) is cst.Name else None


def _variable(names: Names, name: str, path: Path) -> Variable | None:
    """(the scope that binds `name` as read at the end of `path`, the name); None where a
    class body or comprehension binds it."""
    found = names.lookup_with_path(name, path)
    if found is None:
        return None
    scope = next(
        (n for n in reversed(found[1]) if type(n) in (cst.FunctionDef, cst.Lambda, cst.Module)),
        None,
    )
    if type(scope) not in (cst.FunctionDef, cst.Module):
        return None
    return id(scope), name


def _self_attribute(node: cst.Attribute) -> bool:
    return type(node.value) is cst.Name and node.value.value == "self"


def _owner_class(path: Path) -> cst.ClassDef | None:
    """The class whose method the end of `path` is in (its innermost function's)."""
    funcs = [i for i, n in enumerate(path) if type(n) in (cst.FunctionDef, cst.Lambda)]
    if not funcs:
        return None
    first = funcs[0]  # a method's nested function still has the method's `self`
    owner = next((n for n in reversed(path[:first]) if type(n) is cst.ClassDef), None)
    return owner if type(owner) is cst.ClassDef else None


def _attribute_variable(
    target: cst.Attribute, path: Path, keeps: Callable[[cst.ClassDef], bool]
) -> Variable | None:
    """The variable of `self.name` in a method of a class that `keeps` accepts (a Keras
    layer's attribute is a sublayer it runs: not followed here)."""
    owner = _owner_class(path)
    if owner is None or not keeps(owner):
        return None
    return id(owner), f"self.{target.attr.value}"


def _read_variable(names: Names, node: cst.BaseExpression, path: Path) -> Variable | None:
    if type(node) is cst.Name:
        return _variable(names, node.value, path)
    owner = _owner_class(path)
    return (id(owner), f"self.{node.attr.value}") if owner is not None else None  # type: ignore[attr-defined]


def _binding_kind(names: Names, name: str, path: Path) -> str | None:
    bindings = names.lookup(name, path)
    return bindings[0].kind if bindings else None


def _local_function(names: Names, func: cst.BaseExpression, path: Path) -> cst.FunctionDef | None:
    """The plain function (no method) of the module that `func` names, bound once."""
    if type(func) is not cst.Name:
        return None
    node = names.only_def(func.value, path)
    return None if node is None or node.decorators else node


def _local_constructor(
    names: Names, func: cst.BaseExpression, path: Path
) -> cst.FunctionDef | None:
    """The `__init__` of the module's class that `func` names, bound once (none
    inherited: a base's `__init__` is not followed)."""
    if type(func) is not cst.Name:
        return None
    bindings = names.lookup(func.value, path)
    if not bindings or len(bindings) != 1 or bindings[0].kind != "class":
        return None
    cls = bindings[0].node
    if type(cls) is not cst.ClassDef:
        return None
    return next(
        (
            stmt
            for stmt in cls.body.body  # type: ignore[attr-defined]
            if type(stmt) is cst.FunctionDef
            and stmt.name.value == "__init__"
            and not stmt.decorators
        ),
        None,
    )


def parameter_names(func: cst.FunctionDef) -> list[str]:
    params = func.params
    return [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    out = []
    stack = [node]
    while stack:
        item = stack.pop()
        if type(item) is cst.Name:
            out.append(item)
        stack.extend(iter_children(item))
    return out


def not_a_read(name: cst.Name, path: Sequence[cst.CSTNode]) -> bool:
    """A `Name` node that reads no variable: an attribute's name, a keyword, a binding
    target of a def, class, parameter, import or assignment."""
    parent = path[-2] if len(path) > 1 else None
    if parent is None:
        return False
    if names_itself(name, parent):
        return True
    kind = type(parent)
    if kind in (cst.ImportAlias, cst.AsName):
        return True
    # `a, b = ...`: an element of a tuple target binds.
    return kind is cst.Element and len(path) > 3 and type(path[-4]) is cst.AssignTarget
