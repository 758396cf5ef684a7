"""Which rules explain which runtime error, and the choice of the finding that explains one.

`ERRORS` is the one table: an error is recognised by its exception's class name and a pattern
of its message, and names the rules whose findings can be its cause, the likeliest first.
The first entry that matches the chain's last link wins; then the earlier links are tried
(Keras and TF wrap the framework's error in their own).

A finding explains the error when its rule is one of the error's rules and it sits on a line
the traceback names (or inside the statement that line belongs to). The innermost user frame
is tried first: it is where the value was converted; an outer frame only names the call that
led there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from jitlint.diagnostics import Diagnostic
from jitlint.explain.parse import Frame, Reported


@dataclass(frozen=True)
class KnownError:
    """An error the frameworks raise, and the rules whose findings can cause it."""

    title: str  # how the explanation names the error
    exceptions: frozenset[str]  # class names (last dotted component); empty: any
    message: re.Pattern[str] | None  # searched in the message; None: any
    codes: tuple[str, ...]  # the rules whose findings can cause it, likeliest first
    # Raised where the function is called, caused where it is defined or jitted (a static
    # spec, `@jax.jit` on a method): the called function's definition is looked at too.
    at_definition: bool = False
    # Raised where a value meets another, caused where the value was made earlier in the
    # same function: a finding that names the frame's function is looked at too.
    in_function: bool = False


def _known(
    title: str,
    exceptions: str,
    message: str | None,
    codes: str,
    at_definition: bool = False,
    in_function: bool = False,
) -> KnownError:
    return KnownError(
        title,
        frozenset(exceptions.split()),
        re.compile(message) if message is not None else None,
        tuple(codes.split()),
        at_definition,
        in_function,
    )


# Order matters: specific messages before the class-only entries they would also match.
ERRORS: tuple[KnownError, ...] = (
    # JAX
    _known("boolean conversion of a tracer", "TracerBoolConversionError", None, "JIT101 JIT102"),
    _known("integer conversion of a tracer", "TracerIntegerConversionError", None, "JIT102 JIT103"),
    _known("NumPy conversion of a tracer", "TracerArrayConversionError", None, "JIT104"),
    _known("boolean mask under jit", "NonConcreteBooleanIndexError", None, "JIT105"),
    _known(
        "a framework module under a raw jax transformation",
        "UnexpectedTracerError JaxTransformError TypeError",
        r"inside a Haiku transformed function|Flax models cannot be mixed|"
        r"__hash__ on modules that hold variables",
        "JIT120 JIT108",
    ),
    _known(
        "leaked tracer", "UnexpectedTracerError TraceContextError", None, "JIT108 JIT107 JIT120"
    ),
    _known(
        "value-dependent size",
        "ConcretizationTypeError",
        r"must be statically specified",
        "JIT105 JIT103",
    ),
    _known(
        "shape, size or axis from a tracer",
        "ConcretizationTypeError",
        r"argument '|argument `|` argument|axis argument",
        "JIT103 JIT102 JIT105",
    ),
    _known(
        "concrete value needed",
        "ConcretizationTypeError",
        None,
        "JIT102 JIT101 JIT103 JIT105 JIT104",
    ),
    _known(
        "unhashable static argument",
        "ValueError TypeError",
        r"Non-hashable static arguments|static arguments should be comparable|"
        r"equality of metadata fields of pytree|^unhashable type",
        "JIT110 JIT111",
        at_definition=True,
    ),
    _known(
        "non-array argument to jit",
        "TypeError",
        r"as an abstract array",
        "JIT111 JIT110",
        at_definition=True,
    ),
    _known(
        "bad static_argnames/argnums",
        "ValueError",
        r"Jitted function has",
        "JIT112",
        at_definition=True,
    ),
    _known(
        "shape from a tracer",
        "TypeError IndexError",
        # jax 0.11 words the slice error differently (seen on jax 0.11.2)
        r"Shapes must be 1D sequences of concrete|Slice entries must be static"
        r"|slice indices must have static",
        "JIT103",
    ),
    _known("in-place update of a JAX array", "TypeError", r"JAX arrays are immutable", "JIT106"),
    # A donated array used again: jax 0.10 on a CPU fails in Execute(); jax 0.11.2 on a GPU
    # (and a read of the array) says it was deleted.
    _known(
        "use of a donated array",
        "RuntimeError ValueError",
        r"Array has been deleted|Buffer has been deleted or donated",
        "JIT115",
    ),
    _known(
        "format of a tracer",
        "TypeError",
        r"unsupported format string passed to \w*Tracer",
        "JIT102",
    ),
    # flax's nnx.List refuses any index but an int or a slice, a tracer too
    _known("traced index into a list", "TypeError", r"^Invalid index type", "JIT102 JIT103"),
    # TensorFlow and Keras
    _known(
        "XLA: unsupported operation",
        "InvalidArgumentError UnimplementedError",
        r"Detected unsupported operations",
        "JIT203 JIT213 JIT202",
    ),
    _known(
        "XLA: shape is not a compile-time constant",
        "InvalidArgumentError UnimplementedError",
        r"must be a compile-time constant",
        "JIT202 JIT203",
    ),
    _known(
        "dtype mismatch in a graph",
        "InvalidArgumentError TypeError",
        r"does not match type|expected to be a \w+ tensor but is a \w+ tensor|"
        r"cannot compute \w+ as input #\d+",
        "JIT201",
        in_function=True,
    ),
    _known("symbolic tensor as a Python bool", "OperatorNotAllowedInGraphError", None, "JIT205"),
    _known(
        "NumPy conversion of a symbolic tensor",
        "AttributeError NotImplementedError TypeError",
        r"has no attribute 'numpy'|Cannot convert a symbolic",
        "JIT204",
    ),
    _known(
        "tf.Variable created on every call",
        "ValueError",
        r"tf\.function only supports singleton tf\.Variables",
        "JIT206",
    ),
    _known(
        "variable created on a non-first call",
        "ValueError AttributeError",
        r"non-first call|creating variables on a non-first call",
        "JIT206",
    ),
)
RETRACING = KnownError("tf.function retracing", frozenset(), None, ("JIT207",))


def choose(found: Sequence[Reported]) -> Reported | None:
    """Of a log's errors, the last one jitlint recognises; else the last one."""
    for reported in reversed(found):
        if recognise(reported) is not None:
            return reported
    return found[-1] if found else None


def recognise(reported: Reported) -> KnownError | None:
    if reported.retraced is not None:
        return RETRACING
    for link in reversed(reported.links):
        for known in ERRORS:
            if known.exceptions and link.exception not in known.exceptions:
                continue
            if known.message is None or known.message.search(link.message):
                return known
    return None


@dataclass(frozen=True)
class Located:
    """A user frame resolved to a linted file: its display path and the line range of the
    statement the frame's line belongs to (a compound statement's header only)."""

    frame: Frame
    display: str
    first: int
    last: int


def explaining(
    known: KnownError, frames: Sequence[Located], diagnostics: Iterable[Diagnostic]
) -> tuple[Diagnostic, Located] | None:
    """The finding that explains the error, and the frame it sits on; None when no finding
    of the error's rules is on a frame's statement. Frames come innermost first."""
    found = hits_by_place(known, frames, diagnostics)
    return (found[0][1][0], found[0][0]) if found else None


def hits_by_place(
    known: KnownError, places: Sequence[Located], diagnostics: Iterable[Diagnostic]
) -> list[tuple[Located, list[Diagnostic]]]:
    """The findings of the error's rules on each place that has some, best first."""
    by_path: dict[str, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        if diagnostic.code in known.codes:
            by_path.setdefault(diagnostic.path, []).append(diagnostic)
    found = []
    for located in places:
        hits = [d for d in by_path.get(located.display, []) if _on(d, located)]
        if hits:
            line = located.frame.line
            hits.sort(key=lambda d: (known.codes.index(d.code), d.line != line, d.line, d.column))
            found.append((located, hits))
    return found


def _on(diagnostic: Diagnostic, located: Located) -> bool:
    """On the frame's line (a short finding that spans it), or inside its statement."""
    end = max(diagnostic.end_line, diagnostic.line)
    line = located.frame.line
    if diagnostic.line <= line <= end and end - diagnostic.line <= 2:
        return True
    return located.first <= diagnostic.line <= located.last
