"""A rule is one small class: its metadata, its documentation, its cases, and its hooks.

Hooks are methods named `visit_<NodeType>` / `leave_<NodeType>` (libcst node class names). The
engine calls every selected rule's hooks in a single traversal. Shared analysis lives on
`self.ctx`, computed the first time any rule asks for it.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, Literal

import libcst as cst

from jitlint.analysis.jit import JitModel
from jitlint.analysis.names import Names
from jitlint.diagnostics import Severity

FixAvailability = Literal["none", "sometimes", "always"]
Framework = Literal["jax", "tensorflow", "any"]


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


class FileContext:
    """Everything rules share about one file. Analyses are built on first use."""

    def __init__(self, module: cst.Module, path: str, source: str) -> None:
        self.module = module
        self.path = path
        self.source = source
        self.parents: list[cst.CSTNode] = []  # set by the engine to the walker's stack

    @cached_property
    def names(self) -> Names:
        return Names(self.module)

    @cached_property
    def jit(self) -> JitModel:
        return JitModel(self.names)

    def path_to(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        """The path from the module to `node`, which must be the node being visited."""
        return [*self.parents, node]


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
    ) -> None:
        self.reports.append(
            Report(
                self.code,
                node,
                message,
                help,
                severity or self.severity,
            )
        )
