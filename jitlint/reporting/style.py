"""ANSI colours for the text formats: paths, codes, carets, `help:`, as ruff colours them.

Whether to colour is the front end's decision (a terminal, `--color`, NO_COLOR,
FORCE_COLOR); a `Style` that is not enabled returns every text unchanged.
"""

from __future__ import annotations

_RESET = "\x1b[0m"
_SGR = {
    "bold": "1",
    "red": "31",
    "green": "32",
    "blue": "34",
    "cyan": "36",
}


class Style:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def paint(self, text: str, *styles: str) -> str:
        if not self.enabled or not text:
            return text
        codes = ";".join(_SGR[style] for style in styles)
        return f"\x1b[{codes}m{text}{_RESET}"

    def path(self, text: str) -> str:
        return self.paint(text, "bold")

    def code(self, text: str) -> str:
        return self.paint(text, "bold", "red")

    def marker(self, text: str) -> str:
        return self.paint(text, "cyan")

    def gutter(self, text: str) -> str:
        return self.paint(text, "bold", "blue")

    def caret(self, text: str) -> str:
        return self.paint(text, "bold", "red")

    def label(self, text: str) -> str:
        return self.paint(text, "bold", "cyan")

    def removed(self, text: str) -> str:
        return self.paint(text, "red")

    def added(self, text: str) -> str:
        return self.paint(text, "green")

    def success(self, text: str) -> str:
        return self.paint(text, "bold", "green")
