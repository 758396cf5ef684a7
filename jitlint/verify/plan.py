"""Which functions a fix touched, and how each is compiled (static; no user code runs here).

The unit of change is a hunk of a line diff between the original and the fixed text. A hunk
belongs to the innermost compiled function around it; a hunk in uncompiled code (a call site
passing a list to a static argument, say) belongs to the compiled functions it calls; a hunk
in an uncompiled helper belongs to the compiled functions that call the helper. Hunks that
belong to no compiled function (an added import, a module-level statement) are module-level.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.diagnostics import Diagnostic
from jitlint.engine.context import FileContext
from jitlint.engine.walker import iter_children
from jitlint.model.jax.jit import JitApplication


@dataclass(frozen=True)
class Recipe:
    """How a function is compiled, as the source spells it."""

    framework: str  # "jax" or "tensorflow"
    how: str  # for the report: "jax.jit", "tf.function(jit_compile=True)", "tf.function"
    decorated: bool  # the module attribute is the compiled object itself
    static_argnums: tuple[int, ...] | None = None
    static_argnames: tuple[str, ...] | None = None
    literal: bool = True  # False when static arguments or jit_compile are not literals
    xla: bool = False
    autograph: bool = True

    def to_json(self) -> dict[str, object]:
        return {
            "framework": self.framework,
            "how": self.how,
            "decorated": self.decorated,
            "static_argnums": list(self.static_argnums) if self.static_argnums else None,
            "static_argnames": list(self.static_argnames) if self.static_argnames else None,
            "literal": self.literal,
            "xla": self.xla,
            "autograph": self.autograph,
        }


@dataclass
class FuncInfo:
    qualname: str
    name: str
    node: cst.FunctionDef
    start: int  # first decorator line
    def_line: int
    end: int
    top_level: bool  # defined at module level (reachable as a module attribute)
    in_class: bool
    recipe: Recipe | None = None
    compile_decorator: cst.Decorator | None = None


@dataclass
class ModuleFacts:
    module: cst.Module
    functions: list[FuncInfo]
    by_qualname: dict[str, FuncInfo]
    # (first line, last line, callee name) of calls by plain name, or `jit(f)(...)`
    calls: list[tuple[int, int, str]]

    def chain(self, first: int, last: int) -> list[FuncInfo]:
        """Functions whose span holds lines first..last, outermost first."""
        found = [f for f in self.functions if f.start <= first and last <= f.end]
        return sorted(found, key=lambda f: (f.start, -f.end))

    def compiled_named(self, name: str) -> FuncInfo | None:
        info = self.by_qualname.get(name)
        return info if info is not None and info.recipe is not None else None


def _jax_recipe(app: JitApplication, decorated: bool) -> Recipe:
    spec = app.spec
    literal = not (
        (spec.argnums_arg is not None and spec.argnums is None)
        or (spec.argnames_arg is not None and spec.argnames is None)
    )
    return Recipe(
        "jax", "jax.jit", decorated, spec.argnums, spec.argnames, literal and not app.wrapped
    )


def _tf_recipe(xla: bool | None, autograph: bool, decorated: bool) -> Recipe:
    how = "tf.function(jit_compile=True)" if xla else "tf.function"
    return Recipe(
        "tensorflow", how, decorated, xla=bool(xla), autograph=autograph, literal=xla is not None
    )


def analyse(source: str, path: str) -> ModuleFacts:
    module = cst.parse_module(source)
    ctx = FileContext(module, path, source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    functions: list[FuncInfo] = []
    by_node: dict[int, FuncInfo] = {}
    calls: list[tuple[int, int, str]] = []
    call_apps: list[tuple[JitApplication, int]] = []

    def walk(node: cst.CSTNode, path: list[cst.CSTNode], scope: list[str], in_def: bool) -> None:
        kind = type(node)
        if kind is cst.FunctionDef:
            func: cst.FunctionDef = node  # type: ignore[assignment]
            where = positions[func]
            starts = [positions[d].start.line for d in func.decorators]
            qualname = ".".join([*scope, func.name.value])
            info = FuncInfo(
                qualname,
                func.name.value,
                func,
                min([where.start.line, *starts]),
                positions[func.name].start.line,
                where.end.line,
                not scope,
                bool(scope) and not in_def,
            )
            app = ctx.jit.from_decorators(func, [*path, func])
            if app is not None:
                info.recipe = _jax_recipe(app, decorated=True)
                info.compile_decorator = next(d for d in func.decorators if d.decorator is app.node)
            functions.append(info)
            by_node[id(func)] = info
            inner = [*scope, func.name.value, "<locals>"]
            for child in iter_children(node):
                walk(child, [*path, node], inner, True)
            return
        if kind is cst.ClassDef:
            name = node.name.value  # type: ignore[attr-defined]
            for child in iter_children(node):
                walk(child, [*path, node], [*scope, name], False)
            return
        if kind is cst.Call:
            call: cst.Call = node  # type: ignore[assignment]
            where = positions[call]
            callee = call.func
            if isinstance(callee, cst.Call):  # jax.jit(f)(...): a call of f
                inner_args = [a for a in callee.args if a.keyword is None]
                if inner_args and isinstance(inner_args[0].value, cst.Name):
                    calls.append((where.start.line, where.end.line, inner_args[0].value.value))
            elif isinstance(callee, cst.Name):
                calls.append((where.start.line, where.end.line, callee.value))
            app = ctx.jit.from_call(call, [*path, call])
            if app is not None and isinstance(app.func, cst.FunctionDef):
                call_apps.append((app, where.start.line))
        for child in iter_children(node):
            walk(child, [*path, node], scope, in_def)

    walk(module, [], [], False)
    for app, _line in call_apps:
        info = by_node.get(id(app.func))
        if info is not None and info.recipe is None:
            info.recipe = _jax_recipe(app, decorated=False)
    for tf_app, _path in ctx.tf.applications:
        info = by_node.get(id(tf_app.func)) if tf_app.func is not None else None
        if info is None or info.recipe is not None:
            continue
        decorator = next((d for d in info.node.decorators if d.decorator is tf_app.node), None)
        info.recipe = _tf_recipe(tf_app.xla, tf_app.autograph, decorated=decorator is not None)
        info.compile_decorator = decorator
    return ModuleFacts(module, functions, {f.qualname: f for f in functions}, calls)


def owners(facts: ModuleFacts, first: int, last: int) -> list[FuncInfo]:
    """The compiled functions a change on lines first..last belongs to (see the docstring)."""
    chain = facts.chain(first, last)
    compiled = [f for f in chain if f.recipe is not None]
    if compiled:
        return [compiled[-1]]
    found: dict[str, FuncInfo] = {}
    for start, end, name in facts.calls:
        if start <= last and first <= end:
            callee = facts.compiled_named(name)
            if callee is not None:
                found[callee.qualname] = callee
    if not found and chain and chain[-1].top_level:
        helper = chain[-1].name
        for start, end, name in facts.calls:
            if name != helper:
                continue
            for caller in facts.chain(start, end):
                if caller.recipe is not None:
                    found[caller.qualname] = caller
    return sorted(found.values(), key=lambda f: f.start)


@dataclass
class Hunk:
    """Original lines [i1, i2) became fixed lines [j1, j2) (0-based, as difflib counts)."""

    i1: int
    i2: int
    j1: int
    j2: int
    owners: list[str] = field(default_factory=list)


def hunks(original: str, fixed: str) -> list[Hunk]:
    a = original.splitlines(keepends=True)
    b = fixed.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [Hunk(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def hunk_lines(hunk: Hunk) -> tuple[int, int]:
    """1-based original lines a hunk stands on; an insertion stands on the line before it."""
    if hunk.i2 > hunk.i1:
        return hunk.i1 + 1, hunk.i2
    line = max(hunk.i1, 1)
    return line, line


@dataclass
class Target:
    """One function to verify."""

    qualname: str
    line: int
    recipe: Recipe | None  # from the fixed text; None: not compiled there
    original_recipe: Recipe | None
    top_level: bool
    in_class: bool
    params: list[tuple[str, str | None, bool]]  # (name, annotation, has default), fixed def
    reference_source: str | None  # the original def without its compile decorator
    hunks: list[int] = field(default_factory=list)
    fixes: list[Diagnostic] = field(default_factory=list)
    findings: list[tuple[Diagnostic, bool]] = field(default_factory=list)  # (d, at call site)


@dataclass
class ModulePlan:
    path: str
    original: str
    fixed: str
    targets: list[Target]
    hunks: list[Hunk]
    # Fixes and findings in code no compiled function owns, by the enclosing def (or
    # "<module>"): (first line, applied fixes, findings).
    unowned: dict[str, tuple[int, list[Diagnostic], list[Diagnostic]]] = field(default_factory=dict)


def _params(func: cst.FunctionDef, module: cst.Module) -> list[tuple[str, str | None, bool]]:
    p = func.params
    out = []
    for param in (*p.posonly_params, *p.params, *p.kwonly_params):
        annotation = param.annotation
        code = module.code_for_node(annotation.annotation) if annotation is not None else None
        out.append((param.name.value, code, param.default is not None))
    return out


def _reference(info: FuncInfo, module: cst.Module) -> str | None:
    """The original top-level def without its compile decorator, padded to its own lines."""
    if not info.top_level:
        return None
    node = info.node
    if info.compile_decorator is not None:
        kept = [d for d in node.decorators if d is not info.compile_decorator]
        node = node.with_changes(decorators=kept)
    # Keep leading comments out and line numbers as in the original file, for tracebacks.
    code = module.code_for_node(node.with_changes(leading_lines=()))
    return "\n" * max(0, info.def_line - 1 - len(node.decorators)) + code


def plan_module(
    path: str,
    original: str,
    fixed: str,
    applied: Sequence[Diagnostic],
    findings: Sequence[Diagnostic] = (),
) -> ModulePlan:
    """Targets for the hunks of original→fixed, the applied fixes and (for `jitlint verify`)
    the findings; positions of diagnostics are taken as lines of the original text."""
    before = analyse(original, path)
    after = analyse(fixed, path) if fixed != original else before
    targets: dict[str, Target] = {}

    def target(info: FuncInfo) -> Target:
        if info.qualname not in targets:
            fixed_info = after.by_qualname.get(info.qualname)
            targets[info.qualname] = Target(
                info.qualname,
                info.start,
                fixed_info.recipe if fixed_info is not None else None,
                info.recipe,
                info.top_level,
                info.in_class,
                _params(fixed_info.node, after.module) if fixed_info is not None else [],
                _reference(info, before.module),
            )
        return targets[info.qualname]

    diff = hunks(original, fixed)
    for index, hunk in enumerate(diff):
        for info in owners(before, *hunk_lines(hunk)):
            target(info).hunks.append(index)
            hunk.owners.append(info.qualname)
    unowned: dict[str, tuple[int, list[Diagnostic], list[Diagnostic]]] = {}

    def orphan(diagnostic: Diagnostic) -> tuple[int, list[Diagnostic], list[Diagnostic]]:
        chain = before.chain(diagnostic.line, diagnostic.end_line)
        name = chain[-1].qualname if chain else "<module>"
        line = chain[-1].start if chain else diagnostic.line
        return unowned.setdefault(name, (line, [], []))

    for diagnostic in applied:
        found = owners(before, diagnostic.line, diagnostic.end_line)
        for info in found:
            target(info).fixes.append(diagnostic)
        if not found:
            orphan(diagnostic)[1].append(diagnostic)
    for diagnostic in findings:
        found = owners(before, diagnostic.line, diagnostic.end_line)
        chain = before.chain(diagnostic.line, diagnostic.end_line)
        for info in found:
            inside = any(f.qualname == info.qualname for f in chain)
            target(info).findings.append((diagnostic, not inside))
        if not found:
            orphan(diagnostic)[2].append(diagnostic)
    ordered = sorted(targets.values(), key=lambda t: t.line)
    return ModulePlan(path, original, fixed, ordered, diff, unowned)
