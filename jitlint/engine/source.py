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
    text: str
    encoding: str
    has_bom: bool
    newline: str  # the first line ending seen, for writers


_NEWLINE = re.compile(r"\r\n|\r|\n")
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=]", re.M)


def decode_source(data: bytes) -> SourceText:
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
