"""Traced calls that cross modules: the project view of the tracing model.

A file's lint records its *outbound* calls: calls from traced code to a name its imports
resolve to a function of another module (`from .m import f; f(x)`, `import pkg.m as m;
m.f(x)`), with the kind (traced, static, unknown) of each argument. The runner resolves the
module among the files of the run (`ProjectFiles`) and lints the callee's file again with
those calls as *inbound* calls: the named top-level `def` is then traced, its parameters'
kinds bound from the call exactly as for a module-local helper (`bind_arguments`).

It also records transformations applied to such a name (`jax.jit(model.loss,
static_argnames=...)`) as `EntryRecord`s: the transformation and the text of the options
that decide the parameters. The defining file rebuilds them into an `Entry` with the same
`application_params` as a local application: its signature is known only there.

Records are plain frozen dataclasses of strings, ints and tuples: they cross the `--jobs`
process pool and the JSON result cache, and sort deterministically.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

from jitlint.model.domain.values import (
    NOT_NONE,
    PYTREE,
    STATIC,
    TRACED,
    UNKNOWN,
    S,
    Scalar,
    U,
    Value,
    constant,
    literal,
    python_sequence,
)
from jitlint.model.jax.api import call_kind
from jitlint.model.jax.transforms import (
    TRANSFORMS,
    CallShapes,
    Entry,
    application_params,
    defaulted,
    param_names,
)
from jitlint.model.tf_records import TfInbound, TfRecord
from jitlint.python.binding import Signature, bind

if TYPE_CHECKING:
    from jitlint.python.names import Names

# (keyword or None, kind) for each argument before the first `*`/`**`.
Arguments = tuple[tuple[str | None, int], ...]
# (index into the record's arguments, a value fact: crossfile/returned.py's VALUE_FACT text)
# for each argument whose value a fact describes.
ArgumentValues = tuple[tuple[int, str], ...]
# The index that stands for the call's returned value, with no fact: a Python call that
# took the pair a function of another file returns (the callee learns that the run shows
# where its pair goes: tracing.py `_pair_stays`).
RETURNED = -1


def argument_values(data: Any) -> ArgumentValues:
    """`ArgumentValues` read back from JSON (lists of [index, fact])."""
    return tuple((int(index), str(fact)) for index, fact in data or ())


def given_values(call: Inbound) -> ArgumentValues:
    """The values a call gives its callee's parameters (not the one it takes back)."""
    return tuple((index, fact) for index, fact in call.values if index != RETURNED)


def arguments_order(args: Arguments) -> tuple[tuple[bool, str, int], ...]:
    """A sort key for arguments: positional ones (keyword None) before keyword ones. The
    records' own order compares the pairs, and None and a str do not compare."""
    return tuple((key is not None, key or "", kind) for key, kind in args)


# The kind of a Python number or bool literal, or of an array a `jnp` call makes, passed by
# a call made in Python (level 0): `jax.jit` makes it one array (a tracer), where an unknown
# Python value may be a container. Only level-0 records carry it.
SCALAR = 4
# A traced pytree that `jax.jit` made of an argument (a jitted function's parameter): every
# leaf is a tracer, Python ints in a Module's fields included (class_facts.py). Received as
# PYTREE.
JIT_PYTREE = 5
# A Python list or tuple (nothing traced in it): indexing it with a tracer fails. Received
# as a static value of that type.
PY_LIST, PY_TUPLE = 6, 7
_SEQUENCE_KINDS = {"list": PY_LIST, "tuple": PY_TUPLE}
# A Python constant (`True`, `False`, `None`) or an int or str of unknown value (`x.shape[0]`,
# `len(xs)`): received as that value, so that the callee decides `if use_jnp:` and
# `if size is None:` for the call as it would in one file.
PY_NONE, PY_TRUE, PY_FALSE, PY_INT, PY_STR = 8, 9, 10, 11, 12
_CONSTANT_KINDS: dict[Any, int] = {None: PY_NONE, True: PY_TRUE, False: PY_FALSE}
_SCALAR_KINDS = {"int": PY_INT, "str": PY_STR}
# A Python value known not to be None, and nothing more (values.NOT_NONE): `if grid is
# None:` is decided for the call.
PY_NOT_NONE = 13
_RECEIVED_SCALARS = {
    PY_NONE: constant(None), PY_TRUE: constant(True), PY_FALSE: constant(False),
    PY_INT: Scalar("int"), PY_STR: Scalar("str"), PY_NOT_NONE: NOT_NONE,
}  # fmt: skip
# Marks, in a file's defs, a top-level function or method written with decorators
# (`f@decorated`, `Net.step@decorated`):
# only those may be jitted where they are defined, so only calls of those made in Python
# matter to the defining file.
DECORATED = "@decorated"


@dataclass(frozen=True, order=True)
class CallRecord:
    """An outbound call, as the caller's lint sees it (no path: the runner adds it)."""

    target: str  # the callee as the caller's imports spell it: ".util.h", "pkg.util.h"
    line: int  # of the call, in the caller's file
    caller: str  # "`step`"
    how: str  # "compiled by `jax.jit`", for the message
    level: int  # the caller's tracing level (GRAD, ABSTRACT)
    args: Arguments
    star: bool  # a `*`/`**` argument: the parameters it may fill are unknown
    cell: int = 0  # a notebook's cell that `line` is in (0: a plain file)
    # Whether a transformation on the caller's path stages it (jit; not vmap or grad alone).
    staged: bool = True
    # Arguments that are values a fact describes (`ArgumentValues`): a callable that
    # travels, as a function's returned value does (crossfile/returned.py).
    values: ArgumentValues = ()

    def to_json(self) -> list[Any]:
        data = [self.target, self.line, self.caller, self.how, self.level, self.args, self.star]
        if self.values:
            return [*data, self.cell, self.staged, self.values]
        if not self.staged:
            return [*data, self.cell, False]
        return [*data, self.cell] if self.cell else data

    @classmethod
    def from_json(cls, data: list[Any]) -> CallRecord:
        target, line, caller, how, level, args, star, *rest = data
        bound = tuple((k, int(v)) for k, v in args)
        return cls(
            str(target), int(line), str(caller), str(how), int(level), bound, bool(star),
            int(rest[0]) if rest else 0, bool(rest[1]) if len(rest) > 1 else True,
            argument_values(rest[2]) if len(rest) > 2 else (),
        )  # fmt: skip

    @property
    def place(self) -> str:
        """The line, after the cell in a notebook: `12`, `cell 3:12`."""
        return f"cell {self.cell}:{self.line}" if self.cell else str(self.line)

    def order(self) -> tuple[Any, ...]:
        """A sort key: the fields in order, the arguments as `arguments_order` ranks them."""
        return (
            self.target, self.line, self.caller, self.how, self.level,
            arguments_order(self.args), self.star, self.cell, self.staged, self.values,
        )  # fmt: skip


@dataclass(frozen=True, order=True)
class Inbound:
    """A call from traced code in another file of the run to the top-level def `function`."""

    function: str
    site: str  # "pkg/train.py:12"; in a notebook "nb.ipynb:cell 3:12"
    caller: str  # "`step`"
    how: str
    level: int
    args: Arguments
    star: bool
    staged: bool = True  # as CallRecord.staged
    values: ArgumentValues = ()  # as CallRecord.values, spelled as this file imports

    @property
    def origin(self) -> str:
        return f"{self.caller} ({self.site}), {self.how}"

    def rank(self) -> tuple[Any, ...]:
        """The order messages prefer: the highest level, a traced argument, then the site
        (file, line as a number), so the first call named is the most direct cause."""
        path, _, line = self.site.rpartition(":")
        traced = any(kind in (TRACED, PYTREE, JIT_PYTREE) for _, kind in self.args)
        key = (self.function, -self.level, not traced, path, int(line) if line.isdigit() else 0)
        return (*key, 1, arguments_order(self.args), self)  # equal arguments: safe to compare

    def to_json(self) -> list[Any]:
        data = [self.function, self.site, self.caller, self.how, self.level, self.args, self.star]
        return [*data, self.values] if self.values else data


@dataclass(frozen=True, order=True)
class EntryRecord:
    """A transformation applied to a function of another module, as the applying file sees
    it (no path: the runner adds it)."""

    target: str  # as for CallRecord
    line: int  # of the application
    transform: str  # the outermost transformation: `jax.jit` in `jax.jit(jax.grad(f))`
    applied: str  # the one whose options decide the parameters: `jax.grad` there
    level: int
    options: tuple[tuple[str, str], ...]  # (keyword, source text) of the options it reads
    bound: int  # positional arguments bound by `partial(f, ...)`
    bound_names: tuple[str, ...]
    cell: int = 0  # as for CallRecord
    # Every call the applying file makes of the transformed function (transforms.CallShapes),
    # when it sees them all: the parameters none of them passes keep their defaults. Not
    # compared: it holds None among strings, and one application has one set of calls.
    calls: CallShapes | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        # A dict, where a CallRecord is a list: one cached list holds both.
        data = [self.target, self.line, self.transform, self.applied, self.level,
                self.options, self.bound, self.bound_names]  # fmt: skip
        out: dict[str, Any] = {"entry": [*data, self.cell] if self.cell else data}
        if self.calls is not None:
            out["calls"] = self.calls
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EntryRecord:
        target, line, transform, applied, level, options, bound, names, *cell = data["entry"]
        return cls(
            str(target), int(line), str(transform), str(applied), int(level),
            tuple((str(k), str(v)) for k, v in options), int(bound), tuple(map(str, names)),
            int(cell[0]) if cell else 0, call_shapes(data.get("calls")),
        )  # fmt: skip

    @property
    def place(self) -> str:
        return f"cell {self.cell}:{self.line}" if self.cell else str(self.line)


def call_shapes(data: Any) -> CallShapes | None:
    """`CallShapes` read back from JSON (lists of keywords or nulls)."""
    if data is None:
        return None
    return tuple(tuple(None if k is None else str(k) for k in call) for call in data)


@dataclass(frozen=True, order=True)
class InboundEntry:
    """A transformation applied to the top-level def `function` in another file of the run."""

    function: str
    site: str  # "pkg/train.py:12"; in a notebook "nb.ipynb:cell 3:12"
    transform: str
    applied: str
    level: int
    options: tuple[tuple[str, str], ...]
    bound: int
    bound_names: tuple[str, ...]
    calls: CallShapes | None = field(default=None, compare=False)  # as for EntryRecord

    def rank(self) -> tuple[Any, ...]:
        """As `Inbound.rank`; an application ranks before a call at the same level."""
        path, _, line = self.site.rpartition(":")
        return (self.function, -self.level, False, path, int(line) if line.isdigit() else 0,
                0, self)  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        data = [self.function, self.site, self.transform, self.applied, self.level,
                self.options, self.bound, self.bound_names]  # fmt: skip
        out: dict[str, Any] = {"entry": data}
        if self.calls is not None:
            out["calls"] = self.calls
        return out


Outbound = CallRecord | EntryRecord | TfRecord
Received = Inbound | InboundEntry | TfInbound


def record_from_json(data: Any) -> Outbound:
    if isinstance(data, dict) and "tf" in data:
        return TfRecord.from_json(data)
    return EntryRecord.from_json(data) if isinstance(data, dict) else CallRecord.from_json(data)


def may_be_project_function(target: str) -> bool:
    if not target or target in TRANSFORMS or call_kind(target) != "unknown":
        return False  # jax, numpy, builtins...: modelled already, never project code
    # `import util; util(x)` calls a module; a relative `.f` is a function of the package.
    return target.startswith(".") or "." in target


# ---- the callee's side --------------------------------------------------------------------
def bind_arguments(
    func: cst.FunctionDef,
    args: Sequence[tuple[str | None, Value]],
    star: bool,
    wrap: Callable[[str, Value], Value],
) -> dict[str, Value]:
    """Each parameter's value for one call: the argument it receives (through `wrap`), a
    Python value if left at its default, unknown if a `*`/`**` argument may fill it."""
    bound = bind(Signature.of(func), args, rest_unknown=star)
    params = {name: wrap(name, given) for name, given in bound.arguments.items()}
    for name in param_names(func):
        if name not in params:
            default = bound.defaulted.get(name)
            params[name] = default_value(default) if default is not None else U
    return params


def default_value(default: cst.BaseExpression) -> Value:
    """A parameter left at its default: a Python value, and for `True`/`False`/`None` a known
    one, so `if not apply_softmax:` is not analysed for a call that leaves it at True."""
    known = literal(default.value) if type(default) is cst.Name else None
    return known or S


_KIND_VALUES = {STATIC: S, UNKNOWN: U}


def argument_kind(value: Value) -> int:
    """The kind a record gives an argument: JIT_PYTREE for a parameter of a function
    `jax.jit` compiles (or an instance known to come from one), PY_LIST/PY_TUPLE for a
    Python list or tuple, PY_NONE/PY_TRUE/PY_FALSE for those constants, PY_INT/PY_STR for
    an int or str, PY_NOT_NONE for a Python value known not to be None, else the value's
    kind."""
    known = isinstance(value, Scalar) and value.known
    if known and (value.const is None or type(value.const) is bool):  # type: ignore[attr-defined]
        return _CONSTANT_KINDS[value.const]  # type: ignore[attr-defined]
    if value.kind == STATIC:
        if isinstance(value.pytype, str) and value.pytype in _SCALAR_KINDS:
            return _SCALAR_KINDS[value.pytype]
        if value.pytype == NOT_NONE.pytype:
            return PY_NOT_NONE
        return _SEQUENCE_KINDS.get(python_sequence(value) or "", STATIC)
    if value.kind != PYTREE:
        return value.kind
    declared = getattr(value, "declared", None)
    if declared is not None and getattr(declared, "style", None) == "jit":
        return JIT_PYTREE  # a pytree_fields.Instance of `jax.jit`'s argument
    why = value.why
    jitted = why and why[0] == "param" and len(why) == 3 and isinstance(why[2], Entry)
    return JIT_PYTREE if jitted and why[2].transform.style == "jit" else PYTREE  # type: ignore[index]


def received_value(kind: int) -> Value:
    """A recorded argument kind as a value (its reason is added by the receiver)."""
    if kind == JIT_PYTREE:
        return Value(PYTREE)
    if kind in (PY_LIST, PY_TUPLE):
        return Value(STATIC, pytype="list" if kind == PY_LIST else "tuple")
    if kind in _RECEIVED_SCALARS:
        return _RECEIVED_SCALARS[kind]
    return _KIND_VALUES.get(kind) or Value(kind)


def jit_pytree_params(func: cst.FunctionDef, call: Inbound) -> set[str]:
    """The parameters of `func` that a call gives a pytree argument of `jax.jit`."""
    marker = Value(PYTREE)
    args = [(keyword, marker if kind == JIT_PYTREE else U) for keyword, kind in call.args]
    bound = bind_arguments(func, args, call.star, lambda _name, value: value)
    return {name for name, value in bound.items() if value is marker}


# A method call's record carries the arguments its instance was made with (made in the
# calling file from another file's class: `Kalman(noise).run(x)`) as keywords with this
# prefix: "__made_with__:0" for the first positional one, "__made_with__:steps" for a keyword,
# and "__made_with__:" alone to say the instance was made there at all.
MADE_WITH = "__made_with__:"
# ... and, when it was made by a class method of the class (`Kalman.default(noise)`), that
# method's name: "__made_by__:default".
MADE_BY = "__made_by__:"


def made_with_args(made_with: Sequence[tuple[str | None, Value]] | None) -> list[Any]:
    """The extra keyword arguments of a method call's record for an instance made with
    `made_with`; none when how it was made is unknown."""
    if made_with is None:
        return []
    out: list[tuple[str | None, Value]] = [(MADE_WITH, U)]
    for index, (keyword, value) in enumerate(made_with):
        out.append((f"{MADE_WITH}{keyword if keyword is not None else index}", value))
    return out


@dataclass(frozen=True)
class MadeWith:
    """How the receiver of an inbound method call was made: the arguments, as (keyword or
    None, kind) in order, and the class method that made it (None: the class itself)."""

    args: tuple[tuple[str | None, int], ...]
    factory: str | None = None


def split_made_with(call: Inbound) -> tuple[Inbound, MadeWith | None]:
    """The call without the arguments its receiver was made with, and how it was made;
    None when the record does not say."""
    if not any((k or "").startswith((MADE_WITH, MADE_BY)) for k, _ in call.args):
        return call, None
    plain, made = [], []
    factory = None
    for keyword, kind in call.args:
        if keyword is not None and keyword.startswith(MADE_BY):
            factory = keyword[len(MADE_BY) :]
        elif keyword is None or not keyword.startswith(MADE_WITH):
            plain.append((keyword, kind))
        elif keyword != MADE_WITH:
            rest = keyword[len(MADE_WITH) :]
            made.append((None if rest.isdigit() else rest, kind))
    return dataclasses.replace(call, args=tuple(plain)), MadeWith(tuple(made), factory)


def inbound_contribution(func: cst.FunctionDef, call: Inbound) -> dict[str, Value]:
    def wrap(name: str, kind: Value) -> Value:
        if kind.traced:
            return Value(PYTREE if kind.kind == PYTREE else TRACED, ("import", name, func, call))
        return kind

    args = [(keyword, received_value(kind)) for keyword, kind in call.args]
    return bind_arguments(func, args, call.star, wrap)


def inbound_entry(func: cst.FunctionDef, record: InboundEntry) -> Entry | None:
    """The `Entry` an application in another file makes of `func`: its parameters as
    `application_params` computes them for a local one, from the options' text."""
    transform, applied = TRANSFORMS.get(record.transform), TRANSFORMS.get(record.applied)
    if transform is None or applied is None:
        return None
    options = []
    for keyword, text in record.options:
        try:
            value = cst.parse_expression(text)
        except (cst.ParserSyntaxError, ValueError, RecursionError):
            return None
        options.append(cst.Arg(value, keyword=cst.Name(keyword)))
    params = application_params(
        applied, options, func, False, record.bound, set(record.bound_names)
    )
    entry = Entry(transform, func, func, params, None, record.level, origin=record.site)
    entry.defaulted = defaulted(func, record.calls, record.bound, frozenset(record.bound_names))
    return entry


def reexports(names: Names) -> dict[str, str]:
    """Names the module binds once, and only by an import, to a name that may be a project
    function (`from .model import loss`: "loss" -> ".model.loss"). A module with a star
    import has none: what it binds is not known."""
    if names.has_star_import():
        return {}
    out = {}
    for name, bindings in names.scope(names.module).bindings.items():
        if len(bindings) == 1 and bindings[0].kind == "import":
            qualname = bindings[0].qualname
            if qualname and qualname != name and may_be_project_function(qualname):
                out[name] = qualname
    return out


def top_level_defs(module: cst.Module) -> frozenset[str]:
    """Names of the module's top-level `def`s and classes, `Class.method` for the methods
    of those classes and `func.inner` for the undecorated `def`s in a function's body:
    what inbound calls may reach. A cheap superset for the runner;
    `Tracing` checks the name is bound once, by that statement."""
    names = set()
    for statement in module.body:
        kind = type(statement)
        if kind is cst.FunctionDef:
            name = statement.name.value  # type: ignore[attr-defined]
            names.add(name)
            if statement.decorators:  # type: ignore[attr-defined]
                names.add(name + DECORATED)
            body = statement.body  # type: ignore[attr-defined]
            if type(body) is cst.IndentedBlock:
                # `make.forward`: a function it defines, which a pair it returns runs
                names.update(
                    f"{name}.{inner.name.value}"
                    for inner in body.body
                    if type(inner) is cst.FunctionDef and not inner.decorators
                )
        elif kind is cst.ClassDef:
            cls = statement.name.value  # type: ignore[attr-defined]
            names.add(cls)
            body = statement.body  # type: ignore[attr-defined]
            if type(body) is cst.IndentedBlock:
                for inner in body.body:  # type: ignore[attr-defined]
                    if type(inner) is cst.FunctionDef:
                        names.add(f"{cls}.{inner.name.value}")
                        if inner.decorators:
                            names.add(f"{cls}.{inner.name.value}{DECORATED}")
    return frozenset(names)


def python_scalars(func: cst.FunctionDef, call: Inbound) -> set[str]:
    """The parameters of `func` that a call made in Python (level 0) gives a number or bool,
    or a `jnp` array."""
    marker = Value(STATIC)
    args = [(keyword, marker if kind == SCALAR else U) for keyword, kind in call.args]
    bound = bind_arguments(func, args, call.star, lambda _name, value: value)
    return {name for name, value in bound.items() if value is marker}


def given_defaults(entry: Entry, given: set[str]) -> set[str]:
    """The parameters a `jax.jit` decorator leaves UNKNOWN only for their default
    (`t=None`) that a call made in Python in another file gives a number or an array: jitted
    when called, so traced."""
    func = entry.func
    if not given or entry.transform.style != "jit" or type(func) is not cst.FunctionDef:
        return set()
    if not any(d.decorator is entry.site for d in func.decorators):  # type: ignore[union-attr]
        return set()  # applied elsewhere: a call of the def itself is not jitted
    if all(kind == UNKNOWN for kind in entry.params.values()):
        return set()  # the static parameters are not known
    p = func.params  # type: ignore[union-attr]
    defaults = {
        x.name.value
        for x in (*p.posonly_params, *p.params, *p.kwonly_params)
        if x.default is not None
    }
    return {name for name in given & defaults if entry.params.get(name) == UNKNOWN}
