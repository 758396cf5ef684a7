"""Lazily built scopes: which names a module, function or lambda binds, and how.

A scope is indexed only when a rule asks a question about a name inside it, so files (and
functions) no rule cares about cost nothing. Bindings are kept per name as a list, because a
name bound twice has two candidate meanings and rules must respect both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import libcst as cst

from jitlint.python.walker import iter_children

BindingKind = Literal["import", "def", "class", "assign", "param", "other"]
ScopeNode = cst.Module | cst.FunctionDef | cst.ClassDef | cst.Lambda


@dataclass(frozen=True)
class Binding:
    """One binding of a name in a scope."""

    kind: BindingKind
    node: cst.CSTNode | None = None  # the def/class, or the assigned value of `name = value`
    qualname: str | None = None  # for imports: the dotted name the alias stands for


@dataclass
class Scope:
    """A scope's bindings, and the names it declares global or nonlocal."""

    node: ScopeNode
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)

    def add(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)


def build_scope(node: ScopeNode) -> Scope:
    scope = Scope(node)
    if isinstance(node, cst.FunctionDef | cst.Lambda):
        _add_params(scope, node.params)
    body: list[cst.CSTNode]
    if isinstance(node, cst.Lambda):
        body = [node.body]
    elif isinstance(node, cst.Module):
        body = list(node.body)
    else:
        body = [node.body]
    stack = list(reversed(body))
    while stack:
        current = stack.pop()
        for child in _bind(scope, current):
            stack.append(child)
    return scope


def _add_params(scope: Scope, params: cst.Parameters) -> None:
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        scope.add(param.name.value, Binding("param", param))
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            scope.add(star.name.value, Binding("param", star))


def _bind(scope: Scope, node: cst.CSTNode) -> list[cst.CSTNode]:
    """Record the bindings `node` makes in `scope`; return the children still to look at."""
    handler = _HANDLERS.get(type(node))
    if handler is None:
        return iter_children(node)
    return handler(scope, node)


def _def_or_class(scope: Scope, node: Any) -> list[cst.CSTNode]:
    kind: BindingKind = "def" if type(node) is cst.FunctionDef else "class"
    scope.add(node.name.value, Binding(kind, node))
    # Decorators, defaults and bases run in this scope; bodies are scopes of their own.
    outer: list[cst.CSTNode] = [d.decorator for d in node.decorators]
    if kind == "def":
        outer += _param_defaults(node.params)
    else:
        outer += [a.value for a in node.bases] + [a.value for a in node.keywords]
    return outer


def _import(scope: Scope, node: Any) -> list[cst.CSTNode]:
    for alias in node.names:
        dotted = _dotted(alias.name)
        if alias.asname is not None:
            _bind_target(scope, alias.asname.name, Binding("import", alias, dotted))
        else:
            head = dotted.split(".")[0]
            scope.add(head, Binding("import", alias, head))
    return []


def _import_from(scope: Scope, node: Any) -> list[cst.CSTNode]:
    if isinstance(node.names, cst.ImportStar):
        return []
    module = "." * len(node.relative) + (_dotted(node.module) if node.module else "")
    for alias in node.names:
        name = _dotted(alias.name)
        qual = f"{module}.{name}" if not module.endswith(".") else f"{module}{name}"
        target = alias.asname.name if alias.asname is not None else alias.name
        _bind_target(scope, target, Binding("import", alias, qual))
    return []


def _assign(scope: Scope, node: Any) -> list[cst.CSTNode]:
    single = len(node.targets) == 1
    for target in node.targets:
        _bind_target(scope, target.target, Binding("assign", node.value) if single else None)
    return [node.value]


def _ann_assign(scope: Scope, node: Any) -> list[cst.CSTNode]:
    binding = Binding("assign", node.value) if node.value is not None else None
    _bind_target(scope, node.target, binding)
    return [node.value] if node.value is not None else []


def _rebinds(field_name: str, then_children: bool = True) -> Any:
    """A handler for nodes that (re)bind the target held in `field_name` to an unknown value."""

    def handler(scope: Scope, node: Any) -> list[cst.CSTNode]:
        target = getattr(node, field_name)
        if target is not None:
            if type(target) is cst.AsName:
                target = target.name
            _bind_target(scope, target, None)
        return iter_children(node) if then_children else []

    return handler


def _declares(attr: str) -> Any:
    def handler(scope: Scope, node: Any) -> list[cst.CSTNode]:
        getattr(scope, attr).update(n.name.value for n in node.names)
        return []

    return handler


def _augassign(scope: Scope, node: Any) -> list[cst.CSTNode]:
    _bind_target(scope, node.target, None)
    return [node.value]


_HANDLERS: dict[type, Any] = {
    cst.FunctionDef: _def_or_class,
    cst.ClassDef: _def_or_class,
    cst.Lambda: lambda scope, node: _param_defaults(node.params),
    cst.ListComp: lambda scope, node: [],
    cst.SetComp: lambda scope, node: [],
    cst.DictComp: lambda scope, node: [],
    cst.GeneratorExp: lambda scope, node: [node.for_in.iter],
    cst.Import: _import,
    cst.ImportFrom: _import_from,
    cst.Assign: _assign,
    cst.AnnAssign: _ann_assign,
    cst.AugAssign: _augassign,
    cst.For: _rebinds("target"),
    cst.WithItem: _rebinds("asname"),
    cst.ExceptHandler: _rebinds("name"),
    cst.NamedExpr: _rebinds("target"),
    cst.Del: _rebinds("target", then_children=False),
    cst.MatchAs: _rebinds("name"),
    cst.MatchStar: _rebinds("name"),
    cst.MatchMapping: _rebinds("rest"),
    cst.Global: _declares("declared_global"),
    cst.Nonlocal: _declares("declared_nonlocal"),
}


def _param_defaults(params: cst.Parameters) -> list[cst.CSTNode]:
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    return [p.default for p in every if p.default is not None]


def _bind_target(scope: Scope, target: cst.CSTNode, binding: Binding | None) -> None:
    if isinstance(target, cst.Name):
        scope.add(target.value, binding or Binding("other"))
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            _bind_target(scope, element.value, None)
    elif isinstance(target, (cst.StarredElement, cst.Element)):
        _bind_target(scope, target.value, None)


def _dotted(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def comprehension_targets(node: cst.CSTNode) -> set[str]:
    """Names a comprehension binds for its own body."""
    names: set[str] = set()
    comp_for = getattr(node, "for_in", None)
    while isinstance(comp_for, cst.CompFor):
        scratch = Scope(cst.Module(body=()))
        _bind_target(scratch, comp_for.target, None)
        names.update(scratch.bindings)
        comp_for = comp_for.inner_for_in
    return names


def module_functions(body: Sequence[cst.CSTNode]) -> list[tuple[cst.FunctionDef, str]]:
    """The functions among a module's top-level statements `body` and the methods of its
    classes, each with its dotted name in the module (`f`, `Class.method`)."""
    found: list[tuple[cst.FunctionDef, str]] = []
    for stmt in body:
        if type(stmt) is cst.FunctionDef:
            found.append((stmt, stmt.name.value))
        elif type(stmt) is cst.ClassDef and type(stmt.body) is cst.IndentedBlock:
            for item in stmt.body.body:
                if type(item) is cst.FunctionDef:
                    found.append((item, f"{stmt.name.value}.{item.name.value}"))
    return found
