"""The verifier's subprocess: `python -m jitlint.verify.worker JOB RESULT`.

It imports the user's original module, then executes the fixed source as a second module of
the same name and package (so relative imports resolve to the same package), compiles each
target with the real backend before running anything, and compares the original run eagerly
with the fixed function compiled. Results are rewritten after every function, so a crash or
timeout later still leaves the earlier answers; a process forked by user code never writes.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import re
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from jitlint.verify import instances

PID = os.getpid()
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # Keras colours its messages
# Temporary paths in messages, and the name the user knows them by (set from the job).
PATHS: dict[str, str] = {}
NO_EXAMPLES = (
    "no example inputs for {name} (declare them in [tool.jitlint.verify] or record them "
    "with the pytest plugin)"
)
NO_INSTANCE = (
    "no example inputs for {name} (declare an instance factory and arguments in "
    "[tool.jitlint.verify] examples, or record them with the pytest plugin)"
)


def _write(path: str, data: dict[str, Any]) -> None:
    if os.getpid() != PID:
        return  # a fork of the user's making: only the worker itself reports
    temporary = f"{path}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(temporary, path)


def describe(exc: BaseException, limit: int = 400) -> str:
    """`Type: first lines of the message`, as a user would search for it."""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}): the code called sys.exit()"
    text = str(exc).strip()
    # JAX appends long tutorials and TF appends "The op is created at": keep the first part.
    for cut in ("\nSee https://", "\nThe op is created at", "The error occurred while tracing"):
        text = text.split(cut)[0]
    text = " ".join(_ANSI.sub("", text).split())
    for temporary, shown in PATHS.items():
        text = text.replace(temporary, shown)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Worker:
    def __init__(self, job: dict[str, Any], result_path: str) -> None:
        self.job = job
        self.result_path = result_path
        self.result: dict[str, Any] = {"phase": "start", "targets": {}}
        self.original: ModuleType | None = None
        self.fixed: ModuleType | None = None
        self.original_error: str | None = None
        self.fixed_error: str | None = None
        self.examples: dict[str, list[Any]] = {}
        # Every module's examples, for callers in other modules (`check_through`).
        self.other_examples: dict[str, dict[str, list[Any]]] = {}
        self.examples_errors: list[str] = []

    # ---- bookkeeping --------------------------------------------------------------------
    def phase(self, text: str) -> None:
        self.result["phase"] = text
        _write(self.result_path, self.result)

    def finish(self, name: str, **outcome: Any) -> None:
        self.result["targets"][name] = outcome
        _write(self.result_path, self.result)

    # ---- loading ------------------------------------------------------------------------
    def load(self) -> None:
        job = self.job
        PATHS.update({job["fixed_file"]: job["display"], job["original_file"]: job["display"]})
        sys.path[:0] = job["sys_path"]
        name = job["module"]
        self.phase("importing the original module")
        taken = sys.modules.get(name.split(".")[0])
        if taken is not None:
            # `types.py`, `jax.py`...: importing by name would give the installed module.
            where = getattr(taken, "__file__", None) or "built in"
            self.original_error = (
                f"the module name {name} is taken by an installed module ({where})"
            )
        else:
            try:
                self.original = importlib.import_module(name)
            except BaseException as exc:  # SystemExit and KeyboardInterrupt from user code too
                self.original_error = describe(exc)
                sys.modules.pop(name, None)
        self.result["original_import"] = self.original_error
        self.phase("importing the fixed module")
        if taken is not None:
            self.fixed_error = self.original_error  # loading it would replace that module
        else:
            self.fixed, self.fixed_error = self._load_fixed(name, job["fixed_file"])
        self.result["fixed_import"] = self.fixed_error
        self.phase("importing the examples")
        for path in job["examples_files"]:
            self._load_examples(Path(path), len(self.examples_errors))

    def _load_fixed(
        self, name: str, path: str, package: bool | None = None
    ) -> tuple[ModuleType | None, str | None]:
        """Execute `path` as a fresh module called `name`; `package`: it is an __init__."""
        if package is None:
            package = self.job["is_package"]
        locations = [str(Path(path).parent)] if package else None
        spec = importlib.util.spec_from_file_location(
            name, path, submodule_search_locations=locations
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        saved = sys.modules.get(name)
        # While it runs, the fixed module is the module of its name: code that imports
        # itself, dataclasses and pickle look it up there.
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
            return module, None
        except BaseException as exc:
            return None, describe(exc)
        finally:
            if saved is not None:
                sys.modules[name] = saved
            else:
                sys.modules.pop(name, None)

    def _load_examples(self, path: Path, index: int) -> None:
        try:
            spec = importlib.util.spec_from_file_location(f"_jitlint_examples_{index}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            table = getattr(module, "EXAMPLES", None)
            if not isinstance(table, dict):
                raise TypeError("it defines no EXAMPLES dict")
        except BaseException as exc:
            self.examples_errors.append(f"examples module {path.name}: {describe(exc)}")
            return
        for key, cases in table.items():
            module_name, _, func = str(key).partition(":")
            if module_name in self.job["module_aliases"]:
                self.examples.setdefault(func, []).extend(list(cases))
            table_of = self.other_examples.setdefault(module_name, {})
            table_of.setdefault(func, []).extend(list(cases))

    # ---- per target ---------------------------------------------------------------------
    def run(self) -> None:
        self.load()
        for target in self.job["targets"]:
            name = target["qualname"]
            self.phase(f"checking {name}")
            try:
                outcome = self.check(target)
            except BaseException as exc:  # user code exiting or raising at an odd place
                outcome = {"status": "failed", "detail": f"the verifier stopped: {describe(exc)}"}
                if not isinstance(exc, Exception):
                    traceback.print_exc()
            self.finish(name, **outcome)
        self.phase("done")

    def inputs(self, target: dict[str, Any]) -> tuple[list[Any], str]:
        """The cases: (args, kwargs) for a function, (Instance, args, kwargs) for a method."""
        name = target["qualname"]
        method = not target["top_level"]
        record_dir = Path(self.job.get("record_dir") or ".")
        declared = self.examples.get(name)
        if declared:
            if method:
                return [instances.declared(c) for c in declared], "declared examples"
            return [_case(c) for c in declared], "declared examples"
        if target.get("recorded"):
            cases = []
            for case in target["recorded"]:
                args, kwargs = _decode_case(case, record_dir)
                if method:
                    cases.append((instances.recorded(case.get("self")), args, kwargs))
                else:
                    cases.append((args, kwargs))
            return cases, "recorded specs"
        if isinstance(target.get("annotated"), dict) and not method:
            return [_decode_case(target["annotated"], record_dir)], "annotations"
        return [], ""

    def check(self, target: dict[str, Any]) -> dict[str, Any]:
        name = target["qualname"]
        recipe = target["recipe"]
        if target.get("through"):
            return self.check_through(target)
        if recipe is None:
            return _skip(f"{name} is not compiled in the fixed source")
        method = not target["top_level"]
        if method and not (target["in_class"] and "<locals>" not in name):
            return _skip(
                f"{name} is a nested function; only module-level functions and methods of "
                "module-level classes can be called"
            )
        if self.fixed_error is not None:
            if self.original_error == self.fixed_error:
                return _skip(
                    f"the module fails at import, before and after the fix: {self.fixed_error}"
                )
            return {
                "status": "failed",
                "detail": f"the fixed module fails at import: {self.fixed_error}",
            }
        try:
            cases, source = self.inputs(target)
        except instances.NotBuilt as exc:
            return _skip(str(exc))
        except Exception as exc:
            return _skip(f"the example inputs for {name} are malformed: {describe(exc)}")
        if not cases:
            reasons = [(NO_INSTANCE if method else NO_EXAMPLES).format(name=name)]
            reasons += self.examples_errors
            if isinstance(target.get("annotated"), str) and target.get("annotations_seen"):
                reasons.append(f"annotations: {target['annotated']}")
            return _skip("; ".join(reasons))
        try:
            backend = Backend.for_recipe(recipe)
        except ImportError as exc:
            extra = "jax" if recipe["framework"] == "jax" else "tensorflow"
            return _skip(
                f"{describe(exc)} in jitlint's environment (pip install 'jitlint[{extra}]')"
            )
        if method:
            self.phase(f"making instances for {name}")
            prepared = self.prepare_method(target, backend, cases)
        else:
            prepared = self.prepare_function(target, backend, cases)
        if isinstance(prepared, dict):
            return prepared  # no subject to compile: skipped or failed, with the reason
        outcome = self.run_cases(target, backend, prepared, source)
        if not target.get("changed", True) and outcome["status"] != "skipped":
            # `jitlint verify` on a function no fix touched: the statement is about its code.
            outcome["detail"] += "; no fix changed it"
        if self.job["confirm"]:
            outcome["findings"] = self.confirm(target, backend, prepared)
        return outcome

    def check_through(self, target: dict[str, Any]) -> dict[str, Any]:
        """A helper that traced code in other modules calls: compile the first caller that
        has example inputs, once with the original helper and once with the fixed one (the
        caller's module executed again with the fixed module under the helper module's
        name), and compare."""
        name = target["qualname"]
        if self.fixed_error is not None:
            return {
                "status": "failed",
                "detail": f"the fixed module fails at import: {self.fixed_error}",
            }
        if self.original is None:
            return _skip(f"the original module fails at import: {self.original_error}")
        record_dir = Path(self.job.get("record_dir") or ".")
        tried = []
        for caller in target["through"]:
            where = f"{caller['qualname']} ({caller['display']}:{caller['line']})"
            tried.append(where)
            if not caller["top_level"]:
                continue  # a caller that is a method: its instance is not at hand here
            declared = next(
                (
                    self.other_examples[alias][caller["qualname"]]
                    for alias in caller["aliases"]
                    if caller["qualname"] in self.other_examples.get(alias, {})
                ),
                None,
            )
            try:
                if declared:
                    cases, source = [_case(c) for c in declared], "declared examples"
                elif caller["recorded"]:
                    cases = [_decode_case(c, record_dir) for c in caller["recorded"]]
                    source = "recorded specs"
                else:
                    continue
            except Exception as exc:
                return _skip(f"the example inputs for {where} are malformed: {describe(exc)}")
            outcome = self.through_caller(target, caller, cases, source)
            outcome["detail"] = f"through {where}: {outcome['detail']}"
            return outcome
        return _skip(
            f"no example inputs for the callers of {name} in other files: " + ", ".join(tried)
        )

    def through_caller(
        self, target: dict[str, Any], caller: dict[str, Any], cases: list[Any], source: str
    ) -> dict[str, Any]:
        recipe = caller["recipe"]
        try:
            original_caller = importlib.import_module(caller["module"])
        except BaseException as exc:
            return _skip(f"the caller's module fails at import: {describe(exc)}")
        modules = instances.Modules(self.job["module"], self.original, self.fixed)
        with modules.as_fixed():
            fixed_caller, error = self._load_fixed(
                caller["module"], caller["copied_file"], caller["is_package"]
            )
        if fixed_caller is None:
            return {
                "status": "failed",
                "detail": f"the caller's module fails at import with the fixed helper: {error}",
            }
        try:
            backend = Backend.for_recipe(recipe)
        except ImportError as exc:
            return _skip(f"{describe(exc)} in jitlint's environment")
        compiled, problem = backend.compiled(fixed_caller, caller["qualname"], recipe)
        if compiled is None:
            return _skip(problem)
        reference = getattr(original_caller, caller["qualname"], None)
        how = recipe["how"] if recipe["framework"] == "jax" else backend.how
        if how != "jax.jit" and reference is not None:
            reference = inspect.unwrap(reference)
        subjects = [
            instances.Subject(
                args,
                kwargs,
                compiled,
                reference,
                None,
                how,
                "",
                concrete_compile=how == "eqx.filter_jit",
                note="" if reference is not None else "the original caller cannot be loaded",
            )
            for args, kwargs in cases
        ]
        outcome = self.run_cases(target, backend, subjects, source)
        if self.job["confirm"] and target["findings"] and reference is not None:
            # The helper's findings, confirmed by compiling the original caller.
            original = getattr(original_caller, caller["qualname"])
            subjects[0].original_compiled = backend.compiled_from(original, recipe)[0]
            outcome["findings"] = self.confirm(target, backend, subjects)
        return outcome

    def prepare_function(
        self, target: dict[str, Any], backend: Backend, cases: list[Any]
    ) -> list[instances.Subject] | dict[str, Any]:
        name, recipe = target["qualname"], target["recipe"]
        compiled, problem = backend.compiled(self.fixed, name, recipe)
        if compiled is None:
            return _skip(problem)
        reference, note = self.reference(target)
        how = recipe["how"] if recipe["framework"] == "jax" else backend.how
        if how != "jax.jit" and reference is not None:
            reference = inspect.unwrap(reference)  # eqx/nnx wrappers may ignore disable_jit
        return [
            instances.Subject(
                args,
                kwargs,
                compiled,
                reference,
                None,
                how,
                "",
                concrete_compile=how == "eqx.filter_jit",  # it takes array specs as static
                note=note,
            )
            for args, kwargs in cases
        ]

    def prepare_method(
        self, target: dict[str, Any], backend: Backend, cases: list[Any]
    ) -> list[instances.Subject] | dict[str, Any]:
        """An original and a fixed instance per case, and how to compile the method on them."""
        recipe = target["recipe"]
        method = target["qualname"].rsplit(".", 1)[1]
        modules = instances.Modules(self.job["module"], self.original, self.fixed)
        record_dir = Path(self.job.get("record_dir") or ".")
        kinds = (target.get("class_kind") or "",)
        subjects = []
        for index, (source, args, kwargs) in enumerate(cases, 1):
            try:
                original, fixed, origin = instances.pair(
                    source, modules, target["class"], record_dir, kinds
                )
                subject = instances.subject(
                    recipe,
                    method,
                    original,
                    fixed,
                    args,
                    kwargs,
                    lambda value, seed=index: backend.concrete(value, seed),
                )
            except instances.FixedFails as exc:
                return {"status": "failed", "detail": f"example {index}: {exc}"}
            except instances.NotBuilt as exc:
                return _skip(f"example {index}: {exc}")
            except Exception as exc:
                return _skip(
                    f"the instances for example {index} could not be made: {describe(exc)}"
                )
            subject.origin = origin
            subjects.append(subject)
        return subjects

    def failure(
        self, target: dict[str, Any], how: str, what: str, still: str, exc: BaseException
    ) -> dict[str, Any]:
        """`failed`, unless the error is one that a finding no fix was applied to predicts:
        the fixes are not to blame then, and nothing was verified (`skipped`). `what` says
        what went wrong, `still` the same for a finding left unfixed."""
        error = describe(exc)
        full = f"{type(exc).__name__}: {exc}"
        for finding in target.get("unfixed", ()):
            regex = finding.get("regex")
            if regex and (re.search(regex, error) or re.search(regex, full)):
                return {
                    "status": "skipped",
                    "compiled_with": how,
                    "detail": f"not verified: it {still}, as {finding['code']} at line "
                    f"{finding['line']} predicts, and {finding['why']}: {error}",
                }
        return {"status": "failed", "compiled_with": how, "detail": f"{what}: {error}"}

    def run_cases(
        self,
        target: dict[str, Any],
        backend: Backend,
        subjects: list[instances.Subject],
        source: str,
    ) -> dict[str, Any]:
        """Compile every case before anything runs, then compare with the original."""
        name = target["qualname"]
        self.phase(f"compiling {name}")
        for index, subject in enumerate(subjects, 1):
            how = subject.how or backend.how
            if subject.concrete_compile:
                cargs = backend.concrete(subject.args, index)
                ckwargs = backend.concrete(subject.kwargs, index)
            else:
                cargs, ckwargs = backend.abstract(subject.args), backend.abstract(subject.kwargs)
            try:
                backend.compile(subject.compiled, cargs, ckwargs)
            except Exception as exc:
                what = f"does not compile with {how} (example {index} of {len(subjects)})"
                return self.failure(target, how, what, f"still does not compile with {how}", exc)
        return self.compare(target, backend, subjects, source)

    def reference(self, target: dict[str, Any]) -> tuple[Any, str]:
        """The original function, to run eagerly, and a note on where it came from."""
        name = target["qualname"]
        if self.original is not None and hasattr(self.original, name):
            return getattr(self.original, name), ""
        source = target["reference_source"]
        if source is None or self.fixed is None:
            return None, "the original cannot be loaded"
        namespace = dict(vars(self.fixed))
        try:
            code = compile(source, self.job["original_file"], "exec")
            exec(code, namespace)
        except Exception as exc:
            return None, f"the original definition does not load: {describe(exc)}"
        why = self.original_error or f"it has no attribute {name}"
        return namespace.get(name.split(".")[-1]), (
            f"the original module fails at import ({why}), so the original definition ran "
            "in the fixed module's namespace"
        )

    def compare(
        self,
        target: dict[str, Any],
        backend: Backend,
        subjects: list[instances.Subject],
        source: str,
    ) -> dict[str, Any]:
        from jitlint.verify.compare import compare

        name = target["qualname"]
        how = subjects[0].how or backend.how
        matched, reasons = 0, []
        for index, subject in enumerate(subjects, 1):
            self.phase(f"running {name} (example {index})")
            args, kwargs, reference = subject.args, subject.kwargs, subject.reference
            # The original first, and fresh inputs for each run (same seed, same values):
            # a fixed function that donates its buffers cannot spoil the reference's inputs.
            expected = None
            no_comparison = (subject.note or "no original") if reference is None else None
            if reference is not None:
                try:
                    cargs, ckwargs = backend.concrete(args, index), backend.concrete(kwargs, index)
                    expected = backend.eager(reference, cargs, ckwargs)
                except Exception as exc:
                    no_comparison = (
                        f"the original raises when run eagerly on example {index}: {describe(exc)}"
                    )
            try:
                if subject.before_run is not None:
                    subject.before_run()
                cargs, ckwargs = backend.concrete(args, index), backend.concrete(kwargs, index)
                actual = backend.call(subject.compiled, cargs, ckwargs)
            except Exception as exc:
                what = f"compiles with {how}, but raises when run on example {index}"
                return self.failure(target, how, what, "still raises when run", exc)
            if no_comparison is not None:
                reasons.append(no_comparison)
                continue
            problem = compare(expected, actual)
            if problem is not None:
                return {
                    "status": "failed",
                    "compiled_with": how,
                    "detail": f"compiles with {how}, but example {index} differs from "
                    f"the original run eagerly: {problem}",
                }
            matched += 1
        count = len(subjects)
        plural = "s" if count != 1 else ""
        origins = sorted({s.origin for s in subjects if s.origin})
        where = "; ".join([source, *origins])
        base = {"compiled_with": how, "examples": count, "inputs": source}
        if matched == 0:
            reason = reasons[0] if reasons else "no comparison ran"
            return {
                **base,
                "status": "compiled",
                "detail": f"compiled with {how} on {count} example{plural} "
                f"({where}); not compared with eager: {reason}",
            }
        agree = (
            f"{count} example{plural} match{'es' if count == 1 else ''} eager"
            if matched == count
            else f"{matched} of {count} examples match eager; {reasons[0]}"
        )
        note = subjects[0].note
        extra = f"; {note}" if note else ""
        return {
            **base,
            "status": "verified",
            "detail": f"compiled with {how}, {agree} ({where}){extra}",
        }

    def original_compile_error(
        self, target: dict[str, Any], backend: Backend, subjects: list[instances.Subject]
    ) -> tuple[bool, str | None, str]:
        """(whether the original could be compiled at all, how it failed, a note)."""
        first = subjects[0]
        if not target["top_level"] or target.get("through"):
            compiled, note = first.original_compiled, ""
        else:
            original, note = self.reference(target)
            if original is None:
                return False, None, note
            recipe = target["original_recipe"] or target["recipe"]
            try:
                compiled, problem = backend.compiled_from(original, recipe)
            except Exception as exc:  # jax.jit itself rejects a bad static spec
                return True, describe(exc), ""
            if compiled is None:
                return False, None, problem
        if compiled is None:
            return False, None, note or "the original cannot be compiled"
        if first.concrete_compile:
            args, kwargs = backend.concrete(first.args, 1), backend.concrete(first.kwargs, 1)
        else:
            args, kwargs = backend.abstract(first.args), backend.abstract(first.kwargs)
        try:
            backend.compile(compiled, args, kwargs)
        except Exception as exc:
            return True, describe(exc), ""
        return True, None, ""

    def confirm(
        self, target: dict[str, Any], backend: Backend, subjects: list[instances.Subject]
    ) -> list[dict[str, Any]]:
        """Does the original fail the way each finding's rule predicts?"""
        out = []
        available, error, note = self.original_compile_error(target, backend, subjects)
        how = subjects[0].how or backend.how
        for finding in target["findings"]:
            regex = finding["regex"]
            check = {"code": finding["code"], "line": finding["line"]}
            if regex is None:
                out.append(
                    {
                        **check,
                        "status": "not checked",
                        "detail": "the rule predicts no error to reproduce",
                    }
                )
            elif self.original_error and re.search(regex, self.original_error):
                out.append(
                    {
                        **check,
                        "status": "confirmed",
                        "detail": f"the original module fails at import: {self.original_error}",
                    }
                )
            elif finding["call_site"]:
                out.append(
                    {
                        **check,
                        "status": "not checked",
                        "detail": "the finding is at a call site; the examples are not "
                        "that call's arguments",
                    }
                )
            elif not available:
                out.append(
                    {
                        **check,
                        "status": "not checked",
                        "detail": note or "the original cannot be compiled",
                    }
                )
            elif error is not None and re.search(regex, error):
                out.append({**check, "status": "confirmed", "detail": error})
            elif error is not None:
                out.append(
                    {
                        **check,
                        "status": "not reproduced",
                        "detail": f"the original fails differently: {error}",
                    }
                )
            else:
                out.append(
                    {
                        **check,
                        "status": "not reproduced",
                        "detail": f"the original compiles with {how} on example 1",
                    }
                )
        return out


def _skip(reason: str) -> dict[str, Any]:
    return {"status": "skipped", "detail": reason}


# ---- inputs ----------------------------------------------------------------------------
def _case(case: Any) -> tuple[tuple, dict]:
    """A declared example: `(args, kwargs)`, or just an args tuple."""
    if isinstance(case, tuple) and len(case) == 2 and isinstance(case[1], dict):
        return tuple(case[0]), dict(case[1])
    if isinstance(case, tuple):
        return case, {}
    raise TypeError(f"an example must be (args, kwargs), got {type(case).__name__}")


class Spec:
    """A shape and dtype from a recording or an annotation; the backend picks the type."""

    def __init__(self, shape: list[int | None], dtype: str, framework: str) -> None:
        # A dimension recorded as unknown (a Keras batch dimension in a graph) gets a size.
        self.shape = tuple(3 if d is None else d for d in shape)
        self.dtype, self.framework = dtype, framework


def _decode(value: Any, record_dir: Path) -> Any:
    if isinstance(value, list):
        return [_decode(v, record_dir) for v in value]
    if isinstance(value, dict):
        if "__tuple__" in value:
            return tuple(_decode(v, record_dir) for v in value["__tuple__"])
        if "__dict__" in value:
            return {k: _decode(v, record_dir) for k, v in value["__dict__"]}
        if "__spec__" in value:
            s = value["__spec__"]
            return Spec(s["shape"], s["dtype"], s.get("framework", "jax"))
        if "__pickle__" in value:
            # An object the plugin pickled (a model passed to a jitted function, say).
            return _unpickle(record_dir, value["__pickle__"])
        if "__repr__" in value:
            why = f" ({value['why']})" if value.get("why") else ""
            raise ValueError(f"a value could not be recorded: {value['__repr__']}{why}")
    return value


def _unpickle(record_dir: Path, entry: dict[str, Any]) -> Any:
    import pickle

    return pickle.loads((record_dir / entry["file"]).read_bytes())


def _decode_case(case: dict[str, Any], record_dir: Path) -> tuple[tuple, dict]:
    return tuple(_decode(a, record_dir) for a in case["args"]), {
        k: _decode(v, record_dir) for k, v in case.get("kwargs", {}).items()
    }


def _map(value: Any, leaf: Any) -> Any:
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_map(v, leaf) for v in value)
    if isinstance(value, list):
        return [_map(v, leaf) for v in value]
    if isinstance(value, dict):
        return {k: _map(v, leaf) for k, v in value.items()}
    return leaf(value)


def _shape_dtype(value: Any) -> tuple[tuple[int, ...], Any] | None:
    kind = type(value).__name__
    if isinstance(value, Spec):
        return value.shape, value.dtype
    if kind in ("ShapeDtypeStruct", "TensorSpec"):
        shape = tuple(3 if d is None else int(d) for d in value.shape)
        dtype = value.dtype
        return shape, getattr(dtype, "as_numpy_dtype", dtype)
    return None


def _random(shape: tuple[int, ...], dtype: Any, seed: int) -> Any:
    """Seeded values: normal floats, small positive integers (safe as divisors/indices)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    kind = np.dtype(dtype).kind if str(dtype) != "bfloat16" else "f"
    if kind == "b":
        return rng.random(shape) < 0.5
    if kind in "iu":
        return rng.integers(1, 5, size=shape)
    if kind == "c":
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return rng.standard_normal(shape)


class Backend:
    how = ""

    @staticmethod
    def for_recipe(recipe: dict[str, Any]) -> Backend:
        if recipe["framework"] == "jax":
            return JaxBackend()
        return TfBackend(recipe)

    def compiled(self, module: Any, name: str, recipe: dict[str, Any]) -> tuple[Any, str]:
        obj = getattr(module, name, None)
        if obj is None:
            return None, f"the fixed module has no attribute {name}"
        if recipe["decorated"]:
            if self.is_compiled(obj):
                return obj, ""
            return None, (
                f"{name} is wrapped by another decorator outside {recipe['how']}; "
                "the compiled function cannot be reached"
            )
        return self.compiled_from(obj, recipe)

    def compiled_from(self, obj: Any, recipe: dict[str, Any]) -> tuple[Any, str]:
        if self.is_compiled(obj):
            return obj, ""
        if not recipe["literal"]:
            return None, f"the arguments of {recipe['how']} are not literals"
        return self.wrap(obj, recipe), ""

    def is_compiled(self, obj: Any) -> bool:
        raise NotImplementedError

    def wrap(self, obj: Any, recipe: dict[str, Any]) -> Any:
        raise NotImplementedError

    def abstract(self, value: Any) -> Any:
        raise NotImplementedError

    def concrete(self, value: Any, seed: int) -> Any:
        raise NotImplementedError

    def compile(self, compiled: Any, args: Any, kwargs: Any) -> None:
        raise NotImplementedError

    def call(self, compiled: Any, args: Any, kwargs: Any) -> Any:
        return compiled(*args, **kwargs)

    def eager(self, function: Any, args: Any, kwargs: Any) -> Any:
        raise NotImplementedError


class JaxBackend(Backend):
    how = "jax.jit"

    def __init__(self) -> None:
        import jax

        self.jax = jax

    def is_compiled(self, obj: Any) -> bool:
        return hasattr(obj, "lower") and callable(obj)

    def wrap(self, obj: Any, recipe: dict[str, Any]) -> Any:
        options = {}
        if recipe["static_argnums"]:
            options["static_argnums"] = tuple(recipe["static_argnums"])
        if recipe["static_argnames"]:
            options["static_argnames"] = tuple(recipe["static_argnames"])
        return self.jax.jit(obj, **options)

    def abstract(self, value: Any) -> Any:
        def leaf(x: Any) -> Any:
            found = _shape_dtype(x) if isinstance(x, Spec) else None
            return self.jax.ShapeDtypeStruct(*found) if found else x

        return _map(value, leaf)

    def concrete(self, value: Any, seed: int) -> Any:
        import jax.numpy as jnp

        def leaf(x: Any) -> Any:
            found = _shape_dtype(x)
            return jnp.asarray(_random(*found, seed), dtype=found[1]) if found else x

        return _map(value, leaf)

    def compile(self, compiled: Any, args: Any, kwargs: Any) -> None:
        compiled.lower(*args, **kwargs).compile()

    def eager(self, function: Any, args: Any, kwargs: Any) -> Any:
        with self.jax.disable_jit():
            return function(*args, **kwargs)


class TfBackend(Backend):
    def __init__(self, recipe: dict[str, Any]) -> None:
        import tensorflow as tf

        self.tf = tf
        self.xla = bool(recipe["xla"])
        self.how = recipe["how"]

    def is_compiled(self, obj: Any) -> bool:
        return hasattr(obj, "get_concrete_function") and hasattr(obj, "python_function")

    def wrap(self, obj: Any, recipe: dict[str, Any]) -> Any:
        return self.tf.function(obj, jit_compile=self.xla, autograph=recipe["autograph"])

    def abstract(self, value: Any) -> Any:
        def leaf(x: Any) -> Any:
            found = _shape_dtype(x) if isinstance(x, Spec) else None
            return self.tf.TensorSpec(found[0], found[1]) if found else x

        return _map(value, leaf)

    def concrete(self, value: Any, seed: int) -> Any:
        def leaf(x: Any) -> Any:
            found = _shape_dtype(x)
            return self.tf.constant(_random(*found, seed), dtype=found[1]) if found else x

        return _map(value, leaf)

    def compile(self, compiled: Any, args: Any, kwargs: Any) -> None:
        if self.xla:
            compiled.experimental_get_compiler_ir(*args, **kwargs)(stage="hlo")
        else:
            compiled.get_concrete_function(*args, **kwargs)

    def eager(self, function: Any, args: Any, kwargs: Any) -> Any:
        self.tf.config.run_functions_eagerly(True)
        try:
            return function(*args, **kwargs)
        finally:
            self.tf.config.run_functions_eagerly(False)


def main(argv: list[str]) -> None:
    job_path, result_path = argv
    with open(job_path, encoding="utf-8") as handle:
        job = json.load(handle)
    if "parent" in job:  # its own session, so a kill of the run's group misses it: tie it
        from jitlint.system.workers import tie_to_parent

        tie_to_parent(job["parent"])
    worker = Worker(job, result_path)
    try:
        worker.run()
    finally:
        if os.getpid() != PID:
            os._exit(0)  # a fork of the user's making ends here, silently
    # Leave now: threads the user's code started would keep a normal exit waiting, and its
    # atexit handlers (which may write files) have no business running here.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
