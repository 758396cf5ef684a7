"""Refuse inputs that would crash or exhaust libcst, before it sees them.

libcst's native parser recurses per nesting level: ~1,500 nested brackets overflow its stack
(SIGSEGV, which no `except` can catch), and long operator chains (a few thousand `-`, `+`,
`.attr` or calls) take minutes and gigabytes. CPython's own parser handles the same inputs in
milliseconds and refuses the deep ones cleanly, so it is the gate: it costs about a tenth of
a libcst parse. On CPython 3.10/3.11 the depth its AST conversion accepts scales with the
recursion limit (three levels per unit), which is lowered here to reject anything deeper than
`MAX_DEPTH`; real code stays far below (CPython refuses 200 nested parentheses).
"""

from __future__ import annotations

import ast
import sys

MAX_DEPTH = 600
DEFAULT_MAX_FILE_SIZE = 1024 * 1024  # bench/README.md, "Memory and limits"
_TOO_DEEP = ("too many nested parentheses", "too complex", "too many levels of indentation")


def _current_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


def guarded_tree(source: str) -> tuple[str | None, ast.Module | None]:
    """A message if `source` nests too deeply to parse safely (else None), and CPython's
    tree of `source` when the gate built one (the project pass reads call lines from it:
    model/project/lines.py)."""
    if len(source) < MAX_DEPTH:
        return None, None  # each nesting level needs at least one character
    saved = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(_current_depth() + MAX_DEPTH // 3)
        tree = compile(source, "<jitlint>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except RecursionError:
        return f"nested more than {MAX_DEPTH} levels deep; too deep to lint", None
    except MemoryError:
        return "too complex to parse", None
    except SyntaxError as exc:
        # Ordinary syntax errors (or syntax newer than this Python) are libcst's to judge.
        if any(marker in (exc.msg or "") for marker in _TOO_DEEP):
            return f"{exc.msg}; too deep to lint", None
        return None, None
    except ValueError:
        return None, None
    finally:
        sys.setrecursionlimit(saved)
    return None, tree


def size_problem(size: int, limit: int | None, exact: bool = True) -> str | None:
    """`exact=False`: the read stopped at `size` bytes, so the file has at least that many."""
    if limit and size > limit:
        amount = f"{size / 1048576:.1f} MiB" if exact else f"more than {limit / 1048576:.1f} MiB"
        return (
            f"file is {amount}, over the {limit / 1048576:.1f} MiB limit "
            "(raise `max-file-size` to lint it)"
        )
    return None
