"""Lint one file's text: decode, parse once, one traversal, positions, suppressions."""

from __future__ import annotations

import traceback
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.diagnostics import Diagnostic
from jitlint.engine import suppression
from jitlint.engine.source import DecodeProblem, decode_source
from jitlint.engine.walker import Walker
from jitlint.rules import all_rules
from jitlint.rules.base import FileContext, Report, Rule


@dataclass
class FileResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Internal errors (a rule crashed): "path: JIT110: ValueError: ..." lines for stderr.
    errors: list[str] = field(default_factory=list)


def lint_text(
    source: str | bytes,
    path: str,
    codes: Collection[str],
    rule_settings: Mapping[str, Mapping[str, Any]] | None = None,
) -> FileResult:
    """Lint `source` with the rules whose codes are in `codes`."""
    result = FileResult(path)
    registry = all_rules()
    want_parse_errors = "JIT001" in codes
    if isinstance(source, bytes):
        try:
            source = decode_source(source).text
        except DecodeProblem as problem:
            if want_parse_errors:
                result.diagnostics.append(_parse_error(path, str(problem), problem.line, problem.column))
            return result
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        if want_parse_errors:
            message = f"cannot parse: {exc.message}"
            result.diagnostics.append(_parse_error(path, message, exc.raw_line, exc.raw_column + 1))
        return result
    except (RecursionError, MemoryError, ValueError) as exc:
        if want_parse_errors:
            result.diagnostics.append(_parse_error(path, f"cannot parse: {type(exc).__name__}", 1, 1))
        return result

    ctx = FileContext(module, path, source)
    settings = rule_settings or {}
    rules: list[Rule] = [
        registry[code](ctx, settings.get(code))
        for code in sorted(codes)
        if code in registry and code != "JIT001"
    ]
    if rules:
        walker = Walker(rules, on_error=lambda rule, exc: _rule_failed(result, rule, exc))
        ctx.parents = walker.parents
        walker.walk(module)
    reports = [report for rule in rules for report in rule.reports]
    if reports:
        result.diagnostics.extend(_position(module, path, reports))
    suppressions = suppression.collect(source) if result.diagnostics else None
    if suppressions is not None:
        result.diagnostics = [
            d
            for d in result.diagnostics
            if not suppressions.covers(d.code, d.line)
        ]
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result


def _rule_failed(result: FileResult, rule: object, exc: BaseException) -> None:
    where = traceback.extract_tb(exc.__traceback__)[-1]
    result.errors.append(
        f"{result.path}: internal error in {getattr(rule, 'code', rule)}: "
        f"{type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})"
    )


def _parse_error(path: str, message: str, line: int, column: int) -> Diagnostic:
    rule = all_rules()["JIT001"]
    return Diagnostic(
        rule.code, rule.name, message, path, max(line, 1), max(column, 1), max(line, 1),
        max(column, 1) + 1, "error",
    )


def _position(module: cst.Module, path: str, reports: list[Report]) -> list[Diagnostic]:
    # Positions cost a full codegen pass (~1.9x a parse), so only files with findings pay it.
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    registry = all_rules()
    out = []
    for report in reports:
        where = positions[report.node]
        out.append(
            Diagnostic(
                code=report.code,
                name=registry[report.code].name,
                message=report.message,
                path=path,
                line=where.start.line,
                column=where.start.column + 1,
                end_line=where.end.line,
                end_column=where.end.column + 1,
                severity=report.severity,
                help=report.help,
            )
        )
    return out
