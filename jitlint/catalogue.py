"""The rule catalogue: one Markdown page per rule, generated from the rule classes.

The rule's docstring is the single source; `rules/` in the repository holds the rendered pages
and a test keeps them in step. `python -m jitlint.catalogue rules` rewrites them, the README's
rule list and `jitlint/rules/_index.py` (what a run reads to import only the rules it needs).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from jitlint import rules as rules_package
from jitlint.diagnostics import rule_url
from jitlint.rules import all_rules
from jitlint.rules.base import Rule

_FENCE = re.compile(r"```python\n(.*?)```", re.S)
_FRAMEWORKS = {"jax": "JAX", "tensorflow": "TensorFlow", "any": "any"}
_FIXES = {"none": "none", "sometimes": "sometimes", "always": "always"}


def render_page(rule: type[Rule]) -> str:
    facts = [
        ("Framework", _FRAMEWORKS[rule.framework]),
        ("Severity", rule.severity),
        ("Fix", _FIXES[rule.fix_availability]),
        ("Enabled by default", "yes" if rule.default_enabled else "no"),
        ("Tier", str(rule.tier)),
    ]
    table = "| | |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in facts)
    return f"# {rule.code} {rule.name}\n\n{rule.summary}\n\n{table}\n{rule.documentation()}\n"


def render_index() -> str:
    rows = "".join(
        f"| [{code}]({code}.md) | {rule.name} | {_FRAMEWORKS[rule.framework]} | "
        f"{_FIXES[rule.fix_availability]} | {rule.summary} |\n"
        for code, rule in all_rules().items()
    )
    return (
        "# jitlint rules\n\n"
        "Generated from the rule classes by `python -m jitlint.catalogue rules`; "
        "`jitlint --explain CODE` prints the same page.\n\n"
        "Codes not in the planned catalogue: JIT123 (weak-type-state), the weak-type part of "
        "hazard J17 (a jitted step compiled again when its carried state changes from weak to "
        "strong type); JIT113 is about new function objects, the reserved JIT114 about static "
        "arguments, so neither fits.\n\n"
        "| code | name | framework | fix | summary |\n|---|---|---|---|---|\n" + rows
    )


def section_code(rule: type[Rule], heading: str) -> str | None:
    """The first ```python block under `## heading` in the rule's documentation."""
    doc = rule.documentation()
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", doc, re.M | re.S)
    if match is None:
        return None
    code = _FENCE.search(match.group(1))
    return code.group(1) if code else None


def explain_json(rule: type[Rule]) -> dict[str, object]:
    return {
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "framework": rule.framework,
        "severity": rule.severity,
        "fix_availability": rule.fix_availability,
        "default_enabled": rule.default_enabled,
        "tier": rule.tier,
        "url": rule_url(rule.code),
        "explanation": render_page(rule),
    }


README_START, README_END = "<!-- rules:start -->", "<!-- rules:end -->"


def render_readme_list() -> str:
    rows = "".join(
        f"| [{code}](rules/{code}.md) | {rule.name} | {rule.summary} |\n"
        for code, rule in all_rules().items()
    )
    return f"{README_START}\n| code | name | summary |\n|---|---|---|\n{rows}{README_END}"


def update_readme(text: str) -> str:
    """`text` (the repository README) with its generated rule list brought up to date."""
    start, end = text.index(README_START), text.index(README_END) + len(README_END)
    return text[:start] + render_readme_list() + text[end:]


def expected_pages() -> dict[str, str]:
    pages = {f"{code}.md": render_page(rule) for code, rule in all_rules().items()}
    pages["README.md"] = render_index()
    return pages


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m jitlint.catalogue",
        description="Write the rule pages, the README's rule list and jitlint/rules/_index.py "
        "from the rule classes.",
    )
    parser.add_argument(
        "target", nargs="?", default="rules", help="folder of the rule pages (default: rules)"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if anything is stale"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    check = args.check
    target = Path(args.target)
    if not check:
        target.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, text in expected_pages().items():
        page = target / name
        current = page.read_text(encoding="utf-8") if page.exists() else None
        if current != text:
            stale.append(name)
            if not check:
                page.write_text(text, encoding="utf-8")
    for page in sorted(target.glob("*.md")):
        if page.name not in expected_pages():
            stale.append(page.name)
            if not check:
                page.unlink()
    index = Path(rules_package.__file__).parent / "_index.py"
    if index.read_text(encoding="utf-8") != rules_package.render_index():
        stale.append("jitlint/rules/_index.py")
        if not check:
            index.write_text(rules_package.render_index(), encoding="utf-8")
    readme = target.parent / "README.md"
    current = readme.read_text(encoding="utf-8") if readme.exists() else ""
    if README_START in current and update_readme(current) != current:
        stale.append("../README.md")
        if not check:
            readme.write_text(update_readme(current), encoding="utf-8")
    if stale:
        print(("stale: " if check else "wrote: ") + ", ".join(sorted(stale)))
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
