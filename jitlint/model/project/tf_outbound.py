"""The sender's side of the TF records (model/tf_records.py): what a file's TF model says about
names of other modules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.model.project.lines import CallLines, counted_lines, place
from jitlint.model.tf.compile_flag import SWITCH_ORIGIN, UNKNOWN
from jitlint.model.tf_records import TfRecord

if TYPE_CHECKING:
    from jitlint.model.tf.function import GraphContext
    from jitlint.model.tf.model import TfModel

# Never modules of the project: their names need no record.
_LIBRARIES = frozenset(
    {"tensorflow", "numpy", "jax", "builtins", "functools", "math", "os", "sys", "typing"}
)


LOSS_ORIGIN = "a loss of a Keras model"


def _loss_status(flag: bool | str | None) -> str:
    """A `compile(loss=...)`'s status, as keras.py names a model's: its `jit_compile`."""
    if flag is True:
        return "xla"
    if flag is None:
        return "auto"
    return "switch" if flag == UNKNOWN else "off"


def foreign_name(model: TfModel, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> str | None:
    """The dotted name `expr` stands for when the imports place it in another module that
    may be part of the project; None for local names, libraries and ambiguous names."""
    names = model.names.qualified_names(expr, path)
    if len(names) != 1:
        return None
    (name,) = names
    if not name or name.split(".")[0] in _LIBRARIES:
        return None
    return name if name.startswith(".") or "." in name else None


def tf_outbound(model: TfModel, source: str, call_lines: CallLines | None = None) -> list[TfRecord]:
    found: list[tuple[cst.CSTNode, Sequence[cst.CSTNode], str, str, GraphContext | None]] = []
    at: dict[int, cst.CSTNode] = {}  # where a record's line is, when not at its name
    per_element: set[int] = set()  # loop calls that pass their loop's element
    exports = model.exports()
    scan = model.scan
    if model.may_have_graph_code:
        for key, context in model.contexts.items():
            calls = (*scan.calls.get(key, ()), *scan.attribute_calls.get(key, ()))
            for call, path in calls:
                found.append((call.func, path, "graph", "", context))
            for expr, path in scan.foreign_callbacks.get(key, ()):
                found.append((expr, path, "graph", "", context))
        for expr, path, flag in scan.foreign_losses:
            status = _loss_status(flag)
            found.append((expr, path, "loss", status, None))
    # Creations of other modules' classes, from every file: one in plain code (a custom
    # training loop, a network of another library) is what tells a layer's module that its
    # class is used, and not a library class that Keras models run at "auto".
    for call, path, status in model.keras_uses[1]:
        found.append((call.func, path, "use", status, None))
    if scan.loop_calls:
        for call, path, expr, method, element in model.repeats.foreign:
            found.append((expr, path, "repeat", method, None))
            at[id(expr)] = call  # the loop's call, not the creation of the instance
            if element:
                per_element.add(id(expr))
    imports = model.project_imports()
    records: set[TfRecord] = set()
    if found or imports:
        named = []
        seen: set[tuple[object, ...]] = set()
        for expr, path, kind, status, context in found:
            target = foreign_name(model, expr, path)
            if target is None:
                continue
            # One record per target and context: the first place names the site.
            key = (target, kind, status, context, id(expr) in per_element)
            if key in seen:
                continue
            seen.add(key)
            named.append((expr, path, kind, status, context, target))
        # Graph records carry no line (their origin names the caller): only the others
        # need their lines found.
        sites = [
            (at.get(id(expr), expr), path[1] if len(path) > 1 else None)
            for expr, path, kind, *_ in named
            if kind != "graph"
        ]
        sites += [(node, path[1] if len(path) > 1 else None) for node, path, _ in imports]
        lines: dict[int, int] = {}
        if call_lines is not None:
            for node, top in sites:
                known = call_lines.line(node, top)
                if known is not None:
                    lines[id(node)] = known
            sites = [(node, top) for node, top in sites if id(node) not in lines]
        if len(sites) > 16:  # one counting codegen of the module beats many searches
            lines.update(counted_lines(model.module, model.module, 1, [n for n, _ in sites]))
        elif sites:
            lines.update(place(model.module, sites, source))
        for expr, _path, kind, status, context, target in named:
            found = 0 if kind == "graph" else lines.get(id(at.get(id(expr), expr)))
            if found is None:
                continue  # a site whose line was not found: no record rather than a crash
            line = found
            if context is not None:
                flags = (context.xla, context.auto_xla, context.autograph)
                records.add(TfRecord(target, line, kind, status, *flags, context.origin))
            else:
                auto = status in ("auto", "switch")
                origin = ""
                if kind == "loss":
                    origin = f"a loss of {SWITCH_ORIGIN}" if status == "switch" else LOSS_ORIGIN
                records.add(
                    TfRecord(target, line, kind, status, status == "xla", auto, False, origin,
                             per_element=id(expr) in per_element)
                )  # fmt: skip
        for node, _path, target in imports:
            if id(node) in lines:
                records.add(TfRecord(target, lines[id(node)], "import"))
    for name, fact in exports.items():
        records.add(TfRecord(name, 0, "export", fact))
    return sorted(records)
