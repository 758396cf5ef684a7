"""Record the inputs of jitted functions while the user's tests run, for the verifier; and
explain the JIT/XLA errors tests fail with.

    pytest -p jitlint.pytest_plugin --jitlint-record

The plugin is active when named with `-p jitlint.pytest_plugin` (or listed in `addopts` or a
conftest's `pytest_plugins`; it has no `pytest11` entry point, so installing jitlint does not
turn it on). While it is active, a test that fails with a JIT/XLA error (jitlint
explain-error's table) gets a "jitlint" section in its failure report: the finding that
explains the error, or why none does (jitlint/explain/pytest_section.py). Passing tests pay
nothing; `--no-jitlint-explain` turns the section off.

wraps `jax.jit`, `equinox.filter_jit`, `flax.nnx.jit`, `tf.function` and Keras's
`Layer.__call__` before the tests import the code (each when its framework is first imported:
recording never imports a framework the project does not use), and records, for every call of
a project function or method they compile, the shapes and dtypes of its array arguments and
the values of the others (static arguments must be hashable values, so they are kept as they
are). Functions of installed libraries (jax's own, equinox's...) are left alone.
`tf.function` is recorded for module-level functions only; methods keep TF's own binding.

The instance a method is called on is kept too, so the verifier can call the method again:

- pickled, for JAX methods (`@jax.jit`, `@eqx.filter_jit`, `@nnx.jit`, `jax.jit(self.f)`):
  the instance is the state the test ran with (weights, configuration, buffers), and there
  is no general way to rebuild it: constructors take arbitrary arguments. Loaded under the
  fixed module's name, the pickle is an instance of the fixed class. Other arguments that
  are neither arrays nor plain values (a model passed to a jitted function) are pickled too;
- rebuilt, for Keras layers: their class and `get_config()`, Keras's own contract for
  recreating a layer. A layer does not pickle unless it is registered, and rebuilding runs
  the fixed `__init__`/`build`, which a fix that creates things once there needs. The
  verifier copies the original layer's weights into the fixed one.

Pickles go to `instances/` beside the record file, one per distinct object (by content), at
most 32 MiB each; those no case refers to any more are removed when the file is saved. The
file goes to `[tool.jitlint.verify] record-file` (default `.jitlint/verify-specs.json` next
to the config), merged with what is already there, and one line at the end of the test run
says what was recorded and where. Without `--jitlint-record` the plugin records nothing and
imports no framework.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.abc
import importlib.util
import inspect
import io
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

MAX_PER_FUNCTION = 5
MAX_ATTEMPTS = 50  # calls per function whose arguments are encoded (pickling costs)
MAX_PICKLE_BYTES = 32 * 1024 * 1024
INSTANCES = "instances"
# Top-level packages whose own jitted functions are not the project's.
LIBRARIES = frozenset(
    {
        *("jax", "jaxlib", "equinox", "flax", "haiku", "optax", "chex", "orbax", "keras"),
        *("tensorflow", "tf_keras", "numpy", "scipy", "jaxtyping", "diffrax", "lineax"),
        *("optimistix", "distrax", "tensorflow_probability", "pytest", "_pytest"),
    }
)


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("jitlint")
    group.addoption(
        "--jitlint-record",
        action="store_true",
        help="record the argument specs of every call to a jitted function (for jitlint verify)",
    )
    group.addoption(
        "--no-jitlint-explain",
        action="store_true",
        help="do not add a jitlint section explaining JIT/XLA errors to failing tests",
    )
    group.addoption(
        "--jitlint-record-file",
        metavar="PATH",
        help="where to record (default: [tool.jitlint.verify] record-file)",
    )


def pytest_configure(config: Any) -> None:
    if not config.getoption("jitlint_record"):
        return
    recorder = Recorder(_record_path(config))
    recorder.install()
    config._jitlint_recorder = recorder


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Iterator[None]:
    outcome = yield
    if call.excinfo is None or item.config.getoption("no_jitlint_explain"):
        return  # a passing test (or a passing phase of one): no work at all
    report = outcome.get_result()
    if not report.failed or call.excinfo.errisinstance((KeyboardInterrupt, SystemExit)):
        return
    from jitlint.explain.pytest_section import SECTION, section_text

    try:
        text = section_text(call.excinfo.value, Path(str(item.config.rootpath)))
    except Exception as exc:  # explaining must never break the user's test run
        text = f"jitlint could not explain this error: {type(exc).__name__}: {exc}\n"
    if text:
        report.sections.append((SECTION, text))


def pytest_sessionfinish(session: Any) -> None:
    recorder = getattr(session.config, "_jitlint_recorder", None)
    if recorder is not None:
        recorder.save()


def pytest_terminal_summary(terminalreporter: Any, config: Any) -> None:
    recorder = getattr(config, "_jitlint_recorder", None)
    if recorder is None:
        return
    if getattr(config.option, "numprocesses", None) and not recorder.calls:
        # pytest-xdist: the tests ran in the workers, which saved what they recorded.
        line = f"jitlint: the pytest-xdist workers recorded into {recorder.path}"
    else:
        line = recorder.summary(Path(str(config.rootpath)))
    terminalreporter.write_line(line)


def pytest_unconfigure(config: Any) -> None:
    recorder = getattr(config, "_jitlint_recorder", None)
    if recorder is not None:
        recorder.uninstall()
        recorder.save()  # when the session ended before sessionfinish; saving twice is a no-op


def _record_path(config: Any) -> Path:
    explicit = config.getoption("jitlint_record_file")
    if explicit:
        return Path(explicit).resolve()
    from jitlint.config import load_settings
    from jitlint.verify.inputs import DEFAULT_RECORD_FILE

    settings = load_settings(None, Path(str(config.rootpath)))
    return settings.verify.record_file or settings.root / DEFAULT_RECORD_FILE


def encode(value: Any, keep: Callable[[Any], Any] | None = None) -> Any:
    """The JSON form `jitlint.verify.inputs` documents; arrays become shape and dtype. Other
    objects go to `keep` (which pickles them) when given."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return {"__tuple__": [encode(v, keep) for v in value]}
    if isinstance(value, list):
        return [encode(v, keep) for v in value]
    if isinstance(value, dict) and type(value) is dict and all(isinstance(k, str) for k in value):
        return {"__dict__": [[k, encode(v, keep)] for k, v in value.items()]}
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is not None and dtype is not None and not inspect.isclass(value):
        kind = type(value)
        tf_like = kind.__module__.startswith(("tensorflow", "keras")) or "Tensor" in kind.__name__
        name = getattr(dtype, "name", None) or str(dtype)
        return {
            "__spec__": {
                "shape": [None if d is None else int(d) for d in shape],
                "dtype": name,
                "framework": "tensorflow" if tf_like else "jax",
            }
        }
    if keep is not None:
        return keep(value)
    return {"__repr__": repr(value)[:200]}


class _Limited(io.RawIOBase):
    """A hash of what is written, refusing more than `limit` bytes (pickling stops early)."""

    def __init__(self, limit: int) -> None:
        self.limit, self.size, self.parts = limit, 0, []
        self.digest = hashlib.sha256()

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.size += len(chunk)
        if self.size > self.limit:
            raise OverflowError(f"over {self.limit // (1024 * 1024)} MiB")
        self.digest.update(chunk)
        self.parts.append(chunk)
        return len(chunk)


class Recorder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.calls: dict[str, list[dict[str, Any]]] = {}
        self.pickled: dict[str, str] = {}  # sha -> relative file, written this run
        self.unkept = 0  # instances or arguments that could not be kept
        self.layers = 0  # Keras layer configs recorded
        self.saved = False
        self.attempts: dict[str, int] = {}  # calls seen per key: encoding stops after a while
        self._hooks: list[Any] = []
        self._restore: list[Callable[[], None]] = []
        self._busy = False

    # ---- patching ---------------------------------------------------------------------
    def install(self) -> None:
        self._hooks = [
            after_import("jax", self._patch_jax),
            after_import("equinox", self._patch_equinox),
            after_import("flax.nnx", self._patch_nnx),
            after_import("tensorflow", self._patch_tf),
            after_import("keras", self._patch_keras),
        ]

    def _wrapping(self, original: Any, top_level_only: bool = False) -> Callable[..., Any]:
        """A stand-in for a jit-like `original(fun, **options)` that also records."""
        recorder = self

        @functools.wraps(original)
        def recording(fun: Any = None, *args: Any, **kwargs: Any) -> Any:
            if fun is None:  # used as a decorator factory: jax.jit(static_argnames=...)
                return lambda f: recording(f, *args, **kwargs)
            compiled = original(fun, *args, **kwargs)
            nested = "." in getattr(fun, "__qualname__", ".") or inspect.ismethod(fun)
            if not _project_function(fun) or (top_level_only and nested):
                return compiled
            return Recorded(compiled, fun, recorder)

        return recording

    def _patch(self, owner: Any, name: str, top_level_only: bool = False) -> None:
        original = getattr(owner, name)
        setattr(owner, name, self._wrapping(original, top_level_only))
        self._restore.append(lambda: setattr(owner, name, original))

    def _patch_jax(self, jax: Any) -> None:
        self._patch(jax, "jit")

    def _patch_equinox(self, eqx: Any) -> None:
        self._patch(eqx, "filter_jit")

    def _patch_nnx(self, nnx: Any) -> None:
        self._patch(nnx, "jit")

    def _patch_tf(self, tf: Any) -> None:
        # A method or a local function: leave TF's object (and its binding) alone.
        self._patch(tf, "function", top_level_only=True)

    def _patch_keras(self, keras: Any) -> None:
        layer_class = getattr(getattr(keras, "layers", None), "Layer", None)
        if layer_class is None:
            return
        original = layer_class.__call__
        recorder = self

        @functools.wraps(original)
        def recording_call(layer: Any, *args: Any, **kwargs: Any) -> Any:
            recorder.record_layer(layer, args, kwargs)
            return original(layer, *args, **kwargs)

        layer_class.__call__ = recording_call
        self._restore.append(lambda: setattr(layer_class, "__call__", original))

    def uninstall(self) -> None:
        for hook in self._hooks:
            if hook in sys.meta_path:
                sys.meta_path.remove(hook)
        for restore in reversed(self._restore):
            restore()

    # ---- recording --------------------------------------------------------------------
    def record(self, fun: Any, args: tuple, kwargs: dict) -> None:
        instance, found = None, False
        if inspect.ismethod(fun):  # jax.jit(self.step): bound to its instance
            instance, found, fun = fun.__self__, True, fun.__func__
        elif _is_method_like(fun) and args and _first_parameter(fun) == "self":
            instance, found, args = args[0], True, args[1:]
        key = f"{getattr(fun, '__module__', '?')}:{getattr(fun, '__qualname__', '?')}"
        self._add(key, args, kwargs, (lambda: self.keep(instance)) if found else None)

    def record_layer(self, layer: Any, args: tuple, kwargs: dict) -> None:
        cls = type(layer)
        if self._busy or "call" not in cls.__dict__ or not _project_class(cls):
            return
        key = f"{cls.__module__}:{cls.__qualname__}.call"
        self._add(key, args, kwargs, lambda: self.layer_config(layer))

    def _add(self, key: str, args: tuple, kwargs: dict, instance: Callable[[], Any] | None) -> None:
        if self._busy:
            return  # a recorded call made while recording (a layer inside a layer's config)
        self._busy = True
        try:
            cases = self.calls.setdefault(key, [])
            self.attempts[key] = self.attempts.get(key, 0) + 1
            if len(cases) >= MAX_PER_FUNCTION or self.attempts[key] > MAX_ATTEMPTS:
                return  # a training loop calls the same step thousands of times
            case: dict[str, Any] = {
                "args": [encode(a, self.keep) for a in args],
                "kwargs": {k: encode(v, self.keep) for k, v in kwargs.items()},
            }
            if any(_same_inputs(case, c) for c in cases):
                return
            if instance is not None:
                case["self"] = instance()
            cases.append(case)
        except Exception:  # recording must never break the user's test
            return
        finally:
            self._busy = False

    def keep(self, value: Any) -> dict[str, Any]:
        """A pickle of `value` in `instances/`, or the reason it could not be kept."""
        cls = type(value)
        where = f"{cls.__module__}:{cls.__qualname__}"
        sink = _Limited(MAX_PICKLE_BYTES)
        try:
            pickle.dump(value, sink, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            self.unkept += 1
            why = f"not picklable: {type(exc).__name__}: {exc}"[:200]
            return {"__repr__": repr(value)[:200], "why": why}
        sha = sink.digest.hexdigest()[:20]
        relative = f"{INSTANCES}/{sha}.pkl"
        if sha not in self.pickled:
            target = self.path.parent / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(b"".join(sink.parts))
            self.pickled[sha] = relative
        return {"__pickle__": {"file": relative, "class": where, "bytes": sink.size}}

    def layer_config(self, layer: Any) -> dict[str, Any]:
        cls = type(layer)
        where = f"{cls.__module__}:{cls.__qualname__}"
        try:
            config = layer.get_config()
            json.dumps(config)
        except Exception as exc:
            self.unkept += 1
            why = f"get_config() gives no JSON: {type(exc).__name__}: {exc}"[:200]
            return {"__repr__": repr(layer)[:200], "why": why}
        self.layers += 1
        return {"__keras__": {"class": where, "config": config}}

    # ---- saving -----------------------------------------------------------------------
    def save(self) -> None:
        if self.saved or not self.calls:
            return
        self.saved = True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(self.path):  # pytest-xdist workers save into one file
            self._merge_and_write()

    def _merge_and_write(self) -> None:
        existing: dict[str, Any] = {}
        try:
            existing = json.loads(self.path.read_text(encoding="utf-8")).get("calls", {})
        except (OSError, ValueError, AttributeError):
            existing = {}
        for key, cases in self.calls.items():
            merged = [
                c for c in existing.get(key, []) if not any(_same_inputs(c, n) for n in cases)
            ]
            existing[key] = (merged + cases)[-MAX_PER_FUNCTION:]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"version": 1, "calls": existing}, out, indent=1, sort_keys=True)
        os.replace(temporary, self.path)
        self._remove_unused(existing)

    def _remove_unused(self, calls: dict[str, Any]) -> None:
        used = set(_pickle_files(calls))
        folder = self.path.parent / INSTANCES
        if not folder.is_dir():
            return
        for path in folder.glob("*.pkl"):
            if f"{INSTANCES}/{path.name}" not in used:
                path.unlink(missing_ok=True)

    def summary(self, root: Path) -> str:
        """The line the test run ends with."""
        try:
            shown = str(self.path.relative_to(root.resolve()))
        except ValueError:
            shown = str(self.path)
        if not self.calls:
            return (
                "jitlint: recorded no calls (no jitted function or Keras layer of this "
                f"project ran); {shown} was not written"
            )
        count = sum(len(cases) for cases in self.calls.values())
        parts = [f"{len(self.pickled)} object(s) pickled in {INSTANCES}/"] if self.pickled else []
        if self.layers:
            parts.append(f"{self.layers} Keras layer config(s)")
        if self.unkept:
            parts.append(f"{self.unkept} instance(s) or argument(s) not kept (see the file)")
        extra = f" ({'; '.join(parts)})" if parts else ""
        return (
            f"jitlint: recorded {count} call(s) of {len(self.calls)} function(s){extra} "
            f"in {shown}, for `jitlint verify`"
        )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock beside `path` where the platform has one (POSIX)."""
    try:
        import fcntl
    except ImportError:  # Windows: saves are rare enough to go unlocked
        yield
        return
    with open(path.with_name(path.name + ".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _same_inputs(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.get("args") == b.get("args") and a.get("kwargs") == b.get("kwargs")


def _pickle_files(value: Any) -> list[str]:
    if isinstance(value, dict):
        if "__pickle__" in value and isinstance(value["__pickle__"], dict):
            return [str(value["__pickle__"].get("file"))]
        return [f for v in value.values() for f in _pickle_files(v)]
    if isinstance(value, list):
        return [f for v in value for f in _pickle_files(v)]
    return []


def _module_is_project(name: str) -> bool:
    if not name or name.split(".")[0] in LIBRARIES:
        return False
    module = sys.modules.get(name)
    where = getattr(module, "__file__", None) or ""
    return "site-packages" not in where and "dist-packages" not in where


def _project_function(fun: Any) -> bool:
    target = fun.__func__ if inspect.ismethod(fun) else fun
    return _module_is_project(getattr(target, "__module__", None) or "")


def _project_class(cls: type) -> bool:
    return _module_is_project(cls.__module__)


def _is_method_like(fun: Any) -> bool:
    """Defined in a class body: `Model.apply` (not `f.<locals>.g`), or bound to an instance."""
    if inspect.ismethod(fun):
        return True
    qualname = getattr(fun, "__qualname__", "")
    return "." in qualname and "<locals>" not in qualname.rsplit(".", 1)[0]


def _first_parameter(fun: Any) -> str | None:
    code = getattr(inspect.unwrap(fun), "__code__", None)
    if code is None or code.co_argcount == 0:
        return None
    return code.co_varnames[0]


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs `callback(module)` right after `name` is first imported.

    Each lookup of `name` gets a spec whose loader runs the callback after the module body;
    the hook goes once that has happened. (TensorFlow looks keras up with
    `importlib.util.find_spec` without importing it: a hook that acted on the first lookup
    would patch a spec nobody loads.)"""

    def __init__(self, name: str, callback: Callable[[Any], None]) -> None:
        self.name, self.callback = name, callback
        self._looking = False

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name or self._looking:
            return None
        self._looking = True  # the lookup below comes back through sys.meta_path
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._looking = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run, hook = spec.loader.exec_module, self

        def exec_module(module: Any) -> None:
            run(module)
            if hook in sys.meta_path:
                sys.meta_path.remove(hook)
            hook.callback(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def after_import(name: str, callback: Callable[[Any], None]) -> Any:
    if name in sys.modules:
        callback(sys.modules[name])
        return None
    hook = _AfterImport(name, callback)
    sys.meta_path.insert(0, hook)
    return hook


class Recorded:
    """A jitted function that notes each call's argument specs, then calls through."""

    def __init__(self, jitted: Any, fun: Any, recorder: Recorder) -> None:
        self._jitted, self._fun, self._recorder = jitted, fun, recorder
        functools.update_wrapper(self, fun)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._recorder.record(self._fun, args, kwargs)
        return self._jitted(*args, **kwargs)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        return self if instance is None else functools.partial(self.__call__, instance)

    def __getattr__(self, name: str) -> Any:  # lower, trace, eval_shape, clear_cache, ...
        return getattr(self._jitted, name)
