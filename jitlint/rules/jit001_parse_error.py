from __future__ import annotations

from jitlint.rules.base import Rule


class ParseError(Rule):
    """
    ## What it does
    Reports a file that cannot be read, decoded or parsed, at the place of the problem.

    ## Why is this bad
    A file jitlint cannot parse is a file it cannot check, so hazards in it go unreported.
    The rest of the run goes on: one bad file never hides the findings in the others.

    ## Example
    ```python
    def step(x):
        return x +  # error: JIT001
    ```

    ## Use instead
    ```python
    def step(x):
        return x + 1
    ```

    ## Fix safety
    There is no fix: the file has to be repaired by hand.

    ## Known problems
    The parser is libcst's, which accepts the Python grammar up to 3.13. Syntax newer than
    that, or Python 2 code, is reported here even when your interpreter accepts it.
    """

    code = "JIT001"
    name = "parse-error"
    summary = "The file cannot be read, decoded or parsed."
    framework = "any"
