"""`--format grouped`: findings under their file's name, as ruff groups them.

```
pkg/step.py:
   4:8  JIT110 [*] message
  12:1  JIT107 message
```

Lines and columns are aligned within a file; a blank line ends each group. A notebook's
findings say their cell (`cell 2:3:1`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from jitlint.diagnostics import Diagnostic
from jitlint.reporting.options import ReportOptions, fixable
from jitlint.reporting.style import Style

_DEFAULT = ReportOptions()


def _position(d: Diagnostic) -> tuple[str, str]:
    row = str(d.line) if d.cell is None else f"cell {d.cell}:{d.line}"
    return row, str(d.column)


def format_grouped(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    options: ReportOptions = _DEFAULT,
) -> str:
    style = Style(options.colour)
    groups: dict[str, list[Diagnostic]] = {}
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        groups.setdefault(d.path, []).append(d)
    blocks = []
    for path, found in groups.items():
        positions = [_position(d) for d in found]
        row_width = max(len(row) for row, _ in positions)
        column_width = max(len(column) for _, column in positions)
        lines = [f"{style.path(path)}:"]
        for d, (row, column) in zip(found, positions, strict=True):
            marker = style.marker("[*]") + " " if fixable(d, options.unsafe_fixes) else ""
            where = f"{row:>{row_width}}:{column:<{column_width}}"
            lines.append(f"  {where} {style.code(d.code)} {marker}{d.message}")
        blocks.append("\n".join(lines) + "\n\n")
    return "".join(blocks)
