"""From a reported error to the finding that explains it, or to why none does.

The user's files of the traceback are linted as one project, as `jitlint FILES` lints them
(with the rules of the error turned on), so a helper traced from another file of the
traceback is seen as traced. Files beside a user file in the same package come along: a
helper a traced function calls need not be in the traceback.

A finding explains the error when its rule causes that error and it sits on a user frame's
statement (match.py); failing that, for errors raised at a call but caused where the function
is jitted, on the definition of the function that frame calls, and for a dtype mismatch, a
constant of the frame's function that its message names; those two only when exactly one
finding qualifies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jitlint.diagnostics import Diagnostic
from jitlint.explain.frames import (
    Skipped,
    called_names,
    definitions,
    function_lines,
    statement_lines,
    where_is,
)
from jitlint.explain.match import KnownError, Located, explaining, hits_by_place, recognise
from jitlint.explain.parse import Frame, Reported

# Package neighbours linted beside a user file, at most (a big package is not read whole).
MAX_NEIGHBOURS = 40

# Lints the files (the user's first) with these codes on; findings with display paths.
# (files, the codes to select, `assume-traced` patterns to add) -> the project's findings.
Lint = Callable[[Sequence[Path], tuple[str, ...], Sequence[str]], list[Diagnostic]]
# Errors raised where a tracer is converted: the function of the innermost user frame ran
# under jit, whatever the linted files show of the jit itself (entry hints for the model).
_TRACER_CODES = frozenset({"JIT101", "JIT102", "JIT103", "JIT104", "JIT105"})


@dataclass
class Explanation:
    """What explains one reported error: the known error, the finding, where it points."""

    reported: Reported
    known: KnownError | None = None
    finding: Diagnostic | None = None
    located: Located | None = None
    why_not: list[str] = field(default_factory=list)  # when nothing explains it
    linted: list[str] = field(default_factory=list)  # display paths of the user's files
    task_paths: list[Path] = field(default_factory=list)  # every file linted

    @property
    def explained(self) -> bool:
        return self.finding is not None


def explain(reported: Reported, base: Path, lint: Lint, search: Sequence[Path] = ()) -> Explanation:
    """`base`: the folder relative paths of the log are read from. `search`: files to look
    in when the log names none (TF's retracing warning names only a function)."""
    from jitlint.engine.runner import display_path

    explanation = Explanation(reported, recognise(reported))
    known = explanation.known
    if known is None:
        explanation.why_not.append(
            f"`{reported.headline}` is not one of the JIT/XLA errors jitlint explains"
            + _why_unknown(reported)
        )
        return explanation
    located, skipped = _user_frames(reported, base)
    files = list(dict.fromkeys(path for path, _ in located))
    if reported.retraced is not None and not files:
        files = list(search)
    if not files:
        explanation.why_not.append(_no_user_frame(reported, skipped))
        return explanation
    every = _with_neighbours(files)
    hints = []
    if located and _TRACER_CODES.intersection(known.codes):
        innermost, frame = located[0]  # the likeliest place of the error
        hints.append(f"frame:{display_path(innermost)}:{frame.line}")
    diagnostics = lint(every, known.codes, hints)
    explanation.linted = [display_path(p) for p in files]
    explanation.task_paths = every
    if reported.retraced is not None:
        return _explain_retracing(explanation, reported.retraced, files, diagnostics)
    frames = [_locate(path, frame) for path, frame in located]
    found = explaining(known, frames, diagnostics)
    if found is None and known.at_definition:
        found = _at_definition(reported, located, frames, every, known, diagnostics)
    if found is None and known.in_function:
        found = _in_function(frames, known, diagnostics)
    if found is not None:
        explanation.finding, explanation.located = found
        return explanation
    explanation.why_not.extend(_nothing_on_frames(known, frames, diagnostics))
    return explanation


def _why_unknown(reported: Reported) -> str:
    message = reported.links[-1].message
    if "Graph execution error" in message and not any(
        known in message for known in ("compile-time constant", "unsupported operations")
    ):
        return " (TF's graph execution error names neither the failing op nor its cause here)"
    return ""


def _locate(path: Path, frame: Frame) -> Located:
    from jitlint.engine.runner import display_path

    text = _text(path)
    if frame.scope:
        lines = function_lines(text, frame.line, frame.scope)
    else:
        lines = statement_lines(text, frame.line)
    return Located(frame, display_path(path), *lines)


def _at_definition(
    reported: Reported,
    located: Sequence[tuple[Path, Frame]],
    frames: Sequence[Located],
    files: Sequence[Path],
    known: KnownError,
    diagnostics: Sequence[Diagnostic],
) -> tuple[Diagnostic, Located] | None:
    """A finding on the definition of the function the innermost user frame calls (or a
    message names): only when exactly one definition has one."""
    from jitlint.engine.runner import display_path

    names = set(reported.functions)
    for (path, frame), place in zip(located, frames, strict=True):
        if not frame.scope:  # the innermost frame of the traceback proper
            names |= called_names(_text(path), place.first, place.last)
            break
    if not names:
        return None
    places = []
    for path in files:
        for first, last in definitions(_text(path), names):
            frame = Frame(str(path), first, "", "def")
            places.append(Located(frame, display_path(path), first, last))
    found = hits_by_place(known, places, diagnostics)
    if len(found) != 1:
        return None
    located, hits = found[0]
    return hits[0], located


def _in_function(
    frames: Sequence[Located], known: KnownError, diagnostics: Sequence[Diagnostic]
) -> tuple[Diagnostic, Located] | None:
    """A finding in a user frame's file whose message names that frame's function (JIT201:
    a constant made there meets a tensor of another dtype); only when exactly one does."""
    hits: dict[Diagnostic, Located] = {}
    for place in frames:
        function = place.frame.function
        if place.frame.scope or not function.isidentifier():
            continue
        for d in diagnostics:
            if d.code in known.codes and d.path == place.display and f"`{function}`" in d.message:
                hits.setdefault(d, place)
    return next(iter(hits.items())) if len(hits) == 1 else None


def _user_frames(reported: Reported, base: Path) -> tuple[list[tuple[Path, Frame]], list[Skipped]]:
    """The user's frames, the likeliest place of the error first: the innermost user frame
    of each run of frames (the longest run first, then in the log's order), then the next
    ones out; the places messages name come last."""
    ranked: list[tuple[tuple[int, int, int], Path, Frame]] = []
    skipped: list[Skipped] = []
    for index, stack in enumerate(reported.stacks):
        users: list[tuple[Path, Frame]] = []
        for frame in stack:
            where = where_is(frame, base)
            if isinstance(where, Path):
                users.append((where, frame))
            else:
                skipped.append(Skipped(frame, where))
        for depth, (path, frame) in enumerate(reversed(users)):
            ranked.append(((depth, -len(users), index), path, frame))
    ranked.sort(key=lambda item: item[0])
    located: list[tuple[Path, Frame]] = []
    seen: set[tuple[str, int, str]] = set()
    hints = []
    for hint in reported.hints:
        where = where_is(hint, base)
        if isinstance(where, Path):
            hints.append((where, hint))
    for path, frame in [*((p, f) for _, p, f in ranked), *hints]:
        key = (str(path.resolve()), frame.line, frame.scope)
        if key not in seen:
            seen.add(key)
            located.append((path, frame))
    return located, skipped


def _with_neighbours(files: list[Path]) -> list[Path]:
    every = list(files)
    known = {p.resolve() for p in every}
    for folder in dict.fromkeys(p.parent for p in files):
        if not (folder / "__init__.py").is_file():
            continue  # a folder of scripts: its other files are unrelated programs
        for path in sorted(folder.glob("*.py"))[:MAX_NEIGHBOURS]:
            if path.resolve() not in known:
                known.add(path.resolve())
                every.append(path)
    return every


def _text(path: Path) -> str:
    from jitlint.engine.source import DecodeProblem, decode_source
    from jitlint.python.guards import DEFAULT_MAX_FILE_SIZE
    from jitlint.system.reading import TooLarge, Unreadable, read_regular_file

    try:
        return decode_source(read_regular_file(str(path), DEFAULT_MAX_FILE_SIZE)).text
    except (Unreadable, TooLarge, DecodeProblem, OSError):
        return ""


def _no_user_frame(reported: Reported, skipped: list[Skipped]) -> str:
    if reported.retraced is not None:
        return (
            f"the warning names the function `{reported.retraced}` but no file; name the "
            "files or folders to look in with --search"
        )
    if not skipped:
        return "the traceback has no frames"
    counts: dict[str, list[str]] = {}
    for item in skipped:
        counts.setdefault(item.why, []).append(item.frame.path)
    parts = []
    for why, paths in counts.items():
        examples = ", ".join(dict.fromkeys(paths))
        if len(examples) > 160:
            examples = examples[:157] + "..."
        parts.append(f"{len(paths)} {why} ({examples})")
    return "no frame of the traceback is in a file it can read: " + "; ".join(parts)


def _nothing_on_frames(
    known: KnownError, frames: Sequence[Located], diagnostics: Sequence[Diagnostic]
) -> list[str]:
    codes = "/".join(known.codes)
    lines = {(f.display, line) for f in frames for line in range(f.first, f.last + 1)}
    elsewhere = [d for d in diagnostics if d.code in known.codes]
    other = [d for d in diagnostics if d.code not in known.codes and (d.path, d.line) in lines]
    reasons = []
    if other:
        listed = ", ".join(f"{d.code} at {d.path}:{d.line}" for d in other[:3])
        reasons.append(
            f"the traceback's lines have findings of other rules ({listed}), none of which "
            f"causes {known.title}"
        )
    if elsewhere:
        listed = ", ".join(f"{d.code} at {d.path}:{d.line}" for d in elsewhere[:3])
        reasons.append(
            f"{codes} findings exist ({listed}) but on no line of the traceback, so they are "
            "not taken as the cause"
        )
    if not reasons:
        reasons.append(
            f"no {codes} finding on the traceback's lines: the value may come from code "
            "outside the files it read (installed code, a file not in the traceback), or "
            "this is a case jitlint does not model"
        )
    return reasons


def _explain_retracing(
    explanation: Explanation, function: str, files: list[Path], diagnostics: list[Diagnostic]
) -> Explanation:
    """A JIT207 finding inside `def function` or naming it; only when exactly one does."""
    from jitlint.engine.runner import display_path

    spans = {display_path(p): _def_spans(_text(p), function) for p in files}
    hits = [
        d
        for d in diagnostics
        if d.code in ("JIT207",)
        and (
            f"`{function}`" in d.message
            or any(first <= d.line <= last for first, last in spans.get(d.path, []))
        )
    ]
    if len(hits) == 1:
        explanation.finding = hits[0]
    elif hits:
        listed = ", ".join(f"{d.path}:{d.line}" for d in hits[:4])
        explanation.why_not.append(
            f"several JIT207 findings concern `{function}` ({listed}); the warning does not "
            "say which one retraced"
        )
    else:
        explanation.why_not.append(
            f"no JIT207 finding concerns a function `{function}` in the files it read"
        )
    return explanation


def _def_spans(source: str, name: str) -> list[tuple[int, int]]:
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return [
        (min([n.lineno, *(d.lineno for d in n.decorator_list)]), n.end_lineno or n.lineno)
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name
    ]
