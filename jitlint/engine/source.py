"""Turn bytes into text the way Python does, remembering what a writer must restore."""

from __future__ import annotations

import codecs
import io
import re
import tokenize
from dataclasses import dataclass

_BOM = codecs.BOM_UTF8


class DecodeProblem(Exception):
    """The bytes are not text Python would accept; carries a 1-based position."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@dataclass(frozen=True)
class SourceText:
    """A file's bytes decoded as Python decodes them, and how to write them back."""

    text: str
    encoding: str
    has_bom: bool
    newline: str  # the first line ending seen, for writers


_NEWLINE = re.compile(r"\r\n|\r|\n")
# UTF-32 first: its little-endian BOM starts with UTF-16's.
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32-LE"),
    (codecs.BOM_UTF32_BE, "UTF-32-BE"),
    (codecs.BOM_UTF16_LE, "UTF-16-LE"),
    (codecs.BOM_UTF16_BE, "UTF-16-BE"),
)
_WIDE_SAMPLE = 256
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=]", re.M)


def decode_source(data: bytes) -> SourceText:
    wide = _wide_encoding(data)
    if wide is not None:
        raise DecodeProblem(
            f"file is {wide} encoded; Python reads source files as UTF-8 (or an "
            "ASCII-compatible encoding named in a coding comment): save it as UTF-8"
        )
    if b"\0" in data:
        offset = data.index(b"\0")
        line = data.count(b"\n", 0, offset) + 1
        raise DecodeProblem("file contains NUL bytes (is it a binary file?)", line, 1)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if not _COOKIE.search(b"\n".join(data.splitlines()[:2])):
            encoding = "utf-8"  # no declaration: an undecodable first line, reported below
        else:
            line = getattr(exc, "lineno", 1) or 1
            raise DecodeProblem(f"bad encoding declaration: {exc}", line) from exc
    has_bom = data.startswith(_BOM)
    body = data[len(_BOM) :] if has_bom else data
    codec = "utf-8" if encoding == "utf-8-sig" else encoding
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as exc:
        line = body.count(b"\n", 0, exc.start) + 1
        column = exc.start - (body.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DecodeProblem(
            f"cannot decode byte {body[exc.start]:#04x} as {codec}", line, column
        ) from exc
    except LookupError as exc:
        raise DecodeProblem(f"unknown encoding {encoding!r}") from exc
    match = _NEWLINE.search(text)
    return SourceText(text, codec, has_bom, match.group(0) if match else "\n")


def split_lines(text: str) -> list[str]:
    """Lines (with their endings) split at Python's own line breaks: `str.splitlines` also
    splits at a form feed and other characters that do not end a line of Python."""
    lines, start = [], 0
    for match in _NEWLINE.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def _wide_encoding(data: bytes) -> str | None:
    """UTF-16 or UTF-32, by BOM, or by the NUL bytes mostly-ASCII text has in them: such a
    file is text, just not one Python reads, and deserves better than "binary"."""
    for bom, name in _WIDE_BOMS:
        if data.startswith(bom):
            return name
    sample = data[: _WIDE_SAMPLE - _WIDE_SAMPLE % 4]
    if len(sample) < 4 or b"\0" not in sample[:8]:
        return None
    for width, name, zeros in ((4, "UTF-32", (1, 2, 3)), (2, "UTF-16", (1,))):
        for order, positions in (("LE", zeros), ("BE", tuple(width - 1 - z for z in zeros))):
            text_positions = [i for i in range(width) if i not in positions]
            nuls = sum(sample[p::width].count(0) for p in positions)
            slots = sum(len(sample[p::width]) for p in positions)
            text_nuls = sum(sample[p::width].count(0) for p in text_positions)
            if nuls >= 0.9 * slots and text_nuls <= 0.1 * (len(sample) - slots):
                return f"{name}-{order}"
    return None


@dataclass(frozen=True)
class FormFeedShift:
    """Characters cut from the start of some lines (1-based line -> count)."""

    removed: dict[int, int]

    def column(self, line: int, column: int) -> int:
        return column + self.removed.get(line, 0)


def cut_indentation_form_feeds(text: str) -> tuple[str, FormFeedShift] | None:
    """libcst does not round-trip a form feed in the indentation of a statement: it drops
    it, or repeats it on every line of the block, so positions drift by a column and a fix
    lands in the wrong place (`return xjnp.where(...)`). Python's tokenizer resets the
    indentation column at a form feed, so cutting each such line's indentation after its
    last form feed keeps the program's meaning. Returns the cut text and how to map its
    columns back, or None when nothing needs cutting (or the text does not tokenize)."""
    if "\f" not in text:
        return None
    starts: set[int] = set()
    expect = True
    skip = {tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NEWLINE:
                expect = True
            elif expect and token.type not in skip and token.type != tokenize.ENDMARKER:
                starts.add(token.start[0])
                expect = False
    except (tokenize.TokenError, SyntaxError):
        return None
    lines = split_lines(text)
    removed: dict[int, int] = {}
    for number in sorted(starts):
        line = lines[number - 1]
        indent = len(line) - len(line.lstrip(" \t\f"))
        if "\f" in line[:indent]:
            cut = line.rindex("\f", 0, indent) + 1
            lines[number - 1] = line[cut:]
            removed[number] = cut
    if not removed:
        return None
    return "".join(lines), FormFeedShift(removed)
