"""The pytest plugin's "jitlint" section: a test that fails with a JIT/XLA error gets the
explanation `jitlint explain-error` would print for its traceback.

Passing tests cost nothing; a failure costs formatting its traceback and matching it against
the error table, and only a recognised JIT/XLA error has the user's files linted.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from jitlint.explain.command import project_lint, render
from jitlint.explain.explainer import explain
from jitlint.explain.match import choose, recognise
from jitlint.explain.parse import find_all

SECTION = "jitlint"


def section_text(error: BaseException, base: Path) -> str | None:
    """The section's text for a test's exception; None when it is not a JIT/XLA error."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    reported = choose(find_all(text))
    if reported is None or recognise(reported) is None:
        return None
    explanation = explain(reported, base, project_lint(use_cache=False))
    return render(explanation)
