"""A rule is one small class: its metadata, its documentation, its cases, and its hooks.

Hooks are methods named `visit_<NodeType>` / `leave_<NodeType>` (libcst node class names). The
engine calls every selected rule's hooks in a single traversal. Shared analysis lives on
`self.ctx`, computed the first time any rule asks for it.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.context import FileContext
from jitlint.model.domain import plugins
from jitlint.python.uses import raises_on_every_path

if TYPE_CHECKING:
    from jitlint.diagnostics import Severity

FixAvailability = Literal["none", "sometimes", "always"]
Framework = Literal["jax", "tensorflow", "any"]
# The text gate of rules that need traced JAX code: any way to trace it imports one of these
# (jax, or a framework whose plug-in traces code).
JAX_TRACING = ("jax", *plugins.tracing_packages())


@dataclass(frozen=True)
class Option:
    """A per-rule setting, read from `[tool.jitlint.<rule-name>]`."""

    type: type
    default: Any
    help: str


@dataclass(frozen=True)
class Report:
    """What a rule says about a node; the engine turns it into a positioned Diagnostic."""

    code: str
    node: cst.CSTNode
    message: str
    help: str | None
    severity: Severity
    fix: NodeFix | None = None
    traced_by: str | None = None


REGISTRY: dict[str, type[Rule]] = {}


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    severity: ClassVar[Severity] = "error"
    fix_availability: ClassVar[FixAvailability] = "none"
    framework: ClassVar[Framework] = "jax"
    tier: ClassVar[int] = 1
    default_enabled: ClassVar[bool] = True
    options: ClassVar[Mapping[str, Option]] = {}
    # Inline cases, Fixit style: each INVALID case marks its flagged lines with `# error: CODE`.
    VALID: ClassVar[Sequence[str]] = ()
    INVALID: ClassVar[Sequence[str]] = ()
    # A regex the real compiler's error matches when the rule's bad example runs (None: the
    # hazard does not raise, e.g. it is silent or costs only compile time).
    runtime_error: ClassVar[str | None] = None
    # A text gate: the rule runs only on files containing one of these substrings (empty: all
    # files). Use it only where the hazard cannot be spelled without them, e.g. "jit" for
    # jax.jit, which any spelling imports by a name containing "jit".
    requires: ClassVar[tuple[str, ...]] = ()
    # True for rules that report on values the tracing model calls traced. Those values may
    # come from traced code in another file (the project pass), so in a file that receives
    # such calls the text gate, written for hazards the file's own transforms cause, is off.
    uses_tracing: ClassVar[bool] = False
    # Exception classes (qualified names) that catch the error the hazard raises: in the body
    # of a `try` that handles one of them, the code probes for a tracer on purpose
    # (`except jax.errors.ConcretizationTypeError: pass`), and nothing is reported.
    caught_by: ClassVar[frozenset[str]] = frozenset()
    # Builtin exception classes (qualified) that catch that error too, as their subclass
    # (`except Exception:`, `except TypeError:` around a tracer conversion), and so does a bare
    # `except:`. A handler written for any error is a probe only when it does not raise again
    # on every path: `except Exception: log(); raise` passes the tracer's error on.
    swallowed_by: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            if cls.code in REGISTRY:
                raise ValueError(f"duplicate rule code {cls.code}")
            REGISTRY[cls.code] = cls

    def __init__(self, ctx: FileContext, settings: Mapping[str, Any] | None = None) -> None:
        self.ctx = ctx
        self.settings = {k: o.default for k, o in self.options.items()}
        self.settings.update(settings or {})
        self.reports: list[Report] = []

    @classmethod
    def documentation(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        help: str | None = None,
        severity: Severity | None = None,
        fix: NodeFix | None = None,
    ) -> None:
        if (self.caught_by or self.swallowed_by) and handled(
            self.ctx, self.ctx.path_to(node), self.caught_by, self.swallowed_by
        ):
            return
        # Only a model some rule already built is asked: a report must not build one.
        known, path = vars(self.ctx), self.ctx.path_to(node)
        by_contract = ("tracing" in known and self.ctx.tracing.traced_by_contract(path)) or (
            "tf" in known and self.ctx.tf.graph_by_contract(path)
        )
        traced_by = "contract" if by_contract else None
        self.reports.append(
            Report(self.code, node, message, help, severity or self.severity, fix, traced_by)
        )


def handled(
    ctx: FileContext,
    path: Sequence[cst.CSTNode],
    errors: frozenset[str],
    broad: frozenset[str] = frozenset(),
) -> bool:
    """Whether the end of `path` is in the body of a `try` (in the same function) with a
    handler naming one of `errors`, or one that names one of `broad` (or none: a bare
    `except:`) and does not raise again on every path."""
    for index in range(len(path) - 2, -1, -1):
        node = path[index]
        kind = type(node)
        if kind in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            return False
        if kind is not cst.Try or path[index + 1] is not node.body:  # type: ignore[attr-defined]
            continue
        where = path[: index + 1]
        for handler in node.handlers:  # type: ignore[attr-defined]
            caught = handler.type
            if caught is None:
                if broad and not raises_on_every_path(handler.body):
                    return True
                continue
            names = [e.value for e in caught.elements] if type(caught) is cst.Tuple else [caught]
            if any(ctx.names.resolves_to(name, where, errors) for name in names):  # type: ignore[arg-type]
                return True
            if (
                broad
                and any(ctx.names.resolves_to(name, where, broad) for name in names)  # type: ignore[arg-type]
                and not raises_on_every_path(handler.body)
            ):
                return True
    return False
