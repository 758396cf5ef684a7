"""The recipes of the real-project benchmark (bench/projects/): their format, halves and scoring.

A recipe is `bench/projects/<half>/<owner>+<name>[-<slug>].json`: one public repository at the
commit before its users hit a JIT/XLA failure, the folders a user would lint, the hazards (file,
line, kind, evidence) and the review of every other finding. bench/projects/README.md describes
the fields; `validate` checks them; `score` matches a lint's findings against one recipe. The
standard library only: CI imports this without the snapshots, jax or the network.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

PROJECTS = Path(__file__).resolve().parent / "projects"
HALVES = ("dev", "held-out")
FRAMEWORKS = ("jax", "tensorflow")
# "not-on-target": run on the versions jitlint's facts are for (jax 0.10.2, TF 2.21) in the
# project's own use, the failure does not happen; the hazard is kept with its note, not scored.
REPRODUCED = ("no", "run", "reduced", "not-on-target")
VERDICTS = ("true", "false")

# The codes that find each kind of hazard (the seed benchmark's table, ../shared/seeds/score.py).
# An `other:<name>` kind no rule covers yet is a hazard all the same; it is found only once a
# code is listed for it here.
KIND_CODES: dict[str, frozenset[str]] = {
    "python-control-flow-on-tracer": frozenset({"JIT101", "JIT205"}),
    "concretization": frozenset({"JIT102", "JIT204", "JIT103"}),
    "traced-shape": frozenset({"JIT103", "JIT102"}),
    "unhashable-static-arg": frozenset({"JIT110"}),
    "dynamic-shape-result": frozenset({"JIT105", "JIT202", "JIT213", "JIT215"}),
    "inplace-update": frozenset({"JIT106"}),
    "numpy-on-tracer": frozenset({"JIT104", "JIT204"}),
    "side-effect-in-jit": frozenset({"JIT107", "JIT208"}),
    "retracing": frozenset({"JIT113", "JIT207", "JIT114", "JIT123"}),
    "jit-on-method": frozenset({"JIT111", "JIT110"}),
    "untyped-constant-dtype": frozenset({"JIT201"}),
    "xla-dynamic-shape": frozenset({"JIT202", "JIT213", "JIT215"}),
    "xla-unsupported-op": frozenset({"JIT203", "JIT213"}),
    "eager-only-in-graph": frozenset({"JIT204", "JIT102"}),
    "variable-in-function": frozenset({"JIT206"}),
    "late-env-flag": frozenset({"JIT301", "JIT302"}),
    # Not in the seed table: static_argnums naming a parameter the function does not have.
    "bad-static-spec": frozenset({"JIT112"}),
    "other:assert-silently-dropped-under-xla": frozenset({"JIT209"}),
}
OTHER_KIND = re.compile(r"other:[a-z0-9]+(-[a-z0-9]+)*")
HEX40 = re.compile(r"[0-9a-f]{40}")
CODE = re.compile(r"JIT\d{3}")
REPO_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*")
SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")

RECIPE_KEYS = {"repo": str, "commit": str, "framework": str, "paths": list, "hazards": list}
HAZARD_KEYS = {
    "path": str, "line": int, "kind": str, "error": str, "evidence": str, "quote": str,
    "reproduced": str, "note": str,
}  # fmt: skip
HAZARD_OPTIONAL = {"also_lines", "fix_commit"}
REVIEW_KEYS = {"path": str, "line": int, "code": str, "verdict": str, "reason": str}


def half_of(repo: str) -> str:
    """The half a repository belongs to, fixed by its name before anyone lints it."""
    return "held-out" if int(hashlib.sha256(repo.encode()).hexdigest(), 16) % 2 else "dev"


def codes_for(kind: str) -> frozenset[str]:
    return KIND_CODES.get(kind, frozenset())


def known_kind(kind: str) -> bool:
    return kind in KIND_CODES or OTHER_KIND.fullmatch(kind) is not None


@dataclass(frozen=True)
class Recipe:
    file: Path
    half: str
    data: dict

    @property
    def repo(self) -> str:
        return self.data["repo"]

    @property
    def commit(self) -> str:
        return self.data["commit"]

    @property
    def name(self) -> str:
        return self.file.stem


def load_recipes(root: Path = PROJECTS, half: str | None = None) -> list[Recipe]:
    recipes = []
    for which in HALVES:
        if half is not None and which != half:
            continue
        for file in sorted((root / which).glob("*.json")):
            recipes.append(Recipe(file, which, json.loads(file.read_text(encoding="utf-8"))))
    return recipes


def _typed(entry: object, keys: dict[str, type], where: str) -> list[str]:
    if not isinstance(entry, dict):
        return [f"{where}: not an object"]
    problems = []
    for key, kind in keys.items():
        value = entry.get(key)
        # bool is an int to isinstance; a line is never True.
        if not isinstance(value, kind) or isinstance(value, bool):
            problems.append(f"{where}: {key!r} missing or not {kind.__name__}")
        elif kind is str and not value.strip():
            problems.append(f"{where}: {key!r} is empty")
    return problems


def _under(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _named_after(file_name: str, repo: str) -> bool:
    """`owner+name.json` or `owner+name-slug.json` (a repository name may hold hyphens itself)."""
    stem, is_json = file_name[: -len(".json")], file_name.endswith(".json")
    base = repo.replace("/", "+")
    if not is_json or not stem.startswith(base):
        return False
    rest = stem[len(base) :]
    return rest == "" or (rest.startswith("-") and SLUG.fullmatch(rest[1:]) is not None)


def _clean_path(path: str) -> bool:
    return (
        bool(path)
        and not path.startswith("/")
        and posixpath.normpath(path) == path
        and not path.startswith("..")
    )


def validate(recipe: Recipe) -> list[str]:
    """Every problem with one recipe, as `file: what` lines; empty when it is valid."""
    data, where = recipe.data, recipe.file.name
    problems = _typed(data, RECIPE_KEYS, where)
    if problems:
        return problems
    unknown = set(data) - set(RECIPE_KEYS) - {"reviewed"}
    if unknown:
        problems.append(f"{where}: unknown keys {sorted(unknown)}")
    if not REPO_NAME.fullmatch(data["repo"]):
        problems.append(f"{where}: repo {data['repo']!r} is not owner/name")
    if not _named_after(recipe.file.name, data["repo"]):
        problems.append(f"{where}: the file name must be owner+name[-slug].json of its repo")
    if recipe.half != half_of(data["repo"]):
        problems.append(f"{where}: {data['repo']} belongs in {half_of(data['repo'])}/")
    if not HEX40.fullmatch(data["commit"]):
        problems.append(f"{where}: commit is not 40 lowercase hex digits")
    if data["framework"] not in FRAMEWORKS:
        problems.append(f"{where}: framework must be one of {FRAMEWORKS}")
    paths = data["paths"]
    if not paths or not all(isinstance(p, str) and _clean_path(p.rstrip("/")) for p in paths):
        problems.append(f"{where}: paths must be relative, normalized folder or file paths")
        paths = []
    if not data["hazards"]:
        problems.append(f"{where}: a recipe names at least one hazard")
    for n, hazard in enumerate(data["hazards"], 1):
        problems.extend(_validate_hazard(hazard, paths, f"{where} hazard {n}"))
    reviewed = data.get("reviewed", [])
    if not isinstance(reviewed, list):
        return [*problems, f"{where}: reviewed is not a list"]
    seen = set()
    for n, review in enumerate(reviewed, 1):
        at = f"{where} reviewed {n}"
        found = _typed(review, REVIEW_KEYS, at)
        if found:
            problems.extend(found)
            continue
        if set(review) - set(REVIEW_KEYS):
            problems.append(f"{at}: unknown keys {sorted(set(review) - set(REVIEW_KEYS))}")
        if not CODE.fullmatch(review["code"]) or review["code"] == "JIT001":
            problems.append(f"{at}: code {review['code']!r} is not a reviewable JIT code")
        if review["verdict"] not in VERDICTS:
            problems.append(f"{at}: verdict must be one of {VERDICTS}")
        if paths and not _under(review["path"], paths):
            problems.append(f"{at}: {review['path']} is not under the recipe's paths")
        key = (review["path"], review["line"], review["code"])
        if key in seen:
            problems.append(f"{at}: {key} is reviewed twice")
        seen.add(key)
    return problems


def _validate_hazard(hazard: object, paths: list[str], at: str) -> list[str]:
    problems = _typed(hazard, HAZARD_KEYS, at)
    if problems:
        return problems
    assert isinstance(hazard, dict)
    unknown = set(hazard) - set(HAZARD_KEYS) - HAZARD_OPTIONAL
    if unknown:
        problems.append(f"{at}: unknown keys {sorted(unknown)}")
    if not _clean_path(hazard["path"]) or not hazard["path"].endswith(".py"):
        problems.append(f"{at}: path must be a relative *.py path")
    elif paths and not _under(hazard["path"], paths):
        problems.append(f"{at}: {hazard['path']} is not under the recipe's paths")
    if hazard["line"] < 1:
        problems.append(f"{at}: line must be >= 1")
    also = hazard.get("also_lines", [])
    if not isinstance(also, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in also
    ):
        problems.append(f"{at}: also_lines must be a list of line numbers")
    if not known_kind(hazard["kind"]):
        problems.append(f"{at}: kind {hazard['kind']!r} is not in the table nor other:<name>")
    fix = hazard.get("fix_commit")
    if fix is not None and not (isinstance(fix, str) and HEX40.fullmatch(fix)):
        problems.append(f"{at}: fix_commit must be 40 lowercase hex digits or null")
    if hazard["reproduced"] not in REPRODUCED:
        problems.append(f"{at}: reproduced must be one of {REPRODUCED}")
    if not hazard["evidence"].startswith("https://"):
        problems.append(f"{at}: evidence must be a public https address")
    return problems


def covers(finding: dict, line: int) -> bool:
    """A finding on the line, or spanning at most three lines that include it."""
    start = finding["line"]
    end = max(finding.get("end_line") or start, start)
    return start == line or (start <= line <= end and end - start <= 2)


@dataclass
class Score:
    found: list[dict] = field(default_factory=list)
    missed: list[dict] = field(default_factory=list)
    reviewed_true: list[dict] = field(default_factory=list)
    reviewed_false: list[dict] = field(default_factory=list)
    unexpected: list[dict] = field(default_factory=list)
    gone: list[dict] = field(default_factory=list)
    not_on_target: list[dict] = field(default_factory=list)


def scored_hazards(recipe: Recipe) -> list[dict]:
    """The hazards that count: all but those that do not fail on the target versions."""
    return [h for h in recipe.data["hazards"] if h["reproduced"] != "not-on-target"]


def score(recipe: Recipe, findings: list[dict]) -> Score:
    """Match findings (paths relative to the materialized root) against one recipe."""
    result = Score()
    used: set[int] = set()
    for hazard in recipe.data["hazards"]:
        if hazard["reproduced"] == "not-on-target":
            # Not a hazard on the target versions: a finding on it is read like any other.
            result.not_on_target.append(hazard)
            continue
        lines = [hazard["line"], *hazard.get("also_lines", [])]
        codes = codes_for(hazard["kind"])
        matched = [
            i
            for i, f in enumerate(findings)
            if f["path"] == hazard["path"]
            and f["code"] in codes
            and any(covers(f, line) for line in lines)
        ]
        used.update(matched)
        (result.found if matched else result.missed).append(hazard)
    reviews = {(r["path"], r["line"], r["code"]): r for r in recipe.data.get("reviewed", [])}
    came_back = set()
    for i, f in enumerate(findings):
        if i in used or f["code"] == "JIT001":
            continue
        review = reviews.get((f["path"], f["line"], f["code"]))
        if review is None:
            result.unexpected.append(f)
            continue
        came_back.add((f["path"], f["line"], f["code"]))
        (result.reviewed_true if review["verdict"] == "true" else result.reviewed_false).append(f)
    result.gone = [r for key, r in reviews.items() if key not in came_back]
    return result
