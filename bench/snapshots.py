"""Git snapshots of real projects for the benchmarks: where a repository's git directory is, and
writing a commit's Python files (with the files that declare its framework versions) to a folder,
the way a user's checkout holds them. `projects.py` and `research.py` both build on this."""

from __future__ import annotations

import subprocess
from pathlib import Path


def declares_versions(path: str) -> bool:
    """A file where a project declares the framework versions it targets, as jitlint reads
    them (`pyproject.toml`, `requirements*.txt`, a Dockerfile's TensorFlow image;
    `TF_USE_LEGACY_KERAS` in CI workflows, `tox.ini`, `setup.cfg`): users lint their tree
    with it, so the benchmarks do too."""
    name = path.rsplit("/", 1)[-1]
    if path.startswith(".github/workflows/") and name.endswith((".yml", ".yaml")):
        return True  # where TF_USE_LEGACY_KERAS asks for Keras 2, as do tox.ini and setup.cfg
    if name.lower().startswith("dockerfile") or name.lower().endswith(".dockerfile"):
        return True  # `FROM tensorflow/tensorflow:2.3.1-gpu`
    return name in ("pyproject.toml", "tox.ini", "setup.cfg") or (
        name.startswith("requirements") and name.endswith(".txt")
    )


def git_dir(repo: str, mirror: Path | None, cache: Path) -> Path:
    """The git directory holding `repo` (`owner/name`): under a `fetch` mirror folder, else a
    bare clone kept in `cache/.git/` (made on first use)."""
    name = repo.replace("/", "+")
    if mirror is not None:
        base = mirror / name
        for candidate in (base / "repo" / ".git", base / "repo", base / ".git", base):
            if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
                return candidate
        bare = mirror / f"{name}.git"
        if (bare / "HEAD").is_file():
            return bare
        raise LookupError(f"no git directory for {repo} under {mirror} (fetch github:{repo})")
    clone = cache / ".git" / name
    if not clone.exists():
        url = f"https://github.com/{repo}.git"
        subprocess.run(["git", "clone", "--bare", "--quiet", url, str(clone)], check=True)
    return clone


def git(git_dir: Path, *args: str, data: bytes | None = None) -> bytes:
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], input=data, capture_output=True
    )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()[-300:]
        raise LookupError(f"git {args[0]} in {git_dir}: {message}")
    return done.stdout


def write_snapshot(
    git_dir: Path, commit: str, out: Path, paths: list[str] | None = None
) -> tuple[int, int]:
    """Write the commit's *.py files (only those under `paths` when given) and its version
    declarations (anywhere, or at the root and under `paths`) into `out`; objects the snapshot
    lacks are skipped. Returns (Python files, Python lines) written."""
    if paths is None:
        listings = [(git(git_dir, "ls-tree", "-r", "-z", commit), True)]
    else:
        under = git(git_dir, "ls-tree", "-r", "-z", commit, "--", *(p.rstrip("/") for p in paths))
        listings = [(under, True), (git(git_dir, "ls-tree", "-z", commit), False)]
    blobs: dict[str, str] = {}  # path -> object id
    for listed, python_here in listings:
        for entry in listed.split(b"\0"):
            meta, _, raw = entry.partition(b"\t")
            if not raw:
                continue
            mode, kind, sha = meta.split()
            path = raw.decode("utf-8", "surrogateescape")
            if kind != b"blob" or mode == b"120000" or path in blobs:
                continue
            if (python_here and path.endswith(".py")) or declares_versions(path):
                blobs[path] = sha.decode()
    batch = git(
        git_dir, "cat-file", "--batch", data="".join(f"{s}\n" for s in blobs.values()).encode()
    )
    files = lines = 0
    for path in blobs:
        header, _, batch = batch.partition(b"\n")
        parts = header.split()
        if len(parts) != 3:  # "<sha> missing": an object the snapshot lacks
            continue
        size = int(parts[2])
        body, batch = batch[:size], batch[size + 1 :]
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        if path.endswith(".py"):
            files += 1
            lines += body.count(b"\n")
    return files, lines
