"""Reading and writing a fixed file without ever corrupting it.

The text keeps its encoding, BOM and line endings (edits come from the file's own text, and
added lines use its first line ending). Writes go to a temporary file in the same directory
that replaces the original in one rename, keeping its mode bits and owner; a file that
changed on disk since it was read is not overwritten.

A symlink is written through: the file replaced is its target, and the link stays a link.
Some files are refused rather than replaced, because a rename would change more than their
text (README, "Fixes"):

- a file its mode makes read-only (`0444`), even for root, who could rename over it;
- a file jitlint cannot keep the owner of (another user's file, unless run as root);
- a file with more than one hard link: the new file would have one name, and the other
  names would keep the old text.

The last comparison with the text that was read happens after the new text is on disk,
just before the rename; an edit made in the microseconds between the two is lost (no
portable rename compares first).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from jitlint.engine.source import SourceText
from jitlint.system.reading import TooLarge, Unreadable, read_regular_file, real_path

_BOM = b"\xef\xbb\xbf"


def diff_names(display: str) -> tuple[str, str]:
    """A diff's names for a file: git's `a/` and `b/` prefixes for a relative path; an
    absolute one is named as it is (`a//tmp/x.py` is no path at all), as `diff -u` names it."""
    if os.path.isabs(display):
        return display, display
    return f"a/{display}", f"b/{display}"


def encode(text: str, original: SourceText) -> bytes:
    data = text.encode(original.encoding)
    return _BOM + data if original.has_bom else data


class ChangedOnDisk(Exception):
    pass


class NotWritable(Exception):
    """The file is left as it is; the message says why."""


def _current(path: str, expected: bytes) -> os.stat_result:
    """The file's stat, if it still holds exactly `expected` (and is a regular file)."""
    try:
        data = read_regular_file(path, len(expected) + 1)
    except Unreadable as exc:
        raise NotWritable(str(exc)) from None
    except TooLarge:  # it grew
        data = None
    if data != expected:
        raise ChangedOnDisk("changed on disk since it was read; not overwritten")
    return os.stat(path)


def write_atomically(path: Path, data: bytes, expected_old: bytes) -> None:
    """Replace the file at `path` (its target, for a symlink) with `data` if it still holds
    `expected_old`. Raises `ChangedOnDisk`, `NotWritable` or OSError; never leaves a
    temporary file behind."""
    target = real_path(path)
    info = _current(target, expected_old)
    problem = _refusal_for(target, info)
    if problem is not None:
        raise NotWritable(problem)
    directory, name = os.path.split(target)
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".jitlint", dir=directory)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        _keep_owner(temporary, info)
        _keep_xattrs(target, temporary)
        # Compare again now that the new text is on disk: the window left is the rename.
        again = _current(target, expected_old)
        if (again.st_ino, again.st_dev) != (info.st_ino, info.st_dev):
            raise ChangedOnDisk("replaced on disk since it was read; not overwritten")
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _keep_xattrs(target: str, temporary: str) -> None:
    """Copy the file's extended attributes (user ones, ACLs, SELinux labels) to its
    replacement; one that cannot be copied stops the write, as losing an ACL would
    silently change who may read the file."""
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(target)
    except OSError:  # a file system without them
        return
    for name in names:
        try:
            value = os.getxattr(target, name)
            if name in os.listxattr(temporary) and os.getxattr(temporary, name) == value:
                continue  # set by the system already (an SELinux label)
            os.setxattr(temporary, name, value)
        except OSError as exc:
            raise NotWritable(
                f"cannot keep its extended attribute {name} ({exc.strerror or exc})"
            ) from None


def _refusal_for(target: str, info: os.stat_result) -> str | None:
    if info.st_nlink > 1:
        return (
            f"it has {info.st_nlink} hard links; replacing it would leave the other links "
            "with the old text"
        )
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return "the file is read-only (its mode has no write permission)"
    if not os.access(target, os.W_OK):
        return "no permission to write it"
    return None


def _keep_owner(temporary: str, info: os.stat_result) -> None:
    """Give the new file the old one's owner and group. Root can; anyone else only has
    their own files to write (`_refusal_for`), and may fail to keep the group, which is
    then the directory's default, as for any new file."""
    if not hasattr(os, "chown"):
        return
    mine = os.stat(temporary)
    if (mine.st_uid, mine.st_gid) == (info.st_uid, info.st_gid):
        return
    try:
        os.chown(temporary, info.st_uid, info.st_gid)
    except PermissionError:
        if mine.st_uid != info.st_uid:
            raise NotWritable(
                "it belongs to another user, and the fixed file would belong to you"
            ) from None
        with contextlib.suppress(PermissionError):
            os.chown(temporary, -1, info.st_gid)
