"""`jitlint explain-error [FILE|-]`: from a traceback (or a log holding one) to the finding
that explains it.

Exit status: 0 when a finding explains the error, 1 when none does (the output says why),
2 on bad input (no traceback or retracing warning found, an unreadable file, a bad option).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from jitlint.diagnostics import Diagnostic
from jitlint.explain.explainer import Explanation, Lint, explain
from jitlint.explain.match import choose
from jitlint.explain.parse import find_all

if TYPE_CHECKING:
    from jitlint.profiles import Profiles

EXIT_EXPLAINED, EXIT_NOT_EXPLAINED, EXIT_BAD_INPUT = 0, 1, 2
# A log is read this far at most (the traceback is near its end; the rest is skipped).
MAX_LOG_BYTES = 64 * 1024 * 1024


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jitlint explain-error",
        description="Explain a JAX/TensorFlow JIT error from its traceback: the finding "
        "that causes it, why the value is traced, and the fix.",
    )
    parser.add_argument(
        "log", nargs="?", default="-", help="a file holding the traceback, or - for stdin"
    )
    parser.add_argument(
        "--format", "--output-format", dest="format", choices=("text", "json"), default="text"
    )
    parser.add_argument("--fix", action="store_true", help="apply the explaining finding's fix")
    parser.add_argument(
        "--unsafe-fixes", action="store_true", help="with --fix: apply it when it is unsafe too"
    )
    parser.add_argument(
        "--search",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="files or folders to look in when the log names no file (TF's retracing "
        "warning names only a function)",
    )
    parser.add_argument("--config", type=Path, metavar="PATH", help="the config for every file")
    parser.add_argument(
        "--no-cache", action="store_true", help="neither read nor write .jitlint_cache/"
    )
    return parser


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    try:
        text = _read(args.log)
    except OSError as exc:
        print(f"jitlint: error: {args.log}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    reported = choose(find_all(text))
    if reported is None:
        print(
            "jitlint: error: no Python traceback or tf.function retracing warning found in "
            f"{'stdin' if args.log == '-' else args.log}",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    base = Path.cwd()
    search = _python_files(args.search)
    explanation = explain(reported, base, project_lint(args.config, not args.no_cache), search)
    if args.format == "json":
        found = [explanation.finding] if explanation.finding is not None else []
        print(json.dumps([d.to_json() for d in found], indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(render(explanation))
    if explanation.finding is not None and args.fix:
        return _fix(explanation, explanation.finding, args)
    return EXIT_EXPLAINED if explanation.explained else EXIT_NOT_EXPLAINED


def _read(name: str) -> str:
    if name == "-":
        data = sys.stdin.buffer.read(MAX_LOG_BYTES)
    else:
        with open(name, "rb") as handle:
            data = handle.read(MAX_LOG_BYTES)
    return data.decode("utf-8", "replace")


def _python_files(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.py") if "site-packages" not in p.parts))
        elif path.is_file():
            found.append(path)
    return found


def _profiles(config: Path | None, codes: tuple[str, ...], hints: Sequence[str] = ()) -> Profiles:
    from jitlint import selection
    from jitlint.config import ConfigResolver
    from jitlint.profiles import Overrides, Profiles

    # The error's rules are on even where the config leaves them off: the user hit the error.
    layer = selection.Layer(None, list(codes), [])
    # The traceback's frames are entry hints: the code there ran under jit.
    overrides = Overrides(layer=layer, extend_assume_traced=list(hints))
    return Profiles(ConfigResolver(config), overrides)


def project_lint(config: Path | None = None, use_cache: bool = True) -> Lint:
    """A `Lint` through the command line's engine: each file under its nearest config,
    linted as one project."""

    def lint(
        paths: Sequence[Path], codes: tuple[str, ...], hints: Sequence[str] = ()
    ) -> list[Diagnostic]:
        from jitlint.engine.runner import run

        profiles = _profiles(config, codes, hints)
        settings = profiles.for_directory(Path.cwd()).settings
        tasks = [profiles.task(path) for path in paths]
        cache_root = settings.root if use_cache else None
        return run(tasks, 1, cache_root, settings.root).diagnostics

    return lint


def render(explanation: Explanation) -> str:
    """The text report: the error, then the finding (rule, place, why, fix) or why none."""
    reported = explanation.reported
    lines = [f"error: {reported.headline}"]
    finding = explanation.finding
    if finding is None:
        lines.append("not explained:")
        lines.extend(f"  - {why}" for why in explanation.why_not)
        if explanation.linted:
            lines.append(f"  (read: {', '.join(explanation.linted)})")
        return "\n".join(lines) + "\n"
    located = explanation.located
    lines.append(
        f"explained by {finding.code} ({finding.name}) at "
        f"{finding.path}:{finding.line}:{finding.column}"
    )
    if located is not None:
        where = f" in {located.frame.function}" if located.frame.function else ""
        lines.append(f"  the traceback's frame: {located.display}:{located.frame.line}{where}")
    lines.append("")
    lines.extend(f"  {line}" for line in finding.message.splitlines())
    if finding.help:
        lines.extend(f"  help: {line}" for line in finding.help.splitlines())
    if finding.fix is not None:
        lines.append(
            f"  fix ({finding.fix.applicability}): {finding.fix.message}"
            + ("; apply it with --fix" if finding.fix.applicability == "safe" else
               "; apply it with --fix --unsafe-fixes")
        )  # fmt: skip
    else:
        lines.append("  no automatic fix: see the rule's help above")
    lines.append(f"  docs: {finding.url}")
    return "\n".join(lines) + "\n"


def _fix(explanation: Explanation, finding: Diagnostic, args: argparse.Namespace) -> int:
    """The explaining rule's fixes in the explaining file, through the `--fix` machinery (the
    other files of the project are linted for their calls, not changed)."""
    import dataclasses

    from jitlint.engine.fixloop.runner import run_fixes

    if finding.fix is None:
        print("jitlint: the finding has no automatic fix", file=sys.stderr)
        return EXIT_NOT_EXPLAINED
    if finding.fix.applicability == "unsafe" and not args.unsafe_fixes:
        print("jitlint: the fix is unsafe; add --unsafe-fixes to apply it", file=sys.stderr)
        return EXIT_NOT_EXPLAINED
    known = explanation.known
    profiles = _profiles(args.config, known.codes if known is not None else (finding.code,))
    settings = profiles.for_directory(Path.cwd()).settings
    tasks = []
    for path in explanation.task_paths:
        task = profiles.task(path)
        only = frozenset({finding.code}) if task.display == finding.path else frozenset()
        tasks.append(dataclasses.replace(task, fixable=only, unsafe_fixes=args.unsafe_fixes))
    files = run_fixes(tasks, "fix", args.unsafe_fixes, {finding.code}, 1, None, settings.root)
    applied = [d for f in files for d in f.applied if d.path == finding.path]
    for error in (e for f in files for e in f.errors):
        print(f"jitlint: error: {error}", file=sys.stderr)
    if not applied:
        print("jitlint: the fix was not applied", file=sys.stderr)
        return EXIT_NOT_EXPLAINED
    noun = "fix" if len(applied) == 1 else "fixes"
    print(f"Applied {len(applied)} {finding.code} {noun} to {finding.path}.", file=sys.stderr)
    return EXIT_EXPLAINED
