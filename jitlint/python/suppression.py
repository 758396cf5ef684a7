"""`# noqa`, `# jitlint: ignore[...]` and `# jitlint: file-ignore[...]` comments, and the
file-level comments `# jitlint: noqa`, `# flake8: noqa` and `# ruff: noqa` (every code, the
whole file) and `# jitlint: noqa: JIT101` / `# ruff: noqa: JIT101` (those codes, the whole
file), as ruff reads its own.

Comments are found with the tokenizer (so `# noqa` inside a string does not count), and only in
files whose text mentions `noqa` or `jitlint` at all. A comment on any line of a logical line
(a statement split over several lines, or a compound statement's header) covers that logical
line, as flake8 does. Codes match by prefix, as in flake8: `# noqa: JIT1` covers JIT101.

Each line-level comment is also kept as a `Directive`, so JIT002 (`unused_directives`) can
tell which of its JIT codes suppressed nothing.
"""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Literal

_CODES = r"[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*"
_NOQA = re.compile(rf"#\s*noqa(?::\s?(?P<codes>{_CODES}))?", re.I)
_FILE_NOQA = re.compile(
    rf"#\s*(?:flake8|ruff|jitlint)[:=]\s*noqa(?::\s*(?P<codes>{_CODES}))?", re.I
)
_JITLINT = re.compile(r"#\s*jitlint:\s*(?P<kind>ignore|file-ignore)(?:\[(?P<codes>[^\]]*)\])?")
_QUICK = re.compile(r"noqa|jitlint", re.I)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # Python's; str.splitlines() also splits on \f

ALL: frozenset[str] = frozenset({""})  # the empty prefix matches every code


def _codes(text: str | None) -> frozenset[str]:
    if not text:
        return ALL
    return frozenset(_code_list(text))


def _code_list(text: str) -> list[str]:
    return [c.upper() for c in re.split(r"[,\s]+", text.strip()) if c]


@dataclass(frozen=True)
class Directive:
    """One line-level comment: `# noqa[: CODES]` or `# jitlint: ignore[[CODES]]`."""

    kind: Literal["noqa", "ignore"]
    line: int
    start: int  # 0-based columns of the directive in its line
    end: int
    codes: tuple[str, ...] | None  # as written, upper-cased; None: every code
    codes_start: int  # 0-based columns of the codes' text (end == start: none)
    codes_end: int
    comment_start: int  # 0-based column of the comment the directive is part of
    comment_end: int


@dataclass
class Suppressions:
    """A file's suppression comments, and the lines they cover."""

    file_codes: set[str] = field(default_factory=set)
    # physical line of a comment -> code prefixes it suppresses
    line_codes: dict[int, frozenset[str]] = field(default_factory=dict)
    # (first, last) physical lines of each logical line, sorted
    spans: list[tuple[int, int]] = field(default_factory=list)
    directives: list[Directive] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # the source's lines, without line breaks
    # False when the tokenizer failed and comments were guessed from `#` (maybe in a string)
    tokenized: bool = True

    def covers(self, code: str, line: int) -> bool:
        if any(code.startswith(prefix) for prefix in self.file_codes):
            return True
        first, last = self._span(line)
        for comment_line, codes in self.line_codes.items():
            if first <= comment_line <= last and any(code.startswith(p) for p in codes):
                return True
        return False

    def silences(self, directive: Directive, code: str = "JIT002") -> bool:
        """Whether a finding `code` about `directive` itself is suppressed: by a file-level
        comment, by another comment on its statement, or by `code` among its own codes (a
        bare `# jitlint: ignore` that suppresses nothing does not silence its own report)."""
        if any(code.startswith(prefix) for prefix in self.file_codes):
            return True
        first, last = self._span(directive.line)
        for other in self.directives:
            if not first <= other.line <= last:
                continue
            if other is directive:
                if other.codes is not None and any(code.startswith(p) for p in other.codes):
                    return True
            elif other.codes is None or any(code.startswith(p) for p in other.codes):
                return True
        return False

    def reaches(self, directive: Directive, line: int) -> bool:
        """Whether `directive` covers a finding on `line`."""
        first, last = self._span(line)
        return first <= directive.line <= last

    def _span(self, line: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.spans, (line, float("inf"))) - 1
        if index >= 0 and self.spans[index][0] <= line <= self.spans[index][1]:
            return self.spans[index]
        return line, line


def collect(source: str) -> Suppressions | None:
    """The suppressions of a file, or None when it has none (the common, cheap case)."""
    if not _QUICK.search(source):
        return None
    found = Suppressions(lines=_LINE_BREAK.split(source))
    try:
        comments, found.spans = _scan_tokens(source)
    except (tokenize.TokenError, SyntaxError):
        found.tokenized = False
        comments = [
            (number, line.index("#"), line[line.index("#") :])
            for number, line in enumerate(found.lines, 1)
            if "#" in line
        ]
    for line, column, text in comments:
        for match in _NOQA.finditer(text):
            found.line_codes[line] = found.line_codes.get(line, frozenset()) | _codes(
                match.group("codes")
            )
            found.directives.append(_directive("noqa", line, column, text, match))
        for match in _FILE_NOQA.finditer(text):
            found.file_codes |= _codes(match.group("codes"))
        for match in _JITLINT.finditer(text):
            codes = _codes(match.group("codes"))
            if match.group("kind") == "file-ignore":
                found.file_codes |= codes
            else:
                found.line_codes[line] = found.line_codes.get(line, frozenset()) | codes
                found.directives.append(_directive("ignore", line, column, text, match))
    if not found.line_codes and not found.file_codes:
        return None
    return found


def _directive(
    kind: Literal["noqa", "ignore"], line: int, column: int, comment: str, match: re.Match[str]
) -> Directive:
    text = match.group("codes")
    codes = tuple(_code_list(text)) if text and text.strip() else None
    if text is None:
        codes_start = codes_end = match.end()
    else:
        codes_start, codes_end = match.span("codes")
    return Directive(
        kind,
        line,
        column + match.start(),
        column + match.end(),
        codes,
        column + codes_start,
        column + codes_end,
        column,
        column + len(comment),
    )


@dataclass(frozen=True)
class Unused:
    """A directive with codes that suppress nothing: each dead code and why."""

    directive: Directive
    dead: tuple[tuple[str, str], ...]  # (code, reason); code "" for a bare `jitlint: ignore`
    kept: tuple[str, ...]  # the codes that stay in the comment


def unused_directives(
    found: Suppressions,
    findings: Iterable[tuple[str, int]],
    enabled: Collection[str],
    known: Collection[str],
) -> list[Unused]:
    """The directives of `found` with JIT codes that suppress none of `findings` ((code,
    line) pairs before suppression): a code no finding matched, a code of a rule not
    enabled for the file, or a code no rule has. Other tools' codes (`E501`) and a bare
    `# noqa`, which other tools read too, are never dead; a bare `# jitlint: ignore` is when
    its statement has no finding at all. Nothing is judged where the tokenizer failed."""
    if not found.tokenized:  # a `#` in a string is no comment to edit
        return []
    findings = list(findings)
    out = []
    for directive in found.directives:
        reached = [code for code, line in findings if found.reaches(directive, line)]
        if directive.codes is None:
            if directive.kind == "ignore" and not reached:
                out.append(Unused(directive, (("", "no finding here"),), ()))
            continue
        dead, kept = [], []
        for code in directive.codes:
            reason = _dead_reason(code, reached, enabled, known)
            if reason is None:
                kept.append(code)
            else:
                dead.append((code, reason))
        if dead:
            out.append(Unused(directive, tuple(dead), tuple(kept)))
    return out


def _dead_reason(
    code: str, reached: list[str], enabled: Collection[str], known: Collection[str]
) -> str | None:
    if not code.startswith("JIT") or code.startswith("JIT002"):
        return None  # another tool's code, or the one that keeps this finding quiet
    if any(finding.startswith(code) for finding in reached):
        return None
    if not any(k.startswith(code) for k in known):
        return "unknown code"
    if not any(k.startswith(code) for k in enabled):
        return "rule not enabled"
    return "no finding here"


def _scan_tokens(source: str) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    comments: list[tuple[int, int, str]] = []
    spans: list[tuple[int, int]] = []
    start: int | None = None
    skip = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
    for tok in tokenize.generate_tokens(io.StringIO(source, newline=None).readline):
        if tok.type == tokenize.COMMENT:
            comments.append((tok.start[0], tok.start[1], tok.string))
        elif tok.type == tokenize.NEWLINE:
            if start is not None:
                spans.append((start, tok.end[0]))
            start = None
        elif tok.type not in skip and start is None and tok.type != tokenize.ENDMARKER:
            start = tok.start[0]
    return comments, spans
