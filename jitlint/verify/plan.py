"""Which functions a fix touched, and how each is compiled (static; no user code runs here).

The unit of change is a hunk of a line diff between the original and the fixed text. A hunk
belongs to the innermost compiled function around it; a hunk in uncompiled code (a call site
passing a list to a static argument, say) belongs to the compiled functions it calls; a hunk
in an uncompiled helper belongs to the compiled functions that call the helper; a hunk
elsewhere in a class (`__init__`, `build`, a helper method, the class body) belongs to the
class's compiled methods. Hunks that belong to no compiled function (an added import, a
module-level statement) are module-level.

Methods count as compiled when the source compiles them (`@jax.jit`, `@eqx.filter_jit`,
`@nnx.jit`, `@tf.function`), when the JAX model traces them (an equinox module's `__call__`
reached from jitted code), and for a Keras layer's or model's `call`, which Keras compiles
itself: the verifier then compiles them the way their framework would (`implied`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.diagnostics import Diagnostic
from jitlint.model.context import FileContext
from jitlint.model.jax.crossfile.records import Inbound, Received
from jitlint.model.jax.jit import JitApplication
from jitlint.python.walker import iter_children


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
    method: bool = False  # a method: called on an instance of its class
    # Compiled by the verifier, not by the source: a traced method (compiled the way its
    # class's framework compiles it) or a Keras layer's `call`.
    implied: bool = False

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
            "method": self.method,
            "implied": self.implied,
        }


@dataclass
class FuncInfo:
    """A function of the module to verify."""

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
    class_qualname: str | None = None  # for a method: its class, "Model" or "Outer.Inner"
    class_kind: str | None = None  # the class's framework (see `CLASS_KINDS`), if any

    @property
    def is_method(self) -> bool:
        """Defined in a class body that is reachable from the module (no `<locals>`)."""
        return self.in_class and "<locals>" not in self.qualname


@dataclass(frozen=True)
class ClassInfo:
    """A class of the module to verify, by its lines."""

    qualname: str
    start: int
    end: int


@dataclass
class ModuleFacts:
    """The functions, classes and calls of a module to verify."""

    module: cst.Module
    functions: list[FuncInfo]
    by_qualname: dict[str, FuncInfo]
    # (first line, last line, callee name) of calls by plain name, or `jit(f)(...)`
    calls: list[tuple[int, int, str]]
    classes: list[ClassInfo] = field(default_factory=list)

    def chain(self, first: int, last: int) -> list[FuncInfo]:
        """Functions whose span holds lines first..last, outermost first."""
        found = [f for f in self.functions if f.start <= first and last <= f.end]
        return sorted(found, key=lambda f: (f.start, -f.end))

    def compiled_named(self, name: str) -> FuncInfo | None:
        info = self.by_qualname.get(name)
        return info if info is not None and info.recipe is not None else None

    def compiled_methods(self, first: int, last: int) -> list[FuncInfo]:
        """The compiled methods of the innermost class whose span holds lines first..last."""
        around = [c for c in self.classes if c.start <= first and last <= c.end]
        if not around:
            return []
        cls = max(around, key=lambda c: c.start)
        return [
            f
            for f in self.functions
            if f.class_qualname == cls.qualname and f.recipe is not None and f.is_method
        ]


# Base classes whose subclasses' methods the verifier can call, by the framework it names.
CLASS_KINDS = {
    "equinox.Module": "equinox",
    "equinox._module.Module": "equinox",
    "flax.linen.Module": "flax.linen",
    "flax.linen.module.Module": "flax.linen",
    "flax.nnx.Module": "flax.nnx",
    "flax.nnx.module.Module": "flax.nnx",
    "haiku.Module": "haiku",
}
# Transformations that compile a function they decorate, besides `jax.jit` (jit.py's).
_METHOD_JITS = ("equinox.filter_jit", "flax.nnx.jit")
_JAX_MODULES = ("equinox", "flax.linen", "flax.nnx", "haiku")


def class_kind(ctx: FileContext, cls: cst.ClassDef, path: Sequence[cst.CSTNode]) -> str | None:
    """ "keras", "equinox", "flax.linen", "flax.nnx", "haiku" or None, through local bases."""
    seen: set[int] = set()

    def kind_of(node: cst.ClassDef) -> str | None:
        if id(node) in seen:
            return None
        seen.add(id(node))
        for base in node.bases:
            for name in sorted(ctx.names.qualified_names(base.value, path)):  # seed-free
                if name in CLASS_KINDS:
                    return CLASS_KINDS[name]
            if type(base.value) is cst.Name:
                bindings = ctx.names.lookup(base.value.value, path)
                if bindings and len(bindings) == 1 and type(bindings[0].node) is cst.ClassDef:
                    found = kind_of(bindings[0].node)
                    if found is not None:
                        return found
        return None

    mentions_keras = any(word in ctx.source for word in ("keras", "Layer", "Model"))
    if mentions_keras and ctx.tf.keras_kind(cls, path) is not None:
        return "keras"
    return kind_of(cls)


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


def analyse(source: str, path: str, inbound: Sequence[Received] | None = None) -> ModuleFacts:
    module = cst.parse_module(source)
    ctx = FileContext(module, path, source)
    if inbound:  # as lint_text has them: calls from traced code in other files of the run
        by_function: dict[str, list[Received]] = {}
        for received in inbound:
            by_function.setdefault(received.function, []).append(received)
        ctx.inbound = by_function
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    functions: list[FuncInfo] = []
    classes: list[ClassInfo] = []
    by_node: dict[int, FuncInfo] = {}
    calls: list[tuple[int, int, str]] = []
    call_apps: list[tuple[JitApplication, int]] = []

    def walk(
        node: cst.CSTNode,
        path: list[cst.CSTNode],
        scope: list[str],
        in_def: bool,
        cls: tuple[str, str | None] | None,
    ) -> None:
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
            if info.in_class and cls is not None:
                info.class_qualname, info.class_kind = cls
            app = ctx.jit.from_decorators(func, [*path, func])
            if app is not None:
                info.recipe = _jax_recipe(app, decorated=True)
                info.compile_decorator = next(d for d in func.decorators if d.decorator is app.node)
            functions.append(info)
            by_node[id(func)] = info
            inner = [*scope, func.name.value, "<locals>"]
            for child in iter_children(node):
                walk(child, [*path, node], inner, True, None)
            return
        if kind is cst.ClassDef:
            class_node: cst.ClassDef = node  # type: ignore[assignment]
            name = class_node.name.value
            qualname = ".".join([*scope, name])
            where = positions[class_node]
            starts = [positions[d].start.line for d in class_node.decorators]
            classes.append(ClassInfo(qualname, min([where.start.line, *starts]), where.end.line))
            here = (qualname, class_kind(ctx, class_node, path))
            for child in iter_children(node):
                walk(child, [*path, node], [*scope, name], False, here)
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
            walk(child, [*path, node], scope, in_def, cls)

    walk(module, [], [], False, None)
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
    for info in functions:
        if info.recipe is None and info.node.decorators:
            _decorator_recipe(ctx, info)
        if info.is_method:
            _method_recipe(ctx, info)
    return ModuleFacts(module, functions, {f.qualname: f for f in functions}, calls, classes)


def _decorator_recipe(ctx: FileContext, info: FuncInfo) -> None:
    """`@eqx.filter_jit` / `@nnx.jit` (jit.py knows the `jax.jit` spellings)."""
    decorators = {id(d.decorator): d for d in info.node.decorators}
    for entry in ctx.tracing.index.entries.get(id(info.node), ()):
        if entry.transform.qualname in _METHOD_JITS and id(entry.site) in decorators:
            how = "eqx.filter_jit" if entry.transform.qualname.startswith("equinox") else "nnx.jit"
            info.recipe = Recipe("jax", how, True)
            info.compile_decorator = decorators[id(entry.site)]
            return


def _method_recipe(ctx: FileContext, info: FuncInfo) -> None:
    """How a method is compiled: by its own decorator, else as its framework would."""
    if info.recipe is not None:
        info.recipe = replace(info.recipe, method=True)
        return
    if info.class_kind == "keras" and info.name == "call":
        info.recipe = Recipe(
            "tensorflow",
            "tf.function(jit_compile=True)",
            False,
            xla=True,
            autograph=False,  # Keras 3 calls `call` without autograph
            method=True,
            implied=True,
        )
        return
    # A JAX module's `__call__` is what its framework traces (haiku and flax linen only
    # ever run it inside a transformation), even where the callers are not visible here.
    module_call = info.class_kind in _JAX_MODULES and info.name == "__call__"
    trace = None if module_call else ctx.tracing.trace(info.node)
    if module_call or (trace is not None and trace.abstract):
        info.recipe = Recipe("jax", "jax.jit", False, method=True, implied=True)


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
    if not found and not (chain and chain[-1].top_level):
        # `__init__`, `build`, a helper method or the class body: the compiled methods of
        # the class run with what they set up.
        for method in facts.compiled_methods(first, last):
            found[method.qualname] = method
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
    class_qualname: str | None = None  # for a method
    class_kind: str | None = None
    # Findings of the original that the fixed text still has here: (finding in the fixed
    # text, the same finding's line in the original). The verifier does not blame the fixes
    # for an error such a finding predicts.
    unfixed: list[tuple[Diagnostic, int]] = field(default_factory=list)

    @property
    def callable(self) -> bool:
        """Reachable from the module: a top-level function or a method of a class."""
        return self.top_level or (self.in_class and "<locals>" not in self.qualname)


@dataclass
class ModulePlan:
    """What to run to verify one module's fixes and findings."""

    path: str
    original: str
    fixed: str
    targets: list[Target]
    hunks: list[Hunk]
    # Fixes and findings in code no compiled function owns, by the enclosing def (or
    # "<module>"): (first line, applied fixes, findings).
    unowned: dict[str, tuple[int, list[Diagnostic], list[Diagnostic]]] = field(default_factory=dict)
    # Helpers that only traced code in other files calls: verified through those callers.
    through: list[Through] = field(default_factory=list)


@dataclass
class Caller:
    """A compiled function in another file that calls a helper of this one."""

    display: str  # the caller's file, as reported
    file: str  # its real path
    qualname: str
    line: int  # of the call
    recipe: Recipe
    top_level: bool


@dataclass
class Through:
    """A top-level helper whose fixes are verified by compiling the callers that reach it,
    with the fixed helper in place of the original."""

    helper: str
    line: int
    callers: list[Caller]
    fixes: list[Diagnostic]
    findings: list[Diagnostic]


# Reads a caller's file by its display path: (real path, text), or None.
ReadCaller = Callable[[str], "tuple[str, str] | None"]


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
    remaining: Sequence[Diagnostic] = (),
    originals: Sequence[Diagnostic] | None = None,
    inbound: Sequence[Received] | None = None,
    read_caller: ReadCaller | None = None,
) -> ModulePlan:
    """Targets for the hunks of original→fixed, the applied fixes and (for `jitlint verify`)
    the findings; positions of diagnostics are taken as lines of the original text.
    `remaining`: the findings of the fixed text (its lines), to tell a fix that fails from a
    finding left unfixed (see `Target.unfixed`), with `originals`, the original text's
    findings (default: `findings`). `inbound` and `read_caller`: calls from traced code in
    other files of the run, and how to read those files (see `Through`)."""
    before = analyse(original, path, inbound)
    after = analyse(fixed, path, inbound) if fixed != original else before
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
                class_qualname=info.class_qualname,
                class_kind=info.class_kind,
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
    _attach_unfixed(targets, before, after, findings if originals is None else originals, remaining)
    ordered = sorted(targets.values(), key=lambda t: t.line)
    plan = ModulePlan(path, original, fixed, ordered, diff, unowned)
    if inbound and read_caller is not None:
        _plan_through(plan, before, inbound, read_caller)
    return plan


def _plan_through(
    plan: ModulePlan, before: ModuleFacts, inbound: Sequence[Received], read: ReadCaller
) -> None:
    """Unowned fixes and findings in a top-level helper that traced code in other files of
    the run calls: they belong to the compiled functions around those calls."""
    calls: dict[str, list[Inbound]] = {}
    for received in inbound:
        if isinstance(received, Inbound):
            calls.setdefault(received.function, []).append(received)
    analysed: dict[str, tuple[str, ModuleFacts] | None] = {}
    for name, (line, fixes, findings) in list(plan.unowned.items()):
        info = before.by_qualname.get(name)
        if info is None or not info.top_level or name not in calls:
            continue
        callers: dict[tuple[str, str], Caller] = {}
        for received in sorted(calls[name], key=Inbound.rank):
            display, _, at = received.site.rpartition(":")
            if not at.isdigit() or ":" in display:
                continue  # a notebook's cell: nothing to import
            if display not in analysed:
                source = read(display)
                analysed[display] = (
                    (source[0], analyse(source[1], display)) if source is not None else None
                )
            known = analysed[display]
            if known is None:
                continue
            real, facts = known
            for owner in owners(facts, int(at), int(at)):
                if owner.recipe is not None:
                    caller = Caller(
                        display, real, owner.qualname, int(at), owner.recipe, owner.top_level
                    )
                    callers.setdefault((display, owner.qualname), caller)
        if not callers:
            continue
        del plan.unowned[name]
        plan.through.append(Through(name, line, list(callers.values()), fixes, findings))
        for hunk in plan.hunks:
            first, last = hunk_lines(hunk)
            if info.start <= first and last <= info.end:
                hunk.owners.append(name)


def _attach_unfixed(
    targets: dict[str, Target],
    before: ModuleFacts,
    after: ModuleFacts,
    findings: Sequence[Diagnostic],
    remaining: Sequence[Diagnostic],
) -> None:
    """Each finding of the fixed text that the original had too (same rule, same function),
    paired with the original's line; a finding the fixes brought in is not paired."""
    originals: dict[tuple[str, str], list[int]] = {}
    for diagnostic in findings:
        for info in owners(before, diagnostic.line, diagnostic.end_line):
            originals.setdefault((info.qualname, diagnostic.code), []).append(diagnostic.line)
    for diagnostic in remaining:
        for info in owners(after, diagnostic.line, diagnostic.end_line):
            lines = originals.get((info.qualname, diagnostic.code))
            if lines and info.qualname in targets:
                targets[info.qualname].unfixed.append((diagnostic, lines.pop(0)))
