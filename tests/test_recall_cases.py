"""The recall benchmark (bench/cases/, bench/truth.py, bench/recall.py): every case is valid,
the runtime agrees with the labels (CI runs the truth check), and the matcher and parser do
what bench/cases/README.md says."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import cases_format  # noqa: E402  (bench/ is not a package)
import recall  # noqa: E402
import seeds  # noqa: E402
import truth  # noqa: E402
from cases_format import Hazard  # noqa: E402
from recall import Finding, Linted, matches  # noqa: E402

HEADER = """\
# source: https://github.com/jax-ml/jax/issues/1234
# framework: jax
# shape: {shape}
# expect: {expect}
"""
BAD_IF = """\
import jax


@jax.jit
def f(x):
    if x > 0:
        return x
    return -x


print(f(1.0))
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def one_file_case(root: Path, hazards: str, body: str = BAD_IF, **header: str) -> Path:
    fields = {"shape": "function", "expect": "error TracerBoolConversionError"} | header
    return write(root / "jax-functions" / "case.py", HEADER.format(**fields) + hazards + body)


# (a) the cases themselves


def test_every_case_parses_and_validates():
    invalid = {c.name: c.problems for c in cases_format.load_cases() if c.problems}
    assert not invalid, "\n".join(f"{n}: {'; '.join(p)}" for n, p in invalid.items())


def test_the_cases_meet_the_issue_minimums():
    cases = cases_format.load_cases()
    positives = [c for c in cases if c.positive]
    class_shaped = sum(c.class_shaped for c in cases)
    counts = f"cases={len(cases)} positives={len(positives)} class_shaped={class_shaped}"
    assert len(cases) >= 200, counts
    assert len(positives) >= 120, counts
    assert class_shaped >= 0.4 * len(positives), counts


# (b) the runtime truth (what CI runs)


@pytest.mark.jax
def test_truth_check_passes():
    for module in ("jax", "tensorflow"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed")
    proc = subprocess.run(
        [sys.executable, str(BENCH / "truth.py"), "--check", "-j", "2"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-5000:]


# (c) the parser


def test_a_one_file_case_parses(tmp_path):
    one_file_case(tmp_path, "# hazard: 11 JIT101|JIT102 `if` on the traced `x`\n")
    [case] = cases_format.load_cases(tmp_path)
    assert case.problems == []
    assert (case.name, case.group, case.framework, case.shape) == (
        "jax-functions/case",
        "jax-functions",
        "jax",
        "function",
    )
    assert case.sources == ["https://github.com/jax-ml/jax/issues/1234"]
    assert case.expect == "error TracerBoolConversionError"
    assert case.hazards == [Hazard("case.py", 11, ("JIT101", "JIT102"), "`if` on the traced `x`")]
    assert case.positive and not case.class_shaped
    assert case.command == ["case.py"]


def test_a_package_case_parses(tmp_path):
    package = tmp_path / "jax-modules" / "pkg"
    write(package / "__init__.py", "")
    write(package / "helpers.py", "def step(x):\n    if x > 0:\n        return x\n")
    header = HEADER.format(shape="multi-file", expect="error TracerBoolConversionError")
    write(
        package / "__main__.py",
        header + "# hazard: helpers.py:2 JIT101 `if` in a helper\nimport jax\n",
    )
    [case] = cases_format.load_cases(tmp_path)
    assert case.problems == []
    assert case.package and case.class_shaped and case.command == ["-m", "pkg"]
    assert case.hazards == [Hazard("helpers.py", 2, ("JIT101",), "`if` in a helper")]
    assert case.files() == ["pkg/__init__.py", "pkg/__main__.py", "pkg/helpers.py"]


@pytest.mark.parametrize(
    ("hazard", "problem"),
    [
        ("# hazard: 8 JIT101 blank line\n", "blank or a comment"),
        ("# hazard: 2 JIT101 a header line\n", "blank or a comment"),
        ("# hazard: 99 JIT101 past the end\n", "outside case.py"),
        ("# hazard: 10 JIT11 short code\n", "do not match"),
        ("# hazard: 10 JIT101\n", "no reason"),
        ("# hazard: case.py:10 JIT101 file in a one-file case\n", "without a file"),
        ("# hazard: ten JIT101 no line\n", "is not `[file:]<line>"),
    ],
)
def test_a_bad_hazard_is_a_problem(tmp_path, hazard, problem):
    one_file_case(tmp_path, hazard)
    [case] = cases_format.load_cases(tmp_path)
    assert any(problem in p for p in case.problems), case.problems


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("# source: github.com/x/y\n", "is not one http(s) URL"),
        ("# framework: pytorch\n", "needs exactly one `framework:`"),
        ("# expect: crash\n", "needs exactly one `expect:`"),
        ("# sauce: https://example.org/a\n", "unknown header key"),
    ],
)
def test_a_bad_header_is_a_problem(tmp_path, text, problem):
    one_file_case(tmp_path, text + "# hazard: 11 JIT101 `if` on the traced `x`\n")
    [case] = cases_format.load_cases(tmp_path)
    assert any(problem in p for p in case.problems), case.problems


def test_header_keys_below_the_header_and_label_rules_are_problems(tmp_path):
    body = BAD_IF.replace("import jax\n", "import jax\n# hazard: 12 JIT101 too late\n")
    one_file_case(tmp_path, "", body, expect="ok")
    [case] = cases_format.load_cases(tmp_path)
    assert any("below the header" in p for p in case.problems), case.problems
    one_file_case(tmp_path, "# hazard: 10 JIT101 r\n", expect="ok")
    [case] = cases_format.load_cases(tmp_path)
    assert any("needs `gpu-only:`" in p for p in case.problems), case.problems
    one_file_case(tmp_path, "", expect="observed traces=2")
    [case] = cases_format.load_cases(tmp_path)
    assert any("a negative" in p for p in case.problems), case.problems


def test_a_package_hazard_names_a_file_of_the_package(tmp_path):
    package = tmp_path / "jax-modules" / "pkg"
    write(package / "__init__.py", "")
    header = HEADER.format(shape="multi-file", expect="error TracerBoolConversionError")
    hazards = "# hazard: 7 JIT101 r\n# hazard: x.py:1 JIT101 r\n"
    write(package / "__main__.py", header + hazards + "import jax\n")
    [case] = cases_format.load_cases(tmp_path)
    assert case.hazards == [Hazard("__main__.py", 7, ("JIT101",), "r")]  # a bare line: here
    assert any("no file x.py" in p for p in case.problems)


# (c) the matcher


H = Hazard("m.py", 10, ("JIT101", "JIT102"), "r")


@pytest.mark.parametrize(
    ("finding", "found"),
    [
        (Finding("m.py", 10, 10, "JIT101", ""), True),  # on the line
        (Finding("m.py", 10, 30, "JIT102", ""), True),  # starts on it, any span
        (Finding("m.py", 8, 10, "JIT101", ""), True),  # a 3-line span that includes it
        (Finding("m.py", 9, 11, "JIT101", ""), True),
        (Finding("m.py", 7, 10, "JIT101", ""), False),  # a 4-line span
        (Finding("m.py", 11, 11, "JIT101", ""), False),  # the next line
        (Finding("m.py", 10, 10, "JIT103", ""), False),  # a code the label does not name
        (Finding("n.py", 10, 10, "JIT101", ""), False),  # another file of the package
    ],
)
def test_matches(finding, found):
    assert matches(finding, H) is found


def test_tally_counts_hazards_once_and_findings_on_negatives_as_false_positives(tmp_path):
    one_file_case(tmp_path, "# hazard: 10 JIT101|JIT102 r\n")
    [positive] = cases_format.load_cases(tmp_path)
    negative = cases_format.Case("jax-functions/neg", "jax-functions", tmp_path, False, "jax")
    results = [
        Linted(
            positive,
            [
                Finding("case.py", 10, 10, "JIT101", ""),
                Finding("case.py", 10, 10, "JIT102", ""),
                Finding("case.py", 3, 3, "JIT104", ""),
            ],
        ),
        Linted(negative, [Finding("neg.py", 1, 1, "JIT101", "")]),
    ]
    overall, rules, frameworks = recall.tally(results)
    assert (overall.hazards, overall.found, overall.fp) == (1, 1, 2)
    assert overall.precision == pytest.approx(1 / 3) and overall.recall == 1.0
    assert (rules["JIT101"].hazards, rules["JIT101"].tp, rules["JIT101"].fp) == (1, 1, 1)
    assert (rules["JIT102"].tp, rules["JIT104"].fp, rules["JIT104"].hazards) == (1, 1, 0)
    assert frameworks["jax"].fp == 2


def test_lint_case_links_a_package_finding_to_its_file(tmp_path):
    package = tmp_path / "jax-modules" / "pkg"
    write(package / "__init__.py", "")
    write(package / "helpers.py", "def step(x):\n    if x > 0:\n        return x\n    return -x\n")
    header = HEADER.format(shape="multi-file", expect="error TracerBoolConversionError")
    main = "import jax\n\nfrom pkg.helpers import step\n\nprint(jax.jit(step)(1.0))\n"
    write(package / "__main__.py", header + "# hazard: helpers.py:2 JIT101 r\n" + main)
    [case] = cases_format.load_cases(tmp_path)
    linted = recall.lint_case(case)
    assert linted.error == ""
    assert [(f.file, f.line, f.code) for f in linted.findings] == [("helpers.py", 2, "JIT101")]
    assert linted.found_by(case.hazards[0]) and not linted.false_positives()


@pytest.mark.jax
def test_the_fix_check_runs_a_fixed_copy(tmp_path):
    pytest.importorskip("jax")
    one_file_case(tmp_path, "# hazard: 11 JIT101 r\n")
    [case] = cases_format.load_cases(tmp_path)
    before = case.path.read_text()
    fixed = recall.fix_case(case, timeout=120)
    assert fixed.changed and fixed.clean and fixed.idempotent and not fixed.unparsable
    assert case.path.read_text() == before  # the case itself is never touched


# (c) the runtime classification


def test_last_exception_reads_the_last_traceback():
    stderr = textwrap.dedent(
        """\
        Traceback (most recent call last):
          File "a.py", line 1, in <module>
        KeyError: 'first'

        During handling of the above exception, another exception occurred:

        Traceback (most recent call last):
          File "a.py", line 3, in <module>
            f(x)
        ^^^^^^^^
        jax.errors.TracerBoolConversionError: Attempted boolean conversion.
        The error occurred while tracing the function f.
        --------------------
        For simplicity, JAX has removed its internal frames.
        """
    )
    assert truth.last_exception(stderr) == (
        "TracerBoolConversionError",
        "Attempted boolean conversion.",
    )
    assert truth.last_exception("Traceback (most recent call last):\nKeyboardInterrupt\n") == (
        "KeyboardInterrupt",
        "",
    )
    assert truth.last_exception("Segmentation fault\n") is None


def test_run_program_and_the_label_rules(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import sys\nprint('observed: traces=3')\nprint('observed:  n = 02')\n")
    ran = truth.run_program(tmp_path, ["s.py"], timeout=60)
    assert (ran.outcome, ran.observed) == ("ok", ("traces=3", "n=2"))
    assert truth.agrees("ok", ran) and truth.agrees("observed traces=3", ran)
    assert not truth.agrees("observed traces=2", ran)
    script.write_text("raise ValueError('bad value\\nsecond line')\n")
    ran = truth.run_program(tmp_path, ["s.py"], timeout=60)
    assert (ran.outcome, ran.message) == ("error ValueError", "bad value")
    assert truth.agrees("error ValueError", ran) and not truth.agrees("error TypeError", ran)
    assert not truth.agrees("ok", ran)
    script.write_text("import sys\nsys.exit(3)\n")
    assert truth.run_program(tmp_path, ["s.py"], timeout=60).outcome == "exit 3"
    script.write_text("import time\ntime.sleep(30)\n")
    assert truth.run_program(tmp_path, ["s.py"], timeout=1).outcome == "timeout"


def test_check_compares_labels_and_stored_outcomes(tmp_path):
    one_file_case(tmp_path, "# hazard: 10 JIT101 r\n")
    [case] = cases_format.load_cases(tmp_path)
    ran = truth.Run("error TracerBoolConversionError", "message")
    stored = {"cases": {case.name: ran.record() | {"message": "another message"}}}
    assert truth.check([case], [ran], stored, full=True) == []
    stale = {"cases": stored["cases"] | {"jax-functions/gone": ran.record()}}
    assert truth.check([case], [ran], stale, full=True) == [
        "jax-functions/gone: in truth.json, but there is no such case"
    ]
    [mislabelled] = truth.check([case], [truth.Run("ok")], {"cases": {}}, full=True)[:1]
    assert "expect 'error TracerBoolConversionError', but ran: ok" in mislabelled
    other = {"cases": {case.name: truth.Run("error TypeError", "m").record()}}
    [changed] = truth.check([case], [ran], other, full=False)
    assert "truth.json has error TypeError" in changed


# the seed cache


def test_the_seed_cache_is_emptied_only_when_this_script_made_it(tmp_path):
    cache = tmp_path / "seeds"
    seeds.prepare(cache)
    (cache / "old-seed").mkdir()
    seeds.prepare(cache)
    assert sorted(p.name for p in cache.iterdir()) == [seeds.MARKER]
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine")
    with pytest.raises(SystemExit):
        seeds.prepare(foreign)
    assert (foreign / "keep.txt").read_text() == "mine"


def test_the_uncaught_exception_is_found_past_a_traceback_inside_its_message():
    # jax copies a failing __hash__'s traceback into its ValueError's message.
    stderr = (
        "Traceback (most recent call last):\n"
        '  File "case.py", line 3, in <module>\n'
        "    step(model)\n"
        "ValueError: Non-hashable static arguments are not supported. The error was:\n"
        "Traceback (most recent call last):\n"
        '  File "eqx.py", line 9, in __hash__\n'
        "TypeError: unhashable type: 'dict'\n"
    )
    assert truth.last_exception(stderr) == (
        "ValueError",
        "Non-hashable static arguments are not supported. The error was:",
    )
    separator = "\n\nDuring handling of the above exception, another exception occurred:\n\n"
    link = 'Traceback (most recent call last):\n  File "case.py", line 5\n'
    chained = stderr.replace("ValueError: Non", f"KeyError: 'x'{separator}{link}ValueError: Non")
    assert truth.last_exception(chained)[0] == "ValueError"
