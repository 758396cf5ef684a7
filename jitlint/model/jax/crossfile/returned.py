"""What a function or method returns, for the files of the run that call it from Python.

A factory in one file often builds the jitted step that another file calls
(`step, opt = make_step(config)`; `step(params, ..., batch.names)`), or returns a
`functools.partial` that the caller jits (`jax.jit(potential.to_reference())`). The defining
file reads such returns from the text and exports them as a small value: a jitted `def` of
its own (the header and the transformation's options), a partial of a named function (its
target and bound arguments), an instance of its own NamedTuple or dataclass whose fields are
Python lists or dicts, or are declared a builtin scalar type (`num_graphs: int`: never None,
so the caller that passes it on decides `is None` in the callee), or a tuple holding one of
those. The runner sends each to the files that import the name, the partial's target
spelled as the receiving file would import it (`respell`), and their interpreter calls it
like a local one (`decode`).

Only what the text shows is exported; anything else stays unknown in the caller. The facts
travel as the TensorFlow model's export records, with their own "jax:value:" prefix.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import libcst as cst

from jitlint.model.domain.classes import Classes, ClassInfo
from jitlint.model.domain.values import (
    Dict,
    Foreign,
    FunctionRef,
    Object,
    PartialRef,
    Ref,
    Scalar,
    Seq,
    Transformed,
    U,
    Value,
)
from jitlint.model.jax.crossfile.records import may_be_project_function
from jitlint.model.jax.crossfile.returns import LIST_CALLS, Returns
from jitlint.model.jax.jit import JIT_CALLABLES, JitApplication, spec_from_args
from jitlint.model.jax.transforms import LEAVES, PARAM_OPTIONS, TRANSFORMS
from jitlint.model.tf_records import TfRecord
from jitlint.python.binding import Signature, bind_call
from jitlint.python.builtins_facts import PARTIAL, SCALAR_TYPES
from jitlint.python.names import Names, is_none_literal, leaf_name

VALUE_FACT = "jax:value:"
# The key of a value that is the exported name itself (a jitted `def`), not what calling it
# returns.
SELF = "self"
_JIT_TEXT = re.compile(r"\bp?jit\b")
_OWN = "@"  # a partial target spelled `@name`: a top-level def of the defining file
_OBJECT_KINDS = frozenset({"namedtuple", "dataclass"})
_MAX_DEPTH = 3
# Call leaves `_may_encode` lets through, besides the module's own classes.
_MAKERS = LEAVES | {"partial"}
# A transformation that makes a function into a pair of functions (`hk.transform`): its
# value names the function, which runs where the pair's functions are called.
PAIR = "pair"
# The keys whose value is a function spelled as the importing file imports it.
_FUNCTION_KEYS = ("partial", PAIR)


class ForeignFunction(Ref):
    """A function another file defines and jits, known by its header only (`func`, a `def`
    with an empty body): enough to read a static spec against its parameters."""

    __slots__ = ("func", "origin")

    def __init__(self, func: cst.FunctionDef, origin: str = "") -> None:
        super().__init__(None, "function")
        self.func = func
        self.origin = origin  # for messages: "`make_step` (pkg/train.py)", which returns it

    def key(self, depth: int = 3) -> Any:
        return ("foreign-function", id(self.func))


# ---- the defining file ------------------------------------------------------------------
def exports(names: Names, classes: Classes) -> list[TfRecord]:
    """One "export" record per top-level function, or method of a top-level class, whose
    returns all encode to the same informative value."""
    module = names.module
    out = []
    class_names = frozenset(s.name.value for s in module.body if type(s) is cst.ClassDef)  # type: ignore[attr-defined]
    makers = _MAKERS | class_names

    def _function_fact(func: cst.FunctionDef, path: list[cst.CSTNode]) -> str | None:
        value = _last_return(func)
        if value is None or not _may_encode(value, func.body.body, makers, 0):  # type: ignore[attr-defined]
            return None  # a cheap test first: most functions return nothing of the kind
        return _fact(names, classes, func, path, value)

    for statement in module.body:
        kind = type(statement)
        if kind is cst.FunctionDef:
            fact = _function_fact(statement, [module])  # type: ignore[arg-type]
            if fact is None:
                fact = _jitted_def_fact(names, classes, statement, module)  # type: ignore[arg-type]
            if fact is not None:
                out.append(TfRecord(statement.name.value, 0, "export", fact))  # type: ignore[attr-defined]
        elif kind is cst.SimpleStatementLine:
            jitted = _jitted_assignment(names, classes, statement, module)  # type: ignore[arg-type]
            if jitted is not None:
                out.append(TfRecord(jitted[0], 0, "export", jitted[1]))
        elif kind is cst.ClassDef and type(statement.body) is cst.IndentedBlock:  # type: ignore[attr-defined]
            path = [module, statement, statement.body]  # type: ignore[attr-defined]
            for inner in statement.body.body:  # type: ignore[attr-defined]
                if type(inner) is not cst.FunctionDef:
                    continue
                fact = _function_fact(inner, path)
                if fact is not None:
                    name = f"{statement.name.value}.{inner.name.value}"  # type: ignore[attr-defined]
                    out.append(TfRecord(name, 0, "export", fact))
    return out


def returns_pair(names: Names, classes: Classes, func: cst.FunctionDef) -> bool:
    """Whether the top-level `func` exports a pair of functions (`hk.transform(f)`) as what
    it returns: its callers in other files of the run take the pair and say so
    (records.RETURNED: project/outbound.py), and a run that shows none lets it leave."""
    module = names.module
    value = _last_return(func)
    if value is None or not _may_encode(value, func.body.body, _MAKERS, 0):  # type: ignore[attr-defined]
        return False
    fact = _fact(names, classes, func, [module], value)
    return fact is not None and names_a_pair(fact)


def names_a_pair(fact: str) -> bool:
    """Whether a return fact (an "export" record's status) says the function returns a pair
    of functions."""
    if not fact.startswith(VALUE_FACT):
        return False
    try:
        decoded = json.loads(fact[len(VALUE_FACT) :])
    except ValueError:
        return False
    return isinstance(decoded, dict) and PAIR in decoded


def _jitted_def_fact(
    names: Names, classes: Classes, func: cst.FunctionDef, module: cst.Module
) -> str | None:
    """A top-level `def` under one jit decorator is itself the value its importers call
    (`from pkg.steps import train_step`): its header and options, under `SELF`."""
    if len(func.decorators) != 1 or not _JIT_TEXT.search(module.code_for_node(func.decorators[0])):
        return None  # a cheap test first: most functions carry no jit
    jitted = _Encoder(names, classes, [module])._decorated_jit(func)
    if jitted is None or jitted["jit"] not in JIT_CALLABLES:
        return None
    return VALUE_FACT + json.dumps({SELF: jitted}, sort_keys=True, separators=(",", ":"))


def _jitted_assignment(
    names: Names, classes: Classes, line: cst.SimpleStatementLine, module: cst.Module
) -> tuple[str, str] | None:
    """`step = jax.jit(train_step, ...)` at module level, `step` bound only there and
    `train_step` a plain `def` of the module: the name and its fact, as for a decorated def."""
    small = line.body[0] if len(line.body) == 1 else None
    if type(small) is not cst.Assign or len(small.targets) != 1:
        return None
    target, value = small.targets[0].target, small.value
    if type(target) is not cst.Name or type(value) is not cst.Call:
        return None
    if not _JIT_TEXT.search(module.code_for_node(value.func)):
        return None  # a cheap test first
    bindings = names.scope(module).bindings.get(target.value)
    if not bindings or len(bindings) != 1:
        return None
    jitted = _Encoder(names, classes, [module])._call(value, 0)
    if jitted is None or jitted.get("jit") not in JIT_CALLABLES:
        return None
    return target.value, VALUE_FACT + json.dumps(
        {SELF: jitted}, sort_keys=True, separators=(",", ":")
    )


def _last_return(func: cst.FunctionDef) -> cst.BaseExpression | None:
    """The value of the `return` that ends the function's body, if it ends so."""
    if func.asynchronous is not None or type(func.body) is not cst.IndentedBlock:
        return None
    if any(leaf_name(d.decorator) not in ("staticmethod", "classmethod") for d in func.decorators):
        return None  # a decorator may change what a call returns (`property`, `jax.jit`)
    last = func.body.body[-1] if func.body.body else None
    if type(last) is not cst.SimpleStatementLine or type(last.body[0]) is not cst.Return:
        return None
    return last.body[0].value  # type: ignore[attr-defined]


def _may_encode(
    expr: cst.BaseExpression | None,
    body: Sequence[cst.BaseStatement],
    makers: frozenset[str],
    depth: int,
) -> bool:
    """A syntactic superset of what `_Encoder` exports, read without name resolution: a
    call of a transformation, `partial` or a class of the module, a tuple holding one, or
    a name the body's own statements bind to one (or to a decorated `def`)."""
    kind = type(expr)
    if kind is cst.Call:
        return leaf_name(expr.func) in makers  # type: ignore[union-attr]
    if kind is cst.Tuple:
        return any(_may_encode(e.value, body, makers, depth) for e in expr.elements)  # type: ignore[union-attr]
    if kind is not cst.Name or depth > 1:
        return False
    name = expr.value  # type: ignore[union-attr]
    for statement in body:
        if type(statement) is cst.FunctionDef:
            if statement.name.value == name and statement.decorators:
                return True
        elif type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                if type(small) is cst.Assign and any(
                    type(t.target) is cst.Name and t.target.value == name for t in small.targets
                ):
                    return _may_encode(small.value, body, makers, depth + 1)
    return False


def _fact(
    names: Names,
    classes: Classes,
    func: cst.FunctionDef,
    path: list[cst.CSTNode],
    value: cst.BaseExpression,
) -> str | None:
    encoder = _Encoder(names, classes, [*path, func, func.body])
    last_value = encoder.encode(value, 0)
    if last_value is None or not _informative(last_value):
        return None  # the last return decides most functions cheaply
    found = Returns()
    found.scan(func.body)
    if found.nested or any(encoder.encode(v, 0) != last_value for v in found.values):
        return None  # a bare `return` gives None; every other must give the same value
    return VALUE_FACT + json.dumps(last_value, sort_keys=True, separators=(",", ":"))


def _informative(value: dict[str, Any]) -> bool:
    if "seq" in value:
        return any(item is not None and _informative(item) for item in value.get("items", ()))
    return "jit" in value or "partial" in value or PAIR in value or "object" in value


class _Encoder:
    """Reads a return expression of one function (`path` leads into its body)."""

    def __init__(self, names: Names, classes: Classes, path: list[cst.CSTNode]) -> None:
        self.names = names
        self.classes = classes
        self.path = path

    def encode(self, expr: cst.BaseExpression, depth: int) -> dict[str, Any] | None:
        if depth > _MAX_DEPTH:
            return None
        kind = type(expr)
        if kind is cst.Tuple:
            items = []
            for element in expr.elements:  # type: ignore[attr-defined]
                if type(element) is not cst.Element:
                    return None  # `*rest`: the number of items is not known
                items.append(self.encode(element.value, depth + 1))
            return {"seq": "tuple", "items": items}
        if kind in (cst.List, cst.ListComp):
            return {"seq": "list"}
        if kind in (cst.Dict, cst.DictComp):
            return {"dict": 1}
        if kind is cst.BinaryOperation and type(expr.operator) is cst.Multiply:  # type: ignore[attr-defined]
            if cst.List in (type(expr.left), type(expr.right)):  # type: ignore[attr-defined]
                return {"seq": "list"}  # `["a"] * n`
            return None
        if kind is cst.Call:
            return self._call(expr, depth)  # type: ignore[arg-type]
        if kind is cst.Name:
            return self._name(expr.value, depth)  # type: ignore[attr-defined]
        return None

    def _qualname(self, expr: cst.BaseExpression) -> str | None:
        if type(expr) not in (cst.Name, cst.Attribute):
            return None
        qualnames = self.names.qualified_names(expr, self.path)
        return next(iter(qualnames)) if len(qualnames) == 1 else None

    def _call(self, call: cst.Call, depth: int) -> dict[str, Any] | None:
        qualname = self._qualname(call.func)
        if qualname is None:
            return self._constructed(call, depth)
        if qualname in LIST_CALLS:
            return {"seq": "list"}
        if qualname == "builtins.dict":
            return {"dict": 1}
        if qualname in PARTIAL:
            return self._partial(call)
        transform = TRANSFORMS.get(qualname)
        if transform is not None and transform.style == PAIR:
            return self._pair(qualname, call)
        if transform is not None:
            if transform.style != "jit" or not call.args or call.args[0].keyword is not None:
                return None
            target = call.args[0].value
            func = self._def(target.value) if type(target) is cst.Name else None  # type: ignore[attr-defined]
            return self._jit(qualname, func, call.args[1:])
        return self._constructed(call, depth)

    def _jit(
        self, qualname: str, func: cst.FunctionDef | None, options: Sequence[cst.Arg]
    ) -> dict[str, Any] | None:
        if func is None or func.asynchronous is not None:
            return None
        if any(a.keyword is None or a.star for a in options):
            return None  # options by position or `**`: not read
        kept = [a for a in options if a.keyword.value in PARAM_OPTIONS]  # type: ignore[union-attr]
        if not all(_literal(a.value) for a in kept):
            return None  # `static_argnums=STATIC`: a name means something else elsewhere
        module = self.names.module
        header = f"def {func.name.value}({module.code_for_node(func.params)}): ..."
        text = ", ".join(
            module.code_for_node(a.with_changes(comma=cst.MaybeSentinel.DEFAULT)) for a in kept
        )
        return {"jit": qualname, "def": header, "options": text}

    def _pair(self, qualname: str, call: cst.Call) -> dict[str, Any] | None:
        """`hk.transform(f)`: a pair of functions that run `f` where they are called, `f` a
        top-level `def` or one the returning function defines in its own body."""
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        target = call.args[0].value
        if type(target) is not cst.Name:
            return None
        func = self._def(target.value)
        if func is None:
            return None
        if self._module_level(target.value, "def") is func:
            spelled = _OWN + target.value
        else:
            owner = self.path[-2] if len(self.path) == 3 else None
            body = getattr(owner, "body", None)
            if type(owner) is not cst.FunctionDef or func not in getattr(body, "body", ()):
                return None
            spelled = f"{_OWN}{owner.name.value}.{target.value}"
        return {PAIR: spelled, "transform": qualname}

    def _partial(self, call: cst.Call) -> dict[str, Any] | None:
        args = call.args
        if not args or args[0].keyword is not None or args[0].star:
            return None
        if any(a.star for a in args):
            return None
        target = args[0].value
        if type(target) not in (cst.Name, cst.Attribute):
            return None
        if type(target) is cst.Name and self._module_level(target.value, "def") is not None:
            spelled: str | None = _OWN + target.value
        else:
            spelled = self._qualname(target)
            if spelled is None or not may_be_project_function(spelled):
                return None
        positional = sum(1 for a in args[1:] if a.keyword is None)
        keywords = [a.keyword.value for a in args[1:] if a.keyword is not None]
        return {"partial": spelled, "args": positional, "keywords": keywords}

    def _constructed(self, call: cst.Call, depth: int) -> dict[str, Any] | None:
        """`Batch(names=[...], ...)` of a NamedTuple or dataclass of this module with no
        `__init__` of its own: its fields are the arguments."""
        if type(call.func) is not cst.Name:
            return None
        node = self._module_level(call.func.value, "class")  # type: ignore[attr-defined]
        if node is None:
            return None
        cls = self.classes.of(node, [self.names.module])  # type: ignore[arg-type]
        if cls.kind not in _OBJECT_KINDS or "__init__" in cls.methods:
            return None
        if not all(isinstance(base, str) for base in cls.bases):
            return None  # a base of the project (or unknown) may declare more fields
        bound = bind_call(Signature(tuple(name for name, _, _ in cls.fields)), call)
        if not bound.certain or bound.surplus:
            return None
        fields: dict[str, Any] = {}
        for name, arg in bound.arguments.items():
            found = self.encode(arg, depth + 1)
            if found is not None and (found.get("seq") == "list" or "dict" in found):
                fields[name] = {"seq": "list"} if "seq" in found else found  # unhashable
                continue
            scalar = cls.scalar_field(name)
            if scalar is not None and not is_none_literal(arg):
                fields[name] = {"scalar": scalar}  # `num_graphs: int`: never None
        if not fields:
            return None
        return {"object": cls.name, "kind": cls.kind, "fields": fields}

    def _name(self, name: str, depth: int) -> dict[str, Any] | None:
        bindings = self.names.lookup(name, self.path)
        if not bindings or len(bindings) != 1:
            return None
        binding = bindings[0]
        if binding.kind == "assign" and binding.node is not None:
            return self.encode(binding.node, depth + 1)  # type: ignore[arg-type]
        if binding.kind == "def" and type(binding.node) is cst.FunctionDef:
            return self._decorated_jit(binding.node)
        return None

    def _decorated_jit(self, func: cst.FunctionDef) -> dict[str, Any] | None:
        """A local `def` under one jit decorator: `@jax.jit`, `@partial(jax.jit, ...)`."""
        if len(func.decorators) != 1:
            return None
        decorator = func.decorators[0].decorator
        qualname = self._qualname(decorator)
        if qualname is not None:
            transform = TRANSFORMS.get(qualname)
            return self._jit(qualname, func, ()) if transform and transform.style == "jit" else None
        if type(decorator) is not cst.Call or self._qualname(decorator.func) not in PARTIAL:
            return None
        args = decorator.args
        if not args or args[0].keyword is not None:
            return None
        inner = self._qualname(args[0].value)
        transform = TRANSFORMS.get(inner) if inner is not None else None
        if transform is None or transform.style != "jit":
            return None
        return self._jit(inner, func, args[1:])  # type: ignore[arg-type]

    def _def(self, name: str) -> cst.FunctionDef | None:
        """The undecorated `def` that `name` is bound to once, where the return reads it."""
        node = self.names.only_def(name, self.path)
        return None if node is None or node.decorators else node

    def _module_level(self, name: str, kind: str) -> cst.CSTNode | None:
        """The `def` or class (`kind`) the module binds `name` to once, if the return reads
        that binding (no local name shadows it)."""
        bindings = self.names.scope(self.names.module).bindings.get(name)
        if not bindings or len(bindings) != 1 or bindings[0].kind != kind:
            return None
        if self.names.lookup(name, self.path) is not bindings:
            return None
        return bindings[0].node


def _literal(expr: cst.BaseExpression) -> bool:
    """A number, string, `None`/`True`/`False`, or a tuple or list of them."""
    kind = type(expr)
    if kind in (cst.Integer, cst.SimpleString):
        return True
    if kind is cst.Name:
        return expr.value in ("None", "True", "False")  # type: ignore[attr-defined]
    if kind in (cst.Tuple, cst.List):
        return all(
            type(e) is cst.Element and _literal(e.value)
            for e in expr.elements  # type: ignore[attr-defined]
        )
    return False


# ---- the runner ---------------------------------------------------------------------------
def respell(fact: str, resolve: Any, exporter: str, importer: str) -> str | None:
    """`fact` with each partial target spelled as `importer` (a path) would import it;
    `resolve(path, target)` is the project's (file, name) for a target as `path` spells it.
    None when a target cannot be spelled so."""
    try:
        value = json.loads(fact[len(VALUE_FACT) :])
    except ValueError:
        return None
    ok = _respell(value, resolve, exporter, importer)
    return VALUE_FACT + json.dumps(value, sort_keys=True, separators=(",", ":")) if ok else None


def _respell(value: Any, resolve: Any, exporter: str, importer: str) -> bool:
    if not isinstance(value, dict):
        return True
    for item in value.get("items", ()) or ():
        if not _respell(item, resolve, exporter, importer):
            return False
    key = next((k for k in _FUNCTION_KEYS if k in value), None)
    target = value.get(key) if key is not None else None
    if key is None or not isinstance(target, str):
        return True
    if target.startswith(_OWN):
        found = (exporter, target[len(_OWN) :])
    elif target.startswith("."):
        found = resolve(exporter, target)
    else:
        return True  # an absolute name reads the same from every file
    if found is None or found[0] == importer:
        return False
    module = _relative_module(importer, found[0])
    if module is None:
        return False
    value[key] = f"{module}.{found[1]}" if module != "." else f".{found[1]}"
    return True


def _relative_module(importer: str, target: str) -> str | None:
    """The relative module name (`..models.core`) of the file `target` as `importer` would
    import it."""
    stem = target[: -len(".py")] if target.endswith(".py") else None
    if stem is None:
        return None
    if os.path.basename(stem) == "__init__":
        stem = os.path.dirname(stem)
    relative = os.path.relpath(stem, os.path.dirname(importer))
    parts = [] if relative == "." else relative.split(os.sep)
    ups = 0
    while ups < len(parts) and parts[ups] == "..":
        ups += 1
    rest = parts[ups:]
    if not all(part.isidentifier() for part in rest):
        return None
    return "." * (ups + 1) + ".".join(rest)


# ---- a call's arguments --------------------------------------------------------------------
def argument_fact(value: Value, own: Callable[[Any], str | None]) -> str | None:
    """The fact an argument of a call to another file travels as (records.CallRecord's
    `values`), spelled as this file imports: a pair of functions (`hk.transform(f)`, a
    Transformed of style "pair") of another module's function, or of one of this module's
    (`own(func)`: its name, or None when it is no top-level `def`). None for anything else."""
    if type(value) is not Transformed or value.transform.style != PAIR or value.options:
        return None  # a subclass (haiku's `without_apply_rng` pair) calls differently
    target = value.target
    if type(target) is Foreign and target.role == "name":
        spelled: str | None = target.path
    elif type(target) is FunctionRef and target.owner is None:
        found = own(target.func)
        spelled = _OWN + found if found is not None else None
    else:
        spelled = None
    if spelled is None:
        return None
    fact = {PAIR: spelled, "transform": value.transform.qualname}
    return VALUE_FACT + json.dumps(fact, sort_keys=True, separators=(",", ":"))


# ---- the calling file ---------------------------------------------------------------------
def decode(fact: str, site: cst.CSTNode, origin: str = "") -> Value | None:
    """The value a fact describes, for a call at `site` (the call that returns it) of the
    function `origin` names (for messages); None for a fact about the function itself."""
    try:
        value = json.loads(fact[len(VALUE_FACT) :])
    except ValueError:
        return U
    if isinstance(value, dict) and SELF in value:
        return None
    return _decode(value, site, origin)


def jitted_by_name(inbound: Mapping[str, Sequence[Any]], qualname: str) -> JitApplication | None:
    """The jit another file applies to its top-level `def` that the import `qualname`
    names, read from that file's export: a header and literal options, enough to read
    the static spec against the parameters."""
    for record in inbound.get(qualname, ()):
        status = getattr(record, "status", "")
        if not status.startswith(VALUE_FACT) or f'"{SELF}"' not in status:
            continue
        try:
            value = json.loads(status[len(VALUE_FACT) :])[SELF]
            func = cst.parse_statement(str(value["def"]))
            options = cst.parse_expression(f"f({value['options']})")
        except (ValueError, KeyError, TypeError, cst.ParserSyntaxError):
            return None
        if type(func) is not cst.FunctionDef or type(options) is not cst.Call:
            return None
        site = str(getattr(record, "site", "")) or qualname
        return JitApplication(options, func, spec_from_args(options.args), origin=site)
    return None


def _decode(value: Any, site: cst.CSTNode, origin: str = "") -> Value:
    if not isinstance(value, dict):
        return U
    if "seq" in value:
        items = value.get("items")
        if isinstance(items, list):
            return Seq(str(value["seq"]), [_decode(item, site, origin) for item in items])
        return Seq(str(value["seq"]), elem=U)
    if "dict" in value:
        return Dict(elem=U)
    if "jit" in value:
        return _jitted(value, site, origin)
    if "partial" in value:
        args = value.get("args", 0)
        keywords = value.get("keywords", [])
        target = Foreign(str(value["partial"]))
        return PartialRef(target, [U] * int(args), {str(k): U for k in keywords})
    if PAIR in value:
        transform = TRANSFORMS.get(str(value.get("transform")))
        if transform is None or transform.style != PAIR:
            return U
        why = ("transform", transform.qualname, site)
        return Transformed(transform, Foreign(str(value[PAIR])), [], why)
    if "object" in value:
        return _instance(value, site)
    if value.get("scalar") in SCALAR_TYPES:
        return Scalar(str(value["scalar"]))
    return U


def _jitted(value: dict[str, Any], site: cst.CSTNode, origin: str) -> Value:
    transform = TRANSFORMS.get(str(value["jit"]))
    try:
        func = cst.parse_statement(str(value["def"]))
        options = cst.parse_expression(f"f({value['options']})")
    except cst.ParserSyntaxError:
        return U
    if transform is None or type(func) is not cst.FunctionDef or type(options) is not cst.Call:
        return U
    why = ("transform", transform.qualname, site)
    return Transformed(transform, ForeignFunction(func, origin), options.args, why)


def _instance(value: dict[str, Any], site: cst.CSTNode) -> Value:
    name = str(value["object"])
    fields = value.get("fields")
    if not name.isidentifier() or not isinstance(fields, dict):
        return U
    # A stand-in for the other module's class: no member is known but these fields.
    node = cst.ClassDef(name=cst.Name(name), body=cst.IndentedBlock(body=[]))
    cls = ClassInfo(node, name, [], framework=str(value.get("kind")), open=True)
    made = Object(cls, {str(k): _decode(v, site) for k, v in fields.items()})
    made.made_at = 0
    return made
