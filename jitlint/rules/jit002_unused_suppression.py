from __future__ import annotations

from jitlint.diagnostics import Diagnostic, Edit, Fix
from jitlint.engine.suppression import Suppressions, Unused
from jitlint.rules.base import Rule


class UnusedSuppression(Rule):
    """
    ## What it does
    Reports a `# noqa: JIT...` or `# jitlint: ignore[...]` comment with a JIT code that
    suppresses nothing: no finding of that code on the statement, a code whose rule is not
    enabled for the file (as ruff's RUF100 reports them: run it with your usual selection,
    since with `--select JIT002` alone every other code counts as not enabled), or a code no
    jitlint rule has (`JIT999`). A bare `# jitlint: ignore` on a statement with no finding is
    reported too. Another comment on the statement that covers JIT002 (a bare `# noqa`, or
    `# noqa: JIT002`) silences the finding.

    Codes of other tools in the same comment (`# noqa: E501, JIT101`) and a bare `# noqa`
    (flake8, ruff and others read it too) are never reported. Neither are the file-level
    comments (`# jitlint: noqa`, `# jitlint: file-ignore[...]`, `# ruff: noqa`).

    The rule is off by default: enable it with `extend-select = ["JIT002"]` or
    `--extend-select JIT002`.

    ## Why is this bad
    A suppression outlives the code it was written for. Once the hazard is fixed, or the code
    moved, the comment hides nothing today and will hide the next real finding on that line
    without anyone deciding it should. A misspelt code (`JIT1010`) never suppressed anything.

    ## Example
    ```python
    import jax


    @jax.jit
    def step(x):
        return x * 2  # jitlint: ignore[JIT101]  # error: JIT002
    ```

    ## Use instead
    ```python
    import jax


    @jax.jit
    def step(x):
        if x > 0:  # jitlint: ignore[JIT101]
            return x
        return -x
    ```

    ## Fix safety
    The fix is safe: it only edits a comment. The dead codes are removed from the comment
    (`# noqa: E501, JIT101` becomes `# noqa: E501`); when no code is left, the directive
    goes, and the whole comment with it when nothing else was in it.

    ## Known problems
    A file is judged as the run lints it. A finding that appears only when the project pass
    follows calls from other files is not seen when the file is linted alone (stdin, the
    flake8 plugin, `jitlint.lint_source`), so there the comment looks unused. The flake8
    plugin leaves `# noqa` to flake8 and checks only `# jitlint: ignore` comments.
    """

    code = "JIT002"
    name = "unused-suppression"
    summary = "A `noqa` or `jitlint: ignore` comment that suppresses nothing."
    severity = "warning"
    framework = "any"
    tier = 2
    default_enabled = False
    fix_availability = "always"

    VALID = (
        # Another tool's code and a bare noqa belong to other linters.
        """
import jax
x = 1  # noqa: E501
y = 2  # noqa
""",
        # A file-level comment is not a line directive.
        """
# jitlint: noqa: JIT101
import jax
""",
        # The directive names the rule that keeps its own finding quiet.
        """
import jax
z = 3  # noqa: JIT002
""",
    )
    INVALID = (
        """
import jax
x = 1  # noqa: JIT101  # error: JIT002
""",
        """
import jax
x = 1  # noqa: E501, JIT999  # error: JIT002
""",
        """
import jax
x = 1  # jitlint: ignore[JIT110]  # error: JIT002
y = 2  # jitlint: ignore  # error: JIT002
""",
    )

    @classmethod
    def findings(cls, found: Suppressions, unused: list[Unused], path: str) -> list[Diagnostic]:
        """One warning per directive with dead codes, with the fix that removes them."""
        out = []
        for item in unused:
            directive = item.directive
            if item.dead == (("", "no finding here"),):
                message = "`# jitlint: ignore` suppresses nothing here"
            else:
                listed = ", ".join(f"`{code}` ({reason})" for code, reason in item.dead)
                message = f"unused suppression: {listed}"
            edit = _removal(found.lines[directive.line - 1], item)
            out.append(
                Diagnostic(
                    cls.code,
                    cls.name,
                    message,
                    path,
                    directive.line,
                    directive.start + 1,
                    directive.line,
                    directive.end + 1,
                    cls.severity,
                    fix=Fix("safe", "remove the unused suppression", (edit,)),
                )
            )
        return out


def _removal(line_text: str, item: Unused) -> Edit:
    d = item.directive
    line = d.line

    def replace(start: int, end: int, text: str) -> Edit:
        return Edit(line, start + 1, line, end + 1, text)

    if item.kept:
        return replace(d.codes_start, d.codes_end, ", ".join(item.kept))
    after = line_text[d.end : d.comment_end]
    if d.start > d.comment_start:  # after other text in the comment: that text stays
        return replace(len(line_text[: d.start].rstrip()), d.end, "")
    if not after.strip():  # the comment was only this directive
        return replace(len(line_text[: d.comment_start].rstrip()), d.comment_end, "")
    if after.lstrip().startswith("#"):  # a second comment after it stays
        return replace(d.start, d.end + len(after) - len(after.lstrip()), "")
    return replace(d.start, d.end, "#")  # words after it stay, as a comment
