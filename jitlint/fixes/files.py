"""Reading and writing a fixed file without ever corrupting it.

The text keeps its encoding, BOM and line endings (edits come from the file's own text, and
added lines use its first line ending). Writes go to a temporary file in the same directory
that replaces the original in one rename, keeping its mode bits; a file that changed on disk
since it was read is not overwritten.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from jitlint.engine.source import SourceText

_BOM = b"\xef\xbb\xbf"


def encode(text: str, original: SourceText) -> bytes:
    data = text.encode(original.encoding)
    return _BOM + data if original.has_bom else data


class ChangedOnDisk(Exception):
    pass


def write_atomically(path: Path, data: bytes, expected_old: bytes) -> None:
    current = path.read_bytes()
    if current != expected_old:
        raise ChangedOnDisk(f"{path}: changed on disk since it was read; not overwritten")
    mode = stat.S_IMODE(path.stat().st_mode)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=".jitlint", dir=path.parent
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
