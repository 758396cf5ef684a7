"""`jitlint [check] [OPTIONS] [PATHS...]`: ruff's conventions for selection, formats and
exit codes (`jitlint server` starts the Language Server, frontends/lsp/server.py).

Exit status: 0 when nothing remains (or nothing was found to check), 1 when findings remain,
2 for a usage or configuration error or an internal error.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from jitlint.system import collector
from jitlint.version import __version__

if TYPE_CHECKING:
    from jitlint.config import Settings
    from jitlint.diagnostics import Diagnostic
    from jitlint.engine.runner import Task
    from jitlint.profiles import Profiles
    from jitlint.reporting.options import ReportOptions

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SUBCOMMANDS = ("check", "verify")
# Every `--output-format`, as reporting.FORMATS names them (not imported: `--help` and a
# one-file run would pay for every formatter's imports).
FORMAT_CHOICES = (
    "full", "concise", "grouped", "json", "json-lines", "sarif", "github", "gitlab", "junit",
    "pylint", "rdjson", "azure",
)  # fmt: skip


def _codes(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _patterns(value: str) -> list[str]:
    """`--exclude`/`--extend-exclude`: comma-separated gitignore-style patterns, each checked
    here, so an invalid one is a usage error (exit 2) naming it, not a crash mid-run."""
    from jitlint.system.discovery import pattern_problem

    patterns = _codes(value)
    for pattern in patterns:
        problem = pattern_problem(pattern)
        if problem is not None:
            raise argparse.ArgumentTypeError(f"invalid pattern {pattern!r}: {problem}")
    return patterns


def _per_file_ignores(value: str) -> list[str]:
    """flake8's spelling: whitespace-separated `PATTERN:CODES` entries; each pattern checked
    as `_patterns` does."""
    from jitlint.system.discovery import pattern_problem

    entries = value.split()
    for entry in entries:
        pattern = entry.rpartition(":")[0].strip()
        problem = pattern_problem(pattern) if pattern else None
        if problem is not None:
            raise argparse.ArgumentTypeError(f"invalid pattern {pattern!r}: {problem}")
    return entries


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
    parser.usage = (
        "jitlint [check] [OPTIONS] [PATHS ...]   (or: jitlint verify [OPTIONS] PATHS, "
        "jitlint rule CODE|--all, jitlint clean, jitlint server, jitlint explain-error [FILE|-])"
    )
    parser.epilog = (
        "jitlint explain-error [FILE|-]: explain a JAX/TensorFlow JIT error from its "
        "traceback (see `jitlint explain-error --help`)"
    )
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
    sel.add_argument(
        "--extend-ignore",
        type=_codes,
        action="extend",
        dest="ignore",
        metavar="CODES",
        help="the same as --ignore (flake8's name)",
    )
    sel.add_argument(
        "--per-file-ignores",
        type=_per_file_ignores,
        action="extend",
        default=[],
        metavar="PATTERN:CODES",
        help="codes to disable in files matching a pattern (relative to the working directory), "
        "e.g. 'tests/*:JIT107,JIT110'; several entries separated by spaces",
    )
    sel.add_argument(
        "--ignore-noqa",
        action="store_true",
        help="report findings that `# noqa` and `# jitlint:` comments suppress",
    )
    sel.add_argument(
        "--assume-traced",
        metavar="PATTERNS",
        type=_assume_traced,
        help="more code to treat as traced under jit, comma-separated, replacing the config's "
        "`assume-traced`: `decorator:QUALNAME`, `base:QUALNAME`, `public-array-functions`, "
        "`module-constructors`",
    )
    files = parser.add_argument_group("file selection")
    files.add_argument(
        "--show-files",
        action="store_true",
        help="print the files that would be linted (absolute, sorted), then exit",
    )
    files.add_argument(
        "--exclude",
        type=_patterns,
        action="extend",
        metavar="PATTERNS",
        help="gitignore-style patterns to skip, replacing the configured `exclude` and the "
        "defaults (comma-separated, relative to the working directory)",
    )
    files.add_argument(
        "--extend-exclude",
        type=_patterns,
        action="extend",
        default=[],
        metavar="PATTERNS",
        help="patterns to skip on top of the configured ones",
    )
    files.add_argument(
        "--force-exclude",
        action="store_true",
        default=None,
        help="apply the excludes to files named on the command line too (for pre-commit)",
    )
    files.add_argument(
        "--no-force-exclude",
        action="store_false",
        dest="force_exclude",
        help="override `force-exclude = true` from the config",
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
    fix.add_argument(
        "--show-fixes",
        action="store_true",
        help="with --fix: list the fixes applied; without: show each fix's edits (full format)",
    )
    # ---- ruff's fix flags (issue #32)
    fix.add_argument(
        "--fix-only",
        action="store_true",
        help="apply fixes and report no remaining findings; exit 0 unless an error",
    )
    fix.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="with --fix or --fix-only: exit 1 when a fix was applied, even if nothing remains",
    )
    fix.add_argument(
        "--add-noqa",
        action="store_true",
        help="add a `# noqa: CODES` comment to each line with a finding, then exit 0",
    )
    out = parser.add_argument_group("output")
    out.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=FORMAT_CHOICES,
        default=None,
        metavar="FORMAT",
        help=f"how findings are printed: {', '.join(FORMAT_CHOICES)} (default: "
        "$JITLINT_OUTPUT_FORMAT, else full)",
    )
    out.add_argument(
        "--statistics", action="store_true", help="print counts per rule (text or json)"
    )
    out.add_argument(
        "-o", "--output-file", type=Path, metavar="PATH", help="write the report to PATH"
    )
    out.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text formats: auto (a terminal, unless NO_COLOR is set; FORCE_COLOR "
        "forces it), always or never",
    )
    out.add_argument(
        "-q", "--quiet", action="store_true", help="print findings only: no summary, no progress"
    )
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    docs = parser.add_argument_group("documentation")
    docs.add_argument("--explain", metavar="CODE", help="show a rule's documentation")
    docs.add_argument("--list-rules", action="store_true", help="list every rule")
    docs.add_argument(
        "--show-settings",
        type=Path,
        metavar="PATH",
        help="print the settings PATH is linted with: config file, selection, per-file "
        "ignores, framework versions and where each came from (text or json)",
    )
    misc = parser.add_argument_group("other")
    misc.add_argument(
        "--config",
        type=Path,
        metavar="PATH",
        help="use this pyproject.toml or jitlint.toml for every file (default: the one "
        "nearest to each file)",
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
    # ---- ruff's spellings (issue #32): frontends/commands.py, frontends/watch.py
    misc.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="keep the cache in DIR (default: $JITLINT_CACHE_DIR, else .jitlint_cache/ in "
        "the project root)",
    )
    misc.add_argument(
        "--isolated",
        action="store_true",
        help="read no config file: the defaults and the command line's options only",
    )
    misc.add_argument(
        "-w",
        "--watch",
        action="store_true",
        help="lint again whenever a file changes (the screen is cleared on a terminal)",
    )
    misc.add_argument("--version", action="version", version=f"jitlint {__version__}")
    return parser  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["server"]:  # `jitlint server`: the Language Server (frontends/lsp/server.py)
        from jitlint.frontends.lsp.server import main as serve

        collector.resume()  # a long-lived process
        return serve(argv[1:])
    if argv[:1] in (["rule"], ["clean"]):  # ruff's `rule CODE|--all` and `clean`
        from jitlint.frontends import commands

        if argv[0] == "rule":
            return commands.rule_command(argv[1:], FORMAT_CHOICES)
        return commands.clean_command(argv[1:])
    if argv[:1] == ["explain-error"]:  # a traceback -> the finding that explains it
        from jitlint.explain.command import main as explain_error

        collector.resume()
        return explain_error(argv[1:])
    # `jitlint verify PATHS` and `jitlint check PATHS` (ruff's spelling of the default):
    # subcommands, told apart before argparse sees positional paths. `./check` names a path.
    command = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    args = build_parser().parse_args(argv[1:] if command else argv)
    args.verify_command = command == "verify"
    try:
        from jitlint.frontends.commands import output_format

        args.format = output_format(args.format, FORMAT_CHOICES)
    except ValueError as exc:
        return _error(str(exc))
    args.fix = args.fix or args.fix_only  # `--fix-only` fixes, as ruff's does
    try:
        if args.explain:
            return _explain(args.explain, args.format)
        if args.list_rules:
            return _list_rules(args.format)
        if args.show_settings is not None:
            return _show_settings(args)
        if args.watch:
            return _watch(args)
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


def _warning(message: str) -> None:
    print(f"jitlint: warning: {message}", file=sys.stderr)


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


def _usage_problem(args: argparse.Namespace, stdin: bool) -> str | None:
    """A combination of options that would do something other than asked: refused (exit 2)
    rather than ignored."""
    if args.force and not args.verify:
        return "--force needs --verify (it writes fixes that failed verification)"
    if args.statistics and args.format not in ("full", "concise", "grouped", "json"):
        return f"--statistics prints text or json, not {args.format}"
    if args.add_noqa and (args.fix or args.diff or args.verify or args.verify_command):
        return "--add-noqa edits comments only; run it without --fix, --diff or --verify"
    if args.add_noqa and stdin:
        return "--add-noqa writes files: name files, not `-`"
    return _ruff_flag_problem(args, stdin)


def _ruff_flag_problem(args: argparse.Namespace, stdin: bool) -> str | None:
    """The combinations of issue #32's flags that cannot do what they say."""
    if args.isolated and args.config is not None:
        return "--isolated reads no config file; drop --config or --isolated"
    if args.show_files and (args.fix or args.diff or args.add_noqa or args.statistics):
        return "--show-files only lists files; run it without --fix, --diff, --add-noqa"
    if args.ignore_noqa and args.add_noqa:
        return "--add-noqa would add comments for findings that are already suppressed"
    if args.fix_only and args.statistics:
        return "--fix-only reports no findings, so there are no --statistics"
    if args.exit_non_zero_on_fix and not args.fix:
        return "--exit-non-zero-on-fix needs --fix or --fix-only"
    if args.watch and (stdin or args.add_noqa or args.show_files or args.verify_command):
        return (
            "--watch lints files on disk again and again: not with `-`, --add-noqa, "
            "--show-files or `jitlint verify`"
        )
    return None


@dataclass
class _Plan:
    """What a run lints and how it reports."""

    tasks: list[Task]
    settings: Settings  # of the config that governs the working directory (or --config)
    unsafe: bool  # the command line's, else that config's: what `[*]` and help show
    missing: list[Path] = field(default_factory=list)
    stdin_excluded: bool = False  # `--stdin-filename` names a file `force-exclude` excludes


def _assume_traced(text: str) -> list[str]:
    """`--assume-traced` patterns, checked as the config's are."""
    from jitlint.model.jax.frameworks.contracts import assumption_problem

    patterns = [p.strip() for p in text.split(",") if p.strip()]
    for pattern in patterns:
        problem = assumption_problem(pattern)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
    return patterns


def _show_settings(args: argparse.Namespace) -> int:
    from jitlint import selection
    from jitlint.config import ConfigError
    from jitlint.frontends.show_settings import render, settings_report

    path: Path = args.show_settings
    if not path.exists():
        return _error(f"{path}: no such file or directory")
    try:
        report = settings_report(_profiles(args, Path.cwd())[0], path)
    except (ConfigError, selection.UnknownSelector) as exc:
        return _error(str(exc))
    sys.stdout.write(render(report, as_json=args.format == "json"))
    return EXIT_CLEAN


def _profiles(args: argparse.Namespace, start: Path) -> tuple[Profiles, Settings]:
    """Each file's settings (its nearest config, or --config) under the command line's,
    and the settings governing `start`."""
    from jitlint import selection
    from jitlint.config import ConfigResolver
    from jitlint.profiles import Overrides, Profiles, parse_per_file_ignores

    overrides = Overrides(
        layer=selection.Layer(
            [selection.check_selector(s) for s in args.select] if args.select else None,
            [selection.check_selector(s) for s in args.extend_select],
            [selection.check_selector(s) for s in args.ignore],
        ),
        exclude=args.exclude,
        extend_exclude=args.extend_exclude,
        force_exclude=args.force_exclude,
        per_file_ignores=parse_per_file_ignores(args.per_file_ignores),
        unsafe_fixes=args.unsafe_fixes,
        ignore_noqa=args.ignore_noqa,
        assume_traced=args.assume_traced,
    )
    if args.isolated:
        from jitlint.frontends.commands import IsolatedResolver

        profiles = Profiles(IsolatedResolver(), overrides)
    else:
        profiles = Profiles(ConfigResolver(args.config), overrides)
    return profiles, profiles.for_directory(start).settings


def _plan(args: argparse.Namespace, paths: list[Path], stdin: bool) -> _Plan:
    from jitlint.system.discovery import FileFinder

    stdin_name = args.stdin_filename if stdin else None
    start = Path(stdin_name).parent if stdin_name else Path.cwd()
    profiles, settings = _profiles(args, start)
    unsafe = settings.unsafe_fixes if args.unsafe_fixes is None else args.unsafe_fixes
    if stdin:
        name = args.stdin_filename or "-"
        if args.stdin_filename and _force_excluded(profiles, settings.root, Path(name)):
            return _Plan([], settings, unsafe, stdin_excluded=True)
        # One byte past the limit is enough to know it is over; `--fix` then streams the
        # rest back unread (frontends/fixing.py), so no input size is held in memory.
        limit = profiles.for_file(Path(name)).settings.max_file_size
        data = _read_stdin(limit)
        return _Plan([profiles.task(Path(name), display=name, source=data)], settings, unsafe)
    found = FileFinder(profiles.exclusion_for, settings.root).find(paths)
    for path in found.not_python:
        _warning(f"{path}: not a Python file; skipped")
    tasks = [profiles.task(path) for path in found.files]
    return _Plan(tasks, settings, unsafe, found.missing)


class _NoStdin(Exception):
    """`-` was given, but stdin is closed or cannot be read."""


def _read_stdin(limit: int | None) -> bytes:
    stream = getattr(sys.stdin, "buffer", None)  # None when the process started without fd 0
    if stream is None:
        raise _NoStdin("`-` reads stdin, but stdin is closed")
    try:
        return stream.read(limit + 1) if limit else stream.read()
    except (OSError, ValueError) as exc:  # EBADF, or a closed file object
        raise _NoStdin(f"`-` reads stdin, but it cannot be read ({exc})") from None


def _check(args: argparse.Namespace) -> int:
    from jitlint import selection
    from jitlint.config import ConfigError

    paths = [Path(p) for p in (args.paths or ["."])]
    stdin = any(str(p) == "-" for p in paths)
    if stdin and len(paths) > 1:
        return _error("`-` (stdin) cannot be combined with other paths")
    problem = _usage_problem(args, stdin)
    if problem:
        return _error(problem)
    try:
        plan = _plan(args, paths, stdin)
    except (ConfigError, selection.UnknownSelector, _NoStdin) as exc:
        return _error(str(exc))
    for path in plan.missing:
        print(f"jitlint: error: {path}: no such file or directory", file=sys.stderr)
    if not plan.tasks and not plan.missing and not stdin:
        _warning("no Python files found")
    tasks, settings, unsafe = plan.tasks, plan.settings, plan.unsafe
    if args.show_files:
        from jitlint.frontends.commands import show_files

        status = show_files(tasks)  # what was found, even beside a missing path
        return EXIT_ERROR if plan.missing else status
    if args.verify_command or args.verify:
        problem = _verify_usage(args, stdin)
        if problem:
            return _error(problem)
    if plan.stdin_excluded and args.fix and not args.diff:
        # Nothing to lint; `--fix` still hands the input back, as an editor expects.
        from jitlint.frontends.fixing import echo_stdin

        echo_stdin(b"")
        return EXIT_CLEAN
    # A missing path is an error, but the other paths are still checked, fixed or verified.
    if args.verify_command:
        status = _verify(args, settings, tasks, unsafe)
        return EXIT_ERROR if plan.missing else status
    if args.fix or args.diff:
        status = _fix(args, settings, tasks, unsafe)
        return EXIT_ERROR if plan.missing else status
    return _lint(args, plan)


def _lint(args: argparse.Namespace, plan: _Plan) -> int:
    from jitlint.engine.runner import run
    from jitlint.frontends.terminal import TerminalProgress

    collector.resume()  # the engine is imported: the lint begins
    settings, tasks = plan.settings, plan.tasks
    stdin = bool(tasks) and tasks[0].path is None
    progress = TerminalProgress.for_run(sys.stderr, args.quiet)
    try:
        from jitlint.frontends.commands import cache_dir

        cache_root = None if args.no_cache or stdin else settings.root
        directory = cache_dir(args.cache_dir)
        result = run(tasks, args.jobs, cache_root, settings.root, progress, directory)
    finally:
        if progress is not None:
            progress.close()
    diagnostics = result.diagnostics
    for error in result.errors:
        print(f"jitlint: error: {error}", file=sys.stderr)
    failed = bool(result.errors or plan.missing)
    if args.add_noqa:
        return _add_noqa(args, diagnostics, tasks, failed)
    with _output(args) as stream:
        options = _report_options(args, plan, stream)
        # "All checks passed!" only when something was checked and nothing went wrong.
        summarize = bool(tasks) and not (failed and not diagnostics)
        _print_findings(diagnostics, tasks, args, options, stream, summarize=summarize)
    if failed:
        return EXIT_ERROR
    if diagnostics and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _add_noqa(
    args: argparse.Namespace, diagnostics: list[Diagnostic], tasks: list[Task], failed: bool
) -> int:
    from jitlint.frontends.noqa import add_noqa

    added, errors, skipped = add_noqa(diagnostics, tasks)
    for error in errors:
        print(f"jitlint: error: {error}", file=sys.stderr)
    for path in skipped:
        _warning(f"{path}: --add-noqa leaves notebooks as they are; skipped")
    if not args.quiet:
        print(f"Added {added} noqa directive{'s' if added != 1 else ''}.", file=sys.stderr)
    return EXIT_ERROR if failed or errors else EXIT_CLEAN


@contextlib.contextmanager
def _output(args: argparse.Namespace) -> Iterator[TextIO]:
    """The report's stream: `--output-file`, else stdout."""
    if args.output_file is None:
        yield sys.stdout
        return
    with open(args.output_file, "w", encoding="utf-8") as handle:
        yield handle


def _report_options(args: argparse.Namespace, plan: _Plan, stream: TextIO) -> ReportOptions:
    from jitlint.frontends.terminal import use_colour
    from jitlint.reporting.options import ReportOptions

    return ReportOptions(
        unsafe_fixes=plan.unsafe,
        colour=use_colour(args.color, stream),
        show_fixes=args.show_fixes,
        root=plan.settings.root,
    )


def _print_findings(
    diagnostics: list[Diagnostic],
    tasks: Sequence[Task],
    args: argparse.Namespace,
    options: ReportOptions,
    stream: TextIO,
    summarize: bool = True,
) -> None:
    from jitlint.reporting import FORMATS, SOURCE_FORMATS, TEXT_FORMATS, format_statistics
    from jitlint.reporting.text import summary

    if args.statistics:
        stream.write(format_statistics(diagnostics, options, as_json=args.format == "json"))
        return
    text_format = args.format in TEXT_FORMATS
    sources = _sources(diagnostics, tasks) if args.format in SOURCE_FORMATS else {}
    stream.write(FORMATS[args.format](diagnostics, sources, options))
    if text_format and summarize and not args.quiet:
        if diagnostics and args.format == "full":
            stream.write("\n")
        stream.write(summary(diagnostics, options))


def _fix(args: argparse.Namespace, settings: Settings, tasks: list[Task], unsafe: bool) -> int:
    from jitlint import selection
    from jitlint.frontends.fixing import run_fix_mode
    from jitlint.frontends.terminal import TerminalProgress
    from jitlint.reporting import TEXT_FORMATS

    collector.resume()
    fixable = selection.resolve_layers(
        [selection.Layer(settings.fixable or ["ALL"], [], settings.unfixable)]
    )
    plan = _Plan(tasks, settings, unsafe)
    stdin = len(tasks) == 1 and tasks[0].path is None

    with _output(args) as stream:

        def report(remaining: list[Diagnostic], to_stderr: bool) -> None:
            out = sys.stderr if to_stderr else stream
            options = _report_options(args, plan, out)
            _print_findings(remaining, tasks, args, options, out, summarize=False)
            if remaining and args.format == "full":
                out.write("\n")

        verifier = None
        if args.verify:
            from jitlint.verify.command import FixVerifier, options_for

            options = options_for(settings, args.jobs, confirm=False, quiet=args.quiet)
            verifier = FixVerifier(options, args.force)
        progress = None if stdin else TerminalProgress.for_run(sys.stderr, args.quiet)
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
            machine_output=args.format not in TEXT_FORMATS,
            stream=stream,
            show_fixes=args.show_fixes,
            progress=progress,
            fix_only=args.fix_only,
            exit_non_zero_on_fix=args.exit_non_zero_on_fix,
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

    collector.resume()
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
                from jitlint.engine.notebook import cell_sources

                for cell, text in cell_sources(data).items():
                    sources[f"{task.display}:cell {cell}"] = text.splitlines()
            elif data is not None:
                lines = split_lines(decode_source(data).text)
                sources[task.display] = [line.rstrip("\r\n") for line in lines]
        except (Unreadable, TooLarge, DecodeProblem):
            continue
    return sources


def _force_excluded(profiles: Profiles, root: Path, path: Path) -> bool:
    """`force-exclude` applies to `--stdin-filename` as to a named file (ruff)."""
    from jitlint.system.discovery import FileFinder

    if not profiles.exclusion_for(path.parent).force:
        return False
    return FileFinder(profiles.exclusion_for, root).is_excluded(path, is_dir=False)


def _watch(args: argparse.Namespace) -> int:
    """`-w/--watch` (frontends/watch.py): `_check` again whenever a file it lints, or a
    config file beside one, changes."""
    from jitlint.frontends import watch

    paths = [Path(p) for p in (args.paths or ["."])]
    problem = _usage_problem(args, any(str(p) == "-" for p in paths))
    if problem:
        return _error(problem)

    def find_files() -> list[str]:
        from jitlint.config import ConfigError
        from jitlint.selection import UnknownSelector
        from jitlint.system.discovery import FileFinder

        try:
            profiles, settings = _profiles(args, Path.cwd())
            found = FileFinder(profiles.exclusion_for, settings.root).find(paths)
        except (ConfigError, UnknownSelector):  # a broken config: its own stamp still counts
            return []
        return [str(path) for path in found.files]

    return watch.watch(lambda: _check(args), find_files)
