"""The real-project benchmark (bench/projects/, bench/projects.py): every recipe is valid and in
its half, the validator and the scorer do what bench/projects/README.md says, and the runner
materializes, lints and scores a project from a local git directory (no snapshot, no network)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import projects_format as fmt  # noqa: E402  (bench/ is not a package)

from jitlint.rules._index import INDEX  # noqa: E402

# The lead turns this on once every miner's recipes are in (issue #26's figures).
MIN_HAZARDS, MIN_REPOS, MIN_TF_SHARE = 50, 30, 0.40

RECIPES = fmt.load_recipes()
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _repo_in(half: str) -> str:
    return next(
        f"someone/project{n}" for n in range(100) if fmt.half_of(f"someone/project{n}") == half
    )


def _recipe(half: str = "dev", **changes: object) -> fmt.Recipe:
    repo = _repo_in(half)
    data: dict = {
        "repo": repo,
        "commit": COMMIT,
        "framework": "jax",
        "paths": ["pkg"],
        "hazards": [
            {
                "path": "pkg/model.py",
                "line": 5,
                "kind": "python-control-flow-on-tracer",
                "error": "TracerBoolConversionError",
                "evidence": "https://github.com/someone/project/issues/1",
                "fix_commit": None,
                "quote": "if x > 0:",
                "reproduced": "no",
                "note": "a branch on a traced argument",
            }
        ],
        "reviewed": [
            {"path": "pkg/util.py", "line": 3, "code": "JIT104", "verdict": "false",
             "reason": "the array is a numpy constant"},
        ],
    }  # fmt: skip
    data.update(changes)
    return fmt.Recipe(Path(f"{repo.replace('/', '+')}.json"), half, data)


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: f"{r.half}/{r.name}")
def test_recipe_is_valid(recipe: fmt.Recipe) -> None:
    assert fmt.validate(recipe) == []


def test_recipes_are_unique_per_repo_and_commit() -> None:
    keys = [(r.repo, r.commit, tuple(r.data["paths"])) for r in RECIPES]
    assert len(keys) == len(set(keys))
    hazards = [(r.repo, r.commit, h["path"], h["line"]) for r in RECIPES for h in r.data["hazards"]]
    assert len(hazards) == len(set(hazards))


def test_the_kind_table_names_rules() -> None:
    planned = {"JIT114"}  # RULES.md tier 2; listed so a hazard of the kind counts once it exists
    codes = set().union(*fmt.KIND_CODES.values())
    assert codes - planned <= set(INDEX), codes - planned - set(INDEX)


def test_the_issue_figures() -> None:
    hazards = [(r, h) for r in RECIPES for h in fmt.scored_hazards(r)]
    tf = sum(1 for r, _ in hazards if r.data["framework"] == "tensorflow")
    assert len(hazards) >= MIN_HAZARDS
    assert len({r.repo for r in RECIPES}) >= MIN_REPOS
    assert tf >= MIN_TF_SHARE * len(hazards)


def test_a_good_recipe_validates() -> None:
    assert fmt.validate(_recipe()) == []
    assert fmt.validate(_recipe("held-out")) == []


def test_the_half_is_the_hash_of_the_name() -> None:
    recipe = _recipe()
    moved = fmt.Recipe(recipe.file, "held-out", recipe.data)
    assert any("belongs in dev/" in p for p in fmt.validate(moved))


def _hazard_changed(**changes: object) -> fmt.Recipe:
    recipe = _recipe()
    data = copy.deepcopy(recipe.data)
    data["hazards"][0].update(changes)
    return fmt.Recipe(recipe.file, recipe.half, data)


@pytest.mark.parametrize(
    ("changes", "complaint"),
    [
        ({"kind": "bad-luck"}, "kind"),
        ({"kind": "other:Not_A_Name"}, "kind"),
        ({"path": "elsewhere/model.py"}, "not under"),
        ({"path": "/abs/model.py"}, "relative"),
        ({"line": 0}, "line"),
        ({"line": True}, "'line'"),
        ({"also_lines": ["6"]}, "also_lines"),
        ({"fix_commit": "abc123"}, "fix_commit"),
        ({"reproduced": "yes"}, "reproduced"),
        ({"evidence": "see the issue"}, "evidence"),
        ({"quote": ""}, "empty"),
        ({"extra": 1}, "unknown"),
    ],
)
def test_a_bad_hazard_is_refused(changes: dict, complaint: str) -> None:
    problems = fmt.validate(_hazard_changed(**changes))
    assert any(complaint in p for p in problems), problems


@pytest.mark.parametrize(
    ("changes", "complaint"),
    [
        ({"commit": "0123abc"}, "commit"),
        ({"commit": COMMIT.upper()}, "commit"),
        ({"framework": "torch"}, "framework"),
        ({"paths": ["../pkg"]}, "paths"),
        ({"paths": []}, "paths"),
        ({"hazards": []}, "at least one hazard"),
        ({"reviewed": [{"path": "pkg/a.py", "line": 1, "code": "JIT104", "verdict": "maybe",
                        "reason": "x"}]}, "verdict"),
        ({"reviewed": [{"path": "pkg/a.py", "line": 1, "code": "JIT104", "verdict": "true",
                        "reason": ""}]}, "empty"),
        ({"reviewed": [{"path": "pkg/a.py", "line": 1, "code": "JIT001", "verdict": "true",
                        "reason": "x"}]}, "reviewable"),
        ({"reviewed": [{"path": "other/a.py", "line": 1, "code": "JIT104", "verdict": "true",
                        "reason": "x"}]}, "not under"),
        ({"reviewed": [{"path": "pkg/a.py", "line": 1, "code": "JIT104", "verdict": "true",
                        "reason": "x"}] * 2}, "twice"),
    ],
)  # fmt: skip
def test_a_bad_recipe_is_refused(changes: dict, complaint: str) -> None:
    problems = fmt.validate(_recipe(**changes))
    assert any(complaint in p for p in problems), problems


def test_the_file_name_is_the_repository() -> None:
    recipe = _recipe()
    renamed = fmt.Recipe(Path("other+name-slug.json"), recipe.half, recipe.data)
    assert any("file name" in p for p in fmt.validate(renamed))
    slugged = fmt.Recipe(Path(recipe.file.stem + "-second-bug.json"), recipe.half, recipe.data)
    assert fmt.validate(slugged) == []
    bad_slug = fmt.Recipe(Path(recipe.file.stem + "-Second_Bug.json"), recipe.half, recipe.data)
    assert any("file name" in p for p in fmt.validate(bad_slug))


def test_a_hyphenated_repository_name_is_its_own_file_name() -> None:
    repo = next(
        f"some-one/a-b-{n}" for n in range(100) if fmt.half_of(f"some-one/a-b-{n}") == "dev"
    )
    recipe = _recipe(repo=repo)
    named = fmt.Recipe(Path(f"{repo.replace('/', '+')}.json"), "dev", recipe.data)
    assert fmt.validate(named) == []


def _finding(path: str, line: int, code: str, end_line: int | None = None) -> dict:
    return {"path": path, "line": line, "end_line": end_line or line, "code": code,
            "message": "m"}  # fmt: skip


def test_score_finds_reviews_and_counts_the_rest() -> None:
    findings = [
        _finding("pkg/model.py", 4, "JIT101", end_line=6),  # spans the hazard's line
        _finding("pkg/util.py", 3, "JIT104"),  # reviewed false: it came back
        _finding("pkg/util.py", 9, "JIT107"),  # nobody reviewed it
        _finding("pkg/model.py", 1, "JIT001"),  # a parse error is not reviewed
    ]
    scored = fmt.score(_recipe(), findings)
    assert len(scored.found) == 1 and not scored.missed
    assert [f["line"] for f in scored.reviewed_false] == [3]
    assert [f["line"] for f in scored.unexpected] == [9]
    assert scored.gone == []


def test_a_hazard_not_on_target_is_not_scored() -> None:
    recipe = _recipe()
    recipe.data["hazards"][0]["reproduced"] = "not-on-target"
    assert fmt.validate(recipe) == []
    assert fmt.scored_hazards(recipe) == []
    scored = fmt.score(recipe, [_finding("pkg/model.py", 5, "JIT101")])
    # Neither found nor missed: a finding on its line is read like any other finding.
    assert not scored.found and not scored.missed
    assert [h["line"] for h in scored.not_on_target] == [5]
    assert [f["line"] for f in scored.unexpected] == [5]


def test_score_misses_a_wrong_code_or_a_far_line() -> None:
    findings = [
        _finding("pkg/model.py", 5, "JIT104"),  # on the line, not of the kind
        _finding("pkg/model.py", 1, "JIT101", end_line=8),  # spans more than three lines
        _finding("pkg/other.py", 5, "JIT101"),  # another file
    ]
    scored = fmt.score(_recipe(), findings)
    assert not scored.found and len(scored.missed) == 1
    assert len(scored.unexpected) == 3
    assert [r["line"] for r in scored.gone] == [3]


def test_also_lines_count() -> None:
    scored = fmt.score(_hazard_changed(also_lines=[7]), [_finding("pkg/model.py", 7, "JIT205")])
    assert len(scored.found) == 1


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / "projects.py"), *args], capture_output=True, text=True
    )


def test_list_repos_prints_each_repository_once() -> None:
    done = _run("--list-repos")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == sorted({r.repo for r in RECIPES})


BAD_BRANCH = """\
import jax


@jax.jit
def step(x):
    if x > 0:
        return x
    return -x
"""
SCRIPT = """\
import numpy as np
import jax


@jax.jit
def noisy(x):
    print(x)
    return np.asarray(x)
"""


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_runner_scores_a_project_from_a_local_git_directory(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "model.py").write_text(BAD_BRANCH)
    (work / "pkg" / "notes.txt").write_text("not python\n")
    (work / "scripts").mkdir()
    (work / "scripts" / "other.py").write_text(SCRIPT)  # outside `paths`: not linted
    _git("init", "-q", cwd=work)
    _git("add", ".", cwd=work)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "pre-fix", cwd=work)
    commit = _git("rev-parse", "HEAD", cwd=work)
    recipe = _recipe(commit=commit, reviewed=[])
    data = copy.deepcopy(recipe.data)
    data["hazards"][0]["line"] = 6
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (work / ".git").rename(mirror / f"{recipe.repo.replace('/', '+')}.git")
    recipes = tmp_path / "recipes" / "dev"
    recipes.mkdir(parents=True)
    (recipes / recipe.file.name).write_text(json.dumps(data))
    # Settings above the cache must not change the default selection.
    (tmp_path / "jitlint.toml").write_text('ignore = ["JIT101"]\n')
    cache = tmp_path / "cache"
    args = ["--recipes", str(recipes.parent), "--mirror", str(mirror), "--cache", str(cache)]
    done = _run(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.splitlines()[-1]
    assert last == (
        "projects=1 repos=1 hazards=1 tf_hazards=0 found_dev=1/1 found_heldout=0/0 "
        "unexpected=0 false=0"
    ), done.stdout
    built = cache / f"{recipe.repo.replace('/', '+')}@{commit[:12]}"
    assert sorted(p.relative_to(built).as_posix() for p in built.rglob("*.py")) == ["pkg/model.py"]
    # A finding reviewed false that comes back fails the run.
    data["hazards"][0]["line"] = 7
    data["reviewed"] = [{"path": "pkg/model.py", "line": 6, "code": "JIT101",
                         "verdict": "false", "reason": "a wrong review, for the test"}]  # fmt: skip
    (recipes / recipe.file.name).write_text(json.dumps(data))
    done = _run(*args)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].endswith("found_heldout=0/0 unexpected=0 false=1")
    assert "missed pkg/model.py:7" in done.stdout
