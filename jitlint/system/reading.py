"""Reading source files: only regular files, never a blocking open, never an unbounded read.

`stat` says what a path is before anything is opened: a FIFO named `x.py` would block in
`open()` until a writer came, a socket cannot be opened at all, and a device (`/dev/zero`
behind a `.py` link) never ends. The open itself is non-blocking and checked again with
`fstat` (the path may have changed in between), and the read stops one byte past the size
limit whatever `stat` said (files under /proc report a size of 0).
"""

from __future__ import annotations

import errno
import os
import stat

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_OPEN_FLAGS |= getattr(os, "O_BINARY", 0)


class Unreadable(Exception):
    """The path cannot be read as a source file; the message says why (for JIT001)."""


class TooLarge(Exception):
    """The file has more than `limit` bytes; `size` is how many were seen (at least)."""

    def __init__(self, size: int, exact: bool) -> None:
        super().__init__(size)
        self.size = size
        self.exact = exact


def kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def describe(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop (too many levels of symbolic links)"
    return exc.strerror or str(exc)


def read_regular_file(path: str, limit: int | None) -> bytes:
    """The bytes of the regular file at `path` (links followed), at most `limit` of them
    (None or 0: no limit). Raises `Unreadable` or `TooLarge`."""
    try:
        before = os.stat(path)
    except OSError as exc:
        raise Unreadable(f"cannot read: {describe(exc)}") from None
    what = kind(before.st_mode)
    if what is not None:
        raise Unreadable(f"{what}, not a regular file; not read")
    if limit and before.st_size > limit:
        raise TooLarge(before.st_size, exact=True)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise Unreadable(f"cannot read: {describe(exc)}") from None
    try:
        what = kind(os.fstat(fd).st_mode)
        if what is not None:  # replaced by something else since the stat above
            raise Unreadable(f"{what}, not a regular file; not read")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1) if limit else handle.read()
    except OSError as exc:
        raise Unreadable(f"cannot read: {describe(exc)}") from None
    finally:
        os.close(fd)
    if limit and len(data) > limit:
        raise TooLarge(len(data), exact=False)
    return data


def real_path(path: str | os.PathLike[str]) -> str:
    """The path with links resolved as far as they go; a loop or a dangling link ends the
    resolution there instead of raising (`Path.resolve` raises RuntimeError on a loop up to
    Python 3.12)."""
    return os.path.realpath(path)


def is_symlink_loop(path: str | os.PathLike[str]) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False
