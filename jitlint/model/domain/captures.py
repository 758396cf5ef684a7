"""What a function object captures, and which captured values change per repetition (J16).

A function built afresh each time code repeats (a lambda, a `partial`, a wrapper, a local
`def`, a bound method) is a new jit cache key each time. Whether that is a waste depends on
what the function captures: the free names of a lambda or local `def` (and of the local
functions it names, transitively), the arguments a `partial` or wrapper binds, the receiver
of a bound method. `Captures.varying` lists those that change from one repetition to the
next, with the kind of value each holds:

- in a loop that repeats its body (python/uses.py `repeats_body`): names the loop rebinds or
  visibly mutates (its target, an assignment, `cfg.x = ...`, `history.append(...)`); in a
  comprehension: its targets;
- in a function that runs repeatedly: its parameters (not `self`/`cls`) whose argument changes
  per pass at the loop calls of this module that repeat it (every parameter when something
  else repeats it: a contract, another file), module-level names those loops change and the
  function reads, and the locals it derives from either.

Kinds: `ARRAY` (a JAX or NumPy array, or a pytree the model traces), `COUNT` (the target of a
`for ... in range(...)`, an `enumerate` index, a counter the loop adds to), `PYTHON` (a
scalar, string, None, container, class or function, an instance of a project class:
configuration), `SIZE` (a count or array that decides the program: read by `range(...)`,
a size or shape argument, an index into a Python list of settings, also through a
`partial` or call of a function of the module; an array the loop rebuilds with a shape
read from what it changes) or `UNKNOWN`. A loop target unpacked from `zip`,
`itertools.product`, `enumerate` or a written-out dict's `.items()` takes the kind of what
it unpacks. A compile per distinct configuration value is what such a loop asks for (a
static argument would compile as often); an array or a step count captured per pass and
read as data should have been an argument.

The value of an expression is the framework model's answer (`ValueAt`), and so are the
arguments a call needs as Python values (`SizeArguments`): this module knows nothing of JAX.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import libcst as cst

from jitlint.model.domain.repeats import Repeated, Repetition, grid_pass
from jitlint.model.domain.values import PYTREE, STATIC, TRACED, Array, Object, Value
from jitlint.python.binding import Signature, bind_call
from jitlint.python.builtins_facts import MUTATING_METHODS, PARTIAL
from jitlint.python.names import Names
from jitlint.python.scopes import comprehension_targets
from jitlint.python.uses import (
    changed_in,
    counts_passes,
    free_reads,
    params_of,
    repeats_body,
)
from jitlint.python.walker import iter_children, own_scope_nodes

Path = Sequence[cst.CSTNode]
# The value of the expression `node` in the code at the end of `path` (its function's
# analysis, traced or not), or None when the model has none.
ValueAt = Callable[[cst.CSTNode, Path], Value | None]

ARRAY, COUNT, PYTHON, SIZE, UNKNOWN = "array", "count", "python", "size", "unknown"
# The arguments of a call that the framework needs as Python values (sizes, shapes, axes,
# static parameters), the path ending at the call.
SizeArguments = Callable[[cst.Call, Path], Sequence[cst.CSTNode]]
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_MAX_DEPTH = 3  # how many local functions deep a closure is followed


@dataclass(frozen=True)
class Capture:
    """A captured name whose value changes per repetition, and the kind of that value."""

    name: str
    kind: str

    @property
    def configuration(self) -> bool:
        """A Python value (or one the model cannot tell), or a size: a compile per value
        may be wanted."""
        return self.kind in (PYTHON, UNKNOWN, SIZE)


def value_kind(value: Value | None) -> str:
    """ARRAY, PYTHON or UNKNOWN for one abstract value."""
    if value is None:
        return UNKNOWN
    if isinstance(value, Array) or value.kind in (TRACED, PYTREE):
        return ARRAY
    if value.kind == STATIC or isinstance(value, Object):
        return PYTHON
    return UNKNOWN


def join_kinds(kinds: Iterable[str]) -> str:
    """One kind for several values of a name: configuration wins (a name that is a string on
    one path is configuration), then an array, else unknown."""
    found = set(kinds)
    for kind in (PYTHON, ARRAY, COUNT):
        if kind in found:
            return kind
    return UNKNOWN


class Captures:
    """Queries about captured values, for one module (see the module docstring)."""

    def __init__(
        self,
        names: Names,
        value_at: ValueAt,
        repeated: Repeated,
        size_arguments: SizeArguments = lambda call, path: (),
    ) -> None:
        self.names = names
        self.value_at = value_at
        self.repeated = repeated
        self.size_arguments = size_arguments
        self._reads: dict[int, dict[str, list[cst.Name]]] = {}

    # ---- the query ---------------------------------------------------------------------
    def varying(
        self, built: cst.CSTNode, path: Path, repetition: Repetition
    ) -> list[Capture] | None:
        """The captured values of the function object `built` (the jitted expression, or a
        decorated local `def`; `path` ends at the site) that change per `repetition`; None
        when what it captures cannot be told (`await`, `yield`, `:=` inside)."""
        reads = self._closure_reads(built, path, 0)
        if reads is None:
            return None
        owner = _owner(path)
        changes: dict[str, _Change] = {}
        if repetition.kind == "call" and repetition.function is not None:
            changing = self._changed_per_call(repetition.function, path)
        else:
            changes = _changes_per_pass(path)
            changing = {
                name: self._change_kind(owner, name, changes[name], path)
                for name in reads
                if name in changes
            }
        site = list(path[:-1]) if path and path[-1] is built else list(path)
        for name in reads:
            kind = changing.get(name)
            if kind == COUNT and self._needs_python({name}, built, site):
                changing[name] = SIZE  # `partial(net, depth=n)`: one program per value
            elif kind == ARRAY and changes.get(name) is _REBOUND and self._sized(name, path):
                changing[name] = SIZE  # `jnp.zeros((n, d))`: one program per shape
        return [Capture(name, changing[name]) for name in sorted(reads) if name in changing]

    def per_grid(self, built: cst.CSTNode, path: Path, repetition: Repetition) -> bool:
        """Each repetition of the function object `built` (`path` ends at the site) is
        another configuration of a written-out grid that it captures (domain/repeats.py
        `grid_pass`, the fact TF's repeats ask too): in a loop, every loop around it iterates
        a grid whose element it reads; in a function that runs repeatedly, every call that
        repeats it (nothing else does) passes a grid's element, in each of its loops, to a
        parameter it reads. One compile per configuration is needed, whatever the kinds of
        the values."""
        reads = self._closure_reads(built, path, 0)
        if not reads or repetition.kind == "comprehension":
            return False
        func = repetition.function
        if repetition.kind != "call" or func is None:
            return grid_pass(path, reads, self.names)
        sites = self.repeated.sites.get(id(func))
        if not sites or id(func) in self.repeated.open:
            return False
        signature = Signature.of(func, 1 if _bound_method(func, path) else 0)
        for call, site in sites:
            bound = bind_call(signature, call).arguments
            passed = {a.value for p, a in bound.items() if p in reads and type(a) is cst.Name}
            if not grid_pass(site, passed, self.names):  # type: ignore[arg-type]
                return False
        return True

    # ---- values that decide the program ------------------------------------------------
    def _sized(self, name: str, path: Path) -> bool:
        """The loop around the end of `path` rebinds `name` to an array whose shape reads a
        Python value the loop changes (`z = jnp.zeros((n, d))`, `g = grid(n)`): a new shape
        each pass, and so a compile each pass even as an argument. An array the loop changes
        (`jnp.zeros(x.shape)`) is no such value: its shape may well stay."""
        found = _pass_loop(path)
        if found is None or type(found[1]) not in (cst.For, cst.While):
            return False  # a comprehension assigns nothing but its targets
        index, loop = found
        owner = _owner(path)
        changed = {
            n for n, c in _changes(loop).items() if self._change_kind(owner, n, c, path) != ARRAY
        }
        base = list(path[: index + 1])
        for node in own_scope_nodes(loop.body, _SCOPES):  # type: ignore[attr-defined]
            if (
                type(node) is cst.Assign
                and any(name in {n.value for n in _names(t.target)} for t in node.targets)  # type: ignore[attr-defined]
                and self._needs_python(changed, node.value, base, containers=False)  # type: ignore[attr-defined]
            ):
                return True
        return False

    def _needs_python(
        self,
        names: set[str],
        root: cst.CSTNode,
        base: Path,
        depth: int = 0,
        containers: bool = True,
    ) -> bool:
        """Some read of `names` in `root` (an expression, a lambda or a `def`; `base` is the
        path to it), or in a function of this module it hands them to, decides the program
        jit records: `range(n)`, a size or shape the framework needs (`size_arguments`), or
        (`containers`) an index into a Python list of settings. Passed in as an argument it
        would fail to trace; captured, each value is its own program."""
        if type(root) is cst.FunctionDef:
            base, root = [*base, root], root.body
        stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(root, ())]
        while stack:
            node, above = stack.pop()
            kind = type(node)
            if above and (kind is cst.FunctionDef or kind is cst.ClassDef):
                continue
            if kind is cst.Name:
                parent = above[-1] if above else None
                if node.value in names and not _bound_or_label(node, parent):  # type: ignore[attr-defined]
                    if self._read_needs_python(node, above, base, depth, containers):
                        return True
                elif depth < _MAX_DEPTH and not _bound_or_label(node, parent):
                    # A local function or lambda it names (`jax.grad(fn)`) reads them too.
                    here = [*base, *above]
                    local = _local_function(self.names, node.value, here)  # type: ignore[attr-defined]
                    if local is not None and self._needs_python(names, local, here, depth + 1):
                        return True
                continue
            stack.extend((child, (*above, node)) for child in iter_children(node))
        return False

    def _read_needs_python(
        self,
        read: cst.Name,
        above: tuple[cst.CSTNode, ...],
        base: Path,
        depth: int,
        containers: bool,
    ) -> bool:
        chain = (*above, read)
        for index in range(len(above) - 1, -1, -1):
            parent, child = above[index], chain[index + 1]
            if counts_passes(parent, child):
                return True
            here = [*base, *above[: index + 1]]
            if containers and type(parent) is cst.SubscriptElement:
                subscript = above[index - 1] if index else None
                if type(subscript) is cst.Subscript:
                    container = self.value_at(subscript.value, here)
                    if container is not None and value_kind(container.element()) == PYTHON:
                        return True  # `SETTINGS[i]`: one of a Python list of settings
            if type(parent) is not cst.Call or child is parent.func:  # type: ignore[attr-defined]
                continue
            below = {id(n) for n in chain[index + 1 :]}
            if any(id(a) in below for a in self.size_arguments(parent, here)):  # type: ignore[arg-type]
                return True
            if (
                depth < _MAX_DEPTH
                and type(child) is cst.Arg
                and self._parameter_needs_python(parent, child, here, depth)  # type: ignore[arg-type]
            ):
                return True
        return False

    def _parameter_needs_python(self, call: cst.Call, arg: cst.Arg, path: Path, depth: int) -> bool:
        """`arg` of `call` (of a `def` of this module, or a `partial` of one) reaches a
        parameter whose reads decide the program (`_needs_python`)."""
        args = list(call.args)
        target: cst.BaseExpression = call.func
        if self.names.resolves_to(call.func, path, PARTIAL):
            if not args or args[0].keyword is not None or args[0].star:
                return False
            target, args = args[0].value, args[1:]
        if type(target) is not cst.Name or arg not in args:
            return False
        found = self.names.lookup_with_path(target.value, path)
        if found is None or len(found[0]) != 1 or found[0][0].kind != "def":
            return False
        func = found[0][0].node
        if type(func) is not cst.FunctionDef:
            return False
        bound = bind_call(Signature.of(func), call.with_changes(args=args))
        param = bound.targets[args.index(arg)] if len(bound.targets) == len(args) else None
        if param is None:
            return False
        return self._needs_python({param}, func, found[1], depth + 1)

    def _change_kind(self, owner: cst.CSTNode, name: str, change: _Change, path: Path) -> str:
        """The kind of the change to `name`: its value's when rebound; COUNT when the loop
        only steps it (`n += 1`); else that of what is stored into it (`self.w = new_w`
        keeps the same object; what changes per pass is `new_w`)."""
        if change.how == "stepped":
            return COUNT
        if change.how == "rebound":
            return self._kind_in(owner, name, path)
        return join_kinds(value_kind(self.value_at(v, path)) for v in change.stored)

    def recompile_guard(self, path: Path) -> bool:
        """The end of `path` sits, inside its innermost loop, under an `if` whose test reads a
        name that loop assigns (not its target, not a counter it only adds to): code that
        rebuilds the function when a setting changes, not on every pass."""
        guards: list[cst.If] = []
        for index in range(len(path) - 2, -1, -1):
            node, child = path[index], path[index + 1]
            kind = type(node)
            if kind in _SCOPES:
                return False
            if kind is cst.If and child is node.body:  # type: ignore[attr-defined]
                guards.append(node)  # type: ignore[arg-type]
            if kind in (cst.For, cst.While) and child is node.body and repeats_body(node):  # type: ignore[attr-defined]
                if not guards:
                    return False
                assigned = _assigned_in(node.body)  # type: ignore[attr-defined]
                return any((free_reads(guard.test) or set()) & assigned for guard in guards)
        return False

    # ---- what the function object reads ------------------------------------------------
    def _closure_reads(self, built: cst.CSTNode, path: Path, depth: int) -> set[str] | None:
        return closure_reads(self.names, built, path, depth)

    # ---- what changes per call of a repeated function ----------------------------------
    def _changed_per_call(self, func: cst.FunctionDef, path: Path) -> dict[str, str]:
        """Name -> kind for the parameters, module-level names and derived locals of `func`
        that change from one call to the next (see the module docstring)."""
        method = _bound_method(func, path)
        params = [p.name.value for p in params_of(func.params)][1 if method else 0 :]
        changing: dict[str, str] = {}
        sites = self.repeated.sites.get(id(func))
        if sites is None or id(func) in self.repeated.open:
            changing = {p: self._kind_in(func, p, path) for p in params}
        else:
            signature = Signature.of(func, 1 if method else 0)
            module_names = self.names.scope(self.names.module).bindings
            reads_here = self._reads_in(func)
            for call, site in sites:
                changes = _changes_per_pass(site)
                bound = bind_call(signature, call)
                for param in params:
                    arg = bound.arguments.get(param)
                    if arg is None:
                        if param in bound.uncertain:
                            changing[param] = UNKNOWN
                        continue
                    changed = (free_reads(arg) or set()) & set(changes)
                    if not changed:
                        continue
                    if any(changes[n].how != "stored" for n in changed):
                        kind = value_kind(self.value_at(arg, site))
                    else:
                        stored = [v for n in changed for v in changes[n].stored]
                        kind = join_kinds(value_kind(self.value_at(v, site)) for v in stored)
                    changing[param] = join_kinds([changing.get(param, kind), kind])
                for name in set(changes) & set(module_names) & set(reads_here):
                    if self._module_level(name, path):
                        kind = self._change_kind(func, name, changes[name], site)
                        changing.setdefault(name, kind)
        for name in _derived(func, set(changing)):
            changing.setdefault(name, self._kind_in(func, name, path))
        return changing

    def _module_level(self, name: str, path: Path) -> bool:
        found = self.names.lookup_with_path(name, path)
        return found is not None and len(found[1]) == 1

    # ---- the kind of a name's value ----------------------------------------------------
    def _kind_in(self, owner: cst.CSTNode, name: str, path: Path) -> str:
        """The kind of `name`'s value in `owner` (a function or the module): the values its
        reads there have, and those assigned to it; COUNT for a `range` loop's target."""
        reads = self._reads_in(owner).get(name, [])
        bindings = self.names.lookup(name, path) or []
        if bindings and all(_counts(b, owner, name) for b in bindings):
            return COUNT
        values = [self.value_at(node, path) for node in reads]
        values += [self.value_at(b.node, path) for b in bindings if b.kind == "assign" and b.node]
        for loop in _fors(owner):
            values += self._target_values(loop.target, loop.iter, name, path)
        return join_kinds(value_kind(v) for v in values)

    def _target_values(
        self, target: cst.CSTNode, iterable: cst.CSTNode, name: str, path: Path
    ) -> list[Value | None]:
        """The values `for target in iterable` gives `name`: an element of the iterable, or
        through tuple targets, of `zip`'s or `itertools.product`'s arguments, the second of
        `enumerate`'s (its first is a count: `_counts`), or a written-out dict's keys or
        values (`for name, width in {"small": 2}.items()`). None where not known."""
        if type(target) is cst.Name:
            if target.value != name:  # type: ignore[attr-defined]
                return []
            value = self.value_at(iterable, path)
            return [value.element() if value is not None else None]
        if type(target) not in (cst.Tuple, cst.List) or type(iterable) is not cst.Call:
            return []
        parts = [e.value for e in target.elements]  # type: ignore[attr-defined]
        if any(type(p) is cst.StarredElement for p in parts):
            return []
        args = [a.value for a in iterable.args if not a.star and a.keyword is None]  # type: ignore[attr-defined]
        meaning = self.names.qualified_names(iterable.func, path)  # type: ignore[attr-defined]
        sources: list[cst.CSTNode | None] = [None] * len(parts)
        if meaning and meaning <= _PARALLEL and len(args) == len(parts):
            sources = list(args)
        elif meaning == _ENUMERATE and len(parts) == 2 and args:
            sources = [None, args[0]]
        elif len(parts) == 2 and (entries := _dict_items(iterable)) is not None:
            keys = [self.value_at(e.key, path) for e in entries]  # type: ignore[attr-defined]
            found = [self.value_at(e.value, path) for e in entries]  # type: ignore[attr-defined]
            for part, values in zip(parts, (keys, found), strict=True):
                if type(part) is cst.Name and part.value == name:
                    return list(values)
            return []
        out: list[Value | None] = []
        for part, source in zip(parts, sources, strict=True):
            if source is not None:
                out += self._target_values(part, source, name, path)
        return out

    def _reads_in(self, owner: cst.CSTNode) -> dict[str, list[cst.Name]]:
        """Name -> its read nodes in `owner`'s own body (nested functions and classes left
        out: their values are another analysis's)."""
        found = self._reads.get(id(owner))
        if found is not None:
            return found
        found = {}
        body = owner.body if type(owner) is cst.FunctionDef else owner  # type: ignore[attr-defined]
        stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(body, None)]
        while stack:
            node, parent = stack.pop()
            kind = type(node)
            if kind in _SCOPES:
                continue
            if kind is cst.Name:
                if not _bound_or_label(node, parent):
                    found.setdefault(node.value, []).append(node)  # type: ignore[arg-type, attr-defined]
                continue
            stack.extend((child, node) for child in iter_children(node))
        self._reads[id(owner)] = found
        return found


_PARALLEL = frozenset({"builtins.zip", "itertools.product"})
_ENUMERATE = frozenset({"builtins.enumerate"})


def _dict_items(call: cst.Call) -> list[cst.DictElement] | None:
    """The entries of `{...}.items()` on a written-out dict without `**`."""
    func = call.func
    if call.args or type(func) is not cst.Attribute or func.attr.value != "items":
        return None
    if type(func.value) is not cst.Dict:
        return None
    entries = list(func.value.elements)
    if any(type(e) is not cst.DictElement for e in entries):
        return None
    return entries  # type: ignore[return-value]


def _owner(path: Path) -> cst.CSTNode:
    """The function (or module) whose body holds the end of `path`."""
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        if type(node) is cst.FunctionDef and path[index + 1] is node.body:  # type: ignore[attr-defined]
            return node
    return path[0]


def _bound_method(func: cst.FunctionDef, path: Path) -> bool:
    """`func` is a method of a class around it whose first parameter (`self`, `cls`) its
    calls do not pass."""
    params = params_of(func.params)
    return bool(params) and params[0].name.value in ("self", "cls") and _in_class(path, func)


def _in_class(path: Path, func: cst.FunctionDef) -> bool:
    for index, node in enumerate(path):
        if node is func:
            return index >= 2 and type(path[index - 2]) is cst.ClassDef
    return False


@dataclass(frozen=True)
class _Change:
    """How a loop changes a name: "rebound", "stepped" (only `n += ...`), or "stored" into
    (`obj.x = v`, `obj[k] = v`, `obj.append(v)`: the object stays, `stored` holds the `v`s)."""

    how: str
    stored: tuple[cst.CSTNode, ...] = ()


_REBOUND = _Change("rebound")


def _changes_per_pass(path: Path) -> dict[str, _Change]:
    """The names the innermost loop or comprehension around the end of `path` (in its
    function) changes from one pass to the next, and how."""
    found = _pass_loop(path)
    if found is None:
        return {}
    node = found[1]
    changes = _changes(node)
    if type(node) in _COMPREHENSIONS:
        changes.update(dict.fromkeys(comprehension_targets(node), _REBOUND))
    return changes


def _pass_loop(path: Path) -> tuple[int, cst.CSTNode] | None:
    """The innermost loop that repeats its body, or comprehension, around the end of `path`
    in its function, with its index in `path`."""
    for index in range(len(path) - 2, -1, -1):
        node, child = path[index], path[index + 1]
        kind = type(node)
        if kind in _SCOPES:
            return None
        if kind in (cst.For, cst.While) and child is node.body and repeats_body(node):  # type: ignore[attr-defined]
            return index, node
        if kind in _COMPREHENSIONS:
            return index, node
    return None


def _changes(loop: cst.CSTNode) -> dict[str, _Change]:
    changed = changed_in(loop)
    stored: dict[str, list[cst.CSTNode]] = {}
    rebound: set[str] = set()
    stepped: set[str] = set()
    stack: list[cst.CSTNode] = [loop]
    while stack:
        node = stack.pop()
        kind = type(node)
        targets: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = []
        if kind is cst.Assign:
            targets = [(t.target, [node.value]) for t in node.targets]  # type: ignore[attr-defined]
        elif kind in (cst.AugAssign, cst.AnnAssign) and node.value is not None:  # type: ignore[attr-defined]
            targets = [(node.target, [node.value])]  # type: ignore[attr-defined]
        elif (
            kind is cst.Call
            and type(node.func) is cst.Attribute  # type: ignore[attr-defined]
            and node.func.attr.value in MUTATING_METHODS  # type: ignore[attr-defined]
        ):
            targets = [(node.func, [a.value for a in node.args])]  # type: ignore[attr-defined]
        for target, values in targets:
            base = target
            while type(base) in (cst.Attribute, cst.Subscript):
                base = base.value  # type: ignore[attr-defined]
            if base is target or type(base) is not cst.Name:
                continue
            stored.setdefault(base.value, []).extend(values)  # type: ignore[attr-defined]
        if kind is cst.AugAssign and type(node.target) is cst.Name:  # type: ignore[attr-defined]
            stepped.add(node.target.value)  # type: ignore[attr-defined]
        elif kind in (cst.Assign, cst.AnnAssign, cst.For, cst.CompFor):
            bound = [t.target for t in node.targets] if kind is cst.Assign else [node.target]  # type: ignore[attr-defined]
            rebound |= {n.value for t in bound for n in _names(t)}
        stack.extend(iter_children(node))
    # Every other way the loop changes a name (`with ... as`, `del`, an import) rebinds it.
    out: dict[str, _Change] = {}
    for name in changed:
        if name in rebound or (name in stored and name in stepped):
            out[name] = _REBOUND
        elif name in stepped:
            out[name] = _Change("stepped")
        elif name in stored:
            out[name] = _Change("stored", tuple(stored[name]))
        else:
            out[name] = _REBOUND  # `with ... as`, `del`, an import, a def
    return out


def _assigned_in(block: cst.CSTNode) -> set[str]:
    """Names a loop body assigns with `=` (a flag, a setting it tracks), not loop targets or
    names it only adds to (`n += 1`)."""
    out: set[str] = set()
    for node in own_scope_nodes(block, _SCOPES):
        kind = type(node)
        if kind is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                out |= {n.value for n in _names(target.target)}
        elif kind is cst.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
            out |= {n.value for n in _names(node.target)}  # type: ignore[attr-defined]
    return out


def _derived(func: cst.FunctionDef, changing: set[str]) -> set[str]:
    """Locals of `func` assigned (in its own body) from values of `changing`, transitively."""
    flows: list[tuple[set[str], set[str]]] = []
    for node in own_scope_nodes(func.body, _SCOPES):
        kind = type(node)
        source: cst.CSTNode | None = None
        targets: list[cst.CSTNode] = []
        if kind is cst.Assign:
            source, targets = node.value, [t.target for t in node.targets]  # type: ignore[attr-defined]
        elif kind in (cst.AugAssign, cst.AnnAssign) and node.value is not None:  # type: ignore[attr-defined]
            source, targets = node.value, [node.target]  # type: ignore[attr-defined]
        elif kind is cst.For:
            source, targets = node.iter, [node.target]  # type: ignore[attr-defined]
        elif kind is cst.WithItem and node.asname is not None:  # type: ignore[attr-defined]
            source, targets = node.item, [node.asname.name]  # type: ignore[attr-defined]
        if source is not None:
            reads = free_reads(source)
            names = {n.value for t in targets for n in _names(t) if type(t) is not cst.Attribute}
            flows.append((names, reads if reads is not None else set(changing)))
    out = set(changing)
    grew = True
    while grew:
        grew = False
        for names, reads in flows:
            if reads & out and not names <= out:
                out |= names
                grew = True
    return out - changing


def _counts(binding: object, owner: cst.CSTNode, name: str) -> bool:
    """`binding` is a step count: the target of `for name in range(...)`, or the first of
    `for name, item in enumerate(...)`."""
    if getattr(binding, "kind", None) != "other":
        return False
    for node in _fors(owner):
        target, iterable = node.target, node.iter
        if type(iterable) is not cst.Call or type(iterable.func) is not cst.Name:
            continue
        if iterable.func.value == "enumerate" and type(target) in (cst.Tuple, cst.List):
            elements = target.elements  # type: ignore[attr-defined]
            target = elements[0].value if elements else target
        elif iterable.func.value != "range":
            continue
        if type(target) is cst.Name and target.value == name:
            return True
    return False


def _fors(owner: cst.CSTNode) -> list[cst.For]:
    body = owner.body if type(owner) is cst.FunctionDef else owner  # type: ignore[attr-defined]
    return [node for node in own_scope_nodes(body, _SCOPES) if type(node) is cst.For]  # type: ignore[misc]


def _names(target: cst.CSTNode) -> list[cst.Name]:
    """The names a target binds (`a`, `a, (b, c)`, `*rest`), not those of `obj.x` or `a[i]`."""
    kind = type(target)
    if kind is cst.Name:
        return [target]  # type: ignore[list-item]
    if kind in (cst.Tuple, cst.List):
        return [n for e in target.elements for n in _names(e.value)]  # type: ignore[attr-defined]
    if kind is cst.StarredElement:
        return _names(target.value)  # type: ignore[attr-defined]
    return []


def _bound_or_label(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
    """`node` (a Name) is not a read: an attribute's name, a keyword, a binding target."""
    kind = type(parent)
    if kind is cst.Attribute:
        return node is parent.attr  # type: ignore[union-attr]
    if kind is cst.Arg:
        return node is parent.keyword  # type: ignore[union-attr]
    if kind in (cst.AssignTarget, cst.AsName, cst.Param):
        return True
    if kind in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr):
        return node is parent.target  # type: ignore[union-attr]
    return False


def closure_reads(names: Names, built: cst.CSTNode, path: Path, depth: int = 0) -> set[str] | None:
    """Names `built` reads from the code around it; a local function or lambda it names
    contributes what it reads in turn (its own name is not a value it bakes in)."""
    if type(built) is cst.FunctionDef:
        own = frozenset(names.scope(built).bindings)  # type: ignore[arg-type]
        parts: list[cst.CSTNode] = [built.body]
        parts += [d.decorator for d in built.decorators]
        parts += [p.default for p in params_of(built.params) if p.default is not None]
        found: set[str] | None = set()
        for part in parts:
            more = free_reads(part, own if part is built.body else frozenset())
            if more is None:
                return None
            found |= more
    else:
        found = free_reads(built)
    if found is None:
        return None
    out: set[str] = set()
    for name in found:
        local = _local_function(names, name, path) if depth < _MAX_DEPTH else None
        if local is None:
            out.add(name)
            continue
        inner = closure_reads(names, local, path, depth + 1)
        if inner is None:
            return None
        out |= inner
    return out


def _local_function(names: Names, name: str, path: Path) -> cst.CSTNode | None:
    """The `def` or lambda `name` is bound to (once) in a function around `path`."""
    found = names.lookup_with_path(name, path)
    if found is None or len(found[0]) != 1:
        return None
    binding, scope_path = found[0][0], found[1]
    if len(scope_path) < 2 or type(scope_path[-2]) not in (cst.FunctionDef, cst.Lambda):
        return None
    node = binding.node
    if binding.kind == "def" or (binding.kind == "assign" and type(node) is cst.Lambda):
        return node
    return None


def per_configuration(names: Names, built: cst.CSTNode, path: Path) -> bool:
    """The function object `built` (a decorated `def`, or the function a `tf.function(f)`
    call wraps; `path` ends at the site), made in a loop, is another configuration on each
    pass: every loop around it goes over a written-out grid whose element it reads, in its
    body, decorators or defaults, or through a name the pass binds from it (repeats.py
    `grid_pass`). Each one is traced once and is needed: nothing could be reused."""
    reads = closure_reads(names, built, path)
    return bool(reads) and grid_pass(path, reads, names)
