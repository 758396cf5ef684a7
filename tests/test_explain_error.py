"""`jitlint explain-error` and the pytest plugin's "jitlint" section.

The tracebacks in tests/data/tracebacks/ are the real stderr of the recall cases (bench/cases/)
under jax 0.10 and TF 2.21, captured by bench/tracebacks.py with paths relative to the
repository: the tests explain them from the repository's root, where those paths exist.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from jitlint.explain import command
from jitlint.explain.parse import find_reported
from jitlint.frontends.cli import main as cli_main

pytest_plugins = ("pytester",)

REPO = Path(__file__).resolve().parents[1]
TRACEBACKS = REPO / "tests" / "data" / "tracebacks"
sys.path.insert(0, str(REPO / "bench"))


@pytest.fixture
def at_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def read(name: str) -> str:
    return (TRACEBACKS / name).read_text(encoding="utf-8")


def explain_json(capsys, *args: str) -> tuple[int, list[dict]]:
    status = cli_main(["explain-error", "--no-cache", "--format", "json", *args])
    return status, json.loads(capsys.readouterr().out)


def test_the_recall_cases_errors_are_explained_and_never_wrongly():
    """The acceptance numbers: of the errors whose hazard the static lint finds, at least
    90% are explained by the right rule and line; no explanation names a wrong one."""
    from explanations import evaluate, summary

    numbers = summary(evaluate())
    assert numbers["tracebacks"] >= 150  # the stored tracebacks were all read
    assert numbers["wrong"] == 0, numbers
    assert numbers["rate"] >= 0.9, numbers


def test_filtered_and_unfiltered_jax_tracebacks(at_repo, capsys):
    name = "jax-functions/adaptation_float_step_size"
    for variant in ("", ".unfiltered"):
        status, found = explain_json(capsys, str(TRACEBACKS / f"{name}{variant}.txt"))
        assert status == 0
        assert [(f["code"], f["path"], f["line"]) for f in found] == [
            ("JIT102", f"bench/cases/{name}.py", 33)
        ]
    # The unfiltered traceback has jax's own frames, which are never taken as the user's.
    unfiltered = (TRACEBACKS / f"{name}.unfiltered.txt").read_text(encoding="utf-8")
    reported = find_reported(unfiltered)
    assert reported is not None and any("site-packages" in f.path for f in reported.frames)


def test_the_json_has_the_lint_outputs_keys(at_repo, capsys):
    case = "bench/cases/jax-functions/piecewise_chained_comparison.py"
    log = str(TRACEBACKS / "jax-functions/piecewise_chained_comparison.txt")
    status, found = explain_json(capsys, log)
    assert status == 0 and len(found) == 1
    assert cli_main(["--no-cache", "--format", "json", case]) == 1
    linted = json.loads(capsys.readouterr().out)
    assert found[0] in linted  # the same finding, with the same keys and values


def test_a_tf_traceback_with_tfs_log_around_it(at_repo, capsys):
    # Keras's "Graph execution error" names the op's frames in its message, under paths TF
    # cut; the log starts with TF's own start-up lines.
    path = TRACEBACKS / "tf-keras/keras_layer_tfprint_jit.txt"
    assert "I0000" in read("tf-keras/keras_layer_tfprint_jit.txt")
    status, found = explain_json(capsys, str(path))
    assert status == 0
    assert [(f["code"], f["line"]) for f in found] == [("JIT203", 18)]


def test_a_log_with_other_output_around_the_traceback(at_repo, capsys, tmp_path):
    traceback = read("jax-modules/acbo_parent_set_model.txt")
    log = tmp_path / "ci.log"
    log.write_text(
        "collecting ... 12 items\nEpoch 1/3 loss=0.52\nWARNING: slow step (3.2 s)\n"
        + traceback
        + "\nmake: *** [Makefile:12: train] Error 1\nretrying with the next config\n"
        # A later error that is no JIT error: the JIT error before it is the one explained.
        + 'Traceback (most recent call last):\n  File "upload.py", line 3, in <module>\n'
        + "ConnectionError: the server went away\n",
        encoding="utf-8",
    )
    status, found = explain_json(capsys, str(log))
    assert status == 0
    assert [(f["code"], f["path"], f["line"]) for f in found] == [
        ("JIT101", "bench/cases/jax-modules/acbo_parent_set_model/encoding.py", 12)
    ]


def test_the_text_output_names_rule_place_chain_and_fix(at_repo, capsys):
    path = TRACEBACKS / "jax-modules/acbo_parent_set_model.txt"
    assert cli_main(["explain-error", "--no-cache", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("error: TracerBoolConversionError: Attempted boolean conversion")
    place = "bench/cases/jax-modules/acbo_parent_set_model/encoding.py:12"
    assert f"explained by JIT101 (traced-bool) at {place}" in out
    assert "fix (" in out and "docs: " in out


def test_stdin_and_chained_tracebacks(at_repo, capsys, monkeypatch):
    import io

    # jax's older "direct cause" chain: the user's frames are in the first traceback.
    inner = read("jax-functions/while_not_converged_traced.txt")
    chained = (
        inner
        + "\nThe above exception was the direct cause of the following exception:\n\n"
        + 'Traceback (most recent call last):\n  File "runner.py", line 3, in <module>\n'
        + "RuntimeError: the training job failed\n"
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(chained.encode())))
    status, found = explain_json(capsys, "-")
    assert status == 0
    assert [(f["code"], f["line"]) for f in found] == [("JIT101", 17)]


def test_bad_input_exits_2(at_repo, capsys, tmp_path):
    empty = tmp_path / "log.txt"
    empty.write_text("all tests passed\nno traceback here\n", encoding="utf-8")
    assert cli_main(["explain-error", str(empty)]) == 2
    assert "no Python traceback" in capsys.readouterr().err
    assert cli_main(["explain-error", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err


def test_unknown_errors_and_foreign_frames_are_not_guessed(at_repo, capsys, tmp_path):
    unknown = tmp_path / "unknown.txt"
    unknown.write_text(
        'Traceback (most recent call last):\n  File "bench/cases/jax-functions/'
        "adaptation_float_step_size.py\", line 33, in run_adaptation\nKeyError: 'lr'\n",
        encoding="utf-8",
    )
    status, found = explain_json(capsys, str(unknown))
    assert (status, found) == (1, [])
    assert cli_main(["explain-error", str(unknown)]) == 1
    assert "is not one of the JIT/XLA errors" in capsys.readouterr().out

    # A known error whose frames are all installed code or gone: says so, explains nothing.
    foreign = tmp_path / "foreign.txt"
    foreign.write_text(
        'Traceback (most recent call last):\n  File "/opt/env/lib/python3.11/site-packages/'
        'lib/train.py", line 9, in step\n  File "/nowhere/model.py", line 4, in f\n'
        "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array\n",
        encoding="utf-8",
    )
    assert cli_main(["explain-error", "--no-cache", str(foreign)]) == 1
    out = capsys.readouterr().out
    assert "no frame of the traceback is in a file it can read" in out
    assert "installed code" in out and "not found here" in out


def test_a_finding_of_another_rule_is_not_taken(at_repo, capsys, tmp_path):
    # The case's real JIT102 line, but reported as a leaked-tracer error: no JIT108 there.
    wrong_kind = tmp_path / "wrong.txt"
    wrong_kind.write_text(
        'Traceback (most recent call last):\n  File "bench/cases/jax-functions/'
        'adaptation_float_step_size.py", line 33, in run_adaptation\n'
        "jax.errors.UnexpectedTracerError: Encountered an unexpected tracer.\n",
        encoding="utf-8",
    )
    assert cli_main(["explain-error", "--no-cache", str(wrong_kind)]) == 1
    out = capsys.readouterr().out
    assert "findings of other rules (JIT102 at " in out


def test_the_retracing_warning_names_its_function(at_repo, capsys):
    path = TRACEBACKS / "tf-keras/agent_python_epsilon_retrace.retracing.txt"
    reported = find_reported(path.read_text(encoding="utf-8"))
    assert reported is not None and reported.retraced == "_get_action_body"
    # Without files to look in it says so; with the case's folder it finds the finding.
    assert cli_main(["explain-error", "--no-cache", str(path)]) == 1
    assert "--search" in capsys.readouterr().out
    case = "bench/cases/tf-keras/agent_python_epsilon_retrace"
    search = case if Path(case).is_dir() else case + ".py"
    status, found = explain_json(capsys, str(path), "--search", search)
    assert status == 0 and [f["code"] for f in found] == ["JIT207"]


def test_fix_applies_the_explaining_finding(capsys, tmp_path, monkeypatch):
    source = REPO / "bench/cases/jax-functions/piecewise_chained_comparison.py"
    copy = tmp_path / source.name
    shutil.copy(source, copy)
    traceback = read("jax-functions/piecewise_chained_comparison.txt")
    log = tmp_path / "log.txt"
    log.write_text(traceback.replace(f"bench/cases/jax-functions/{source.name}", source.name))
    monkeypatch.chdir(tmp_path)
    assert cli_main(["explain-error", "--no-cache", "--fix", "--unsafe-fixes", str(log)]) == 0
    assert copy.read_text(encoding="utf-8") != source.read_text(encoding="utf-8")
    assert "Applied 1 JIT101 fix" in capsys.readouterr().err
    # Fixed, the line no longer explains the error.
    assert cli_main(["explain-error", "--no-cache", str(log)]) == 1


def test_help_lists_explain_error(capsys):
    with pytest.raises(SystemExit):
        command.build_parser().parse_args(["--help"])
    assert "--search" in capsys.readouterr().out


@pytest.mark.jax
def test_the_pytest_plugin_adds_a_jitlint_section(pytester, capsys):
    pytest.importorskip("jax")
    pytester.makepyfile(
        test_model="""
        import jax
        import jax.numpy as jnp


        @jax.jit
        def clip(x):
            if x > 1.0:
                return jnp.ones_like(x)
            return x


        def test_clip():
            assert clip(jnp.float32(0.5)) == 0.5


        def test_passes():
            assert 1 + 1 == 2


        def test_other_failure():
            assert {}.get("lr") == 0.1
        """
    )
    result = pytester.runpytest("-p", "jitlint.pytest_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert out.count("- jitlint -") == 1  # only the JIT error gets a section
    result.stdout.fnmatch_lines(
        ["*- jitlint -*", "*explained by JIT101 (traced-bool) at test_model.py:7:*"]
    )

    off = pytester.runpytest("-p", "jitlint.pytest_plugin", "--no-jitlint-explain")
    off.assert_outcomes(passed=1, failed=2)
    assert "- jitlint -" not in off.stdout.str()

    # pytest's own report (no plugin), as a CI log holds it, long and short: explain-error
    # reads it too.
    for style in ("long", "short"):
        log = pytester.path / f"pytest-{style}.log"
        log.write_text(pytester.runpytest(f"--tb={style}").stdout.str(), encoding="utf-8")
        assert cli_main(["explain-error", "--no-cache", str(log)]) == 0
        assert "explained by JIT101 (traced-bool) at test_model.py:7:" in capsys.readouterr().out


def test_the_readme_documents_explain_error_and_its_options(capsys):
    from jitlint.frontends.cli import build_parser

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "jitlint explain-error [FILE|-]" in readme
    assert "explain-error" in build_parser().format_help()
    flags = [
        flag
        for action in command.build_parser()._actions
        for flag in action.option_strings
        if flag.startswith("--") and flag != "--help"
    ]
    assert "--search" in flags
    assert [flag for flag in flags if f"`{flag}" not in readme] == []
    assert "--no-jitlint-explain" in readme


def test_jax_011s_wording_of_the_traced_slice_is_explained(at_repo, capsys, tmp_path):
    """jax 0.11 words the traced-slice IndexError anew (seen on jax 0.11.2 on a GPU); the
    same traceback with either wording names the same JIT103 finding."""
    old = read("jax-functions/kv_cache_slice_partial_jit.txt")
    new_wording = (
        "IndexError: Array slice indices must have static start/stop/step to be used with "
        "NumPy indexing syntax. Got slice(None, JitTracer(~int32[]), None) at position 0."
    )
    (last,) = [line for line in old.splitlines() if line.startswith("IndexError: Slice entries")]
    newer = tmp_path / "jax011.txt"
    newer.write_text(old.replace(last, new_wording), encoding="utf-8")

    found = []
    for traceback in (TRACEBACKS / "jax-functions" / "kv_cache_slice_partial_jit.txt", newer):
        status, explained = explain_json(capsys, str(traceback))
        assert status == 0, explained
        found.append([(item["code"], item["path"], item["line"]) for item in explained])
    case = "bench/cases/jax-functions/kv_cache_slice_partial_jit.py"
    assert found[0] == found[1] == [("JIT103", case, 17)]
