"""Find a Python traceback (or TF's retracing warning) in a log and take it apart.

A log may hold other output around the traceback, several tracebacks, and chains joined by
Python's "During handling..." / "The above exception..." sentences. The uncaught error is the
last chain; every link of it is kept, because the link that names the JIT/XLA problem is not
always the last one (Keras wraps a layer's error in its own message).

Frames are read from the traceback proper and from the messages: TF quotes the user's frames
("in user code:", "defined at (most recent call last):") in the same `File "...", line N`
form, and JAX names the function it was tracing ("while tracing the function f at p.py:21").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TRACEBACK_START = "Traceback (most recent call last):"
CHAIN_SEPARATORS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
# A message is read this far at most: what follows a long message is other output.
MAX_MESSAGE_LINES = 80

_FRAME = re.compile(r'\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<function>\S+))?')
_EXCEPTION = re.compile(r"(?P<name>[A-Za-z_][\w.]*)(?::\s?(?P<message>.*))?")
_CARETS = re.compile(r"[\s^~]+")
_TRACING_AT = re.compile(
    r"while tracing the function (?P<function>\S+) at (?P<path>\S+?\.py):(?P<line>\d+)"
)
_LEAKED_IN = re.compile(
    r"being traced when the value leaked was (?P<function>\S+) at (?P<path>\S+?\.py):(?P<line>\d+)"
)
_FUNCTION = re.compile(r"<function (?P<function>[\w.<>]+) at 0x")
_RETRACING = re.compile(
    r"\d+ out of the last \d+ calls to <(?:function|bound method) (?P<function>[^\s>]+)"
    r".*?triggered tf\.function retracing"
)


@dataclass(frozen=True)
class Frame:
    """A place in a traceback or a log: a file's line and its function."""

    path: str  # as the log gives it
    line: int
    function: str = ""
    # A frame of the traceback: "". A place a message names: "def" (the def at `line`: its
    # decorators and header), "body" (the whole function at `line`).
    scope: str = ""


@dataclass(frozen=True)
class Link:
    """One exception of a chain: its class name (last dotted component) and message."""

    exception: str
    message: str


@dataclass(frozen=True)
class Reported:
    """What the log reports: an uncaught error (its chain's links, innermost last) or the
    retracing warning (`retraced` names the function), with every frame it quotes, in the
    order of the log, in runs (`stacks`: a traceback, TF's "in user code:", each "Stack trace
    for op definition"), and the frames its messages point at (`hints`)."""

    links: tuple[Link, ...]
    stacks: tuple[tuple[Frame, ...], ...]  # each run of frames, outermost first
    hints: tuple[Frame, ...] = ()
    retraced: str | None = None
    functions: tuple[str, ...] = ()  # functions the messages name (`<function f at 0x..>`)

    @property
    def frames(self) -> tuple[Frame, ...]:
        return tuple(frame for stack in self.stacks for frame in stack)

    @property
    def headline(self) -> str:
        if self.retraced is not None:
            return f"tf.function retracing warning for `{self.retraced}`"
        last = self.links[-1]
        first_line = last.message.strip().splitlines()[0] if last.message.strip() else ""
        return f"{last.exception}: {first_line}" if first_line else last.exception


def find_all(text: str) -> list[Reported]:
    """Every uncaught error of the log (each chain), in order; a log without a traceback
    gives its retracing warnings instead."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == TRACEBACK_START]
    found = []
    chains = _chains(lines, starts)
    for number, chain in enumerate(chains):
        bound = chains[number + 1][0] if number + 1 < len(chains) else len(lines)
        reported = _read_chain(lines, chain, bound)
        if reported is not None:
            found.append(reported)
    if found:
        return found
    found = _pytest_failures(lines)
    if found:
        return found
    for line in lines:
        match = _RETRACING.search(line)
        if match:
            name = match.group("function").split(".")[-1]
            found.append(Reported((Link("retracing", line.strip()),), (), retraced=name))
    return found


_PYTEST_SECTION = re.compile(r"_{3,} .+ _{3,}")
_PYTEST_PLACE = re.compile(
    r"(?P<path>\S[^:]*\.py):(?P<line>\d+): (?:in (?P<function>\S+)|(?P<name>[\w.]+))"
)
_PYTEST_ERROR = re.compile(
    r"E\s+(?P<name>[A-Za-z_][\w.]*(?:Error|Exception|Exit)): ?(?P<message>.*)"
)


def _pytest_failures(lines: list[str]) -> list[Reported]:
    """The failures of pytest's own report (`--tb=long`, `short`, `auto`): a section per
    test, frames as `path:line: in function`, the error's lines prefixed with `E`."""
    found = []
    sections: list[list[str]] = []
    for line in lines:
        if _PYTEST_SECTION.fullmatch(line.strip()):
            sections.append([])
        elif sections:
            sections[-1].append(line)
    for section in sections:
        frames, name, message = [], "", []
        for line in section:
            place = _PYTEST_PLACE.fullmatch(line.rstrip())
            if place:
                path, number = place.group("path"), int(place.group("line"))
                frames.append(Frame(path, number, place.group("function") or ""))
                name = place.group("name") or name
            elif line.startswith("E ") or line == "E":
                error = _PYTEST_ERROR.fullmatch(line.rstrip())
                if error and not message:
                    name = error.group("name")
                    message.append(error.group("message"))
                elif message:
                    message.append(line[1:].strip())
        if frames and name:
            text = "\n".join(message)
            link = Link(name.rsplit(".", 1)[-1], text)
            hints = _hints(text)
            found.append(Reported((link,), (tuple(frames),), hints[0], None, hints[1]))
    return found


def _hints(message: str) -> tuple[tuple[Frame, ...], tuple[str, ...]]:
    """The places and functions a message names."""
    hints = []
    for pattern, scope in ((_TRACING_AT, "def"), (_LEAKED_IN, "body")):
        for hint in pattern.finditer(message):
            line = int(hint.group("line"))
            hints.append(Frame(hint.group("path"), line, hint.group("function"), scope))
    functions = [m.group("function").split(".")[-1] for m in _FUNCTION.finditer(message)]
    return tuple(hints), tuple(dict.fromkeys(functions))


def find_reported(text: str) -> Reported | None:
    """The log's last error (or retracing warning); None when it has none."""
    found = find_all(text)
    return found[-1] if found else None


def _chains(lines: list[str], starts: list[int]) -> list[list[int]]:
    """The traceback starts of each chain. A separator sentence before a traceback joins it
    to the chain before; a traceback quoted in a message (jax quotes the one of a failing
    __hash__ after "The error was:") starts nothing; any other starts a new chain."""
    chains: list[list[int]] = []
    for start in starts:
        before = [line.strip() for line in lines[max(0, start - 3) : start] if line.strip()]
        previous = before[-1] if before else ""
        if chains and previous in CHAIN_SEPARATORS:
            chains[-1].append(start)
        elif chains and previous.endswith(":") and not _FRAME.match(previous):
            continue  # quoted: read as part of the message before it
        else:
            chains.append([start])
    return chains


def _exception_line(lines: list[str], start: int, stop: int) -> int | None:
    """The index of the exception line of the traceback at `start` (before `stop`)."""
    for index in range(start + 1, min(stop, len(lines))):
        line = lines[index]
        if not line or line[0].isspace() or _CARETS.fullmatch(line):
            continue  # a frame, its source line or a caret line
        return index if _EXCEPTION.fullmatch(line.rstrip()) else None
    return None


def _read_chain(lines: list[str], chain: list[int], bound: int) -> Reported | None:
    links: list[Link] = []
    stacks: list[list[Frame]] = []
    hints: list[Frame] = []
    functions: list[str] = []
    for number, start in enumerate(chain):
        stop = chain[number + 1] if number + 1 < len(chain) else bound
        at = _exception_line(lines, start, stop)
        end = min(stop, (at if at is not None else stop) + MAX_MESSAGE_LINES)
        stack: list[Frame] = []
        for line in lines[start + 1 : end]:
            frame = _FRAME.match(line)
            if frame:
                path, number = frame.group("path"), int(frame.group("line"))
                stack.append(Frame(path, number, frame.group("function") or ""))
            elif stack and line.strip() and not line[0].isspace():
                stacks.append(stack)  # a line of text ends a run of frames
                stack = []
        if stack:
            stacks.append(stack)
        if at is None:
            continue
        match = _EXCEPTION.fullmatch(lines[at].rstrip())
        assert match is not None
        rest = [line for line in lines[at + 1 : end] if line.strip() not in CHAIN_SEPARATORS]
        message = "\n".join([match.group("message") or "", *rest])
        links.append(Link(match.group("name").rsplit(".", 1)[-1], message))
        places, named = _hints(message)
        hints.extend(places)
        functions.extend(named)
    if not links:
        return None
    return Reported(
        tuple(links),
        tuple(tuple(stack) for stack in stacks),
        tuple(hints),
        None,
        tuple(dict.fromkeys(functions)),
    )
