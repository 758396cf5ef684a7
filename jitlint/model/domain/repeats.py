"""How often code runs: once, once per call of its function, or repeatedly (hazards J13, T13).

Framework-neutral; the JAX and TF models feed it their call resolution and their
frameworks' contracts, and rules (JIT113, JIT207) query the answer.

- Within a function, `local_repetition` says why a node may run more than once: it sits in a
  loop body that repeats (python/uses.py `repeats_body`: not a loop over a written-out
  collection of one element, nor one whose every path leaves it, as a retry loop `while
  True: try: ...; break` / `except Error: continue` runs its body once on a normal run,
  again only after a failure; code in such a loop is in the loops around it, if any) or a
  comprehension (all of it but the outermost iterable), or else it runs once per call of
  the innermost enclosing function. The body
  of a run-once guard (`if fn is None: fn = ...`, guards.py) and a lambda's body (where it
  runs is unknown) answer None.
- Across functions, `find_repeated` says which functions run repeatedly: those called in a
  loop or comprehension (of this module, or of another file, by a record), those called
  repeatedly *by contract* (a request handler, an agent's `act`, a Keras callback's
  `on_batch_end`: which ones is each plug-in's table), and, one level down, what those call
  unconditionally (further down, callees tend to cache what they build). It keeps the loop
  calls that repeat each function (`sites`), and which functions something else repeats too
  (`open`), so that captures.py can tell which parameters change from call to call. A loop
  call that sets the flag its `while` tests, as every normal pass ends (`while running:
  try: running = run(config) except Unavailable: ...`), to what a function returning a
  false literal on every path returns, runs that function once on a normal run, and again
  only to retry after an error: no repetition (`stops_its_loop`).
- A *memoized* function (`@functools.lru_cache`, `@functools.cache`) runs its body once per
  distinct arguments: a loop or contract that calls it again with the same ones does not
  run it again, so it is never repeated, nor, through it, what it calls.
- A function made in a loop iteration and *kept* without being called there (stored on an
  object, collected in a list, handed to a call that does not run it now) is built once per
  element (a host, a device, a data split) and then reused: not a repetition (issue 28).
- A call or function object in a *grid* of configurations (`grid_pass`: every loop around it
  a `for` over a written-out list or tuple of literals, or a name bound once to one, whose
  element it passes or captures) runs once per configuration: each trace or compile is
  needed, and hoisting cannot remove it. TF's repeats and JIT113 (through captures.py) ask
  this one fact.
- A *staged* loop is no repetition either: the framework traces its body once and runs
  the iterations itself (TF's autograph turns a `for` over a tensor in graph code into a
  `while_loop`). Which loops are staged is the framework's answer (`StagedLoop`, given by
  its model); without one, every loop runs its body per pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from jitlint.model.domain.guards import is_run_once_guard
from jitlint.python.binding import Signature, bind_call, may_reach, receivers
from jitlint.python.builtins_facts import MEMOIZING, SETATTR
from jitlint.python.names import Names, false_literal, leaf_name, python_literal
from jitlint.python.uses import (
    bound_names,
    free_reads,
    repeats_body,
    returned_values,
    sets_flag_of_loop,
    target_names,
)
from jitlint.python.walker import iter_children

Path = Sequence[cst.CSTNode]
Func = cst.FunctionDef | cst.Lambda
# The function a call runs (a def of this module), or None when not known.
Callee = Callable[[cst.Call, Path], cst.FunctionDef | None]
# Whether the framework stages a loop (the path ends at the `for`/`while`): its body is
# traced once per trace of the enclosing function and the framework runs the iterations.
StagedLoop = Callable[[cst.CSTNode, Path], bool]

_LOOPS = (cst.For, cst.While)
_FUNCTIONS = (cst.FunctionDef, cst.Lambda)
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def _repeating_loop(
    node: cst.CSTNode,
    child: cst.CSTNode,
    staged: StagedLoop | None = None,
    path: Path = (),
) -> bool:
    """`child` is the body of the loop `node` (`path` ends at it), and that body runs more
    than once: not when the framework stages the loop (`staged`)."""
    if type(node) not in _LOOPS or child is not node.body or not repeats_body(node):  # type: ignore[attr-defined]
        return False
    return staged is None or not staged(node, path)


@dataclass(frozen=True)
class Repetition:
    """Why code may run more than once within its own function: `kind` is "loop",
    "comprehension" or "call" (once per call of `function`); `unit` is the loop body,
    comprehension or function body that repeats."""

    kind: str
    unit: cst.CSTNode
    function: cst.FunctionDef | None = None

    @property
    def where(self) -> str:
        return "inside a loop" if self.kind == "loop" else "inside a comprehension"


def local_repetition(path: Path, staged: StagedLoop | None = None) -> Repetition | None:
    """Why the end of `path` may run many times within its function (see the docstring);
    a loop the framework stages (`staged`) is no reason."""
    for index in range(len(path) - 2, -1, -1):
        node, child = path[index], path[index + 1]
        kind = type(node)
        if kind is cst.If and child is node.body and is_run_once_guard(node):  # type: ignore[attr-defined]
            return None  # built once per arming of the flag
        if _repeating_loop(node, child, staged, path[: index + 1]):
            return Repetition("loop", node.body)  # type: ignore[attr-defined]
        if kind in COMPREHENSIONS:
            # The outermost iterable is evaluated once; everything else per element.
            grandchild = path[index + 2] if index + 2 < len(path) else None
            if not (child is node.for_in and grandchild is node.for_in.iter):  # type: ignore[attr-defined]
                return Repetition("comprehension", node)
        if kind is cst.FunctionDef and child is node.body:  # type: ignore[attr-defined]
            return Repetition("call", node.body, node)  # type: ignore[arg-type, attr-defined]
        if kind is cst.Lambda and child is node.body:  # type: ignore[attr-defined]
            return None
    return None


def enclosing_loops(path: Path, staged: StagedLoop | None = None) -> list[cst.For | cst.While]:
    """Every loop whose body holds the end of `path`, innermost first, same function; those
    the framework stages (`staged`) left out."""
    found = []
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        if type(node) in _FUNCTIONS:
            break
        if _repeating_loop(node, path[index + 1], staged, path[: index + 1]):
            found.append(node)
    return found  # type: ignore[return-value]


def enclosing_loop(path: Path, staged: StagedLoop | None = None) -> cst.For | cst.While | None:
    """The innermost loop whose body holds the end of `path`, within the same function."""
    loops = enclosing_loops(path, staged)
    return loops[0] if loops else None


def iteration(path: Path, staged: StagedLoop | None = None) -> cst.CSTNode | None:
    """The innermost loop body or comprehension holding the end of `path`, same function;
    a loop the framework stages (`staged`) is not one."""
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        kind = type(node)
        if kind in _FUNCTIONS:
            return None
        if _repeating_loop(node, path[index + 1], staged, path[: index + 1]):
            return node.body  # type: ignore[attr-defined]
        if kind in COMPREHENSIONS:
            return node
    return None


def conditional(path: Path) -> bool:
    """Under an `if` or `try` of its own function: may not run on every call."""
    for node in reversed(path[:-1]):
        kind = type(node)
        if kind in _FUNCTIONS:
            return False
        if kind in (cst.If, cst.Try, cst.IfExp):
            return True
    return False


# ---- grids of configurations -------------------------------------------------------------


def written_out(
    iterable: cst.CSTNode, path: Path, names: Names | None = None, references: bool = False
) -> bool:
    """`iterable` is a written-out list or tuple of Python literals, or (with `names`) a name
    bound once, by an assignment, to one (`DTYPES = ("float32", "bfloat16")`, usually at
    module level). With `references` (and `names`), its elements may also name values that
    exist already: an attribute chain (`tf.float32`) or a name bound once, by an import, a
    class, a def or an assignment (`[cns1, cns2, cns3]`, a tuple of imported classes), not a
    parameter nor a loop's variable: nothing is computed per element, so it is still a
    handful of fixed values written in the source."""
    if type(iterable) is cst.Name and names is not None:
        bindings = names.lookup(iterable.value, path)  # type: ignore[attr-defined]
        if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
            return False
        iterable = bindings[0].node  # type: ignore[assignment]
    if type(iterable) not in (cst.List, cst.Tuple):
        return False
    elements = iterable.elements  # type: ignore[attr-defined]
    return bool(elements) and all(
        type(e) is cst.Element
        and (
            python_literal(e.value)
            or (references and names is not None and _reference(e.value, path, names))
        )
        for e in elements
    )


def _reference(node: cst.CSTNode, path: Path, names: Names) -> bool:
    """A value read, not made: an attribute chain, or a name bound once by an import, a
    class, a def or an assignment."""
    if type(node) is cst.Attribute:
        while type(node) is cst.Attribute:
            node = node.value  # type: ignore[attr-defined]
        return type(node) is cst.Name
    if type(node) is not cst.Name:
        return False
    bindings = names.lookup(node.value, path)  # type: ignore[attr-defined]
    return (
        bindings is not None
        and len(bindings) == 1
        and bindings[0].kind in ("import", "class", "def", "assign")
    )


def grid_pass(
    path: Path, reads: set[str], names: Names | None = None, staged: StagedLoop | None = None
) -> bool:
    """Every loop around the end of `path` (in its function) is a `for` over a written-out
    collection of literals (`written_out`) one of whose configured names (its target, or a
    name its body binds from it: `configured_names`) `reads` holds: a grid of
    configurations (`for fft in [True, False]: for size in [None, (20, 20)]:`). `reads`: the
    names a call there passes, or those a function object built there captures. Each pass
    is then another configuration, not the same work over data again: what is traced or
    compiled per pass is needed once per configuration, and hoisting cannot remove it. A
    comprehension around it (within the grid: `[run(x, fft) for x in xs]`) repeats it over
    its elements with the same configuration: no grid."""
    loops = 0
    for index in range(len(path) - 2, -1, -1):
        node, child = path[index], path[index + 1]
        kind = type(node)
        if kind in _FUNCTIONS:
            break
        if kind in COMPREHENSIONS:
            grandchild = path[index + 2] if index + 2 < len(path) else None
            if not (child is node.for_in and grandchild is node.for_in.iter):  # type: ignore[attr-defined]
                return False
        if not _repeating_loop(node, child, staged, path[: index + 1]):
            continue
        if kind is not cst.For or not configured_names(node) & reads:  # type: ignore[arg-type]
            return False
        if not written_out(node.iter, path, names, references=True):  # type: ignore[attr-defined]
            return False
        loops += 1
    return loops > 0


def configured_names(loop: cst.For) -> set[str]:
    """The names each pass of `loop` binds from its element: its target, and, in turn, the
    names its body assigns from an expression that reads one of them (`dec =
    Decoder(terminate=t)` in `for t in [False, True]:`), or under an `if` whose test reads
    one (`if dt == tf.float64: precision = "double"`). What reads them is configured by
    the pass too."""
    found = target_names(loop.target)
    assigns: list[tuple[set[str], set[str]]] = []
    _collect_assigns(loop.body, set(), assigns)
    grown = True
    while grown:
        grown = False
        for targets, reads in assigns:
            if targets - found and reads & found:
                found |= targets
                grown = True
    return found


def _collect_assigns(
    node: cst.CSTNode, tests: set[str], out: list[tuple[set[str], set[str]]]
) -> None:
    """The simple-name assignments under `node` (its own scope), each with the names its
    value reads and those the tests of the `if`s around it (below `node`) read."""
    kind = type(node)
    if kind in _FUNCTIONS or kind is cst.ClassDef:
        return
    if kind is cst.Assign:
        targets = {t.target.value for t in node.targets if type(t.target) is cst.Name}  # type: ignore[attr-defined]
        if targets:
            out.append((targets, (free_reads(node.value) or set()) | tests))  # type: ignore[attr-defined]
        return
    if kind is cst.If:
        inner = tests | (free_reads(node.test) or set())  # type: ignore[attr-defined]
        _collect_assigns(node.body, inner, out)  # type: ignore[attr-defined]
        if node.orelse is not None:  # type: ignore[attr-defined]
            _collect_assigns(node.orelse, inner, out)  # type: ignore[attr-defined]
        return
    for child in iter_children(node):
        _collect_assigns(child, tests, out)


def passes_grid(call: cst.Call, path: Path, names: Names | None = None) -> bool:
    """The call at the end of `path` runs in a grid of configurations (`grid_pass`) and passes
    each loop's element: `for fft in [True, False]: run(fft=fft)`."""
    passed = {a.value.value for a in call.args if not a.star and type(a.value) is cst.Name}
    return grid_pass(path, passed, names)


@dataclass
class Repeated:
    """Functions of a module that run repeatedly: id -> why (for messages)."""

    why: dict[int, str] = field(default_factory=dict)
    # functions repeated only by loop calls of this module that keep what they return
    keeps_result: set[int] = field(default_factory=set)
    # id -> the calls of this module that repeat it, each in a loop or comprehension
    sites: dict[int, list[tuple[cst.Call, Path]]] = field(default_factory=dict)
    # functions also repeated by something else (a contract, another file, a caller that
    # runs repeatedly): what they are called with is not all in `sites`
    open: set[int] = field(default_factory=set)

    def owner(self, path: Path) -> tuple[Func, str] | None:
        """The innermost function holding the end of `path`, and why it runs repeatedly."""
        func = next((n for n in reversed(path[:-1]) if type(n) in _FUNCTIONS), None)
        why = self.why.get(id(func)) if func is not None else None
        return (func, why) if why is not None else None  # type: ignore[return-value]

    def repeats_at(self, func: cst.FunctionDef, path: Path) -> str | None:
        """Why the end of `path`, in the body of `func`, runs repeatedly: why `func` does,
        unless every call that repeats it is one of this module's loop calls (`sites`;
        nothing else repeats it) and none of them may run that node, because the literal
        arguments each gives decide an `if` around it the other way (python/binding.py
        `may_reach`: `if axis is None: ... else: <node>` for loop calls that pass no axis)."""
        why = self.why.get(id(func))
        sites = self.sites.get(id(func))
        if why is None or id(func) in self.open or not sites:
            return why
        rebound = bound_names(func.body)  # read once for all the sites
        for call, _ in sites:
            # A call through an attribute (`self.m(...)`, `obj.m(...)`) binds the receiver.
            count = receivers(func, type(call.func) is cst.Attribute)
            if may_reach(func, bind_call(Signature.of(func, count), call), path, rebound):
                return why
        return None

    def inside(self, path: Path) -> str | None:
        """ "inside `f`, which is called in a loop" for messages, when the innermost function
        holding the end of `path` runs repeatedly."""
        found = self.owner(path)
        if found is None:
            return None
        name = found[0].name.value if type(found[0]) is cst.FunctionDef else "the lambda"
        return f"inside `{name}`, which is {found[1]}"


def find_repeated(
    loop_calls: Iterable[tuple[cst.Call, Path]],
    calls: dict[int, list[tuple[cst.Call, Path]]],
    callee: Callee,
    contracts: Iterable[tuple[cst.FunctionDef, str]] = (),
    kept: Callable[[Path], bool] = lambda path: False,
    staged: StagedLoop | None = None,
    names: Names | None = None,
) -> Repeated:
    """Which functions run repeatedly (see the docstring). `loop_calls`: calls inside loop
    bodies and comprehensions; `calls`: each function's calls, by id; `contracts`: functions
    repeated by contract or by another file's loop, with why; `kept(path)`: the loop
    iteration keeps what the call at the end of `path` returns, uncalled; `staged`: the
    loops the framework stages, whose calls run once per call of their function; `names`:
    the module's names, to tell a memoized function (`@functools.lru_cache`), whose body
    runs once per distinct arguments however often it is called: never repeated."""
    out = Repeated()
    once = (lambda func: memoized(names, func)) if names is not None else (lambda func: False)
    for call, path in per_pass(loop_calls, staged):
        func = callee(call, path)
        if func is None or once(func) or stops_its_loop(call, path, func):
            continue
        if id(func) not in out.why:
            out.keeps_result.add(id(func))
            out.why[id(func)] = "called in a loop"
        out.sites.setdefault(id(func), []).append((call, path))
        if not kept(path):
            out.keeps_result.discard(id(func))
    for func, why in contracts:
        if once(func):
            continue
        out.why.setdefault(id(func), why)
        out.open.add(id(func))
        out.keeps_result.discard(id(func))  # what its caller does with it is not known
    for key, why in list(out.why.items()):
        if key in out.keeps_result:
            continue  # what it makes is kept, one per element: its callees run once for each
        for call, path in calls.get(key, ()):
            if conditional(path):
                continue
            func = callee(call, path)
            if func is not None and not once(func):
                out.open.add(id(func))
                out.why.setdefault(id(func), f"called from a function {why}")
    return out


def stops_its_loop(call: cst.Call, path: Path, func: cst.FunctionDef) -> bool:
    """The loop call at the end of `path` sets the flag its `while` loop tests
    (python/uses.py `sets_flag_of_loop`), and `func`, which it runs, returns a false literal
    (`False`, `None`, `0`) on every path: the loop runs it once on a normal run, and again
    only when an error sends a handler round to retry."""
    if not sets_flag_of_loop(call, path):
        return False
    values = returned_values(func)
    return bool(values) and all(false_literal(v) for v in values)


def memoized(names: Names, func: cst.FunctionDef) -> bool:
    """`func` is decorated with a memoizing decorator (builtins_facts.MEMOIZING), bare or
    called (`@functools.lru_cache(maxsize=8)`): a call with arguments seen before does not
    run its body again, so a jit it builds and runs is built once per configuration."""
    for decorator in getattr(func, "decorators", ()):
        expr = decorator.decorator
        if type(expr) is cst.Call:
            expr = expr.func
        if names.resolves_to(expr, [names.module], set(MEMOIZING)):
            return True
    return False


def per_pass(
    loop_calls: Iterable[tuple[cst.Call, Path]], staged: StagedLoop | None
) -> list[tuple[cst.Call, Path]]:
    """The calls of `loop_calls` that run once per pass of a loop or comprehension of their
    function: those only inside loops the framework stages run once per call of it."""
    calls = list(loop_calls)
    if staged is None:
        return calls
    return [(c, p) for c, p in calls if iteration(p) is None or iteration(p, staged) is not None]


def _method_call(above: tuple[cst.CSTNode, ...], node: cst.CSTNode) -> bool:
    """`node` is the receiver of a method call: `node.method(...)`."""
    if len(above) < 2 or type(above[-1]) is not cst.Attribute or above[-1].value is not node:  # type: ignore[attr-defined]
        return False
    return type(above[-2]) is cst.Call and above[-2].func is above[-1]  # type: ignore[attr-defined]


@dataclass
class CallScan:
    """One walk of a module: calls in loop bodies and comprehensions, and each function's
    calls (by id; the module's under id(module)), with their paths."""

    loop_calls: list[tuple[cst.Call, list[cst.CSTNode]]] = field(default_factory=list)
    calls: dict[int, list[tuple[cst.Call, list[cst.CSTNode]]]] = field(default_factory=dict)
    methods: list[tuple[cst.ClassDef, cst.FunctionDef, list[cst.CSTNode]]] = field(
        default_factory=list
    )


def scan_calls(module: cst.Module) -> CallScan:
    out = CallScan()
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode], bool, cst.CSTNode]] = [
        (module, [], False, module)
    ]
    while stack:
        node, parents, looped, owner = stack.pop()
        path = [*parents, node]
        kind = type(node)
        if kind is cst.Call:
            out.calls.setdefault(id(owner), []).append((node, path))  # type: ignore[arg-type]
            if looped:
                out.loop_calls.append((node, path))  # type: ignore[arg-type]
        elif kind in _FUNCTIONS:
            looped, owner = False, node  # a def in a loop body runs its body only when called
            if kind is cst.FunctionDef and len(parents) >= 2 and type(parents[-2]) is cst.ClassDef:
                out.methods.append((parents[-2], node, path))  # type: ignore[arg-type]
        for child in iter_children(node):
            inner = looped or (
                _repeating_loop(node, child)
                or (kind in COMPREHENSIONS and child is not node.for_in)  # type: ignore[attr-defined]
                or (kind is cst.CompFor and child is not node.iter)  # type: ignore[attr-defined]
            )
            stack.append((child, path, inner, owner))
    return out


# ---- what a function that runs repeatedly does with a function it makes ---------------


def used_repeatedly(made: cst.CSTNode, path: Path, keeps_result: set[int]) -> bool:
    """A compiled function (`made`: a decorated `def` or the call that wraps one) made in a
    function that runs repeatedly is traced again on each run; that matters when each one
    is then used more than once: called in a loop or twice, passed on (`while_loop(cond,
    body, ...)`), or returned (unless every caller keeps what it returns: `keeps_result`).
    Made under an `if` (a cache), or made and called once (`f = tf.function(g); return
    f(x)`), it is one trace per run by design. JIT207 asks this; JIT113 reports a jit made
    and called once per run too, since a jit's compile is the costly part."""
    owner_index = max(i for i, n in enumerate(path[:-1]) if type(n) in _FUNCTIONS)
    owner = path[owner_index]
    if any(type(n) in (cst.If, cst.IfExp, cst.Try) for n in path[owner_index + 1 : -1]):
        return False
    parent = path[-2]
    # A factory whose every loop call keeps what it returns (`fns = [make(d) for d in
    # devices]`): one function per element, reused.
    kept = id(owner) in keeps_result
    if type(made) is cst.Call:
        if type(parent) is cst.Call and parent.func is made:  # type: ignore[attr-defined]
            return False  # tf.function(f)(x): made and called once
        if type(parent) is cst.Return:
            return not kept
        if type(parent) is cst.Arg:
            return True
        statement = next(
            (n for n in reversed(path) if type(n) in (cst.Assign, cst.AnnAssign)), None
        )
        targets = (
            [t.target for t in statement.targets]  # type: ignore[attr-defined]
            if type(statement) is cst.Assign
            else [statement.target]  # type: ignore[attr-defined]
            if statement is not None
            else []
        )
        names = [t.value for t in targets if type(t) is cst.Name]
        if not names:
            return False  # stored on an object: a cache, used elsewhere
        name = names[0]
    else:
        name = made.name.value  # type: ignore[attr-defined]
    return _uses_repeatedly(owner, name, returned=not kept)


def _uses_repeatedly(owner: cst.CSTNode, name: str, returned: bool = True) -> bool:
    """`name` is called in a loop or comprehension of `owner`, called twice, passed as an
    argument (not stored by `setattr(obj, "attr", name)`, as `obj.attr = name` stores it),
    or (when `returned`) returned."""
    calls = 0
    stack: list[tuple[cst.CSTNode, bool]] = [(owner.body, False)]  # type: ignore[attr-defined]
    loops = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
    while stack:
        node, looping = stack.pop()
        kind = type(node)
        if kind in _FUNCTIONS:
            continue
        looping = looping or kind in loops
        if kind is cst.Call and type(node.func) is cst.Name:  # type: ignore[attr-defined]
            if node.func.value == name:  # type: ignore[attr-defined]
                calls += 1
                if looping or calls > 1:
                    return True
            elif node.func.value == SETATTR and len(node.args) == 3:  # type: ignore[attr-defined]
                stack.extend((arg, looping) for arg in node.args[:2])  # type: ignore[attr-defined]
                continue
        if (
            (kind is cst.Arg or (returned and kind is cst.Return))
            and type(node.value) is cst.Name  # type: ignore[attr-defined]
            and node.value.value == name  # type: ignore[attr-defined]
        ):
            return True
        stack.extend((child, looping) for child in iter_children(node))
    return False


# ---- functions made in a loop iteration and kept there ---------------------------------

_CONTAINERS = (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.Element, cst.DictElement)
_COLLECTING = (cst.ListComp, cst.SetComp, cst.GeneratorExp)
# A call that runs its function arguments right away (the framework says which).
RunsArguments = Callable[[cst.Call, Path], bool]


def calls_into(names: Names, call: cst.Call, path: Path, packages: tuple[str, ...]) -> bool:
    """The call's function may belong to one of `packages` (`builtins` for `map`): a
    framework's own functions run the functions they are given right away (`lax.fori_loop`,
    `tf.while_loop`), where a thread, a callback registry or a list's `append` keeps them."""
    meanings = names.qualified_names(call.func, [*path, call])
    return any(m.split(".")[0] in packages for m in meanings if m)


@dataclass(frozen=True)
class Keeping:
    """Whether a loop keeps the functions it makes instead of calling them."""

    module: cst.Module
    runs_arguments: RunsArguments

    def kept_per_iteration(self, path: Path, depth: int = 0) -> bool:
        """The function made (or returned by the call) at the end of `path`, in a loop body
        or comprehension, is kept by the iteration and not called in it: stored on an object
        or in a container, collected by a comprehension, or handed to a call that does not
        run it now."""
        value = path[-1]
        for index in range(len(path) - 2, 0, -1):
            parent = path[index]
            kind = type(parent)
            if kind in _CONTAINERS or collects(parent, value):
                value = parent
            elif kind is cst.Arg:
                call = path[index - 1]
                return type(call) is cst.Call and not self.runs_arguments(call, path[:index])  # type: ignore[arg-type]
            elif kind is cst.Assign or kind is cst.AnnAssign:
                targets = (
                    [t.target for t in parent.targets]  # type: ignore[attr-defined]
                    if kind is cst.Assign
                    else [parent.target]  # type: ignore[attr-defined]
                )
                if all(type(t) in (cst.Attribute, cst.Subscript) for t in targets):
                    return not self._calls_stored(path, targets)
                names = [t.value for t in targets if type(t) is cst.Name]  # type: ignore[attr-defined]
                if len(names) != len(targets):
                    return False
                if type(value) in _CONTAINERS or type(value) in (*_COLLECTING, cst.DictComp):
                    return True  # a collection of functions, one per element
                return self._name_kept(names[0], path, depth)
            else:
                return False
        return False

    def def_kept_per_iteration(self, path: Path) -> bool:
        """A `def` at the end of `path`, in a loop body, that the iteration keeps uncalled."""
        func = path[-1]
        return type(func) is cst.FunctionDef and self._name_kept(func.name.value, path)

    def _name_kept(self, name: str, path: Path, depth: int = 0) -> bool:
        """`name`, bound in an iteration, is never called there and is kept by every other
        read of it there (at least one)."""
        body = iteration(path)
        if body is None or depth > 2:
            return False
        kept = False
        stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(body, ())]
        outer = list(path[: next(i for i, n in enumerate(path) if n is body)])
        while stack:
            node, above = stack.pop()
            if type(node) is cst.Name and node.value == name:  # type: ignore[attr-defined]
                parent = above[-1] if above else None
                if type(parent) is cst.Call and parent.func is node:  # type: ignore[attr-defined]
                    return False
                if _method_call(above, node):
                    continue  # `thread.start()`: used, neither called nor kept
                if type(parent) in (cst.AssignTarget, cst.FunctionDef, cst.Param) or (
                    type(parent) in (cst.Attribute, cst.Arg) and node is not parent.value  # type: ignore[attr-defined]
                ):
                    continue  # the binding itself, an attribute's or a keyword's name
                if not self.kept_per_iteration([*outer, *above, node], depth + 1):
                    return False
                kept = True
                continue
            stack.extend((child, (*above, node)) for child in iter_children(node))
        return kept

    def _calls_stored(self, path: Path, targets: list[cst.BaseExpression]) -> bool:
        """The iteration calls what it stored (`self.fn = tf.function(g)`, then
        `self.fn(x)`)."""
        body = iteration(path)
        if body is None:
            return True
        code = self.module.code_for_node
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


def collects(node: cst.CSTNode, value: cst.CSTNode) -> bool:
    """`node` is a comprehension whose elements are `value`."""
    kind = type(node)
    if kind in _COLLECTING:
        return node.elt is value  # type: ignore[attr-defined]
    return kind is cst.DictComp and node.value is value  # type: ignore[attr-defined]


# ---- contracts every framework shares ----------------------------------------------------

_HANDLER_BASES = {"BaseHTTPRequestHandler", "SimpleHTTPRequestHandler", "BaseRequestHandler"}
_ROUTE_DECORATORS = {"route", "get", "post", "put", "delete", "patch", "websocket"}


def handler_contract(cls: cst.ClassDef | None, func: cst.FunctionDef) -> str | None:
    """Why `func` is called once per request, if it is a request handler: a `do_GET`-style
    method of an `http.server`/`socketserver` handler class, or a function registered
    with a web framework's route decorator (`@app.route("/predict")`, `@app.post("/x")`)."""
    if cls is not None and (func.name.value.startswith("do_") or func.name.value == "handle"):
        bases = {leaf_name(b.value) for b in cls.bases}
        if bases & _HANDLER_BASES:
            return f"a request handler, called for every request (`{func.name.value}`)"
    for decorator in func.decorators:
        expr = decorator.decorator
        if (
            type(expr) is cst.Call
            and type(expr.func) is cst.Attribute
            and expr.func.attr.value in _ROUTE_DECORATORS
            and expr.args
            and type(expr.args[0].value) is cst.SimpleString
            and expr.args[0].value.value.strip("'\"rbu").startswith("/")
        ):
            return "a request handler, called for every request (a route)"
    return None


# Methods that serve one input or one step by the conventions of machine-learning code
# (scikit-learn's and Keras's `predict`, reinforcement-learning agents' `act`, a trainer's
# `train_step`): whoever holds the object calls them again and again (jax-ml/jax#4645, an
# agent's `take_action` jitting a local function on every call).
PER_ITEM_METHODS = {
    "predict": "a model's `predict`, called for every input",
    "predict_proba": "a model's `predict_proba`, called for every input",
    "act": "an agent's `act`, called at every environment step",
    "select_action": "an agent's `select_action`, called at every environment step",
    "take_action": "an agent's `take_action`, called at every environment step",
    "get_action": "an agent's `get_action`, called at every environment step",
    "train_step": "a training step, called for every batch",
    "eval_step": "an evaluation step, called for every batch",
}


def method_contract(cls: cst.ClassDef | None, func: cst.FunctionDef) -> str | None:
    """Why a function is called repeatedly by contract: a request handler, or a method
    `PER_ITEM_METHODS` lists."""
    found = handler_contract(cls, func)
    if found is not None or cls is None:
        return found
    role = PER_ITEM_METHODS.get(func.name.value)
    return f"{role} (`{cls.name.value}.{func.name.value}`)" if role else None
