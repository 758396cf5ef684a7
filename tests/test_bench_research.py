"""The research corpus's files (bench/research-pins.tsv, bench/research-reviewed.tsv) are well
formed, and a finding is matched to its review on repository, path, line and code. No network:
the repositories themselves are not needed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import research  # noqa: E402  (bench/ is not a package)
import research_reviews  # noqa: E402
from research_reviews import (  # noqa: E402
    Review,
    pin_problems,
    read_pins,
    read_reviews,
    review_problems,
    tally,
    verdict_of,
)

HEADER = "repo\tpath\tline\tcode\tverdict\treason\n"
GOOD = "a/b\tpkg/m.py\t12\tJIT101\ttrue\tthe jitted step branches on a traced loss\n"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "reviewed.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_pins_are_well_formed_and_enough():
    assert pin_problems() == []
    pins = read_pins()
    frameworks = [pin.framework for pin in pins]
    assert len(pins) >= 30
    assert frameworks.count("tf") >= 10 and frameworks.count("jax") >= 10


def test_the_reviews_are_well_formed_and_name_pinned_repos():
    assert review_problems(pin.repo for pin in read_pins()) == []
    assert research_reviews.validate() == []


def test_the_reviews_hold_both_verdicts():
    verdicts = {review.verdict for review in read_reviews()}
    assert verdicts == {"true", "false"}


def test_a_good_row_passes(tmp_path):
    assert review_problems(["a/b"], write(tmp_path, HEADER + GOOD)) == []


def test_each_bad_cell_is_named(tmp_path):
    rows = [
        "c/d\tpkg/m.py\t12\tJIT101\ttrue\tthe repository is not pinned\n",
        "a/b\t/abs/m.py\t12\tJIT101\ttrue\tan absolute path is not a repository path\n",
        "a/b\tpkg/m.txt\t12\tJIT101\ttrue\tnot a Python file at all here\n",
        "a/b\tpkg/m.py\t0\tJIT101\ttrue\tline zero does not exist in a file\n",
        "a/b\tpkg/m.py\t12\tE501\ttrue\tnot one of jitlint's codes here\n",
        "a/b\tpkg/m.py\t12\tJIT102\tmaybe\ta verdict must be true or false\n",
        "a/b\tpkg/m.py\t12\tJIT103\tfalse\t \n",
        "a/b\tpkg/m.py\t12\tJIT104\tfalse\n",
    ]
    problems = review_problems(["a/b"], write(tmp_path, HEADER + "".join(rows)))
    expected = ["not pinned", "not a path", "not a Python", "positive", "JITnnn", "verdict"]
    expected += ["reason", "columns"]
    assert len(problems) == len(expected)
    for problem, words in zip(problems, expected, strict=True):
        assert words in problem


def test_a_finding_reviewed_twice_is_a_problem(tmp_path):
    problems = review_problems(["a/b"], write(tmp_path, HEADER + GOOD + GOOD))
    assert len(problems) == 1 and "twice" in problems[0]


def test_a_bad_pin_is_named(tmp_path):
    path = tmp_path / "pins.tsv"
    path.write_text(
        "repo\tcommit\tframework\n"
        "a/b\t" + "0" * 40 + "\tjax\n"
        "a/b\t" + "0" * 40 + "\ttf\n"
        "nohash\tdeadbeef\ttorch\n",
        encoding="utf-8",
    )
    problems = pin_problems(path)
    assert [p.split(": ", 1)[1].split(" ")[0] for p in problems] == [
        "a/b",
        "'nohash'",
        "'deadbeef'",
        "framework",
    ]


def test_findings_are_matched_on_repo_path_line_and_code():
    review = Review("a/b", "pkg/m.py", 12, "JIT101", "false", "a static flag, not a tracer")
    reviews = {review.key: review}
    assert verdict_of(("a/b", "pkg/m.py", 12, "JIT101"), reviews) == "false"
    for other in [
        ("a/c", "pkg/m.py", 12, "JIT101"),
        ("a/b", "pkg/n.py", 12, "JIT101"),
        ("a/b", "pkg/m.py", 13, "JIT101"),
        ("a/b", "pkg/m.py", 12, "JIT102"),
    ]:
        assert verdict_of(other, reviews) == "unreviewed"


def test_tally_counts_each_finding_once_under_its_verdict():
    true = Review("a/b", "m.py", 1, "JIT101", "true", "a traced branch in the step")
    false = Review("a/b", "m.py", 2, "JIT101", "false", "a static flag, not a tracer")
    reviews = {true.key: true, false.key: false}
    keys = [true.key, true.key, false.key, ("a/b", "m.py", 3, "JIT101")]
    counts = tally(keys, reviews)
    assert (counts.findings, counts.true, counts.false, counts.unreviewed) == (4, 2, 1, 1)


def test_a_crash_of_jitlint_is_returned_not_fatal(tmp_path, monkeypatch):
    def crashed(*args, **kwargs):
        return subprocess.CompletedProcess(args, 2, stdout="", stderr="internal error: KeyError")

    monkeypatch.setattr(research.subprocess, "run", crashed)
    found, _seconds, crash = research.lint(tmp_path, 1)
    assert found == []
    assert crash == "jitlint exited 2: internal error: KeyError"


def test_findings_come_back_with_no_crash(tmp_path, monkeypatch):
    finding = {"path": "m.py", "line": 3, "code": "JIT101", "message": "m"}

    def found_one(*args, **kwargs):
        return subprocess.CompletedProcess(args, 1, stdout=json.dumps([finding]), stderr="")

    monkeypatch.setattr(research.subprocess, "run", found_one)
    found, _seconds, crash = research.lint(tmp_path, 1)
    assert found == [finding]
    assert crash is None


def test_one_file_mode_lints_each_file_alone(tmp_path):
    # Through the flake8 plugin, file by file: the finding keeps the project run's keys.
    (tmp_path / "steps.py").write_text(
        "import jax\n\n\ndef make():\n    return jax.jit(lambda x: x)\n", encoding="utf-8"
    )
    (tmp_path / "alone.py").write_text(
        "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n",
        encoding="utf-8",
    )
    found, seconds, crash = research.lint_each_file(tmp_path)
    assert crash is None and seconds > 0
    assert [(f["path"], f["line"], f["code"]) for f in found] == [("alone.py", 6, "JIT101")]


def test_the_held_out_block_is_the_pins_below_its_comment(tmp_path):
    pins = tmp_path / "pins.tsv"
    commit = "0" * 40
    pins.write_text(
        f"repo\tcommit\tframework\na/seen\t{commit}\tjax\n"
        f"# an earlier block\nb/seen\t{commit}\ttf\n"
        f"{research_reviews.HELD_OUT} (whoever changes the model reads totals only)\n"
        f"c/held\t{commit}\tjax\n# a later note\nd/held\t{commit}\ttf\n",
        encoding="utf-8",
    )
    assert research_reviews.held_out_repos(pins) == {"c/held", "d/held"}


def test_no_held_out_comment_holds_nothing_out(tmp_path):
    pins = tmp_path / "pins.tsv"
    pins.write_text(f"repo\tcommit\tframework\na/seen\t{'0' * 40}\tjax\n", encoding="utf-8")
    assert research_reviews.held_out_repos(pins) == set()


def test_the_pinned_held_out_set_has_both_frameworks():
    held = research_reviews.held_out_repos()
    frameworks = {pin.framework for pin in read_pins() if pin.repo in held}
    assert frameworks == {"jax", "tf"}


def test_the_dev_reviews_leave_out_every_held_out_row(tmp_path):
    pins = tmp_path / "pins.tsv"
    commit = "0" * 40
    pins.write_text(
        f"repo\tcommit\tframework\na/seen\t{commit}\tjax\n"
        f"{research_reviews.HELD_OUT}\nc/held\t{commit}\tjax\n",
        encoding="utf-8",
    )
    reviewed = tmp_path / "reviewed.tsv"
    reviewed.write_text(
        "repo\tpath\tline\tcode\tverdict\treason\n"
        "a/seen\tm.py\t3\tJIT107\tfalse\tbookkeeping\n"
        "a/seen\tm.py\t9\tJIT113\ttrue\ta closure per pass\n"
        "c/held\tn.py\t4\tJIT107\tfalse\tnot for the model's authors\n",
        encoding="utf-8",
    )
    every = research_reviews.dev_reviews(pins=pins, path=reviewed)
    assert [(r.repo, r.line) for r in every] == [("a/seen", 3), ("a/seen", 9)]
    false_107 = research_reviews.dev_reviews("JIT107", "false", pins=pins, path=reviewed)
    assert [(r.repo, r.line) for r in false_107] == [("a/seen", 3)]
    # The real files: no row the command prints is of a held-out repository.
    held = research_reviews.held_out_repos()
    assert not {review.repo for review in research_reviews.dev_reviews()} & held


def test_a_snapshot_keeps_the_files_that_declare_framework_versions():
    from snapshots import declares_versions

    kept = ["requirements-dev.txt", "sub/pyproject.toml", "docker/Dockerfile", "Dockerfile.gpu"]
    kept += ["tools/serve.dockerfile", ".github/workflows/ci.yml"]
    assert all(declares_versions(path) for path in kept)
    assert not any(declares_versions(p) for p in ["README.md", "docker/entry.sh", "m.py"])
