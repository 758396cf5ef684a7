"""Pytree classes that cross modules: the fields of an equinox Module, flax struct dataclass
or NamedTuple defined in one file, for the files that annotate parameters with it.

`jax.jit` traces every leaf of a pytree argument, Python ints included, so `cfg.depth` of a
`cfg: Config` argument is a tracer when `depth: int` is a plain field of the Module `Config`,
wherever `Config` is defined (`jnp.zeros((cfg.depth, n))` then fails). The defining file
exports each such class's field kinds (pytree_fields.py reads them); a file whose parameter
or field annotations name an imported class asks for them. Both travel as the TensorFlow
model's export/import records with a "jax:" prefix, like the return facts (returns.py).

An instance is known only where an annotation says so: a parameter annotated with the class,
or a constructor parameter stored unchanged into a field annotated with it
(`config: Config` in the class body, `self.config = config` in `__init__`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import libcst as cst

from jitlint.model.domain import plugins
from jitlint.model.domain.classes import Classes, ClassInfo
from jitlint.model.jax.crossfile.records import Inbound, may_be_project_function
from jitlint.model.jax.crossfile.returns import IMPORT_KIND
from jitlint.model.jax.pytree_fields import (
    ARRAY_FIELD,
    LEAF_FIELD,
    PYTHON_FIELD,
    SCALAR_FIELD,
    STATIC_FIELD,
    PytreeClass,
    PytreeClasses,
)
from jitlint.model.tf_records import TfRecord
from jitlint.python.names import Names, base_class

PYTREE_FACT = "jax:pytree:"
_KINDS = frozenset({STATIC_FIELD, ARRAY_FIELD, SCALAR_FIELD, PYTHON_FIELD, LEAF_FIELD})
_INFORMATIVE = frozenset({STATIC_FIELD, ARRAY_FIELD, SCALAR_FIELD})


def _declaring_kinds() -> frozenset[str]:
    """The kinds whose pytree classes a fact may describe (PytreeClass.framework is the
    plug-in's kind, and so the ClassInfo.kind of the stand-in class)."""
    return frozenset(p.kind for p in plugins.plugins() if p.declared_leaves)


# ---- the defining file ------------------------------------------------------------------
def exports(names: Names, classes: PytreeClasses) -> list[TfRecord]:
    """One "export" record per top-level pytree class with a field whose kind says more
    than "a leaf" (static, an array, a Python scalar)."""
    out = []
    module = names.module
    for statement in module.body:
        if type(statement) is not cst.ClassDef:
            continue
        cls = classes.of(statement, [module])
        if cls is not None and _INFORMATIVE.intersection(cls.fields.values()):
            out.append(TfRecord(cls.name, 0, "export", encode(cls)))
    return out


def encode(cls: PytreeClass) -> str:
    """`jax:pytree:equinox:0:depth=scalar,weights=array`: framework, custom initialiser,
    then each field's kind."""
    fields = ",".join(f"{name}={kind}" for name, kind in sorted(cls.fields.items()))
    return f"{PYTREE_FACT}{cls.framework}:{int(cls.custom_init)}:{fields}"


def decode(name: str, fact: str) -> PytreeClass | None:
    """The class a fact describes; None for anything else, or a malformed fact."""
    if not fact.startswith(PYTREE_FACT):
        return None
    parts = fact[len(PYTREE_FACT) :].split(":")
    if len(parts) != 3 or parts[0] not in _declaring_kinds() or parts[1] not in ("0", "1"):
        return None
    fields = {}
    for item in parts[2].split(","):
        field_name, _, kind = item.partition("=")
        if not field_name.isidentifier() or kind not in _KINDS:
            return None
        fields[field_name] = kind
    return PytreeClass(name, parts[0], fields, parts[1] == "1")


# ---- the annotating file ----------------------------------------------------------------
def imports(names: Names) -> list[TfRecord]:
    """ "jax-import" records for the imported names that annotate parameters of top-level
    functions and methods, or fields of top-level classes: the runner answers with the
    facts their modules export. Asked only by a file that traces something (the facts
    cost it another lint). Also the framework of each imported class the file constructs
    into a name or an attribute (`self.model = Model()`): a flax linen or haiku module is
    not a pytree, so jit cannot take it as a traced argument (static_args/nonarray.py)."""
    module = names.module
    path = [module]
    targets: set[str] = set(_constructed(names))
    for statement in module.body:
        kind = type(statement)
        if kind is cst.FunctionDef:
            _param_annotations(names, statement, path, targets)  # type: ignore[arg-type]
        elif kind is cst.ClassDef and type(statement.body) is cst.IndentedBlock:  # type: ignore[attr-defined]
            for inner in statement.body.body:  # type: ignore[attr-defined]
                if type(inner) is cst.FunctionDef:
                    _param_annotations(names, inner, path, targets)
                elif type(inner) is cst.SimpleStatementLine:
                    for small in inner.body:
                        if type(small) is cst.AnnAssign:
                            _annotation(names, small.annotation.annotation, path, targets)
    return [TfRecord(target, 0, IMPORT_KIND) for target in sorted(targets)]


def _constructed(names: Names) -> list[str]:
    """`pkg.models.Model.__framework__` for each class imported at module level that an
    assignment's value calls (`model = Model()`, `self.model = Model(cfg)`)."""
    module = names.module
    imported = {
        name: binding.qualname
        for name, bindings in names.scope(module).bindings.items()
        if len(bindings) == 1
        and (binding := bindings[0]).kind == "import"
        and binding.qualname
        and may_be_project_function(binding.qualname)
        and name[:1].isupper()  # a class, by the naming convention every framework follows
    }
    if not imported:
        return []
    found = []
    stack: list[cst.CSTNode] = list(module.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.SimpleStatementLine:
            for small in node.body:  # type: ignore[attr-defined]
                value = small.value if type(small) is cst.Assign else None  # type: ignore[attr-defined]
                if type(value) is cst.Call and type(value.func) is cst.Name:
                    qualname = imported.get(value.func.value)
                    if qualname is not None:
                        found.append(qualname + MODULE_KEY)
            continue
        body = getattr(node, "body", None)
        if isinstance(body, tuple | list):
            stack.extend(body)
        elif body is not None:
            stack.append(body)
        for extra in ("orelse", "finalbody", "handlers"):
            value = getattr(node, extra, None)
            if isinstance(value, tuple | list):
                stack.extend(value)
            elif value is not None:
                stack.append(value)
    return found


def _param_annotations(
    names: Names, func: cst.FunctionDef, path: list[cst.CSTNode], targets: set[str]
) -> None:
    p = func.params
    for param in (*p.posonly_params, *p.params, *p.kwonly_params):
        if param.annotation is not None:
            _annotation(names, param.annotation.annotation, path, targets)


def _annotation(
    names: Names, annotation: cst.BaseExpression, path: list[cst.CSTNode], targets: set[str]
) -> None:
    qualname = _imported(names, annotation, path)
    if qualname is not None:
        targets.add(qualname)


def _imported(
    names: Names, annotation: cst.BaseExpression, path: Sequence[cst.CSTNode]
) -> str | None:
    if type(annotation) is cst.SimpleString:  # a forward reference: "Config"
        text = annotation.evaluated_value  # type: ignore[attr-defined]
        if not isinstance(text, str) or not text.isidentifier():
            return None
        annotation = cst.Name(text)
    if type(annotation) not in (cst.Name, cst.Attribute):
        return None
    qualnames = names.qualified_names(annotation, path)
    if len(qualnames) != 1:
        return None
    (qualname,) = qualnames
    return qualname if may_be_project_function(qualname) else None


class ImportedPytrees:
    """The pytree classes a module's annotations name: its own (pytree_fields.py), or
    another module's, from the facts the runner delivered (`inbound`, by the name as this
    module spells it)."""

    def __init__(
        self,
        names: Names,
        classes: Classes,
        pytree_classes: PytreeClasses,
        inbound: Mapping[str, Sequence[Any]],
    ) -> None:
        self.names = names
        self.classes = classes
        self.pytree_classes = pytree_classes
        self.inbound = inbound
        self._foreign: dict[str, tuple[PytreeClass, ClassInfo] | None] = {}

    def annotated(
        self, annotation: cst.BaseExpression, path: Sequence[cst.CSTNode]
    ) -> tuple[PytreeClass, ClassInfo] | None:
        local = self.pytree_classes.annotated_class(annotation, path)
        if local is not None:
            return local[0], self.classes.of(local[1], local[2])
        qualname = _imported(self.names, annotation, path)
        if qualname is None:
            return None
        if qualname not in self._foreign:
            self._foreign[qualname] = self._read(qualname)
        return self._foreign[qualname]

    def _read(self, qualname: str) -> tuple[PytreeClass, ClassInfo] | None:
        name = qualname.rpartition(".")[2]
        found = None
        for record in self.inbound.get(qualname, ()):
            cls = decode(name, getattr(record, "status", ""))
            if cls is not None:
                if found is not None and found != cls:
                    return None  # two facts for one name: not sure which
                found = cls
        if found is None:
            return None
        # A stand-in for the other module's class: no member is known, so any other
        # attribute stays unknown.
        node = cst.ClassDef(name=cst.Name(name), body=cst.IndentedBlock(body=[]))
        info = ClassInfo(node, name, [], framework=found.framework, open=True)
        return found, info

    def param(
        self, func: cst.FunctionDef, path: Sequence[cst.CSTNode], name: str
    ) -> tuple[PytreeClass, ClassInfo] | None:
        """The pytree class of `func`'s parameter `name`: its annotation's, or, in an
        `__init__`, that of the field it is stored into unchanged (`self.config = config`).
        `path` leads to `func` (excluded)."""
        p = func.params
        declared = [*p.posonly_params, *p.params, *p.kwonly_params]
        for param in declared:
            if param.name.value == name and param.annotation is not None:
                return self.annotated(param.annotation.annotation, path)
        if func.name.value != "__init__" or len(path) < 2 or type(path[-2]) is not cst.ClassDef:
            return None
        if not declared or declared[0].name.value == name:
            return None
        field = _stored_field(func, declared[0].name.value, name)
        if field is None or len(self.names.scope(func).bindings.get(name, ())) != 1:
            return None  # not stored, or rebound before it is
        owner = self.classes.of(path[-2], path[:-2])  # type: ignore[arg-type]
        for field_name, annotation, _ in owner.fields:
            if field_name == field:
                return self.annotated(annotation, path)
        return None


def _stored_field(func: cst.FunctionDef, receiver: str, name: str) -> str | None:
    """The field `receiver.<field> = name` assigns, in a statement of `func`'s own body."""
    body = func.body
    if type(body) is not cst.IndentedBlock:
        return None
    found = None
    for statement in body.body:
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is not cst.Assign or len(small.targets) != 1:
                continue
            target, value = small.targets[0].target, small.value
            if (
                type(target) is cst.Attribute
                and type(target.value) is cst.Name
                and target.value.value == receiver
                and type(value) is cst.Name
                and value.value == name
            ):
                if found is not None:
                    return None
                found = target.attr.value
    return found


# ---- classes across files: their framework, and what their traced methods call on self --
# A class whose framework (equinox, flax, haiku...) makes some of its methods traced by
# contract (frameworks/contracts.py), for the files that subclass it; and the calls its
# traced methods make on `self` (`self.step_env(key, state)` in a jitted `step`), which
# reach a subclass's override (the template-method shape). Exported under the class's name
# plus a key, beside the class's pytree fact; asked for by the key, so a file receives only
# what it can use (each answer costs it another lint).
MODULE_FACT = "jax:module:"
# A class whose framework its own file cannot tell: its imported bases (as that file spells
# them), which the runner follows to the fact of the first one that has a framework.
MODULE_FORWARD = "jax:module?"
MODULE_KEY = ".__framework__"
SELF_CALL_FACT = "jax:selfcall:"
SELF_CALL_KEY = ".__selfcalls__"


def module_exports(frameworks: Sequence[tuple[str, str]]) -> list[TfRecord]:
    """One record per (top-level class, its framework)."""
    return [
        TfRecord(name + MODULE_KEY, 0, "export", MODULE_FACT + kind) for name, kind in frameworks
    ]


def class_imports(names: Names, contract_traces: Callable[[set[str]], bool]) -> list[TfRecord]:
    """ "jax-import" records for the imported bases of top-level classes: the base's
    framework where the class defines a method some contract may trace (`__call__`, or with
    `module-constructors` any public method of an equinox module: `contract_traces`), and the
    base's calls on `self` of each method the class defines (it may override one)."""
    module = names.module
    targets: set[str] = set()
    for statement in module.body:
        if type(statement) is not cst.ClassDef or type(statement.body) is not cst.IndentedBlock:
            continue
        defined = {
            inner.name.value for inner in statement.body.body if type(inner) is cst.FunctionDef
        }
        if not defined:
            continue
        for base in statement.bases:
            qualname = _imported(names, base_class(base.value), [module])
            if qualname is None:
                continue
            if contract_traces(defined):
                targets.add(qualname + MODULE_KEY)
            targets.add(qualname + SELF_CALL_KEY)
    return [TfRecord(target, 0, IMPORT_KIND) for target in sorted(targets)]


def module_forwards(names: Names, classes: Classes) -> list[TfRecord]:
    """One record per top-level class whose framework this file does not know but whose
    order reaches bases imported from the project: those bases, for the runner to follow
    (model/project/files.py) when a file subclassing the class asks for its framework. A
    class with no method a contract traces asks nothing itself, so a layer of the hierarchy
    (`class AbstractERK(AbstractRungeKutta)`, docstring and class variables only) passes its
    framework on without being linted again."""
    module = names.module
    out = []
    for statement in module.body:
        if type(statement) is not cst.ClassDef:
            continue
        info = classes.of(statement, [module])
        if info.kind is not None:
            continue
        bases = [q for cls in info.mro for q in cls.imported_bases if may_be_project_function(q)]
        if bases:
            fact = MODULE_FORWARD + ",".join(dict.fromkeys(bases))
            out.append(TfRecord(info.name + MODULE_KEY, 0, "export", fact))
    return out


def module_framework(inbound: Mapping[str, Sequence[Any]], qualname: str) -> str | None:
    """The framework the facts delivered for the imported class `qualname` name, if one."""
    found = {
        status[len(MODULE_FACT) :]
        for record in inbound.get(qualname + MODULE_KEY, ())
        if (status := getattr(record, "status", "")).startswith(MODULE_FACT)
    }
    return found.pop() if len(found) == 1 else None


def self_call_exports(calls: Mapping[str, Sequence[Inbound]]) -> list[TfRecord]:
    """One record per top-level class whose traced methods call methods on `self`: for each
    such method, the calls, as the overriding file's inbound calls of its own `Cls.method`."""
    by_class: dict[str, dict[str, list[Any]]] = {}
    for target, received in sorted(calls.items()):
        cls, _, method = target.partition(".")
        by_class.setdefault(cls, {})[method] = [r.to_json() for r in received]
    return [
        TfRecord(cls + SELF_CALL_KEY, 0, "export", SELF_CALL_FACT + json.dumps(methods))
        for cls, methods in by_class.items()
    ]


def self_calls(inbound: Mapping[str, Sequence[Any]], qualname: str, method: str) -> list[Inbound]:
    """The calls on `self` of `method` that the traced methods of the imported class
    `qualname` make, as facts delivered them; none for a malformed fact."""
    out: list[Inbound] = []
    for record in inbound.get(qualname + SELF_CALL_KEY, ()):
        status = getattr(record, "status", "")
        if not status.startswith(SELF_CALL_FACT):
            continue
        try:
            methods = json.loads(status[len(SELF_CALL_FACT) :])
            for item in methods.get(method, ()):
                site, caller, how, level, args = item[1], item[2], item[3], item[4], item[5]
                kinds = tuple((k, int(v)) for k, v in args)
                out.append(Inbound(method, site, caller, how, int(level), kinds, bool(item[6])))
        except (ValueError, TypeError, IndexError, AttributeError):
            return []
    return out
