"""Why the project pass lints files again: each relint of a run, by the records that changed.

Usage: python bench/relints.py [--sample K] [--select CODES] [--json OUT] [PATH ...]

Lints the pinned corpus (or PATHs) as `jitlint --select ALL --no-cache -j1` does, noting each
batch the project pass lints. For every relint (a file's second or later lint) it prints the
records that differ from those its previous lint was given (kind, and the sending file), which
of `may_change`'s questions let it through, and whether the relint changed the file's result:
its findings, or what it sends (outbound records, defs, re-exports). A relint that changes
neither was wasted: the file's previous result stood.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import corpus  # bench/ is not a package

from jitlint.engine import linter, runner
from jitlint.engine.linter import FileResult
from jitlint.frontends.cli import main as cli_main
from jitlint.model import tf_records
from jitlint.model.jax.crossfile.records import Inbound, InboundEntry, Received
from jitlint.model.project.files import accepts
from jitlint.model.tf_records import TfInbound


def record_kind(record: Received) -> str:
    """A short name for what a record is: a traced call, a transformation applied, a TF
    record's kind (a fact's with its prefix, `jax:` statuses apart)."""
    if isinstance(record, Inbound):
        return "jax call"
    if isinstance(record, InboundEntry):
        return "jax entry"
    assert isinstance(record, TfInbound)
    if record.kind == "fact":
        head = record.status.split(":")[0]
        if record.status.startswith("jax:"):
            head = ":".join(record.status.split(":")[:2])
        return f"fact {head}"
    return f"tf {record.kind}"


def sender(record: Received) -> str:
    site = getattr(record, "site", "")
    return site.rsplit(":", 1)[0] if ":" in site else site


def why(result: FileResult, before: Sequence[Received], after: Sequence[Received]) -> str:
    """Which of `may_change`'s questions answers yes (its order), or "unknown reads"."""
    if result.tf_reads is None or result.jax_reads is None:
        return "unknown reads"
    own = result.defs, result.reexports
    kept_before = [r for r in before if accepts(r, *own)]
    kept_after = [r for r in after if accepts(r, *own)]
    tf_before = [r for r in kept_before if linter._routes_to_tf(r)]
    tf_after = [r for r in kept_after if linter._routes_to_tf(r)]
    jax_before = [r for r in kept_before if not linter._routes_to_tf(r)]
    jax_after = [r for r in kept_after if not linter._routes_to_tf(r)]
    reasons = []
    if jax_before != jax_after:
        text = linter._returned_text
        if text(linter._by_function(jax_before)) != text(linter._by_function(jax_after)):
            reasons.append("jax returned text")
        alias = linter._alias
        if [r for r in jax_before if alias(r)] != [r for r in jax_after if alias(r)]:
            reasons.append("jax alias")
        if result.jax_reads.differ(jax_before, jax_after, result.defs):
            reads = result.jax_reads
            detail = "whole" if reads.whole else "read"
            reasons.append(f"jax reads ({detail})")
    if linter._opens_tf(tf_before) != linter._opens_tf(tf_after):
        reasons.append("tf opens")
    if result.tf_reads.differ(tf_before, tf_after):
        kinds = sorted(
            kind
            for kind in result.tf_reads.kinds
            if [r for r in tf_before if r.kind == kind] != [r for r in tf_after if r.kind == kind]
        )
        if tf_records._uses_of(tf_before, result.tf_reads.use_names) != tf_records._uses_of(
            tf_after, result.tf_reads.use_names
        ):
            kinds.append("use names")
        reasons.append(f"tf reads ({','.join(kinds) or 'facts'})")
    return ", ".join(reasons) or "none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=1, help="every K-th corpus file")
    parser.add_argument("--select", default="ALL")
    parser.add_argument("--json", type=Path, help="write every relint here")
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args()
    paths = args.paths
    if not paths:
        cache = corpus.default_cache()
        files: list[Path] = []
        for pin in corpus.read_pins():
            files.extend(corpus.python_files(corpus.ensure(pin, cache)))
        paths = [str(p) for p in files[:: args.sample]]

    last: dict[str, tuple[tuple[Received, ...], FileResult]] = {}
    order: dict[str, int] = {}
    relints: list[dict[str, Any]] = []
    lints = Counter[str]()
    own_lint = runner._lint

    def noting_lint(tasks: list, *rest: Any, **kwargs: Any) -> list[FileResult]:
        results = own_lint(tasks, *rest, **kwargs)
        for task, result in zip(tasks, results, strict=True):
            lints[task.display] += 1
            order.setdefault(task.display, len(order))
            inbound = tuple(task.inbound or ())
            if task.display in last:
                relints.append(compare(task.display, *last[task.display], inbound, result))
            last[task.display] = inbound, result
        return results

    def compare(
        path: str,
        before: tuple[Received, ...],
        previous: FileResult,
        after: tuple[Received, ...],
        result: FileResult,
    ) -> dict[str, Any]:
        gone, new = set(before) - set(after), set(after) - set(before)
        changed = sorted({(record_kind(r), sender(r)) for r in gone | new})
        senders = {s for _, s in changed}
        return {
            "path": path,
            "lint": lints[path],
            "records": [f"{kind} <- {who}" for kind, who in changed],
            "kinds": sorted({kind for kind, _ in changed}),
            "added": len(new),
            "removed": len(gone),
            "senders_later": sum(order.get(s, 10**9) > order[path] for s in senders),
            "why": why(previous, before, after),
            "findings_changed": previous.diagnostics != result.diagnostics,
            "outbound_changed": (
                sorted(map(repr, previous.outbound)) != sorted(map(repr, result.outbound))
                or previous.defs != result.defs
                or previous.reexports != result.reexports
            ),
            "errors": previous.errors != result.errors,
        }

    runner._lint = noting_lint  # type: ignore[assignment]
    argv = ["--select", args.select, "--no-cache", "-j1", "--format", "json", "--quiet", *paths]
    stdout = sys.stdout
    try:
        sys.stdout = open("/dev/null", "w")  # noqa: SIM115  the findings are not the point
        cli_main(argv)
    finally:
        sys.stdout.close()
        sys.stdout = stdout
    summarize(relints, lints)
    if args.json:
        args.json.write_text(json.dumps(relints, indent=1) + "\n")
    return 0


def summarize(relints: list[dict[str, Any]], lints: Counter[str]) -> None:
    times = Counter(lints.values())
    print(f"{len(lints)} files, {sum(lints.values())} lints, {len(relints)} relints; "
          f"files by lints: {dict(sorted(times.items()))}")  # fmt: skip
    wasted = [r for r in relints if not (r["findings_changed"] or r["outbound_changed"])]
    findings = sum(r["findings_changed"] for r in relints)
    outbound = sum(r["outbound_changed"] for r in relints)
    print(f"changed findings: {findings}; changed outbound: {outbound}; neither (wasted): "
          f"{len(wasted)}")  # fmt: skip
    print("\nby may_change's reason (relints, wasted):")
    for reason, count in Counter(r["why"] for r in relints).most_common():
        waste = sum(r["why"] == reason for r in wasted)
        print(f"  {count:4d} {waste:4d}  {reason}")
    print("\nby the kinds of record that changed (relints, wasted):")
    for kinds, count in Counter(" + ".join(r["kinds"]) for r in relints).most_common():
        waste = sum(" + ".join(r["kinds"]) == kinds for r in wasted)
        print(f"  {count:4d} {waste:4d}  {kinds}")
    print("\nby package (relints, wasted):")
    for package, count in Counter(_package(r["path"]) for r in relints).most_common():
        waste = sum(_package(r["path"]) == package for r in wasted)
        print(f"  {count:4d} {waste:4d}  {package}")
    later = sum(r["senders_later"] > 0 for r in relints)
    print(f"\nrelints whose changed records come from a file first linted after it: {later}")


def _package(path: str) -> str:
    parts = Path(path).parts
    for index, part in enumerate(parts):
        if part == "src" and index + 1 < len(parts):
            return parts[index + 1]
    return parts[0]


if __name__ == "__main__":
    raise SystemExit(main())
