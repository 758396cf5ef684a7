"""The framework plug-ins (model/domain/plugins.py, model/jax/frameworks/): one table, and no
framework named by a string outside its plug-in."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import jitlint.model.jax.frameworks  # noqa: F401  (registers the plug-ins)

PACKAGE = Path(__file__).resolve().parents[1] / "jitlint"
FRAMEWORKS = ("equinox", "flax", "linen", "nnx", "haiku", "optax")
# A framework's name as a kind or as the head of a qualified name: "haiku", "flax.linen.Dense",
# "equinox." (prose such as "flax linen modules" names no qualified name and is left alone).
_ANY = "(?:" + "|".join(FRAMEWORKS) + ")"
_NAMED = re.compile(_ANY + r"(?:\.[\w.]*)?")

# Where a framework may be named, each with why.
ALLOWED = {
    # The plug-ins themselves: each names its own framework.
    "model/jax/frameworks/equinox.py": "the equinox plug-in",
    "model/jax/frameworks/linen.py": "the flax linen plug-in",
    "model/jax/frameworks/nnx.py": "the flax nnx plug-in",
    "model/jax/frameworks/haiku.py": "the haiku plug-in",
    "model/jax/frameworks/optax.py": "the optax plug-in",
    "model/jax/frameworks/structs.py": "the flax.struct, chex, dataclass and NamedTuple plug-ins",
    # The runtime side imports and inspects the installed frameworks themselves.
    "verify/": "runtime verifier: builds and calls live framework objects",
    "explain/": "explain-error: reads tracebacks through the frameworks' own source trees",
    "pytest_plugin.py": "pytest plug-in: patches the frameworks when they are imported",
    # Generated from the rules' `requires`, which the plug-ins supply.
    "rules/_index.py": "generated rule index",
    # Import side effects, not framework semantics: every package of the JAX ecosystem whose
    # import reads the JAX_* options (most have no plug-in: numpyro, orbax, diffrax, ...).
    "model/env/timeline.py": "the packages whose import runs `import jax`",
}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def framework_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string literal of `source`, docstrings aside, that is a framework's
    name or starts a qualified name with one (`f"flax.linen.{name}"` counts)."""
    tree = ast.parse(source)
    skipped = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            head = node.values[0] if node.values else None
            text = head.value if isinstance(head, ast.Constant) else ""
            if isinstance(text, str) and re.match(_ANY + r"\.", text):
                out.append((node.lineno, text))
            skipped.update(id(v) for v in node.values)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skipped
            and _NAMED.fullmatch(node.value)
        ):
            out.append((node.lineno, node.value))
    return out


def test_finder_sees_kinds_and_qualified_names() -> None:
    source = '''"""Docstrings may say equinox."""
KIND = "linen"
BASES = {"flax.struct.PyTreeNode", "equinox."}
NAMES = [f"haiku.{n}" for n in "ab"]
MESSAGE = "flax linen modules are meant to be"
OTHER = ("jax.lax.scan", "flaxen", "nnx_like")
'''
    found = sorted(text for _, text in framework_literals(source))
    assert found == ["equinox.", "flax.struct.PyTreeNode", "haiku.", "linen"]


def test_no_framework_named_outside_its_plugin() -> None:
    offending = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if any(relative == a or (a.endswith("/") and relative.startswith(a)) for a in ALLOWED):
            continue
        for line, text in framework_literals(path.read_text(encoding="utf-8")):
            offending.append(f"jitlint/{relative}:{line}: {text!r}")
    assert offending == []


def test_allowed_exceptions_still_exist() -> None:
    for allowed in ALLOWED:
        assert (PACKAGE / allowed).exists(), allowed


def test_one_plugin_per_kind() -> None:
    from jitlint.model.domain.plugins import plugin, plugins

    kinds = [p.kind for p in plugins()]
    assert len(kinds) == len(set(kinds))
    assert {"equinox", "linen", "nnx", "haiku", "optax", "flax.struct"} <= set(kinds)
    assert plugin(None) is None and plugin("torch") is None
    # A qualified name belongs to one plug-in: two claiming a base would make its kind depend
    # on registration order.
    bases = [q for p in plugins() for q in p.class_bases | p.class_decorators]
    assert len(bases) == len(set(bases))


def test_table_answers_from_the_plugins() -> None:
    from jitlint.model.domain import plugins
    from jitlint.model.jax.frameworks.contracts import CONTRACTS
    from jitlint.model.jax.transforms import TRANSFORMS

    assert plugins.kind_of_base("equinox.Module") == "equinox"
    assert plugins.kind_of_base("typing.NamedTuple") == "namedtuple"
    assert plugins.kind_of_decorator("flax.struct.dataclass") == "flax.struct"
    assert plugins.kind_of_base("builtins.object") is None
    assert "flax.linen.compact" in plugins.transparent_decorators()
    assert plugins.has("equinox", "pytree") and not plugins.has("linen", "pytree")
    assert plugins.has("linen", "not_a_pytree") and plugins.has("nnx", "graph_split")
    assert TRANSFORMS["equinox.filter_jit"].style == "filter"
    assert TRANSFORMS["flax.linen.transforms.scan"].style == "lifted"
    assert TRANSFORMS["haiku.transform"].style == "pair"
    assert TRANSFORMS["haiku.fori_loop"].targets == TRANSFORMS["jax.lax.fori_loop"].targets
    assert set(CONTRACTS) == {"equinox", "linen", "nnx", "haiku"}
    for p in plugins.plugins():
        for spec in p.transforms:
            assert all(TRANSFORMS[name].style == spec.style for name in spec.names)


def test_generated_module_classes_are_keyed_by_plugin_kinds() -> None:
    from jitlint.model.domain.plugins import plugin

    data = json.loads((PACKAGE / "data" / "framework_modules.json").read_text("utf-8"))
    lists = [key for key, value in data.items() if isinstance(value, list) and key != "stateless"]
    assert lists
    for kind in lists:
        found = plugin(kind)
        assert found is not None and found.submodules_in is not None, kind


def test_call_hooks_answer_for_their_functions_only() -> None:
    from jitlint.model.domain import plugins
    from jitlint.model.domain.values import Seq

    assert plugins.call_hook("jax.numpy.sum") is None
    make_list = plugins.call_hook("flax.nnx.List")
    assert make_list is not None
    given = Seq("tuple", [Seq("list", [])])
    made = make_list(plugins.CallArgs([(None, Seq("list", [given]))], False, lambda i: None))
    assert isinstance(made, Seq) and made.pytype == "list" and list(made.items or ()) == [given]
    # A starred call is not read: the hook leaves it to the model.
    assert make_list(plugins.CallArgs([(None, Seq("list", []))], True, lambda i: None)) is None
    for name in ("equinox.partition", "equinox.combine", "haiku.without_apply_rng"):
        assert plugins.call_hook(name) is not None, name
    assert plugins.apply_methods() >= {"apply", "init"}


def _stated_names(plugin: object) -> set[str]:
    """Every qualified name a plug-in states about its framework's API."""
    p: Any = plugin
    names = set(p.class_bases | p.class_decorators | p.transparent_decorators | p.module_bases)
    names |= {h.qualname for h in p.field_helpers}
    names |= {name for spec in p.transforms for name in spec.names}
    names |= set(p.jax_calls | p.pytree_results | p.array_results | p.parameter_functions)
    names |= set(p.shape_params) | set(p.call_hooks)
    return names


def _resolve(qualname: str) -> object:
    """The object `qualname` names in the installed packages (ImportError when its package
    is not installed, AttributeError when the package has no such name)."""
    import importlib

    parts = qualname.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attr in parts[split:]:
            found = getattr(found, attr)
        return found
    raise ImportError(qualname)


def test_every_stated_name_exists_in_the_installed_framework() -> None:
    """The plug-ins are written by hand: each name they state must be one the installed
    framework exports (a framework that is not installed is skipped)."""
    import os
    import warnings

    from jitlint.model.domain.plugins import plugins

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    checked, missing = 0, []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated spellings still count
        for plugin in plugins():
            for qualname in sorted(_stated_names(plugin)):
                try:
                    _resolve(qualname)
                except ImportError:
                    continue
                except AttributeError:
                    missing.append(qualname)
                checked += 1
    assert checked > 80  # the frameworks were there to check against
    assert missing == []


def test_name_resolver_tells_a_missing_name() -> None:
    import pytest

    assert _resolve("json.dumps") is json.dumps
    with pytest.raises(AttributeError):
        _resolve("json.no_such_function")
    with pytest.raises(ImportError):
        _resolve("no_such_package_here.thing")


def test_plugins_compare_by_identity():
    # One plug-in per framework: no value equality or hash over its 45 fields is generated
    # (compiling them was ~1 ms of every process), so a plug-in is its own key.
    from jitlint.model.domain.plugins import plugins

    registered = plugins()
    assert len({*registered}) == len(registered)
    first = registered[0]
    assert first == first and first != dataclasses.replace(first)
