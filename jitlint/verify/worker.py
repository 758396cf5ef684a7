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
import json
import os
import re
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

PID = os.getpid()
# Temporary paths in messages, and the name the user knows them by (set from the job).
PATHS: dict[str, str] = {}
NO_EXAMPLES = (
    "no example inputs for {name} (declare them in [tool.jitlint.verify] or record them "
    "with the pytest plugin)"
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
    text = " ".join(text.split())
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

    def _load_fixed(self, name: str, path: str) -> tuple[ModuleType | None, str | None]:
        package = self.job["is_package"]
        locations = [self.job["package_dir"]] if package else None
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
        name = target["qualname"]
        declared = self.examples.get(name)
        if declared:
            return [_case(c) for c in declared], "declared examples"
        if target.get("recorded"):
            return [_decode_case(c) for c in target["recorded"]], "recorded specs"
        if isinstance(target.get("annotated"), dict):
            return [_decode_case(target["annotated"])], "annotations"
        return [], ""

    def check(self, target: dict[str, Any]) -> dict[str, Any]:
        name = target["qualname"]
        recipe = target["recipe"]
        if recipe is None:
            return _skip(f"{name} is not compiled in the fixed source")
        if not target["top_level"]:
            kind = "a method" if target["in_class"] else "a nested function"
            return _skip(f"{name} is {kind}; only module-level functions can be called")
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
        except Exception as exc:
            return _skip(f"the example inputs for {name} are malformed: {describe(exc)}")
        if not cases:
            reasons = [NO_EXAMPLES.format(name=name), *self.examples_errors]
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
        outcome = self.check_fixed(target, backend, cases, source)
        if not target.get("changed", True):
            # `jitlint verify` on a function no fix touched: the statement is about its code.
            outcome["detail"] += "; no fix changed it"
        if self.job["confirm"]:
            outcome["findings"] = self.confirm(target, backend, cases)
        return outcome

    def check_fixed(self, target: dict, backend: Backend, cases: list, source: str) -> dict:
        name, recipe = target["qualname"], target["recipe"]
        compiled, problem = backend.compiled(self.fixed, name, recipe)
        if compiled is None:
            return _skip(problem)
        self.phase(f"compiling {name}")
        for index, (args, kwargs) in enumerate(cases, 1):
            cargs, ckwargs = backend.abstract(args), backend.abstract(kwargs)
            try:
                backend.compile(compiled, cargs, ckwargs)
            except Exception as exc:
                return {
                    "status": "failed",
                    "compiled_with": backend.how,
                    "detail": f"does not compile with {backend.how} "
                    f"(example {index} of {len(cases)}): {describe(exc)}",
                }
        return self.compare(target, backend, compiled, cases, source)

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

    def compare(self, target: dict, backend: Backend, compiled: Any, cases: list, source: str):
        from jitlint.verify.compare import compare

        name = target["qualname"]
        reference, note = self.reference(target)
        matched, reasons = 0, []
        for index, (args, kwargs) in enumerate(cases, 1):
            self.phase(f"running {name} (example {index})")
            # The original first, and fresh inputs for each run (same seed, same values):
            # a fixed function that donates its buffers cannot spoil the reference's inputs.
            expected, no_comparison = None, (note if reference is None else None)
            if reference is not None:
                try:
                    cargs, ckwargs = backend.concrete(args, index), backend.concrete(kwargs, index)
                    expected = backend.eager(reference, cargs, ckwargs)
                except Exception as exc:
                    no_comparison = (
                        f"the original raises when run eagerly on example {index}: {describe(exc)}"
                    )
            try:
                cargs, ckwargs = backend.concrete(args, index), backend.concrete(kwargs, index)
                actual = backend.call(compiled, cargs, ckwargs)
            except Exception as exc:
                return {
                    "status": "failed",
                    "compiled_with": backend.how,
                    "detail": f"compiles with {backend.how}, but raises when run on example "
                    f"{index}: {describe(exc)}",
                }
            if no_comparison is not None:
                reasons.append(no_comparison)
                continue
            problem = compare(expected, actual)
            if problem is not None:
                return {
                    "status": "failed",
                    "compiled_with": backend.how,
                    "detail": f"compiles with {backend.how}, but example {index} differs from "
                    f"the original run eagerly: {problem}",
                }
            matched += 1
        count = len(cases)
        plural = "s" if count != 1 else ""
        base = {"compiled_with": backend.how, "examples": count, "inputs": source}
        if matched == 0:
            reason = reasons[0] if reasons else "no comparison ran"
            return {
                **base,
                "status": "compiled",
                "detail": f"compiled with {backend.how} on {count} example{plural} "
                f"({source}); not compared with eager: {reason}",
            }
        agree = (
            f"{count} example{plural} match{'es' if count == 1 else ''} eager"
            if matched == count
            else f"{matched} of {count} examples match eager; {reasons[0]}"
        )
        extra = f"; {note}" if note else ""
        return {
            **base,
            "status": "verified",
            "detail": f"compiled with {backend.how}, {agree} ({source}){extra}",
        }

    def confirm(self, target: dict, backend: Backend, cases: list) -> list[dict[str, Any]]:
        """Does the original fail the way each finding's rule predicts?"""
        out = []
        original, note = self.reference(target)
        recipe = target["original_recipe"] or target["recipe"]
        error: str | None = None  # how the original fails to compile, if it does
        if original is not None:
            try:
                compiled, problem = backend.compiled_from(original, recipe)
                if compiled is None:
                    original, note = None, problem
                else:
                    args, kwargs = cases[0]
                    backend.compile(compiled, backend.abstract(args), backend.abstract(kwargs))
            except Exception as exc:  # jax.jit itself rejects a bad static spec
                error = describe(exc)
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
            elif original is None:
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
                        "detail": f"the original compiles with {backend.how} on example 1",
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

    def __init__(self, shape: list[int], dtype: str, framework: str) -> None:
        self.shape, self.dtype, self.framework = tuple(shape), dtype, framework


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if "__tuple__" in value:
            return tuple(_decode(v) for v in value["__tuple__"])
        if "__dict__" in value:
            return {k: _decode(v) for k, v in value["__dict__"]}
        if "__spec__" in value:
            s = value["__spec__"]
            return Spec(s["shape"], s["dtype"], s.get("framework", "jax"))
        if "__repr__" in value:
            raise ValueError(f"a value could not be recorded: {value['__repr__']}")
    return value


def _decode_case(case: dict[str, Any]) -> tuple[tuple, dict]:
    return tuple(_decode(a) for a in case["args"]), {
        k: _decode(v) for k, v in case.get("kwargs", {}).items()
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
