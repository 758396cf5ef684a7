"""`--add-noqa`: a `# noqa: CODES` comment on each line with a finding, as ruff adds them.

The comment goes on the finding's own line (flake8 reads only that line), or, where a comment
cannot stand there (the line ends inside a multi-line string or with a backslash), on the
next line of the same statement that can hold one (jitlint's noqa covers the whole
statement). An existing `# noqa: CODES` on that line gets the new codes added. Files are
read as linting reads them (regular files only, within the size limit) and written as fixes
are: encoding, BOM and line endings kept, atomically. Notebooks are left alone (a comment
in a cell's JSON string is not a line of the file), as ruff leaves them.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable, Sequence
from pathlib import Path

from jitlint.diagnostics import Diagnostic
from jitlint.engine.fixloop.files import ChangedOnDisk, NotWritable, encode, write_atomically
from jitlint.engine.runner import Task
from jitlint.engine.source import DecodeProblem, decode_source
from jitlint.notebook import is_notebook
from jitlint.notebook.document import lines_of
from jitlint.system.reading import TooLarge, Unreadable, read_regular_file

_NOQA_CODES = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*)", re.I)


def add_noqa(
    diagnostics: Iterable[Diagnostic], tasks: Sequence[Task]
) -> tuple[int, list[str], list[str]]:
    """Add the comments to the files on disk: (comments added or extended, errors, notebooks
    with findings that were skipped)."""
    wanted: dict[str, dict[int, set[str]]] = {}
    for d in diagnostics:
        # A file that does not parse cannot be annotated reliably; an unused suppression
        # is fixed by editing the comment, not by another one.
        if d.code not in ("JIT001", "JIT002"):
            wanted.setdefault(d.path, {}).setdefault(d.line, set()).add(d.code)
    added, errors, skipped = 0, [], []
    for task in tasks:
        lines = wanted.get(task.display)
        if not lines or task.path is None:
            continue
        if is_notebook(task.path):
            skipped.append(task.display)
            continue
        path = Path(task.path)
        try:
            original = read_regular_file(task.path, task.max_file_size)
            decoded = decode_source(original)
            text, count = with_noqa(decoded.text, lines)
            if count:
                write_atomically(path, encode(text, decoded), original)
                added += count
        except TooLarge:
            errors.append(f"{task.display}: noqa comments not added: over the size limit")
        except (
            OSError, Unreadable, DecodeProblem, ChangedOnDisk, NotWritable,
            tokenize.TokenError, SyntaxError,
        ) as exc:  # fmt: skip
            errors.append(f"{task.display}: noqa comments not added: {exc}")
    return added, errors, skipped


def with_noqa(text: str, codes_by_line: dict[int, set[str]]) -> tuple[str, int]:
    """`text` with the comments added, and how many lines got one."""
    lines = lines_of(text)  # Python's lines: not split at a form feed or U+2028
    spans, comments = _scan(text)
    targets: dict[int, set[str]] = {}
    for line, codes in codes_by_line.items():
        targets.setdefault(_comment_line(line, lines, spans), set()).update(codes)
    for line, codes in targets.items():
        if 0 < line <= len(lines):
            lines[line - 1] = _annotate(lines[line - 1], codes, comments.get(line))
    return "".join(lines), len(targets)


def _scan(text: str) -> tuple[list[tuple[int, int]], dict[int, str]]:
    """The (first, last) lines of tokens that span lines (strings), and each line's comment."""
    spans: list[tuple[int, int]] = []
    comments: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string
        elif token.end[0] > token.start[0] and token.type not in (tokenize.NL, tokenize.NEWLINE):
            spans.append((token.start[0], token.end[0]))
    return spans, comments


def _comment_line(line: int, lines: Sequence[str], spans: Sequence[tuple[int, int]]) -> int:
    while line < len(lines):
        inside = next((last for first, last in spans if first <= line < last), None)
        if inside is not None:
            line = inside
        elif lines[line - 1].rstrip("\r\n").endswith("\\"):
            line += 1
        else:
            break
    return line


def _annotate(line: str, codes: set[str], comment: str | None) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body) :]
    if comment is not None and (match := _NOQA_CODES.search(comment)):
        existing = re.split(r"[,\s]+", match.group("codes").strip())
        merged = ", ".join(sorted({*existing, *codes}))
        start = len(body) - len(comment) + match.start()
        end = len(body) - len(comment) + match.end()
        return body[:start] + f"# noqa: {merged}" + body[end:] + ending
    return f"{body.rstrip()}  # noqa: {', '.join(sorted(codes))}{ending}"
