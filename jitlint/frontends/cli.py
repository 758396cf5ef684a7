"""`jitlint [OPTIONS] [PATHS...]`: ruff's conventions for selection, formats and exit codes.

Exit status: 0 when nothing remains, 1 when findings remain, 2 for a usage or configuration
error or an internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from jitlint.version import __version__

if TYPE_CHECKING:
    from jitlint.config import Settings
    from jitlint.diagnostics import Diagnostic
    from jitlint.engine.runner import Task

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _jobs(value: str) -> int:
    """`-j N`: 0 (one worker per core, the default) up to `MAX_JOBS`."""
    from jitlint.system import MAX_JOBS

    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if not 0 <= number <= MAX_JOBS:
        raise argparse.ArgumentTypeError(
            f"must be from 0 (one per core) to {MAX_JOBS}, got {value}"
        )
    return number


MACHINE_FORMATS = ("json", "sarif", "github")


def _formatter(prog: str) -> argparse.HelpFormatter:
    # argparse's default formatter imports shutil (with bz2 and lzma) only to read the terminal
    # width, on every run: a few ms of a one-file pre-commit run. Same width rule, no import.
    try:
        width = int(os.environ.get("COLUMNS", "0")) or os.get_terminal_size().columns
    except (ValueError, OSError):
        width = 80
    return argparse.HelpFormatter(prog, width=max(width - 2, 20))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jitlint",
        description="Find JIT/XLA compilation hazards in JAX and TensorFlow code.",
        formatter_class=_formatter,
    )
    parser.add_argument("paths", nargs="*", help="files or directories (default: .); - for stdin")
    sel = parser.add_argument_group("rule selection")
    sel.add_argument(
        "--select",
        type=_codes,
        action="extend",
        metavar="CODES",
        help="codes, prefixes or ALL to enable, replacing the configured set",
    )
    sel.add_argument(
        "--extend-select",
        type=_codes,
        action="extend",
        default=[],
        metavar="CODES",
        help="codes, prefixes or ALL to enable on top",
    )
    sel.add_argument(
        "--ignore",
        type=_codes,
        action="extend",
        default=[],
        metavar="CODES",
        help="codes or prefixes to disable",
    )
    fix = parser.add_argument_group("fixing")
    fix.add_argument("--fix", action="store_true", help="apply safe fixes")
    fix.add_argument(
        "--unsafe-fixes",
        action="store_true",
        default=None,
        help="also apply (or show) unsafe fixes",
    )
    fix.add_argument(
        "--no-unsafe-fixes",
        action="store_false",
        dest="unsafe_fixes",
        help="override `unsafe-fixes = true` from the config",
    )
    fix.add_argument(
        "--diff", action="store_true", help="print the fixes as a unified diff and write nothing"
    )
    fix.add_argument(
        "--verify",
        action="store_true",
        help="with --fix: compile each fixed function with the real backend, compare it with "
        "the original run eagerly, and write only fixes that did not fail "
        "(`jitlint verify PATHS` verifies without writing)",
    )
    fix.add_argument(
        "--force", action="store_true", help="with --verify: write fixes that failed verification"
    )
    out = parser.add_argument_group("output")
    out.add_argument(
        "--format", choices=("full", "concise", "json", "sarif", "github"), default="full"
    )
    out.add_argument("--statistics", action="store_true", help="print counts per rule")
    out.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    docs = parser.add_argument_group("documentation")
    docs.add_argument("--explain", metavar="CODE", help="show a rule's documentation")
    docs.add_argument("--list-rules", action="store_true", help="list every rule")
    misc = parser.add_argument_group("other")
    misc.add_argument(
        "--config", type=Path, metavar="PATH", help="use this pyproject.toml or jitlint.toml"
    )
    misc.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="the name of the file read from stdin (for config and output)",
    )
    misc.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        metavar="N",
        help="worker processes, at most 256 (default, or 0: one per core)",
    )
    misc.add_argument(
        "--no-cache", action="store_true", help="neither read nor write .jitlint_cache/"
    )
    misc.add_argument("--version", action="version", version=f"jitlint {__version__}")
    return parser  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["server"]:  # `jitlint server`: the Language Server (frontends/server.py)
        from jitlint.frontends.server import main as serve

        return serve(argv[1:])
    # `jitlint verify PATHS`: a subcommand, told apart before argparse sees positional paths.
    verify_command = bool(argv) and argv[0] == "verify"
    args = build_parser().parse_args(argv[1:] if verify_command else argv)
    args.verify_command = verify_command
    try:
        if args.explain:
            return _explain(args.explain, args.format)
        if args.list_rules:
            return _list_rules(args.format)
        return _check(args)
    except BrokenPipeError:
        return EXIT_ERROR
    except RuntimeError as exc:
        # A worker process killed under us (the OOM killer, a signal): no traceback. What
        # was written is whole (the main process writes), the rest is left as it was.
        pool = sys.modules.get("concurrent.futures.process")
        if pool is None or not isinstance(exc, pool.BrokenProcessPool):
            raise
        return _error(
            "a worker process died unexpectedly (out of memory?); files not yet written "
            "are unchanged (run with -j1 to find the file)"
        )


def _error(message: str) -> int:
    print(f"jitlint: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _explain(code: str, fmt: str) -> int:
    from jitlint import catalogue
    from jitlint.rules import all_rules

    rule = all_rules().get(code.strip().upper())
    if rule is None:
        return _error(f"unknown rule code {code!r} (see `jitlint --list-rules`)")
    if fmt == "json":
        print(json.dumps(catalogue.explain_json(rule), indent=2))
    else:
        print(catalogue.render_page(rule), end="")
    return EXIT_CLEAN


def _list_rules(fmt: str) -> int:
    from jitlint import catalogue
    from jitlint.rules import all_rules

    rules = all_rules()
    if fmt == "json":
        entries = [catalogue.explain_json(rule) for rule in rules.values()]
        for entry in entries:
            del entry["explanation"]
        print(json.dumps(entries, indent=2))
        return EXIT_CLEAN
    width = max(len(rule.name) for rule in rules.values())
    for code, rule in rules.items():
        default = " " if rule.default_enabled else "o"
        fix = "*" if rule.fix_availability != "none" else " "
        print(f"{code} {fix}{default} {rule.name:<{width}}  {rule.summary}")
    print("\n* has a fix; o off by default (enable with --extend-select)")
    return EXIT_CLEAN


def _check(args: argparse.Namespace) -> int:
    from jitlint import selection
    from jitlint.config import ConfigError, load_settings
    from jitlint.engine.discovery import FileFinder
    from jitlint.engine.runner import RuleSets, Task, display_path, run

    paths = [Path(p) for p in (args.paths or ["."])]
    stdin = any(str(p) == "-" for p in paths)
    if stdin and len(paths) > 1:
        return _error("`-` (stdin) cannot be combined with other paths")
    start = Path(args.stdin_filename).parent if stdin and args.stdin_filename else Path.cwd()
    try:
        if args.config is not None and not args.config.is_file():
            raise ConfigError(f"{args.config}: no such config file")
        settings = load_settings(args.config, start)
        enabled = selection.resolve_layers(
            [
                selection.Layer(settings.select, settings.extend_select, settings.ignore),
                selection.Layer(
                    [selection.check_selector(s) for s in args.select] if args.select else None,
                    [selection.check_selector(s) for s in args.extend_select],
                    [selection.check_selector(s) for s in args.ignore],
                ),
            ]
        )
    except (ConfigError, selection.UnknownSelector) as exc:
        return _error(str(exc))

    if args.statistics and args.format in ("sarif", "github"):
        return _error("--statistics prints text or json")
    rule_sets = RuleSets(settings, enabled)
    tasks: list[Task] = []
    missing: list[Path] = []
    excluded_stdin = stdin and _stdin_force_excluded(args, settings)
    if excluded_stdin:
        # Nothing to lint; `--fix` still hands the input back, as an editor expects.
        if args.fix and not args.diff:
            from jitlint.frontends.fixing import echo_stdin

            echo_stdin(b"")
            return EXIT_CLEAN
    elif stdin:
        name = args.stdin_filename or "-"
        # One byte past the limit is enough to know it is over; `--fix` then streams the
        # rest back unread (frontends/fixing.py), so no input size is held in memory.
        limit = settings.max_file_size
        data = sys.stdin.buffer.read(limit + 1) if limit else sys.stdin.buffer.read()
        codes = rule_sets.codes_for(Path(name))
        tasks.append(
            Task(
                name,
                None,
                codes,
                settings.rule_options,
                data,
                settings.max_file_size,
                settings.max_file_seconds,
                settings.max_file_memory,
            )
        )
    else:
        finder = FileFinder(
            settings.root,
            settings.exclude,
            settings.extend_exclude,
            settings.respect_gitignore,
            settings.force_exclude,
        )
        files, missing = finder.find(paths)
        tasks = [
            Task(
                display_path(f),
                str(f),
                rule_sets.codes_for(f),
                settings.rule_options,
                max_file_size=settings.max_file_size,
                max_seconds=settings.max_file_seconds,
                max_memory=settings.max_file_memory,
            )
            for f in files
        ]
    for path in missing:
        print(f"jitlint: error: {path}: no such file or directory", file=sys.stderr)
    unsafe = settings.unsafe_fixes if args.unsafe_fixes is None else args.unsafe_fixes
    if args.verify_command or args.verify:
        problem = _verify_usage(args, stdin)
        if problem:
            return _error(problem)
    # A missing path is an error, but the other paths are still checked, fixed or verified.
    if args.verify_command:
        status = _verify(args, settings, tasks, unsafe)
        return EXIT_ERROR if missing else status
    if args.fix or args.diff:
        status = _fix(args, settings, tasks, unsafe)
        return EXIT_ERROR if missing else status

    result = run(tasks, args.jobs, None if args.no_cache or stdin else settings.root, settings.root)
    diagnostics = result.diagnostics
    for error in result.errors:
        print(f"jitlint: error: {error}", file=sys.stderr)

    _print_findings(diagnostics, tasks, args, unsafe, sys.stdout)
    if result.errors or missing:
        return EXIT_ERROR
    if diagnostics and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _print_findings(
    diagnostics: list[Diagnostic],
    tasks: Sequence[Task],
    args: argparse.Namespace,
    unsafe: bool,
    stream: TextIO,
    summarize: bool = True,
) -> None:
    from jitlint.reporting import FORMATS, format_statistics, format_statistics_json
    from jitlint.reporting.text import summary

    if args.statistics:
        if args.format == "json":
            stream.write(format_statistics_json(diagnostics))
        else:
            stream.write(format_statistics(diagnostics))
        return
    text_format = args.format in ("full", "concise")
    sources = _sources(diagnostics, tasks) if args.format == "full" else {}
    options = {"unsafe_fixes": unsafe} if text_format else {}
    stream.write(FORMATS[args.format](diagnostics, sources, **options))
    if text_format and summarize and not args.quiet:
        if diagnostics and args.format == "full":
            stream.write("\n")
        stream.write(summary(diagnostics, unsafe))


def _fix(args: argparse.Namespace, settings: Settings, tasks: list[Task], unsafe: bool) -> int:
    from jitlint import selection
    from jitlint.frontends.fixing import run_fix_mode

    fixable = selection.resolve_layers(
        [selection.Layer(settings.fixable or ["ALL"], [], settings.unfixable)]
    )

    def report(remaining: list[Diagnostic], to_stderr: bool) -> None:
        stream = sys.stderr if to_stderr else sys.stdout
        _print_findings(remaining, tasks, args, unsafe, stream, summarize=False)
        if remaining and args.format == "full":
            stream.write("\n")

    verifier = None
    if args.verify:
        from jitlint.verify.command import FixVerifier, options_for

        options = options_for(settings, args.jobs, confirm=False, quiet=args.quiet)
        verifier = FixVerifier(options, args.force)
    status = run_fix_mode(
        tasks,
        "diff" if args.diff else "fix",
        unsafe,
        fixable,
        args.jobs,
        report,
        args.quiet,
        verifier=verifier,
        json_output=args.format == "json",
        project_root=settings.root,
        machine_output=args.format in MACHINE_FORMATS,
    )
    if status == EXIT_FINDINGS and args.exit_zero and not args.diff:
        return EXIT_CLEAN
    return status


def _verify_usage(args: argparse.Namespace, stdin: bool) -> str | None:
    if stdin:
        return "verification imports the code: name files, not `-`"
    if args.verify_command and (args.fix or args.diff or args.verify):
        return "`jitlint verify` writes nothing; use `jitlint --fix --verify` to write"
    if args.verify and (args.diff or not args.fix):
        return "--verify needs --fix (or run `jitlint verify PATHS` to verify without writing)"
    if args.format not in ("full", "concise", "json"):
        return "verification output is text or json"
    return None


def _verify(args: argparse.Namespace, settings: Settings, tasks: list[Task], unsafe: bool) -> int:
    """`jitlint verify`: fix in memory, verify, confirm findings; exit 1 if a function failed."""
    from jitlint import selection
    from jitlint.verify import report
    from jitlint.verify.command import options_for, run_verify

    fixable = selection.resolve_layers(
        [selection.Layer(settings.fixable or ["ALL"], [], settings.unfixable)]
    )
    options = options_for(settings, args.jobs, confirm=True, quiet=args.quiet)
    run = run_verify(tasks, options, unsafe, fixable)
    for error in run.errors:
        print(f"jitlint: error: {error}", file=sys.stderr)
    if args.format == "json":
        sys.stdout.write(report.to_json(run.results, run.applied, run.findings))
    else:
        report.write_text(run.results, sys.stdout, quiet=args.quiet)
    if run.errors:
        return EXIT_ERROR
    failed = any(r.status == "failed" for r in run.results)
    return EXIT_FINDINGS if failed and not args.exit_zero else EXIT_CLEAN


def _sources(diagnostics: Sequence[Diagnostic], tasks: Sequence[Task]) -> dict[str, list[str]]:
    """The text of files with findings, for the source frames of the `full` format (of a
    notebook's cells, by `path:cell N`)."""
    from jitlint.engine.runner import NOTEBOOK_READ_LIMIT
    from jitlint.engine.source import DecodeProblem, decode_source, split_lines
    from jitlint.notebook import is_notebook
    from jitlint.system.reading import TooLarge, Unreadable, read_regular_file

    wanted = {d.path for d in diagnostics}
    sources: dict[str, list[str]] = {}
    for task in tasks:
        if task.display not in wanted:
            continue
        data = task.source
        try:
            if data is None and task.path is not None:
                notebook = is_notebook(task.path or task.display)
                limit = NOTEBOOK_READ_LIMIT if notebook else task.max_file_size
                data = read_regular_file(task.path, limit)
            if data is not None and is_notebook(task.path or task.display):
                from jitlint.notebook.check import cell_sources

                for cell, text in cell_sources(data).items():
                    sources[f"{task.display}:cell {cell}"] = text.splitlines()
            elif data is not None:
                lines = split_lines(decode_source(data).text)
                sources[task.display] = [line.rstrip("\r\n") for line in lines]
        except (Unreadable, TooLarge, DecodeProblem):
            continue
    return sources


def _stdin_force_excluded(args: argparse.Namespace, settings: Settings) -> bool:
    """`force-exclude = true` applies to `--stdin-filename` as to a named file (ruff)."""
    if not (args.stdin_filename and settings.force_exclude):
        return False
    from jitlint.engine.discovery import FileFinder

    finder = FileFinder(
        settings.root, settings.exclude, settings.extend_exclude, settings.respect_gitignore
    )
    return finder.is_excluded(Path(args.stdin_filename), is_dir=False)
