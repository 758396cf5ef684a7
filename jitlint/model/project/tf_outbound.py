"""The sender's side of the TF records (model/tf_records.py): what a file's TF model says about
names of other modules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.model.domain.instances import follow_instances
from jitlint.model.project.lines import CallLines, counted_lines, place
from jitlint.model.tf.compile_flag import SWITCH_ORIGIN, UNKNOWN
from jitlint.model.tf.keras import WEIGHT_READS
from jitlint.model.tf.model import any_in_graph
from jitlint.model.tf_records import (
    BASE,
    INSTANCES_CALLED,
    INSTANCES_ESCAPE,
    INSTANCES_HANDED,
    KERAS_BASE_ONLY,
    UNKNOWN_FACT,
    TfRecord,
    encode_arguments,
)
from jitlint.python.binding import DOUBLE_STARRED, STARRED
from jitlint.python.names import leaf_name

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


def _bound_name(alias: cst.ImportAlias) -> str:
    """The name an import binds: its `as` name, else the first name of `import a.b`, the
    name of `from m import n`."""
    if alias.asname is not None:
        return getattr(alias.asname.name, "value", "")
    name = alias.name
    while type(name) is cst.Attribute:
        name = name.value
    return getattr(name, "value", "")


def tf_outbound(model: TfModel, source: str, call_lines: CallLines | None = None) -> list[TfRecord]:
    found: list[tuple[cst.CSTNode, Sequence[cst.CSTNode], str, str, GraphContext | None]] = []
    at: dict[int, cst.CSTNode] = {}  # where a record's line is, when not at its name
    per_element: set[int] = set()  # loop calls that pass their loop's element
    grid: set[int] = set()  # loop calls over written-out grids of configurations
    exports = model.exports()
    scan = model.scan
    if model.may_have_graph_code:
        for key, context in model.contexts.items():
            calls = (*scan.calls.get(key, ()), *scan.attribute_calls.get(key, ()))
            for call, path in calls:
                # What the call passes, for the receiver's parameters (its helpers' values).
                status = ""
                if foreign_name(model, call.func, path) is not None:
                    status = encode_arguments(model.values.argument_kinds(call, path))
                found.append((call.func, path, "graph", status, context))
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
        for call, path, expr, method, element, configured in model.repeats.foreign:
            found.append((expr, path, "repeat", method, None))
            at[id(expr)] = call  # the loop's call, not the creation of the instance
            if element:
                per_element.add(id(expr))
            if configured:
                grid.add(id(expr))
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
            key = (target, kind, status, context, id(expr) in per_element, id(expr) in grid)
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
        lines = _lines(model, source, call_lines, sites)
        # Past `_MAX_CREATIONS` argument lists for one function, its calls say only that
        # their arguments are unknown.
        statuses: dict[str, set[str]] = {}
        for _expr, _path, kind, status, _context, target in named:
            if kind == "graph":
                statuses.setdefault(target, set()).add(status)
        crowded = {target for target, seen in statuses.items() if len(seen) > _MAX_CREATIONS}
        for expr, _path, kind, status, context, target in named:
            found = 0 if kind == "graph" else lines.get(id(at.get(id(expr), expr)))
            if found is None:
                continue  # a site whose line was not found: no record rather than a crash
            if kind == "graph" and target in crowded:
                status = _UNKNOWN_ARGUMENTS
            line = found
            if context is not None:
                flags = (context.xla, context.auto_xla, context.autograph)
                records.add(TfRecord(target, line, kind, status, *flags, _sent_origin(context)))
            else:
                auto = status in ("auto", "switch")
                origin = ""
                autograph = False
                if kind == "loss":
                    origin = f"a loss of {SWITCH_ORIGIN}" if status == "switch" else LOSS_ORIGIN
                    # As a local loss function (model.py): "auto" and no autograph are
                    # Keras 3's, not assumed where the project leaves the major undecided.
                    auto = status == "switch" or (status == "auto" and model.keras_auto_jit)
                    autograph = model.keras_major != 3
                records.add(
                    TfRecord(target, line, kind, status, status == "xla", auto, autograph,
                             origin, per_element=id(expr) in per_element,
                             grid=id(expr) in grid)
                )  # fmt: skip
        bases = model.base_names() if imports else frozenset()
        for node, _path, target in imports:
            if id(node) in lines:
                status = BASE if _bound_name(node) in bases else ""  # type: ignore[arg-type]
                records.add(TfRecord(target, lines[id(node)], "import", status))
    records.update(_creations(model))
    records.update(_instances(model))
    records.update(_eager_calls(model))
    for name, fact in exports.items():
        records.add(TfRecord(name, 0, "export", fact))
    return sorted(records)


def _sent_origin(context: GraphContext) -> str:
    """The origin a graph record carries: the context's, with the root's name where the
    origin leaves it out (`tf.function` (through `step`)), as a message of this file
    names it."""
    if context.root_kind in ("tf.function", "tf.data") and context.root_name:
        return f"{context.origin} (through `{context.root_name}`)"
    return context.origin


def _lines(
    model: TfModel,
    source: str,
    call_lines: CallLines | None,
    sites: list[tuple[cst.CSTNode, cst.CSTNode | None]],
) -> dict[int, int]:
    """The line of each node (by id) of `sites`, (node, its top-level statement)."""
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
    return lines


def tf_base_imports(
    model: TfModel, source: str, call_lines: CallLines | None = None
) -> list[TfRecord]:
    """For a file no TF rule reads (it mentions neither TensorFlow nor Keras): the "import"
    records of the names its classes subclass. A Keras class among them comes back as a
    fact, which makes the file TF code (its `call` is graph code by contract). And the
    bases of its classes, as Keras class facts, for the modules that subclass those."""
    bases = model.base_names()
    imports = [item for item in model.project_imports() if _bound_name(item[0]) in bases]  # type: ignore[arg-type]
    if not imports:
        return []
    sites = [(node, path[1] if len(path) > 1 else None) for node, path, _ in imports]
    lines = _lines(model, source, call_lines, sites)
    records = {
        TfRecord(target, lines[id(node)], "import", KERAS_BASE_ONLY)
        for node, _path, target in imports
        if id(node) in lines
    }
    # Its classes' bases, for the modules subclassing them in turn (a chain of subclasses).
    for name, fact in model.keras_exports().items():
        records.add(TfRecord(name, 0, "export", fact))
    return sorted(records)


def _eager_calls(model: TfModel) -> set[TfRecord]:
    """ "eager" records: functions of other modules that eager code calls (a scope with no
    graph context: the module, a plain function). A helper that graph code of any file
    calls is then graph code on that path only (may), not on every path (must)."""
    scan = model.scan
    contexts = model.contexts
    imported = model.imported_aliases
    out = set()
    for calls in (scan.calls, scan.attribute_calls):
        for key, sites in calls.items():
            if key in contexts:
                continue
            for call, path in sites:
                func = call.func
                head = func.value if type(func) is cst.Name else None
                if head is not None and (head not in imported or head[:1].isupper()):
                    continue
                if type(func) is cst.Attribute and leaf_name(func)[:1].isupper():
                    continue  # a class: its creation is a "new" record
                target = foreign_name(model, func, path)
                if target is not None:
                    out.add(TfRecord(target, 0, "eager"))
    return out


# Past this many different argument lists for one class, a creation says only that its
# arguments are unknown: what reaches `__init__` is then unknown, never a wrong value.
_MAX_CREATIONS = 8
_UNKNOWN_ARGUMENTS = encode_arguments([(STARRED, UNKNOWN_FACT), (DOUBLE_STARRED, UNKNOWN_FACT)])


def _creations(model: TfModel) -> set[TfRecord]:
    """ "new" records: the calls of a class name (capitalised) that the imports place in
    another module, with what each argument is (dtypes.py's `argument_facts`), from every
    scope of the file. They carry no line: the receiver names the file."""
    scan = model.scan
    found: dict[str, set[str]] = {}
    for calls in (*scan.calls.values(), *scan.attribute_calls.values()):
        for call, path in calls:
            if not leaf_name(call.func)[:1].isupper():
                continue
            target = foreign_name(model, call.func, path)
            if target is None:
                continue
            arguments = encode_arguments(model.dtypes.argument_facts(call, path))
            found.setdefault(target, set()).add(arguments)
    out = set()
    for target, statuses in found.items():
        if len(statuses) > _MAX_CREATIONS:
            statuses = {_UNKNOWN_ARGUMENTS}
        out.update(TfRecord(target, 0, "new", status) for status in statuses)
    return out


def _instances(model: TfModel) -> set[TfRecord]:
    """ "inst" and "hand" records: where the instances this file makes of another module's
    classes, in plain code (`net = Net()`, `name = Cls(...)` in any scope), go
    (model/domain/instances.py): called only in this file's eager code, handed to functions
    of the class's own module ("hand": that module follows them), or somewhere not
    followed. The class's module needs every maker's answer before it takes the class's
    `call` off the graph roots (model/tf/keras.py `instances_called_directly`)."""
    creations: dict[str, list[Sequence[cst.CSTNode]]] = {}
    for call, path, status in model.keras_uses[1]:
        if status != "plain" or not leaf_name(call.func)[:1].isupper():
            continue
        target = foreign_name(model, call.func, path)
        if target is not None:
            creations.setdefault(target, []).append(path)
    if not creations:
        return set()
    out: set[TfRecord] = set()
    contexts = model.contexts if model.may_have_graph_code else {}
    for target, paths in sorted(creations.items()):
        home = target.rpartition(".")[0]

        def handoff(
            call: cst.Call, path: Sequence[cst.CSTNode], position: str, home: str = home
        ) -> str | None:
            found = foreign_name(model, call.func, path)
            # Only to the class's own module, which follows the parameter for this class.
            return found if found is not None and found.rpartition(".")[0] == home else None

        flow = follow_instances(
            model.names,
            model.instance_reads,
            paths,
            (),
            WEIGHT_READS,
            handoff,
            model.called_from_elsewhere,
            model.keeps_attributes,
        )
        if flow.escaped or any_in_graph(flow.calls, contexts) or model.makes_symbolic_inputs:
            status = INSTANCES_ESCAPE
        elif flow.calls:
            status = INSTANCES_CALLED
        elif flow.handoffs:
            status = INSTANCES_HANDED
        else:
            status = INSTANCES_ESCAPE  # made and never called: nothing is known
        out.add(TfRecord(target, 0, "inst", status))
        if status != INSTANCES_ESCAPE:
            cls = target.rpartition(".")[2]
            for function, position in flow.handoffs:
                out.add(TfRecord(function, 0, "hand", f"{cls}|{position}"))
    return out
