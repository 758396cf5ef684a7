"""Lazily built scopes: which names a module, function or lambda binds, and how.

A scope is indexed only when a rule asks a question about a name inside it, so files (and
functions) no rule cares about cost nothing. Bindings are kept per name as a list, because a
name bound twice has two candidate meanings and rules must respect both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import libcst as cst

from jitlint.engine.walker import iter_children

BindingKind = Literal["import", "def", "class", "assign", "param", "other"]
ScopeNode = cst.Module | cst.FunctionDef | cst.ClassDef | cst.Lambda

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


@dataclass(frozen=True)
class Binding:
    kind: BindingKind
    node: cst.CSTNode | None = None  # the def/class, or the assigned value of `name = value`
    qualname: str | None = None  # for imports: the dotted name the alias stands for


@dataclass
class Scope:
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
    if isinstance(node, cst.FunctionDef | cst.ClassDef):
        kind: BindingKind = "def" if isinstance(node, cst.FunctionDef) else "class"
        scope.add(node.name.value, Binding(kind, node))
        # Decorators, defaults and bases run in this scope; bodies are scopes of their own.
        outer: list[cst.CSTNode] = [d.decorator for d in node.decorators]
        if isinstance(node, cst.FunctionDef):
            outer += _param_defaults(node.params)
        else:
            outer += [a.value for a in node.bases] + [a.value for a in node.keywords]
        return outer
    if isinstance(node, cst.Lambda):
        return _param_defaults(node.params)
    if isinstance(node, _COMPREHENSIONS):
        return [] if not isinstance(node, cst.GeneratorExp) else [node.for_in.iter]
    if isinstance(node, cst.Import):
        for alias in node.names:
            dotted = _dotted(alias.name)
            if alias.asname is not None:
                _bind_target(scope, alias.asname.name, Binding("import", alias, dotted))
            else:
                head = dotted.split(".")[0]
                scope.add(head, Binding("import", alias, head))
        return []
    if isinstance(node, cst.ImportFrom):
        if isinstance(node.names, cst.ImportStar):
            return []
        module = "." * len(node.relative) + (_dotted(node.module) if node.module else "")
        for alias in node.names:
            name = _dotted(alias.name)
            qual = f"{module}.{name}" if not module.endswith(".") else f"{module}{name}"
            target = alias.asname.name if alias.asname is not None else alias.name
            _bind_target(scope, target, Binding("import", alias, qual))
        return []
    if isinstance(node, cst.Assign):
        single = len(node.targets) == 1
        for target in node.targets:
            value = node.value if single else None
            _bind_target(scope, target.target, Binding("assign", value) if value else None)
        return [node.value]
    if isinstance(node, cst.AnnAssign):
        binding = Binding("assign", node.value) if node.value is not None else None
        _bind_target(scope, node.target, binding)
        return [node.value] if node.value is not None else []
    if isinstance(node, cst.AugAssign):
        _bind_target(scope, node.target, None)
        return [node.value]
    if isinstance(node, cst.For):
        _bind_target(scope, node.target, None)
    elif isinstance(node, cst.WithItem) and node.asname is not None:
        _bind_target(scope, node.asname.name, None)
    elif isinstance(node, cst.ExceptHandler) and node.name is not None:
        _bind_target(scope, node.name.name, None)
    elif isinstance(node, cst.NamedExpr):
        _bind_target(scope, node.target, None)
    elif isinstance(node, cst.Global):
        scope.declared_global.update(n.name.value for n in node.names)
    elif isinstance(node, cst.Nonlocal):
        scope.declared_nonlocal.update(n.name.value for n in node.names)
    elif isinstance(node, cst.Del):
        _bind_target(scope, node.target, None)
    elif isinstance(node, cst.MatchAs | cst.MatchStar) and node.name is not None:
        _bind_target(scope, node.name, None)
    elif isinstance(node, cst.MatchMapping) and node.rest is not None:
        _bind_target(scope, node.rest, None)
    return list(iter_children(node))


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
