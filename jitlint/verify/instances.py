"""(worker) Methods: an instance of the original class and one of the fixed class, and how to
compile and call a method on them.

Runs in the worker subprocess only. Where the instances come from:

- a declared factory, `"pkg.mod:Model.__call__": [(make_model, (x,), {})]`: called once as
  it is (the original class) and once with the module's name bound to the fixed module, in
  `sys.modules`, in its package and in the factory's globals, so the fixed `__init__` runs.
  Each call starts from the same random seeds (Python, NumPy, TensorFlow/Keras);
- a declared instance (anything not callable as a factory): the fixed one is its pickle
  loaded under the fixed module, or failing that a copy with its class switched;
- a recorded pickle (see pytest_plugin.py): loaded twice, once under each module;
- a recorded Keras layer: rebuilt from its class and `get_config()`, once per class.

How a method is compiled: by its own decorator when it has one (`jax.jit`, `eqx.filter_jit`,
`nnx.jit`, `tf.function`), otherwise the way its framework compiles it when its callers
trace it: `eqx.filter_jit` for an equinox module, `nnx.jit` for an nnx module, `jax.jit` over
`Module.apply` for flax linen and over `Transformed.apply` for haiku, `jax.jit` with the
instance as an argument for other pytrees or closed over (static) for plain objects; a Keras
layer's `call` through the layer under `tf.function(jit_compile=True)`. A Keras layer's
weights are copied from the original to the fixed layer before the fixed one runs.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import pickle
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any


class NotBuilt(Exception):
    """No instance could be made for reasons that are not the fix's (skipped)."""


class FixedFails(Exception):
    """The fixed class fails where the original class did not (failed)."""


@dataclass
class Instance:
    """Where a case's instance comes from: "factory", "object", "pickle" or "keras"."""

    kind: str
    value: Any


@dataclass
class Subject:
    """One case, ready for the worker's compile-and-compare loop."""

    args: tuple
    kwargs: dict
    compiled: Any  # the fixed method, compiled: `.lower(...)` for JAX, a tf.function for TF
    reference: Any  # the original method, to run eagerly
    original_compiled: Any  # the original method compiled the same way (to confirm findings)
    how: str  # "eqx.filter_jit", "tf.function(jit_compile=True)", ...
    origin: str  # where the instance came from, for the report
    concrete_compile: bool = False  # eqx.filter_jit takes array specs for static values
    before_run: Callable[[], None] | None = None
    note: str = ""  # how the reference was found, when it is not the original module's


def declared(case: Any) -> tuple[Instance, tuple, dict]:
    """`(factory_or_instance, args)` or `(factory_or_instance, args, kwargs)`."""
    if not isinstance(case, tuple) or len(case) not in (2, 3):
        raise TypeError(
            "an example of a method must be (factory or instance, args, kwargs), "
            f"got {type(case).__name__}"
        )
    maker, args = case[0], case[1]
    kwargs = case[2] if len(case) == 3 else {}
    if not isinstance(args, tuple) or not isinstance(kwargs, dict):
        raise TypeError("an example of a method must be (factory or instance, args, kwargs)")
    is_factory = inspect.isfunction(maker) or inspect.isclass(maker)
    is_factory = is_factory or isinstance(maker, functools.partial) or inspect.ismethod(maker)
    return Instance("factory" if is_factory else "object", maker), args, dict(kwargs)


def recorded(encoded: Any) -> Instance:
    """The plugin's `self`: {"__pickle__": {...}}, {"__keras__": {...}} or {"__repr__": ..}."""
    if isinstance(encoded, dict) and "__pickle__" in encoded:
        return Instance("pickle", encoded["__pickle__"])
    if isinstance(encoded, dict) and "__keras__" in encoded:
        return Instance("keras", encoded["__keras__"])
    why = encoded.get("why", "") if isinstance(encoded, dict) else ""
    raise NotBuilt(
        "the recorded instance could not be kept"
        + (f" ({why})" if why else "")
        + "; declare an instance factory in EXAMPLES"
    )


def seed_everything() -> None:
    """The same random state before each factory call, so both builds draw the same."""
    random.seed(0)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(0)
    if "keras" in sys.modules:
        with contextlib.suppress(Exception):
            sys.modules["keras"].utils.set_random_seed(0)
    elif "tensorflow" in sys.modules:
        with contextlib.suppress(Exception):
            sys.modules["tensorflow"].random.set_seed(0)


def resolve(module: ModuleType, qualname: str) -> Any:
    value: Any = module
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


class Modules:
    """The original and the fixed module of one name, and switching between them."""

    def __init__(self, name: str, original: ModuleType | None, fixed: ModuleType) -> None:
        self.name, self.original, self.fixed = name, original, fixed

    @contextlib.contextmanager
    def as_fixed(self, namespaces: tuple[dict[str, Any], ...] = ()) -> Iterator[None]:
        """The fixed module under the module's name: in sys.modules, as its package's
        attribute, and for names in `namespaces` bound to the original module or to one of
        its own classes and functions."""
        saved_module = sys.modules.get(self.name)
        parent_name, _, leaf = self.name.rpartition(".")
        parent = sys.modules.get(parent_name) if parent_name else None
        missing = object()
        saved_attr = getattr(parent, leaf, missing) if parent is not None else missing
        restore: list[tuple[dict[str, Any], str, Any]] = []
        for namespace in namespaces:
            for key, value in list(namespace.items()):
                replacement = self.fixed_counterpart(value)
                if replacement is not None:
                    restore.append((namespace, key, value))
                    namespace[key] = replacement
        sys.modules[self.name] = self.fixed
        if parent is not None:
            setattr(parent, leaf, self.fixed)
        try:
            yield
        finally:
            for namespace, key, value in restore:
                namespace[key] = value
            if saved_module is not None:
                sys.modules[self.name] = saved_module
            else:
                sys.modules.pop(self.name, None)
            if parent is not None and saved_attr is not missing:
                setattr(parent, leaf, saved_attr)
            elif parent is not None:
                with contextlib.suppress(AttributeError):
                    delattr(parent, leaf)

    def fixed_counterpart(self, value: Any) -> Any:
        """The fixed module's object for the original module or one of its own objects."""
        if self.original is None:
            return None
        if value is self.original:
            return self.fixed
        if getattr(value, "__module__", None) != self.name:
            return None
        name = getattr(value, "__qualname__", None)
        if not isinstance(name, str) or "<locals>" in name:
            return None
        try:
            if resolve(self.original, name) is not value:
                return None
            return resolve(self.fixed, name)
        except AttributeError:
            return None


def _namespaces(factory: Any) -> tuple[dict[str, Any], ...]:
    """The globals a factory reads names from (a partial's function's)."""
    while isinstance(factory, functools.partial):
        factory = factory.func
    if inspect.ismethod(factory):
        factory = factory.__func__
    found = getattr(factory, "__globals__", None)
    return (found,) if isinstance(found, dict) else ()


def _fixed_factory(modules: Modules, factory: Any) -> Any:
    """The factory as the fixed module would have it: a class or function of the original
    module becomes the fixed one's (a partial's function too)."""
    if isinstance(factory, functools.partial):
        inner = _fixed_factory(modules, factory.func)
        return functools.partial(inner, *factory.args, **factory.keywords)
    return modules.fixed_counterpart(factory) or factory


def pair(
    source: Instance,
    modules: Modules,
    class_qualname: str,
    record_dir: Path,
    kinds: tuple[str, ...],
) -> tuple[Any, Any, str]:
    """(original instance, fixed instance, where they came from). `kinds`: objects that are
    not instances of the class but carry it (a haiku `Transformed`)."""
    if modules.original is None:
        raise NotBuilt("the original module fails at import, so there is no original class")
    original_class = resolve(modules.original, class_qualname)
    fixed_class = resolve(modules.fixed, class_qualname)
    if source.kind == "factory":
        factory = source.value
        name = getattr(factory, "__name__", None) or type(factory).__name__
        try:
            seed_everything()
            original = factory()
        except Exception as exc:
            raise NotBuilt(f"the instance factory {name} raises: {_describe(exc)}") from exc
        try:
            with modules.as_fixed(_namespaces(factory)):
                seed_everything()
                fixed = _fixed_factory(modules, factory)()
        except Exception as exc:
            raise FixedFails(
                f"the instance factory {name} raises with the fixed module: {_describe(exc)}"
            ) from exc
        origin = f"instance from {name}()"
        if _carried(fixed, kinds):
            return original, fixed, origin
        if isinstance(fixed, fixed_class):
            return original, fixed, origin
        if not isinstance(fixed, original_class):
            raise NotBuilt(
                f"the factory {name} returns a {type(fixed).__name__}, not a {class_qualname}"
            )
        moved, how = _to_fixed(modules, fixed, fixed_class)
        return original, moved, f"{origin}, moved to the fixed class by {how}"
    if source.kind == "object":
        if not isinstance(source.value, original_class):
            raise NotBuilt(
                f"the declared instance is a {type(source.value).__name__}, not a {class_qualname}"
            )
        moved, how = _to_fixed(modules, source.value, fixed_class)
        return source.value, moved, f"declared instance, moved to the fixed class by {how}"
    if source.kind == "pickle":
        data = _read_pickle(record_dir, source.value)
        original = pickle.loads(data)
        try:
            with modules.as_fixed():
                fixed = pickle.loads(data)
        except Exception as exc:
            raise FixedFails(
                f"the recorded instance does not load into the fixed class: {_describe(exc)}"
            ) from exc
        return original, fixed, "recorded instance, unpickled"
    if source.kind == "keras":
        config = source.value.get("config", {})
        try:
            seed_everything()
            original = original_class.from_config(config)
        except Exception as exc:
            raise NotBuilt(
                f"the recorded layer is not rebuilt by from_config: {_describe(exc)}"
            ) from exc
        try:
            seed_everything()
            fixed = fixed_class.from_config(config)
        except Exception as exc:
            raise FixedFails(
                f"the fixed layer is not rebuilt by from_config: {_describe(exc)}"
            ) from exc
        return original, fixed, "recorded layer, rebuilt from get_config()"
    raise NotBuilt(f"unknown instance source {source.kind}")


def _carried(value: Any, kinds: tuple[str, ...]) -> bool:
    return "haiku" in kinds and _is_transformed(value)


def _read_pickle(record_dir: Path, entry: Any) -> bytes:
    relative = entry.get("file") if isinstance(entry, dict) else None
    if not isinstance(relative, str):
        raise NotBuilt("the recorded instance names no file")
    path = (record_dir / relative).resolve()
    try:
        return path.read_bytes()
    except OSError as exc:
        raise NotBuilt(
            f"the recorded instance {relative} is missing beside the record file"
        ) from exc


def _to_fixed(modules: Modules, value: Any, fixed_class: type) -> tuple[Any, str]:
    """An instance of the fixed class with `value`'s state (its __init__ does not run)."""
    try:
        data = pickle.dumps(value)
        with modules.as_fixed():
            moved = pickle.loads(data)
        if isinstance(moved, fixed_class):
            return moved, "pickling"
    except Exception:  # not picklable: switch the class of a copy
        pass
    moved = copy.copy(value)
    object.__setattr__(moved, "__class__", fixed_class)
    return moved, "switching the class of a copy"


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ---- calling ----------------------------------------------------------------------------
class Bound:
    """A method's function with the instance as its first argument; `lower` passes it too."""

    def __init__(self, func: Any, instance: Any) -> None:
        self.func, self.instance = func, instance

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(self.instance, *args, **kwargs)

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        return self.func.lower(self.instance, *args, **kwargs)


class Prefixed:
    """`func(*prefix, *args)`: an `apply` that takes variables (and a key) first."""

    def __init__(self, func: Any, prefix: tuple) -> None:
        self.func, self.prefix = func, prefix

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*self.prefix, *args, **kwargs)

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        return self.func.lower(*self.prefix, *args, **kwargs)


def method_attribute(cls: type, name: str) -> Any:
    """The method as the class body defines it (a function, or its compiled wrapper)."""
    try:
        found = inspect.getattr_static(cls, name)
    except AttributeError as exc:
        raise NotBuilt(f"{cls.__qualname__} has no attribute {name}") from exc
    if isinstance(found, staticmethod | classmethod):
        raise NotBuilt(f"{cls.__qualname__}.{name} is a {type(found).__name__}; not supported")
    return found


def _is_transformed(value: Any) -> bool:
    haiku = type(value).__module__.startswith("haiku")
    return haiku and hasattr(value, "init") and hasattr(value, "apply")


def _is_linen(value: Any) -> bool:
    linen = sys.modules.get("flax.linen")
    return linen is not None and isinstance(value, linen.Module)


def _is_nnx(value: Any) -> bool:
    nnx = sys.modules.get("flax.nnx")
    return nnx is not None and isinstance(value, nnx.Module)


def _is_equinox(value: Any) -> bool:
    eqx = sys.modules.get("equinox")
    return eqx is not None and isinstance(value, eqx.Module)


def subject(
    recipe: dict[str, Any],
    method: str,
    original: Any,
    fixed: Any,
    args: tuple,
    kwargs: dict,
    concrete: Callable[[Any], Any],
) -> Subject:
    """How to compile and run `method` on the two instances. `concrete` makes concrete
    inputs from the case's (for haiku and linen, which need them to initialise)."""
    if recipe["framework"] == "tensorflow":
        return _tf_subject(recipe, method, original, fixed, args, kwargs)
    if recipe["decorated"]:
        fixed_attr = method_attribute(type(fixed), method)
        original_attr = method_attribute(type(original), method)
        how = recipe["how"]
        return Subject(
            args,
            kwargs,
            Bound(fixed_attr, fixed),
            Bound(inspect.unwrap(original_attr), original),
            Bound(original_attr, original),
            how,
            "",
            concrete_compile=how == "eqx.filter_jit",
        )
    return _traced_subject(method, original, fixed, args, kwargs, concrete)


def _traced_subject(
    method: str,
    original: Any,
    fixed: Any,
    args: tuple,
    kwargs: dict,
    concrete: Callable[[Any], Any],
) -> Subject:
    import jax

    if _is_transformed(fixed):
        key = jax.random.PRNGKey(0)
        params = original.init(key, *concrete(args), **concrete(kwargs))
        with_rng = "rng" in inspect.signature(original.apply).parameters
        prefix = (params, jax.random.PRNGKey(1)) if with_rng else (params,)
        return Subject(
            args,
            kwargs,
            Prefixed(jax.jit(fixed.apply), prefix),
            Prefixed(original.apply, prefix),
            Prefixed(jax.jit(original.apply), prefix),
            "jax.jit over hk.transform's apply",
            "",
        )
    if _is_linen(fixed):
        name = None if method == "__call__" else method
        variables = original.init(
            jax.random.PRNGKey(0), *concrete(args), method=name, **concrete(kwargs)
        )

        def apply_of(module: Any) -> Callable[..., Any]:
            return lambda v, *a, **k: module.apply(v, *a, method=name, **k)

        return Subject(
            args,
            kwargs,
            Prefixed(jax.jit(apply_of(fixed)), (variables,)),
            Prefixed(apply_of(original), (variables,)),
            Prefixed(jax.jit(apply_of(original)), (variables,)),
            "jax.jit over Module.apply",
            "",
        )
    fixed_func = inspect.unwrap(method_attribute(type(fixed), method))
    original_func = inspect.unwrap(method_attribute(type(original), method))
    if _is_nnx(fixed):
        from flax import nnx

        wrap, how, concrete_compile = nnx.jit, "nnx.jit", False
    elif _is_equinox(fixed):
        import equinox as eqx

        wrap, how, concrete_compile = eqx.filter_jit, "eqx.filter_jit", True
    elif jax.tree_util.treedef_is_leaf(jax.tree_util.tree_structure(fixed)):
        # Not a pytree: `self` can only be a Python value closed over (as static_argnums=0).
        return Subject(
            args,
            kwargs,
            jax.jit(functools.partial(fixed_func, fixed)),
            Bound(original_func, original),
            jax.jit(functools.partial(original_func, original)),
            "jax.jit, the instance static",
            "",
        )
    else:
        wrap, how, concrete_compile = jax.jit, "jax.jit", False
    return Subject(
        args,
        kwargs,
        Bound(wrap(fixed_func), fixed),
        Bound(original_func, original),
        Bound(wrap(original_func), original),
        how,
        "",
        concrete_compile=concrete_compile,
    )


def _tf_subject(
    recipe: dict[str, Any], method: str, original: Any, fixed: Any, args: tuple, kwargs: dict
) -> Subject:
    import tensorflow as tf

    if recipe["decorated"]:
        return Subject(
            args,
            kwargs,
            getattr(fixed, method),
            getattr(original, method),
            getattr(original, method),
            recipe["how"],
            "",
        )
    if not recipe.get("implied"):
        raise NotBuilt(f"{method} is compiled by a tf.function binding the verifier cannot follow")

    def through_layer(layer: Any) -> Callable[..., Any]:
        return lambda *a, **k: layer(*a, **k)

    def compiled(layer: Any) -> Any:
        return tf.function(
            through_layer(layer), jit_compile=recipe["xla"], autograph=recipe["autograph"]
        )

    def copy_weights() -> None:
        # The fixed layer was built while compiling, with its own random initial weights.
        weights = original.get_weights()
        current = fixed.get_weights()
        if len(weights) == len(current) and all(
            a.shape == b.shape for a, b in zip(weights, current, strict=True)
        ):
            fixed.set_weights(weights)

    return Subject(
        args,
        kwargs,
        compiled(fixed),
        through_layer(original),
        compiled(original),
        recipe["how"],
        "",
        before_run=copy_weights,
    )
