"""Run one worker subprocess per module, with a timeout, in a temporary directory.

Containment: the worker's working directory is a fresh temporary directory, the module's
package (or the lone module) is imported from a temporary copy, bytecode is not written, and
its output goes to files. It runs in its own session, so on a timeout (or when it leaves a
forked child behind) the whole process group is killed. The directory is always removed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jitlint.diagnostics import Diagnostic
from jitlint.rules import all_rules
from jitlint.verify import inputs
from jitlint.verify.plan import ModulePlan, Target, Through
from jitlint.verify.results import FindingCheck, FunctionResult

NO_EXAMPLES = (
    "no example inputs for {name} (declare them in [tool.jitlint.verify] or record them "
    "with the pytest plugin)"
)
NO_INSTANCE = (
    "no example inputs for {name} (declare an instance factory and arguments in "
    "[tool.jitlint.verify] examples, or record them with the pytest plugin)"
)
_POLL = 0.1
_ORIGINAL_PHASES = ("start", "importing the original module", "importing the examples")


@dataclass
class Options:
    """The options of a verification run."""

    root: Path  # the configuration's directory: examples keys may name modules from here
    examples: list[Path]
    record_file: Path | None
    timeout: float
    confirm: bool = False  # `jitlint verify`: also confirm the findings
    jobs: int | None = None
    progress: Callable[[str], None] | None = None


@dataclass
class Work:
    """One module's plan, for a worker."""

    plan: ModulePlan
    file: Path  # the module's real path


def module_name(path: Path) -> tuple[str, Path, Path | None, bool]:
    """(dotted name, sys.path root, top package directory or None, is a package __init__)."""
    path = path.resolve()
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.name.isidentifier():
        parts.insert(0, directory.name)
        directory = directory.parent
    top = directory / parts[0] if parts and (len(parts) > 1 or is_package) else None
    return ".".join(parts), directory, top, is_package


def aliases(path: Path, root: Path) -> list[str]:
    """Names an EXAMPLES key may use for the module: its import name, and its dotted path from
    the configuration's directory (`examples.train_step` for examples/train_step.py)."""
    name = module_name(path)[0]
    found = [name]
    try:
        relative = path.resolve().relative_to(root.resolve()).with_suffix("")
    except ValueError:
        return found
    parts = list(relative.parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    dotted = ".".join(parts)
    if dotted and dotted not in found:
        found.append(dotted)
    return found


def record_path(options: Options) -> Path:
    return options.record_file or options.root / inputs.DEFAULT_RECORD_FILE


def verify(works: list[Work], options: Options) -> list[FunctionResult]:
    recorded = inputs.load_recorded(record_path(options))
    jobs = max(1, min(options.jobs or os.cpu_count() or 1, len(works) or 1, 4))
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            per_module = list(pool.map(lambda w: _verify_module(w, options, recorded), works))
    finally:
        if options.progress is not None:
            options.progress("")  # a terminal's progress line is cleared before the report
    return [r for results in per_module for r in results]


def _recorded_for(names: list[str], qualname: str, recorded: dict[str, Any]) -> list[Any]:
    for name in names:
        found = recorded.get(f"{name}:{qualname}")
        if found:
            return found
    return []


def _verify_module(
    work: Work, options: Options, recorded: dict[str, list[Any]]
) -> list[FunctionResult]:
    plan = work.plan
    results: dict[str, FunctionResult] = {}
    unchecked: dict[str, list[FindingCheck]] = {}  # by target: its findings, not checked
    to_run: list[dict[str, Any]] = []
    names = aliases(work.file, options.root)
    for target in plan.targets:
        result = FunctionResult(
            plan.path,
            target.line,
            target.qualname,
            "skipped",
            "",
            fixes=sorted({f"{d.code}:{d.line}" for d in target.fixes}),
        )
        results[target.qualname] = result
        local = _local_reason(target)
        entry = _target_json(target, _recorded_for(names, target.qualname, recorded))
        if local is None and not (
            options.examples
            or entry["recorded"]
            or (isinstance(entry["annotated"], dict) and target.top_level)
        ):
            message = NO_EXAMPLES if target.top_level else NO_INSTANCE
            local = message.format(name=target.qualname)
        unchecked[target.qualname] = [
            FindingCheck(d.code, d.line, "not checked", "") for d, _ in target.findings
        ]
        if local is not None:
            result.detail = local
            result.findings = _unchecked(target, local) if options.confirm else []
            continue
        to_run.append(entry)
    for through in plan.through:
        result = FunctionResult(
            plan.path,
            through.line,
            through.helper,
            "skipped",
            "",
            fixes=sorted({f"{d.code}:{d.line}" for d in through.fixes}),
        )
        results[through.helper] = result
        entry = _through_json(through, options, recorded)
        unchecked[through.helper] = [
            FindingCheck(d.code, d.line, "not checked", "") for d in through.findings
        ]
        if not (options.examples or any(c["recorded"] for c in entry["through"])):
            result.detail = NO_EXAMPLES.format(name=_caller_names(entry))
            if options.confirm:
                result.findings = _not_checked(unchecked[through.helper], result.detail)
            continue
        to_run.append(entry)
    if to_run:
        outcome = _run_worker(work, options, names, to_run)
        for entry in to_run:
            result = results[entry["qualname"]]
            found = outcome.get(entry["qualname"])
            if found is None:
                found = {"status": "skipped", "detail": "the worker gave no answer"}
            result.status = found["status"]
            result.detail = found["detail"]
            result.compiled_with = found.get("compiled_with")
            result.examples = found.get("examples", 0)
            result.findings = [FindingCheck(**c) for c in found.get("findings", [])]
            if options.confirm and not found.get("findings"):
                result.findings = _not_checked(unchecked[entry["qualname"]], found["detail"])
    out = list(results.values())
    for name, (line, fixes, findings) in plan.unowned.items():
        codes = ", ".join(sorted({d.code for d in fixes or findings}))
        kind = "fix" if fixes else "finding"
        where = "module-level" if name == "<module>" else "uncompiled-code"
        reason = f"{where} {kind} ({codes}): no compiled function the verifier can call owns it"
        result = FunctionResult(
            plan.path,
            line,
            name,
            "skipped",
            reason,
            fixes=sorted({f"{d.code}:{d.line}" for d in fixes}),
        )
        if options.confirm:
            result.findings = [
                FindingCheck(d.code, d.line, "not checked", "no compiled function owns it")
                for d in findings
            ]
        out.append(result)
    return out


def _local_reason(target: Target) -> str | None:
    if target.recipe is None:
        return f"{target.qualname} is not compiled in the fixed source"
    if not target.callable:
        return (
            f"{target.qualname} is a nested function; only module-level functions and "
            "methods of module-level classes can be called"
        )
    return None


def _why_unfixed(diagnostic: Diagnostic) -> str:
    fix = diagnostic.fix
    if fix is None:
        return "it has no fix"
    if fix.applicability == "unsafe":
        return "its fix is unsafe and was not applied (--unsafe-fixes applies it)"
    return "its fix was not applied"


def _unchecked(target: Target, reason: str) -> list[FindingCheck]:
    return [FindingCheck(d.code, d.line, "not checked", reason) for d, _ in target.findings]


def _not_checked(checks: list[FindingCheck], reason: str) -> list[FindingCheck]:
    return [FindingCheck(c.code, c.line, "not checked", reason) for c in checks]


def _caller_names(entry: dict[str, Any]) -> str:
    return ", ".join(f"{c['qualname']} ({c['display']})" for c in entry["through"])


def _through_json(
    through: Through, options: Options, recorded: dict[str, list[Any]]
) -> dict[str, Any]:
    """A helper verified through its callers in other files (the worker's `check_through`)."""
    rules = all_rules()
    callers = []
    for caller in through.callers:
        file = Path(caller.file)
        names = aliases(file, options.root)
        callers.append(
            {
                "display": caller.display,
                "file": caller.file,
                "module": module_name(file)[0],
                "aliases": names,
                "qualname": caller.qualname,
                "line": caller.line,
                "recipe": caller.recipe.to_json(),
                "top_level": caller.top_level,
                "recorded": _recorded_for(names, caller.qualname, recorded),
            }
        )
    return {
        "qualname": through.helper,
        "through": callers,
        "recipe": callers[0]["recipe"],
        "top_level": True,
        "in_class": False,
        "changed": bool(through.fixes),
        "reference_source": None,
        "unfixed": [],
        "findings": [
            {
                "code": d.code,
                "line": d.line,
                "regex": rules[d.code].runtime_error if d.code in rules else None,
                "call_site": False,
            }
            for d in through.findings
        ],
    }


def _target_json(target: Target, recorded: list[Any]) -> dict[str, Any]:
    annotated = inputs.from_annotations(target.params) if target.params else "no parameters"
    rules = all_rules()
    return {
        "qualname": target.qualname,
        "recipe": target.recipe.to_json() if target.recipe else None,
        "original_recipe": target.original_recipe.to_json() if target.original_recipe else None,
        "top_level": target.top_level,
        "in_class": target.in_class,
        "class": target.class_qualname,
        "class_kind": target.class_kind,
        "unfixed": [
            {
                "code": d.code,
                "line": line,
                "regex": rules[d.code].runtime_error if d.code in rules else None,
                "why": _why_unfixed(d),
            }
            for d, line in target.unfixed
        ],
        "changed": bool(target.hunks),
        "reference_source": target.reference_source,
        "recorded": recorded,
        "annotated": annotated,
        "annotations_seen": any(code is not None for _, code, _ in target.params),
        "findings": [
            {
                "code": d.code,
                "line": d.line,
                "regex": rules[d.code].runtime_error if d.code in rules else None,
                "call_site": call_site,
            }
            for d, call_site in target.findings
        ],
    }


def _copy_sources(real: Path, top: Path | None, into: Path) -> Path:
    """Copy the module's top package (or the lone module) and return the copied file; a
    package copied already (a caller in the same package) is not copied again."""
    into.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", ".*", "*.pyc")
    if top is None:
        if not (into / real.name).exists():
            shutil.copy2(real, into / real.name)
        return into / real.name
    if not (into / top.name).exists():
        shutil.copytree(top, into / top.name, ignore=ignore, symlinks=True)
    return into / top.name / real.relative_to(top)


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no __pycache__ in the user's tree
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    here = str(Path(__file__).resolve().parents[2])  # the directory holding `jitlint`
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    return env


def _run_worker(
    work: Work, options: Options, names: list[str], targets: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    name, root, top, is_package = module_name(work.file)
    scratch = Path(tempfile.mkdtemp(prefix="jitlint-verify-"))
    try:
        copied = _copy_sources(work.file.resolve(), top, scratch / "src")
        fixed_file = scratch / "fixed" / copied.relative_to(scratch / "src")
        fixed_file.parent.mkdir(parents=True)
        fixed_file.write_text(work.plan.fixed, encoding="utf-8")
        (scratch / "cwd").mkdir()
        sys_path = [str(scratch / "src"), str(root)]
        for entry in targets:
            for caller in entry.get("through", ()):
                _, caller_root, caller_top, _ = module_name(Path(caller["file"]))
                copied_caller = _copy_sources(
                    Path(caller["file"]).resolve(), caller_top, scratch / "src"
                )
                caller["copied_file"] = str(copied_caller)
                caller["is_package"] = copied_caller.name == "__init__.py"
                if str(caller_root) not in sys_path:
                    sys_path.append(str(caller_root))
        job = {
            "module": name,
            "display": work.plan.path,
            "module_aliases": names,
            "sys_path": sys_path,
            "original_file": str(copied),
            "fixed_file": str(fixed_file),
            "is_package": is_package,
            "package_dir": str(copied.parent),
            "examples_files": [str(p.resolve()) for p in options.examples],
            # Recorded instances are pickles beside the record file (see pytest_plugin.py).
            "record_dir": str(record_path(options).resolve().parent),
            "confirm": options.confirm,
            "targets": targets,
            "parent": os.getpid(),  # the worker ends if this process dies
        }
        (scratch / "job.json").write_text(json.dumps(job), encoding="utf-8")
        return _supervise(work.plan.path, scratch, options, targets)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _supervise(
    display: str, scratch: Path, options: Options, targets: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    result_path = scratch / "result.json"
    with open(scratch / "out.txt", "wb") as out, open(scratch / "err.txt", "wb") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jitlint.verify.worker",
                str(scratch / "job.json"),
                str(result_path),
            ],
            cwd=scratch / "cwd",
            env=_environment(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        started, shown, timed_out = time.monotonic(), "", False
        try:
            while proc.poll() is None:
                if time.monotonic() - started > options.timeout:
                    timed_out = True
                    break
                phase = _read(result_path).get("phase", "starting")
                if options.progress and phase != shown:
                    options.progress(f"{display}: {phase}")
                    shown = phase
                time.sleep(_POLL)
        finally:
            _kill_group(proc)
    data = _read(result_path)
    answers: dict[str, dict[str, Any]] = dict(data.get("targets", {}))
    if data.get("phase") == "done" and not timed_out:
        return answers
    phase = data.get("phase", "starting")
    if timed_out:
        what = f"timed out after {options.timeout:g} s while {phase}"
    elif proc.returncode is not None and proc.returncode < 0:
        what = f"the worker crashed ({_signal_name(-proc.returncode)}) while {phase}"
    else:
        what = f"the worker exited with status {proc.returncode} while {phase}"
        tail = _tail(scratch / "err.txt")
        if tail:
            what += f": {tail}"
    # Stuck before any fixed code ran: the fix is not to blame; otherwise it may be.
    status = "skipped" if phase in _ORIGINAL_PHASES else "failed"
    for target in targets:
        if target["qualname"] not in answers:
            answers[target["qualname"]] = {"status": status, "detail": what}
    return answers


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the worker's session: the worker and anything user code forked from it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _read(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _tail(path: Path, limit: int = 300) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    text = lines[-1].strip() if lines else ""
    return text[:limit]


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


# Progress lines from several threads must not interleave mid-line.
_LOCK = threading.Lock()


def progress_printer(stream: Any) -> Callable[[str], None]:
    tty = hasattr(stream, "isatty") and stream.isatty()

    def show(text: str) -> None:
        with _LOCK:
            if tty:
                stream.write(f"\r\x1b[Kverifying {text}" if text else "\r\x1b[K")
            elif text:
                stream.write(f"verifying {text}\n")
            stream.flush()

    return show
