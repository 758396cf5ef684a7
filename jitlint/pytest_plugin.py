"""Record the inputs of jitted functions while the user's tests run, for the verifier.

    pytest -p jitlint.pytest_plugin --jitlint-record

wraps `jax.jit` and `tf.function` before the tests import the code (each when the framework is
first imported: recording never imports a framework the project does not use), and records,
for every call of a jitted function, the shapes and dtypes of its array arguments and the
values of the others (static arguments must be hashable values, so they are kept as they are).
`tf.function` is recorded for module-level functions only; methods keep TF's own binding.
The file goes to `[tool.jitlint.verify] record-file` (default `.jitlint/verify-specs.json`
next to the config), merged with what is already there. Without `--jitlint-record` the
plugin does nothing and imports nothing.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.util
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_PER_FUNCTION = 5


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("jitlint")
    group.addoption(
        "--jitlint-record",
        action="store_true",
        help="record the argument specs of every call to a jax.jit function (for jitlint verify)",
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


def pytest_unconfigure(config: Any) -> None:
    recorder = getattr(config, "_jitlint_recorder", None)
    if recorder is not None:
        recorder.uninstall()
        recorder.save()


def _record_path(config: Any) -> Path:
    explicit = config.getoption("jitlint_record_file")
    if explicit:
        return Path(explicit).resolve()
    from jitlint.config import load_settings
    from jitlint.verify.inputs import DEFAULT_RECORD_FILE

    settings = load_settings(None, Path(str(config.rootpath)))
    return settings.verify.record_file or settings.root / DEFAULT_RECORD_FILE


def encode(value: Any) -> Any:
    """The JSON form `jitlint.verify.inputs` documents; arrays become shape and dtype."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": [[k, encode(v)] for k, v in value.items()]}
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        framework = "tensorflow" if type(value).__module__.startswith("tensorflow") else "jax"
        name = getattr(dtype, "name", str(dtype))
        return {
            "__spec__": {"shape": [int(d) for d in shape], "dtype": name, "framework": framework}
        }
    return {"__repr__": repr(value)[:200]}


class Recorder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.calls: dict[str, list[dict[str, Any]]] = {}
        self._hooks: list[Any] = []
        self._restore: list[Callable[[], None]] = []

    def install(self) -> None:
        self._hooks = [
            after_import("jax", self._patch_jax),
            after_import("tensorflow", self._patch_tf),
        ]

    def _patch_jax(self, jax: Any) -> None:
        original = jax.jit
        recorder = self

        @functools.wraps(original)
        def recording_jit(fun: Any = None, *args: Any, **kwargs: Any) -> Any:
            if fun is None:  # jax.jit(static_argnames=...) used as a decorator factory
                return lambda f: recording_jit(f, *args, **kwargs)
            return Recorded(original(fun, *args, **kwargs), fun, recorder)

        jax.jit = recording_jit
        self._restore.append(lambda: setattr(jax, "jit", original))

    def _patch_tf(self, tf: Any) -> None:
        original = tf.function
        recorder = self

        @functools.wraps(original)
        def recording_function(func: Any = None, *args: Any, **kwargs: Any) -> Any:
            if func is None:  # @tf.function(jit_compile=True)
                return lambda f: recording_function(f, *args, **kwargs)
            compiled = original(func, *args, **kwargs)
            if "." in getattr(func, "__qualname__", "."):
                return compiled  # a method or a local function: leave TF's object alone
            return Recorded(compiled, func, recorder)

        tf.function = recording_function
        self._restore.append(lambda: setattr(tf, "function", original))

    def uninstall(self) -> None:
        for hook in self._hooks:
            if hook in sys.meta_path:
                sys.meta_path.remove(hook)
        for restore in self._restore:
            restore()

    def record(self, fun: Any, args: tuple, kwargs: dict) -> None:
        key = f"{getattr(fun, '__module__', '?')}:{getattr(fun, '__qualname__', '?')}"
        try:
            case = {
                "args": [encode(a) for a in args],
                "kwargs": {k: encode(v) for k, v in kwargs.items()},
            }
        except Exception:  # recording must never break the user's test
            return
        cases = self.calls.setdefault(key, [])
        if case not in cases and len(cases) < MAX_PER_FUNCTION:
            cases.append(case)

    def save(self) -> None:
        if not self.calls:
            return
        existing: dict[str, Any] = {}
        try:
            existing = json.loads(self.path.read_text(encoding="utf-8")).get("calls", {})
        except (OSError, ValueError, AttributeError):
            existing = {}
        for key, cases in self.calls.items():
            merged = existing.get(key, [])
            merged += [c for c in cases if c not in merged]
            existing[key] = merged[-MAX_PER_FUNCTION:]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"version": 1, "calls": existing}, out, indent=1, sort_keys=True)
        os.replace(temporary, self.path)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs `callback(module)` right after `name` is first imported."""

    def __init__(self, name: str, callback: Callable[[Any], None]) -> None:
        self.name, self.callback = name, callback

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # once; and let the other finders find the real spec
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run, callback = spec.loader.exec_module, self.callback

        def exec_module(module: Any) -> None:
            run(module)
            callback(module)

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
