"""What the verifier says about each function, and about each finding it tried to confirm."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

# verified: compiled and every example matched the original run eagerly.
# compiled: compiled with the real backend; no eager comparison was possible (reason given).
# failed:   the fixed function did not compile, raised, or disagreed with the original.
# skipped:  nothing was compiled (reason given), e.g. no example inputs.
Status = Literal["verified", "compiled", "failed", "skipped"]
STATUSES: tuple[Status, ...] = ("verified", "compiled", "failed", "skipped")

# confirmed: the original fails the way the rule predicts; not reproduced: it does not;
# not checked: the verifier had no way to try (reason given).
FindingStatus = Literal["confirmed", "not reproduced", "not checked"]


@dataclass
class FindingCheck:
    """Whether running the code confirmed one finding."""

    code: str
    line: int
    status: FindingStatus
    detail: str = ""


@dataclass
class FunctionResult:
    """What verifying one function found."""

    path: str  # display path of the module
    line: int  # the `def` line (or the first decorator's)
    function: str  # qualified name inside the module; "<module>" for module-level changes
    status: Status
    detail: str  # why, in a few words: "compiled with jax.jit, 2 examples match eager"
    compiled_with: str | None = None
    examples: int = 0
    findings: list[FindingCheck] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)  # "CODE:line" of the fixes attributed to it

    def line_text(self) -> str:
        return f"{self.path}:{self.line} {self.function}: {self.status} ({self.detail})"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def summary(results: list[FunctionResult]) -> str:
    counts = {status: 0 for status in STATUSES}
    for result in results:
        counts[result.status] += 1
    text = ", ".join(f"{counts[s]} {s}" for s in STATUSES)
    checks = [c for r in results for c in r.findings]
    if checks:
        found = {s: sum(1 for c in checks if c.status == s) for s in _FINDING_ORDER}
        text += "; findings: " + ", ".join(f"{n} {s}" for s, n in found.items() if n)
    return f"Verification: {text}.\n"


_FINDING_ORDER = ("confirmed", "not reproduced", "not checked")
