"""`# noqa`, `# jitlint: ignore[...]` and `# jitlint: file-ignore[...]` comments, and the
file-level comments of flake8 and ruff: `# flake8: noqa` and `# ruff: noqa` (every code, the
whole file) and `# ruff: noqa: JIT101` (those codes, the whole file), as ruff reads them.

Comments are found with the tokenizer (so `# noqa` inside a string does not count), and only in
files whose text mentions `noqa` or `jitlint` at all. A comment on any line of a logical line
(a statement split over several lines, or a compound statement's header) covers that logical
line, as flake8 does. Codes match by prefix, as in flake8: `# noqa: JIT1` covers JIT101.
"""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from dataclasses import dataclass, field

_NOQA = re.compile(r"#\s*noqa(?::\s?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.I)
_CODES = r"[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*"
_FILE_NOQA = re.compile(rf"#\s*(?:flake8|ruff)[:=]\s*noqa(?::\s*(?P<codes>{_CODES}))?", re.I)
_JITLINT = re.compile(r"#\s*jitlint:\s*(?P<kind>ignore|file-ignore)(?:\[(?P<codes>[^\]]*)\])?")
_QUICK = re.compile(r"noqa|jitlint", re.I)

ALL: frozenset[str] = frozenset({""})  # the empty prefix matches every code


def _codes(text: str | None) -> frozenset[str]:
    if not text:
        return ALL
    return frozenset(c.upper() for c in re.split(r"[,\s]+", text.strip()) if c)


@dataclass
class Suppressions:
    file_codes: set[str] = field(default_factory=set)
    # physical line of a comment -> code prefixes it suppresses
    line_codes: dict[int, frozenset[str]] = field(default_factory=dict)
    # (first, last) physical lines of each logical line, sorted
    spans: list[tuple[int, int]] = field(default_factory=list)

    def covers(self, code: str, line: int) -> bool:
        if any(code.startswith(prefix) for prefix in self.file_codes):
            return True
        first, last = self._span(line)
        for comment_line, codes in self.line_codes.items():
            if first <= comment_line <= last and any(code.startswith(p) for p in codes):
                return True
        return False

    def _span(self, line: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.spans, (line, float("inf"))) - 1
        if index >= 0 and self.spans[index][0] <= line <= self.spans[index][1]:
            return self.spans[index]
        return line, line


# Where Python ends a line (`str.splitlines` also ends one at a form feed or U+2028); the
# tokenizer reads through universal newlines, so a file with CR-only endings has its lines.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def collect(source: str) -> Suppressions | None:
    """The suppressions of a file, or None when it has none (the common, cheap case)."""
    if not _QUICK.search(source):
        return None
    found = Suppressions()
    try:
        comments, found.spans = _scan_tokens(source)
    except (tokenize.TokenError, SyntaxError):
        comments = [
            (number, line[line.index("#") :])
            for number, line in enumerate(_LINE_BREAK.split(source), 1)
            if "#" in line
        ]
    for line, text in comments:
        for match in _NOQA.finditer(text):
            found.line_codes[line] = found.line_codes.get(line, frozenset()) | _codes(
                match.group("codes")
            )
        for match in _FILE_NOQA.finditer(text):
            found.file_codes |= _codes(match.group("codes"))
        for match in _JITLINT.finditer(text):
            codes = _codes(match.group("codes"))
            if match.group("kind") == "file-ignore":
                found.file_codes |= codes
            else:
                found.line_codes[line] = found.line_codes.get(line, frozenset()) | codes
    if not found.line_codes and not found.file_codes:
        return None
    return found


def _scan_tokens(source: str) -> tuple[list[tuple[int, str]], list[tuple[int, int]]]:
    comments: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    start: int | None = None
    skip = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
    for tok in tokenize.generate_tokens(io.StringIO(source, newline=None).readline):
        if tok.type == tokenize.COMMENT:
            comments.append((tok.start[0], tok.string))
        elif tok.type == tokenize.NEWLINE:
            if start is not None:
                spans.append((start, tok.end[0]))
            start = None
        elif tok.type not in skip and start is None and tok.type != tokenize.ENDMARKER:
            start = tok.start[0]
    return comments, spans
