"""One analysis of one function body: a *context* of the tracing model (see tracing.py)."""

from __future__ import annotations

from typing import Any

import libcst as cst

from jitlint.model.domain.classes import ClassInfo
from jitlint.model.domain.values import Env, Scalar, U, Value


class Context:
    """One analysis of one function body (or lambda, or the module): the values of its
    parameters, the level it runs at, the frame it closes over (for a local function or
    lambda called where it was made), and `site`: how it was reached, for messages."""

    __slots__ = (
        "analyzer", "closure", "entry", "func", "level", "owner", "params", "site", "trace",
    )  # fmt: skip

    def __init__(
        self,
        trace: Any,  # the FunctionTrace it adds to
        level: int,
        params: Env,
        closure: Any = None,  # the Analyzer of the frame it closes over
        owner: ClassInfo | None = None,
        site: Any = None,
    ) -> None:
        self.trace = trace
        self.func = trace.func
        self.level = level
        self.params = params
        self.closure = closure
        self.owner = owner
        self.site = site
        self.entry: Any = None  # the transformation, for a call of a transformed function
        self.analyzer: Any = None  # the Analyzer, once it runs

    @property
    def returns(self) -> Value:
        analyzer = self.analyzer
        if analyzer is None or analyzer.running:
            return U  # recursion
        if analyzer.yields:
            return U
        if analyzer.returns is None:
            return Scalar("None", None) if not analyzer.falls_through_unknown else U
        return analyzer.returns


class ForeignRecord:
    """An outbound call (`options` None) or transformation found by interpretation."""

    __slots__ = ("args", "call", "context", "level", "options", "star", "target", "top")

    def __init__(
        self,
        target: str,
        call: cst.CSTNode,
        context: Context,
        level: int,
        args: list[tuple[str | None, int]],
        star: bool,
        options: list[cst.Arg] | None = None,
    ) -> None:
        self.target = target
        self.call = call
        self.context = context
        self.level = level
        self.args = args
        self.star = star
        self.options = options
        analyzer = context.trace.tracing.module_context
        # The module-level statement around the call, for finding its line cheaply.
        path = context.trace.path
        if len(path) > 1:
            self.top = path[1]
        else:
            self.top = analyzer.analyzer.statement_now if analyzer and analyzer.analyzer else None
