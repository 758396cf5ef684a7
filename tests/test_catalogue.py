"""The rule catalogue in rules/: in step with the rule classes, and its examples executed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import expected, found, run_cli

from jitlint import catalogue
from jitlint.rules import all_rules

RULES_DIR = Path(__file__).resolve().parents[1] / "rules"
HEADINGS = ["What it does", "Why is this bad", "Example", "Use instead", "Fix safety",
            "Known problems"]  # fmt: skip
RULES = [pytest.param(rule, id=code) for code, rule in all_rules().items()]


def test_pages_match_the_rule_classes():
    for name, text in catalogue.expected_pages().items():
        page = RULES_DIR / name
        assert page.exists(), f"rules/{name} missing: run `python -m jitlint.catalogue rules`"
        assert page.read_text(encoding="utf-8") == text, f"rules/{name} is stale"


def test_each_page_has_a_rule_and_each_rule_a_page():
    pages = {p.stem for p in RULES_DIR.glob("JIT*.md")}
    assert pages == set(all_rules())


@pytest.mark.parametrize("rule", RULES)
def test_page_has_every_heading_in_order(rule):
    headings = re.findall(r"^## (.+)$", rule.documentation(), re.M)
    assert [h for h in headings if h in HEADINGS] == HEADINGS


@pytest.mark.parametrize("rule", RULES)
def test_bad_example_is_flagged_at_the_marked_lines(rule):
    bad = catalogue.section_code(rule, "Example")
    assert bad is not None
    marks = expected(bad)
    assert marks and {code for _, code in marks} == {rule.code}
    assert found(bad, set(all_rules())) == marks


@pytest.mark.parametrize("rule", RULES)
def test_good_example_is_clean(rule):
    good = catalogue.section_code(rule, "Use instead")
    assert good is not None
    assert found(good, set(all_rules())) == set()


@pytest.mark.parametrize("rule", RULES)
def test_explain_prints_the_page(rule):
    status, out, _ = run_cli("--explain", rule.code)
    assert status == 0
    assert out == (RULES_DIR / f"{rule.code}.md").read_text(encoding="utf-8")


def test_readme_rule_list_is_current():
    readme = (RULES_DIR.parent / "README.md").read_text(encoding="utf-8")
    assert catalogue.update_readme(readme) == readme, "run `python -m jitlint.catalogue rules`"


def test_help_writes_nothing(tmp_path, capsys):
    # `--help` used to be read as a flag it ignored, and the pages were written to ./rules.
    target = tmp_path / "pages"
    with pytest.raises(SystemExit) as exit_info:
        catalogue.main(["--help", str(target)])
    assert exit_info.value.code == 0
    assert "--check" in capsys.readouterr().out
    assert not target.exists()


def test_check_reports_a_stale_folder_without_writing(tmp_path, capsys):
    target = tmp_path / "pages"
    target.mkdir()
    assert catalogue.main(["--check", str(target)]) == 1
    assert "stale:" in capsys.readouterr().out
    assert list(target.iterdir()) == []
