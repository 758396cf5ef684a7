"""Lint one file's text: decode, parse once, one traversal, positions, suppressions."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from typing import TYPE_CHECKING, Any

import libcst as cst

from jitlint.engine.parsing import parse
from jitlint.engine.source import (
    DecodeProblem,
    cut_indentation_form_feeds,
    decode_source,
)
from jitlint.model.context import FileContext
from jitlint.model.domain import plugins
from jitlint.model.jax.crossfile import class_facts, returned, returns, stars
from jitlint.model.jax.crossfile.reads import JaxReads, NotedInbound
from jitlint.model.jax.crossfile.records import (
    CallRecord,
    Outbound,
    Received,
    reexports,
    top_level_defs,
)
from jitlint.model.jax.crossfile.returned import VALUE_FACT
from jitlint.model.jax.crossfile.stars import ALIAS_FACT
from jitlint.model.jax.frameworks.contracts import ASSUME_KEY, Assumptions, may_be_traced
from jitlint.model.library.versions import OPTIONS_KEY, FrameworkVersions
from jitlint.model.project.lines import CallLines, CallOrder
from jitlint.model.project.outbound import outbound_calls, self_call_inbound
from jitlint.model.tf_records import PASSIVE_KINDS, TfInbound, TfReads
from jitlint.python.guards import guarded_tree
from jitlint.python.walker import Walker
from jitlint.rules import may_apply, rule_class, rule_framework, rule_name, rule_traces
from jitlint.rules._index import INDEX
from jitlint.rules.base import Rule
from jitlint.system.budget import budget_behind

if TYPE_CHECKING:
    from jitlint.diagnostics import Diagnostic

# flake8's own line-level noqa comment (flake8 applies it); not ruff's file-level one, which
# flake8 does not know.
_NOQA_WORD = re.compile(r"(#\s*)noqa", re.I)
# Rules the engine itself reports: a file that cannot be read or parsed, unused suppressions.
_NOT_WALKED = ("JIT001", "JIT002")


@cache
def _codes(kind: str) -> tuple[str, ...]:
    """The walked rules of every code, whatever is selected, that trace (`"tracing"`) or
    belong to the TF plug-in (`"tensorflow"`): the project pass's records are built for them."""
    walked = [code for code in sorted(INDEX) if code not in _NOT_WALKED]
    if kind == "tracing":
        return tuple(code for code in walked if rule_traces(code))
    return tuple(code for code in walked if rule_framework(code) == kind)


# A file that may annotate parameters with another module's pytree classes
# (model/jax/crossfile/class_facts.py).
_JAX_WORDS = ("jax", *plugins.tracing_packages(), *plugins.tracing_aliases())
_JAX_TEXT = re.compile(r"\b(?:" + "|".join(_JAX_WORDS) + r")\b")
# A file with a class that has a base (a module's framework may come from another file).
_CLASS_TEXT = re.compile(r"^class\s+\w+\s*\(", re.M)
# A comment JIT002 may report: a `# jitlint: ignore`, or a JIT code after `noqa` on its line
# (a bare noqa comment and other tools' codes are never reported; codes match in any case).
_JIT_DIRECTIVE = re.compile(r"jitlint|noqa.*jit", re.I)
# The same test on an ASCII text lowered first: a pattern starting with a literal is searched
# for fast, a case-insensitive one is tried at every character (~4x the time on the corpus).
_JIT_DIRECTIVE_LOWER = re.compile(r"noqa.*jit")


@dataclass
class FileResult:
    """What linting one file gave: findings, internal errors and the project pass's facts."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Internal errors (a rule crashed): "path: JIT110: ValueError: ..." lines for stderr.
    errors: list[str] = field(default_factory=list)
    # The project pass only (`inbound` given): calls from this file's traced code to
    # functions of other modules and transformations applied to them, and the names of its
    # top-level functions, and the names it binds by an import only (possible re-exports).
    outbound: list[Outbound] = field(default_factory=list)
    defs: frozenset[str] = frozenset()
    reexports: dict[str, str] = field(default_factory=dict)
    # False for a result a per-file budget cut short: another run (a quieter machine, a
    # larger budget) may lint the same bytes, so it is never cached.
    cacheable: bool = True
    # The project code scans a TF rule's question read (model/library/versions.py): project
    # root -> the answer; the cache serves the result only while the scan answers the same.
    keras_evidence: dict[str, str] = field(default_factory=dict)
    # The project pass only: what the TF model read of the records it was given (None:
    # unknown, e.g. a rule crashed), so that a relint that cannot change is skipped
    # (`may_change`).
    tf_reads: TfReads | None = None
    # ... and what the JAX model read of them (`ctx.inbound`).
    jax_reads: JaxReads | None = None


# Options of the engine itself ride with the rules' options (`rule_settings`), under a key
# that is no rule code: so they reach every path that lints (the worker pool, fixes, notebooks)
# and are part of the cache key, as the rules' options are. `{"ignore-noqa": True}`
# (`--ignore-noqa`): suppression comments are not applied.
ENGINE_OPTIONS = "engine"


def lint_text(
    source: str | bytes,
    path: str,
    codes: Collection[str],
    rule_settings: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    noqa: bool = True,
    text_gates: bool = True,
    inbound: Sequence[Received] | None = None,
) -> FileResult:
    """Lint `source` with the rules whose codes are in `codes`.

    `noqa=False` leaves `# noqa` comments to the caller (flake8 applies its own); jitlint's
    own `# jitlint: ...` comments still apply. `text_gates=False` runs every selected rule
    even where its text gate says it cannot fire (the tests use it to show the gates are
    sound). `rule_settings` holds the rules' options by code, and the file's framework
    versions under `OPTIONS_KEY` (model/library/versions.py). `inbound` (the project pass,
    see model/jax/crossfile/records.py) are calls from traced code in other files to this file's
    top-level functions, and transformations applied to them there; given (even empty), the
    result also lists this file's outbound records.
    """
    result = FileResult(path)
    want_parse_errors = "JIT001" in codes
    if isinstance(source, bytes):
        try:
            source = decode_source(source).text
        except DecodeProblem as problem:
            if want_parse_errors:
                result.diagnostics.append(
                    _parse_error(path, str(problem), problem.line, problem.column)
                )
            return result
    problem, python_tree = guarded_tree(source)
    if problem is not None:
        if want_parse_errors:
            result.diagnostics.append(_parse_error(path, f"cannot parse: {problem}", 1, 1))
        return result
    # Positions and analyses recurse per nesting level; the guard bounds the depth at
    # MAX_DEPTH, and this leaves room for a few frames per level.
    if sys.getrecursionlimit() < 5000:
        sys.setrecursionlimit(5000)
    # What libcst parses: the text itself, or with form feeds cut from the indentation
    # (libcst misplaces them); `shift` maps positions back to the text.
    parsed, shift = source, None
    cut = cut_indentation_form_feeds(source)
    if cut is not None:
        parsed, shift = cut
    try:
        module = parse(parsed)
    except cst.ParserSyntaxError as exc:
        if want_parse_errors:
            message, line, column = _describe_syntax_error(source, exc)
            if shift is not None and message.startswith("cannot parse"):
                column = shift.column(line, column)
            result.diagnostics.append(_parse_error(path, message, line, column))
        return result
    except (RecursionError, MemoryError, ValueError) as exc:
        if want_parse_errors:
            result.diagnostics.append(
                _parse_error(path, f"cannot parse: {type(exc).__name__}", 1, 1)
            )
        return result

    ctx = FileContext(module, path, parsed)
    ctx.project_run = inbound is not None
    own_names: tuple[frozenset[str], dict[str, str]] | None = None
    if inbound:
        from jitlint.model.project.files import accepts  # only records need resolving

        # The project pass may give a file what reached it before its defs were known.
        own_names = top_level_defs(module), reexports(ctx.names)
        inbound = [call for call in inbound if accepts(call, *own_names)]
    by_function: dict[str, list[Received]] = {}
    if inbound:
        for call in inbound:
            if _routes_to_tf(call):  # for the TF model (model/tf_records.py)
                ctx.tf_inbound.append(call)  # type: ignore[arg-type]
            else:  # the JAX model's, and values returned (jax/crossfile/returns.py)
                by_function.setdefault(call.function, []).append(call)
        ctx.names.aliases.update(stars.aliases(by_function))
    if inbound is not None:
        # Noting what the JAX model reads of them (`may_change`).
        ctx.inbound = NotedInbound(by_function)
    settings = rule_settings or {}
    ctx.versions = FrameworkVersions.from_options(settings.get(OPTIONS_KEY))
    if settings.get(ASSUME_KEY):
        ctx.assumptions = Assumptions.parse(settings[ASSUME_KEY])
    # What another file's function returns is text this file uses (jax/crossfile/returned.py):
    # a jitted step from a factory elsewhere may be called here with no `jit` in sight.
    gated = source + _returned_text(by_function)
    tf_opened = _opens_tf(ctx.tf_inbound)
    mentions: dict[str, bool] = {}
    rules: list[Rule] = [
        rule_class(code)(ctx, settings.get(code))
        for code in sorted(codes)
        if code in INDEX
        and code not in _NOT_WALKED
        and (
            not text_gates
            or may_apply(code, gated, mentions)
            # A helper traced from another file need not mention jax at all.
            or bool(ctx.inbound and rule_traces(code))
            # Nor a helper that graph code of another file calls mention Keras.
            or bool(tf_opened and rule_framework(code) == "tensorflow")
        )
    ]
    # The project pass's records do not depend on the selection: a file sends what the rules
    # of a whole run could need, so `--select` filters findings and never the analysis.
    tracing_records = tf_records = False
    if inbound is not None:
        gates = partial(may_apply, source=gated, mentions=mentions) if text_gates else None
        tracing_records = bool(ctx.inbound) or any(
            gates is None or gates(code) for code in _codes("tracing")
        )
        tf_records = tf_opened or any(gates is None or gates(code) for code in _codes("tensorflow"))
    # The project pass places its records' calls on lines from the walk's order of calls.
    order = CallOrder() if inbound is not None else None
    walked = bool(rules) or tracing_records or tf_records
    if walked:
        listeners: list[object] = [*rules, order] if order is not None else list(rules)
        walker = Walker(listeners, on_error=lambda rule, exc: _rule_failed(result, rule, exc))
        ctx.parents = walker.parents
        if order is not None:
            order.parents = walker.parents
        walker.walk(module)
    if inbound is not None:
        calls = CallLines(module, python_tree, order) if walked and order is not None else None
        _project_facts(result, ctx, tracing_records, tf_records, calls, own_names)
    result.keras_evidence = dict(ctx.versions.evidence_read)
    reports = [report for rule in rules for report in rule.reports]
    if reports:
        from jitlint.engine.positions import positioned  # a file with findings pays for it

        result.diagnostics.extend(positioned(ctx, path, reports, shift))
    if not settings.get(ENGINE_OPTIONS, {}).get("ignore-noqa"):
        _suppress(result, source if noqa else _hide_noqa(source), codes)
    result.diagnostics.sort(key=_sort_key)
    if inbound is not None and not result.errors:
        tf = ctx.__dict__.get("tf")
        result.tf_reads = tf.reads() if tf is not None else _NO_TF_READS
        result.jax_reads = ctx.inbound.reads()  # type: ignore[attr-defined]
    ctx.release()
    return result


# A lint that never built the TF model read no TfInbound record but through `_routes_to_tf`
# and `_opens_tf`.
_NO_TF_READS = TfReads(frozenset(), frozenset(), frozenset(), False)


def may_change(result: FileResult, before: Sequence[Received], after: Sequence[Received]) -> bool:
    """Whether linting `result`'s file again with the records `after`, instead of the
    `before` it was linted with, could give another result. It cannot where the two differ
    only in records the lint never read: the JAX model's (`ctx.inbound`) as
    `result.jax_reads` says, with the returned values' statuses the text gates read and the
    star aliases `lint_text` reads; the TF model's as `result.tf_reads` says (its kinds read
    whole, the facts it looked up); and `lint_text` reads nothing else of them but whether
    any opens the TF rules. The file's text is the same, so `accepts` keeps what it kept
    (`result.defs` and `result.reexports` are what it was given)."""
    reads, jax_reads = result.tf_reads, result.jax_reads
    if reads is None or jax_reads is None:
        return True
    from jitlint.model.project.files import accepts

    own = result.defs, result.reexports
    kept_before = [r for r in before if accepts(r, *own)]
    kept_after = [r for r in after if accepts(r, *own)]
    tf_before = [r for r in kept_before if _routes_to_tf(r)]
    tf_after = [r for r in kept_after if _routes_to_tf(r)]
    jax_before = [r for r in kept_before if not _routes_to_tf(r)]
    jax_after = [r for r in kept_after if not _routes_to_tf(r)]
    if jax_before != jax_after and (
        _returned_text(_by_function(jax_before)) != _returned_text(_by_function(jax_after))
        or [r for r in jax_before if _alias(r)] != [r for r in jax_after if _alias(r)]
        or jax_reads.differ(jax_before, jax_after, result.defs)
    ):
        return True
    if _opens_tf(tf_before) != _opens_tf(tf_after):
        return True
    return reads.differ(tf_before, tf_after)


def _by_function(records: Sequence[Received]) -> dict[str, list[Received]]:
    """The JAX model's records grouped as `lint_text` gives them (`ctx.inbound`)."""
    out: dict[str, list[Received]] = {}
    for record in records:
        out.setdefault(record.function, []).append(record)
    return out


def _returned_text(by_function: Mapping[str, Sequence[Received]]) -> str:
    """What the text gates read of the records: another file's returned values, whose
    jitted step may be called here with no `jit` in sight (jax/crossfile/returned.py)."""
    statuses = [call.status for calls in by_function.values() for call in calls if _returned(call)]
    return "".join(statuses)  # type: ignore[arg-type]


def _alias(record: Received) -> bool:
    """Whether `stars.aliases` reads the record (`lint_text` reads them all)."""
    return getattr(record, "status", "").startswith(ALIAS_FACT)


def _routes_to_tf(record: Received) -> bool:
    """Whether `lint_text` gives the record to the TF model (`ctx.tf_inbound`)."""
    return isinstance(record, TfInbound) and not record.status.startswith("jax:")


def _opens_tf(records: Sequence[TfInbound]) -> bool:
    """`tf_opened` of `lint_text` (the TF model's `may_have_graph_code` asks the same)."""
    return any(record.kind not in PASSIVE_KINDS for record in records)


def _suppress(result: FileResult, source: str, codes: Collection[str]) -> None:
    """Drop the findings the file's comments suppress; with JIT002 selected, report the
    comments' codes that suppress nothing (rules/jit002_unused_suppression.py)."""
    check_unused = "JIT002" in codes
    if not result.diagnostics and not (check_unused and _may_name_jit_code(source)):
        # Nothing to suppress, and no comment JIT002 could report: tokenizing is the cost.
        return
    from jitlint.python import suppression  # only a file with findings or JIT002 pays

    found = suppression.collect(source)
    if found is None:
        return
    findings = result.diagnostics
    result.diagnostics = [d for d in findings if not found.covers(d.code, d.line)]
    if check_unused:
        from jitlint.rules.jit002_unused_suppression import UnusedSuppression

        unused = suppression.unused_directives(
            found, [(d.code, d.line) for d in findings], codes, INDEX
        )
        unused = [item for item in unused if not found.silences(item.directive)]
        result.diagnostics.extend(UnusedSuppression.findings(found, unused, result.path))


def _may_name_jit_code(source: str) -> bool:
    """Whether `_JIT_DIRECTIVE` matches: on an ASCII text, its case-insensitive match is a
    match in the text lowered (other texts are searched as they are: some non-ASCII
    letters match ASCII ones without a case, or lower to two characters)."""
    if not source.isascii():
        return bool(_JIT_DIRECTIVE.search(source))
    lowered = source.lower()
    return "jitlint" in lowered or bool(_JIT_DIRECTIVE_LOWER.search(lowered))


def _returned(received: Received) -> bool:
    return isinstance(received, TfInbound) and received.status.startswith(VALUE_FACT)


def _project_facts(
    result: FileResult,
    ctx: FileContext,
    tracing_records: bool,
    tf_records: bool,
    calls: CallLines | None = None,
    own_names: tuple[frozenset[str], dict[str, str]] | None = None,
) -> None:
    """What the project pass needs from this file (model/jax/crossfile/records.py), whatever
    rules are selected. Where no rule of any run could trace (no jax/flax/... text and no
    inbound calls), nothing is traced, so nothing goes out; its defs and re-exports are listed
    still (a package's `__init__.py` that only imports need not mention jax). `own_names`:
    the defs and re-exports, where the inbound filter already read them."""
    result.defs = own_names[0] if own_names else top_level_defs(ctx.module)
    has_classes = bool(_CLASS_TEXT.search(ctx.source))
    try:
        result.reexports = own_names[1] if own_names else reexports(ctx.names)
        if tracing_records:
            result.outbound = outbound_calls(ctx.tracing, ctx.source, calls)
            called = [
                (r.target, r.line)
                for r in result.outbound
                if isinstance(r, CallRecord) and r.level > 0  # calls made in Python: no return
            ]
            result.outbound.extend(returns.imports(called))
            result.outbound.extend(returns.default_imports(ctx.names))
            if ctx.tracing.active and _mentions_jax(ctx.source):
                result.outbound.extend(class_facts.imports(ctx.names))
            if ctx.tracing.active:
                overridable = self_call_inbound(ctx.tracing, ctx.path, ctx.source, calls)
                result.outbound.extend(class_facts.self_call_exports(overridable))
        if has_classes:
            # A subclass need not mention jax: its base's file may trace its methods.
            traced = partial(may_be_traced, module_constructors=ctx.assumptions.module_constructors)
            result.outbound.extend(class_facts.class_imports(ctx.names, traced))
        result.outbound.extend(returns.exports(ctx.names))
        result.outbound.extend(returns.plain_object_exports(ctx.names))
        result.outbound.extend(stars.exports(ctx.names))
        result.outbound.extend(stars.still_asked(ctx.names.aliases))
        result.outbound.extend(returned.exports(ctx.names, ctx.tracing.classes))
        result.outbound.extend(class_facts.exports(ctx.names, ctx.tracing.pytree_classes))
        if has_classes and (ctx.inbound or _mentions_jax(ctx.source)):
            frameworks = [(i.name, c.framework) for i, c in ctx.tracing.contract_classes]
            result.outbound.extend(class_facts.module_exports(frameworks))
        if has_classes:
            # A class whose framework only its imported bases may say: which bases, for the
            # files that subclass it (the runner follows them; this file asks nothing). After
            # the frameworks this file knows: of two facts for one name the first is kept.
            result.outbound.extend(class_facts.module_forwards(ctx.names, ctx.tracing.classes))
    except Exception as exc:  # a crash here must not lose the file's findings
        _rule_failed(result, "project pass", exc)
    try:
        if tf_records or has_classes:
            # Imported here: a file with neither TF code nor classes never loads the TF model.
            from jitlint.model.project.tf_outbound import tf_base_imports, tf_outbound
        if tf_records:
            result.outbound.extend(tf_outbound(ctx.tf, ctx.source, calls))
        elif has_classes:
            # A subclass need not mention Keras: its base's file may say it is a layer.
            result.outbound.extend(tf_base_imports(ctx.tf, ctx.source, calls))
    except Exception as exc:
        _rule_failed(result, "project pass (TensorFlow)", exc)


def _mentions_jax(source: str) -> bool:
    """`_JAX_TEXT` searched in `source`, after a substring test of its words (fast where the
    file names none, as most non-JAX files do; the pattern alone tries every character)."""
    return any(word in source for word in _JAX_WORDS) and bool(_JAX_TEXT.search(source))


def _hide_noqa(source: str) -> str:
    # Same length and still a valid token wherever it stands, so lines and spans are kept.
    return _NOQA_WORD.sub(r"\1n0qa", source)


def _describe_syntax_error(source: str, exc: cst.ParserSyntaxError) -> tuple[str, int, int]:
    """Python's own message and position where it has one: libcst's point past the problem."""
    try:
        compile(source, "<jitlint>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as py_exc:
        if py_exc.lineno:
            return f"SyntaxError: {py_exc.msg}", py_exc.lineno, py_exc.offset or 1
    except (ValueError, RecursionError, MemoryError):
        pass
    # Python accepts it (syntax newer than libcst's grammar) or gave no position.
    return f"cannot parse: {exc.message}", exc.raw_line, exc.raw_column + 1


def _rule_failed(result: FileResult, rule: object, exc: BaseException) -> None:
    hidden = budget_behind(exc)
    if hidden is not None:
        raise hidden  # the file is over its budget, not a rule crashing (system/budget.py)
    import traceback  # a rule that crashed is rare: other runs do without the module

    where = traceback.extract_tb(exc.__traceback__)[-1]
    result.errors.append(
        f"{result.path}: internal error in {getattr(rule, 'code', rule)}: "
        f"{type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})"
    )


def _sort_key(diagnostic: Diagnostic) -> tuple[str, int, int, int, str]:
    return diagnostic.sort_key()


def _parse_error(path: str, message: str, line: int, column: int) -> Diagnostic:
    from jitlint.diagnostics import Diagnostic

    return Diagnostic(
        "JIT001",
        rule_name("JIT001"),
        message,
        path,
        max(line, 1),
        max(column, 1),
        max(line, 1),
        max(column, 1) + 1,
        "error",
    )
