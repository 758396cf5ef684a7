"""Human formats: `full` (ruff-like frame with a caret), `concise`, and `--statistics`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from jitlint.diagnostics import Diagnostic
from jitlint.rules._index import INDEX


def fixable(diagnostic: Diagnostic, unsafe_fixes: bool) -> bool:
    """Whether `--fix` would apply this finding's fix (ruff marks only those with [*])."""
    fix = diagnostic.fix
    return fix is not None and (fix.applicability == "safe" or unsafe_fixes)


def _fix_marker(diagnostic: Diagnostic, unsafe_fixes: bool) -> str:
    return "[*] " if fixable(diagnostic, unsafe_fixes) else ""


def format_concise(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    unsafe_fixes: bool = False,
) -> str:
    return "".join(
        f"{d.where}:{d.line}:{d.column}: {d.code} {_fix_marker(d, unsafe_fixes)}{d.message}\n"
        for d in sorted(diagnostics, key=Diagnostic.sort_key)
    )


def format_full(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    unsafe_fixes: bool = False,
) -> str:
    """One block per finding: header, the source line with a caret under the span, help.
    `sources` holds each file's lines by path, a notebook cell's by `path:cell N`."""
    sources = sources or {}
    blocks = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        marker = _fix_marker(d, unsafe_fixes)
        lines = [f"{d.where}:{d.line}:{d.column}: {d.code} {marker}{d.message}"]
        text_lines = sources.get(d.where, ())  # a notebook's are by cell
        if 0 < d.line <= len(text_lines):
            source_line = text_lines[d.line - 1].rstrip("\r\n")
            gutter = " " * len(str(d.line))
            start = d.column - 1
            end = d.end_column - 1 if d.end_line == d.line else len(source_line)
            shown = source_line.expandtabs(4)
            caret_start = len(source_line[:start].expandtabs(4))
            caret_width = max(1, len(source_line[:end].expandtabs(4)) - caret_start)
            lines += [
                f"{gutter} |",
                f"{d.line} | {shown}",
                f"{gutter} | {' ' * caret_start}{'^' * caret_width} {d.code}",
                f"{gutter} |",
            ]
            help_prefix = f"{gutter} = help: "
        else:
            help_prefix = "  = help: "
        help_text = d.help
        if d.fix is not None:
            hint = "" if fixable(d, unsafe_fixes) else " (unsafe: needs --unsafe-fixes)"
            help_text = d.fix.message + hint
        if help_text:
            lines.append(help_prefix + help_text)
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def format_statistics(diagnostics: Sequence[Diagnostic]) -> str:
    """Counts per rule, most frequent first: `count  code  [*] name`."""
    counts = Counter(d.code for d in diagnostics)
    with_fix = {d.code for d in diagnostics if d.fix is not None}
    if not counts:
        return ""
    width = len(str(max(counts.values())))
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "".join(
        f"{count:>{width}}\t{code}\t{'[*] ' if code in with_fix else ''}"
        f"{INDEX[code][1] if code in INDEX else ''}\n"
        for code, count in rows
    )


def summary(diagnostics: Sequence[Diagnostic], unsafe_fixes: bool = False) -> str:
    count = len(diagnostics)
    if count == 0:
        return "All checks passed!\n"
    text = f"Found {count} error{'s' if count != 1 else ''}.\n"
    ready = sum(1 for d in diagnostics if fixable(d, unsafe_fixes))
    hidden = sum(1 for d in diagnostics if d.fix is not None) - ready
    if ready:
        text += f"[*] {ready} fixable with the `--fix` option"
        text += f" ({hidden} more with `--unsafe-fixes`).\n" if hidden else ".\n"
    elif hidden:
        text += f"{hidden} fixable with `--fix --unsafe-fixes`.\n"
    return text
