"""Human formats: `full` (ruff-like frame with a caret), `concise`, and `--statistics`."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from jitlint.reporting.options import ReportOptions, fixable, help_text
from jitlint.reporting.style import Style
from jitlint.rules._index import INDEX

if TYPE_CHECKING:
    from jitlint.diagnostics import Diagnostic, Edit

__all__ = ["fixable", "format_concise", "format_full", "format_statistics", "summary"]

_DEFAULT = ReportOptions()


def _sort_key(diagnostic: Diagnostic) -> tuple[str, int, int, int, str]:
    return diagnostic.sort_key()


def _header(d: Diagnostic, options: ReportOptions, style: Style) -> str:
    marker = style.marker("[*]") + " " if fixable(d, options.unsafe_fixes) else ""
    return f"{style.path(d.where)}:{d.line}:{d.column}: {style.code(d.code)} {marker}{d.message}"


def format_concise(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions = _DEFAULT,
) -> str:
    style = Style(options.colour)
    return "".join(_header(d, options, style) + "\n" for d in sorted(diagnostics, key=_sort_key))


def format_full(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions = _DEFAULT,
) -> str:
    """One block per finding: header, the source line with a caret under the span, help;
    with `show_fixes`, the lines its fix changes. `sources` holds each file's lines by path,
    a notebook cell's by `path:cell N`."""
    sources = sources or {}
    style = Style(options.colour)
    blocks = []
    for d in sorted(diagnostics, key=_sort_key):
        lines = [_header(d, options, style)]
        text_lines = sources.get(d.where, ())  # a notebook's are by cell
        if 0 < d.line <= len(text_lines):
            source_line = text_lines[d.line - 1].rstrip("\r\n")
            gutter = " " * len(str(d.line))
            start = d.column - 1
            end = d.end_column - 1 if d.end_line == d.line else len(source_line)
            shown = source_line.expandtabs(4)
            caret_start = len(source_line[:start].expandtabs(4))
            caret_width = max(1, len(source_line[:end].expandtabs(4)) - caret_start)
            bar = style.gutter(f"{gutter} |")
            lines += [
                bar,
                f"{style.gutter(f'{d.line} |')} {shown}",
                f"{bar} {' ' * caret_start}{style.caret('^' * caret_width + ' ' + d.code)}",
                bar,
            ]
            help_prefix = f"{gutter} {style.gutter('=')} {style.label('help')}: "
        else:
            help_prefix = f"  {style.gutter('=')} {style.label('help')}: "
        text = help_text(d, options.unsafe_fixes)
        if text:
            lines.append(help_prefix + text)
        if options.show_fixes and d.fix is not None and d.fix.edits and text_lines:
            lines += _fix_preview(d, text_lines, style)
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def _fix_preview(d: Diagnostic, text_lines: Sequence[str], style: Style) -> list[str]:
    """The lines the fix changes, before (`-`, numbered) and after (`+`)."""
    assert d.fix is not None
    lines = [line.rstrip("\r\n") for line in text_lines]
    clusters: list[list[Edit]] = []
    for edit in sorted(d.fix.edits, key=lambda e: (e.line, e.column)):
        if clusters and edit.line <= max(e.end_line for e in clusters[-1]):
            clusters[-1].append(edit)
        else:
            clusters.append([edit])
    last_line = max(e.end_line for e in d.fix.edits)
    width = len(str(min(last_line, len(lines)) or 1))
    out = [f"{' ' * width} {style.gutter('=')} {style.label('fix')} ({d.fix.applicability}):"]
    for cluster in clusters:
        first = cluster[0].line
        last = min(max(e.end_line for e in cluster), len(lines))
        old = lines[first - 1 : last]
        new = _apply("\n".join(old), first, old, cluster)
        for number, line in enumerate(old, first):
            out.append(f"{style.gutter(f'{number:>{width}} |')} {style.removed('- ' + line)}")
        for line in new.split("\n") if new or old else ():
            out.append(f"{style.gutter(' ' * width + ' |')} {style.added('+ ' + line)}")
    return out


def _apply(text: str, first: int, old: Sequence[str], edits: Sequence[Edit]) -> str:
    """`text` (the lines `first`... joined by newlines) with `edits` applied."""

    def offset(line: int, column: int) -> int:
        index = min(line - first, len(old))
        return sum(len(old[i]) + 1 for i in range(index)) + column - 1 if old else 0

    for edit in sorted(edits, key=lambda e: (e.line, e.column), reverse=True):
        start = min(offset(edit.line, edit.column), len(text))
        end = min(offset(edit.end_line, edit.end_column), len(text))
        text = text[:start] + edit.content + text[end:]
    return text.removesuffix("\n")


def format_statistics(
    diagnostics: Sequence[Diagnostic], options: ReportOptions = _DEFAULT, as_json: bool = False
) -> str:
    """Counts per rule, most frequent first: `count  code  [*] name`, `[*]` where `--fix`
    (with the unsafe-fixes setting in force) would fix some of them, as the findings' own
    `[*]` says; `as_json`: ruff's `[{code, name, count, fixable}]`."""
    counts = Counter(d.code for d in diagnostics)
    with_fix = {d.code for d in diagnostics if fixable(d, options.unsafe_fixes)}
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if as_json:
        entries = [
            {"code": code, "name": _name(code), "count": count, "fixable": code in with_fix}
            for code, count in rows
        ]
        return json.dumps(entries, indent=2) + "\n"
    if not counts:
        return ""
    style = Style(options.colour)
    width = len(str(max(counts.values())))
    return "".join(
        f"{count:>{width}}\t{style.code(code)}\t"
        f"{style.marker('[*]') + ' ' if code in with_fix else ''}{_name(code)}\n"
        for code, count in rows
    )


def _name(code: str) -> str:
    return INDEX[code][1] if code in INDEX else ""


def summary(diagnostics: Sequence[Diagnostic], options: ReportOptions = _DEFAULT) -> str:
    count = len(diagnostics)
    if count == 0:
        return Style(options.colour).success("All checks passed!") + "\n"
    text = f"Found {count} error{'s' if count != 1 else ''}.\n"
    ready = sum(1 for d in diagnostics if fixable(d, options.unsafe_fixes))
    hidden = sum(1 for d in diagnostics if d.fix is not None) - ready
    marker = Style(options.colour).marker("[*]")
    if ready:
        text += f"{marker} {ready} fixable with the `--fix` option"
        text += f" ({hidden} more with `--unsafe-fixes`).\n" if hidden else ".\n"
    elif hidden:
        text += f"{hidden} fixable with `--fix --unsafe-fixes`.\n"
    return text
