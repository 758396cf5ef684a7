"""Turn XLA off for code that cannot compile under it (an op with no XLA kernel, a size that
is never a compile-time constant): always unsafe, since the code then runs without XLA's
fusion, and the op itself stays (moving it out is the better fix, which needs a person).

Where the switch is, in order:
- forced XLA (`jit_compile=True`): the `@tf.function(jit_compile=True)` decorating a function
  around the finding; else the file's only `jit_compile=True`/`experimental_compile=True`
  keyword (a `tf.function(f, ...)` or `model.compile(...)`); else the Keras layer the finding
  is in gets `self.supports_jit = False` after its `super().__init__(...)`, which Keras reads
  when a model is compiled (a model with such a layer compiles without XLA). The layer is
  the class around the finding, or the one whose methods alone run the helper holding it;
  a layer without `__init__` gets `def __init__(self, *args, **kwargs)` passing all on.
- Keras's default `jit_compile="auto"` (XLA where a GPU is): the layer gets
  `self.supports_jit = False` as above; else the file's only `.compile(...)` call of a model
  without a `jit_compile` keyword gets `jit_compile=False`. A `jit_compile` chosen at run
  time (a "switch", reported like "auto") is never replaced: that would take the option away.

Where one op has no XLA kernel but the same result comes from ops that have one, the call
is rewritten instead and XLA stays on (`xla_twin_fix`):
`tf.histogram_fixed_width(values, value_range, nbins)` becomes
`tf.math.unsorted_segment_sum(tf.ones_like(values, dtype=tf.int32),
tf.histogram_fixed_width_bins(values, value_range, nbins=nbins), nbins)`: the bin of each
value (TensorFlow's own Python function, made of ops XLA compiles), counted per bin, the
kernel's bins (`floor(nbins * (v - lo) / (hi - lo))` clipped into `[0, nbins - 1]`).
Unsafe: `values` is read twice (only a name or attribute is accepted there), and `nbins`
must be a compile-time constant for XLA (a literal, or a name).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.hoisting.scope import above, insertion_after
from jitlint.fixes.node_fix import NodeFix
from jitlint.python.attributes import is_super_init
from jitlint.python.binding import Signature, bind_call
from jitlint.python.walker import descendants

if TYPE_CHECKING:
    from jitlint.model.context import FileContext

_SWITCHES = ("jit_compile", "experimental_compile")
_COMPILE_KEYWORDS = frozenset({"optimizer", "loss", "metrics", "loss_weights", "run_eagerly"})


def xla_off_fix_or_reason(
    ctx: FileContext, path: Sequence[cst.CSTNode], forced: bool, layer: str | None = None
) -> NodeFix | str:
    """The fix for a finding at the end of `path` in code compiled with XLA (`forced`) or
    by Keras's `jit_compile="auto"`; or why there is none (for the finding's help).
    `layer`: the module-level Keras class whose method runs the code, when a helper of the
    file holds it (the graph context's `layer`)."""
    if forced:
        switch = _decorator_switch(path) or _only(_true_switches(ctx.module))
        if switch is not None:
            return NodeFix(
                "unsafe",
                "compile without XLA: `jit_compile=False` (the op then runs as a plain "
                "TensorFlow op)",
                ((switch.value, "False"),),
            )
    found = _layer_init_fix(ctx, path, layer)
    if found is not None:
        return found
    if not forced:
        compile_call = _only(_default_compiles(ctx))
        if compile_call is not None:
            return _add_keyword(ctx.module, compile_call)
        return (
            "no fix: the model's `compile(...)` is not in this file, or there are several; "
            "pass `jit_compile=False` there (or keep the op out of the layer)"
        )
    return (
        "no fix: the `jit_compile=True` that compiles this code is not in this file, or there "
        "are several; move the op out of the compiled function, or set it to False there"
    )


def with_xla_off_fix(
    ctx: FileContext,
    path: Sequence[cst.CSTNode],
    forced: bool,
    help: str | None,
    layer: str | None = None,
) -> tuple[NodeFix | None, str | None]:
    """A finding's fix and help: compiling without XLA, or the help extended with why not."""
    found = xla_off_fix_or_reason(ctx, path, forced, layer)
    if isinstance(found, NodeFix):
        return found, help
    return None, f"{help}; {found}" if help else found


def _only(items: list[cst.Call] | list[cst.Arg]):  # type: ignore[no-untyped-def]
    return items[0] if len(items) == 1 else None


def _is_true(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Name and expr.value == "True"


def _switch(call: cst.Call) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in _SWITCHES and _is_true(arg.value):
            return arg
    return None


def _decorator_switch(path: Sequence[cst.CSTNode]) -> cst.Arg | None:
    """`jit_compile=True` in a decorator of the innermost function around the finding."""
    for node in reversed(path):
        if type(node) is cst.FunctionDef:
            for decorator in node.decorators:
                if type(decorator.decorator) is cst.Call:
                    found = _switch(decorator.decorator)
                    if found is not None:
                        return found
            return None
    return None


def _true_switches(module: cst.Module) -> list[cst.Arg]:
    return [
        found for node in descendants(module)
        if type(node) is cst.Call and (found := _switch(node)) is not None
    ]  # fmt: skip


def _default_compiles(ctx: FileContext) -> list[cst.Call]:
    """`x.compile(...)` calls that look like a Keras model's (a keyword only `compile` of a
    model takes) and leave `jit_compile` at its default."""
    found = []
    for node in descendants(ctx.module):
        if type(node) is not cst.Call or type(node.func) is not cst.Attribute:
            continue
        if node.func.attr.value != "compile":
            continue
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        # `**options` may hold jit_compile: such a call is left alone.
        starred = any(a.star for a in node.args)
        if keywords & _COMPILE_KEYWORDS and not keywords & set(_SWITCHES) and not starred:
            found.append(node)
    return found


def run_eagerly_fix(ctx: FileContext) -> NodeFix | None:
    """`run_eagerly=True` added to the file's only `compile(...)` of a model (JIT204: NumPy
    in a Keras method, which then runs as plain Python, with eager tensors). None when that
    call is not alone, passes `**options` or sets `run_eagerly` already."""
    calls = [
        node
        for node in descendants(ctx.module)
        if type(node) is cst.Call
        and type(node.func) is cst.Attribute
        and node.func.attr.value == "compile"
        and {a.keyword.value for a in node.args if a.keyword is not None} & _COMPILE_KEYWORDS
    ]
    if len(calls) != 1 or any(a.star for a in calls[0].args):
        return None
    if any(a.keyword is not None and a.keyword.value == "run_eagerly" for a in calls[0].args):
        return None
    last = calls[0].args[-1].value
    return NodeFix(
        "unsafe",
        "compile the model with `run_eagerly=True`: Keras runs its steps as plain Python, "
        "where tensors have values (much slower, and never XLA)",
        ((last, f"{ctx.module.code_for_node(last)}, run_eagerly=True"),),
    )


def _add_keyword(module: cst.Module, call: cst.Call) -> NodeFix:
    """`jit_compile=False` after the last argument (before its trailing comma, if any)."""
    last = call.args[-1].value
    text = f"{module.code_for_node(last)}, jit_compile=False"
    return NodeFix("unsafe", _COMPILE_MESSAGE, ((last, text),))


_COMPILE_MESSAGE = (
    'compile the model without XLA: `jit_compile=False` (the default "auto" turns XLA on '
    "where a GPU is)"
)


def keep_layer_off_xla(  # type: ignore[no-untyped-def]
    ctx: FileContext, fix: NodeFix | None, path: Sequence[cst.CSTNode], context
) -> NodeFix | None:
    """A fix that adds an op XLA cannot compile (`tf.py_function`), where Keras' "auto" may
    compile the code with XLA (`context.auto_xla`): only together with keeping the layer
    off XLA."""
    if fix is None or not context.auto_xla:
        return fix
    layer = _layer_init_fix(ctx, path, context.layer)
    if layer is None:
        return None
    return NodeFix(
        "unsafe",
        f"{fix.message}; {layer.message}",
        fix.replacements + layer.replacements,
        fix.imports,
    )


def _layer_init_fix(
    ctx: FileContext, path: Sequence[cst.CSTNode], layer: str | None
) -> NodeFix | None:
    """`self.supports_jit = False` after `super().__init__(...)` in the `__init__` of the
    class whose method holds the finding, or else of the module-level class `layer` (a class
    with bases: a Keras layer or model); a class without `__init__` gets one that passes
    everything on to its base's."""
    for index in range(len(path) - 1, 0, -1):
        node = path[index]
        if type(node) is cst.ClassDef:
            if type(path[index + 1]) is not cst.IndentedBlock:
                return None
            return _supports_jit_off(ctx, node, path[: index + 1])
    classes = [s for s in ctx.module.body if type(s) is cst.ClassDef and s.name.value == layer]
    return _supports_jit_off(ctx, classes[0], [ctx.module]) if len(classes) == 1 else None


def _supports_jit_off(
    ctx: FileContext, cls: cst.ClassDef, path: Sequence[cst.CSTNode]
) -> NodeFix | None:
    """The fix for class `cls` (`path` ends at it), or None."""
    if not cls.bases or type(cls.body) is not cst.IndentedBlock:
        return None
    if any("dataclass" in ctx.module.code_for_node(d) for d in cls.decorators):
        return None  # a dataclass writes its own `__init__`
    body = cls.body.body
    init = next(
        (s for s in body if type(s) is cst.FunctionDef and s.name.value == "__init__"), None
    )
    message = (
        f"mark `{cls.name.value}` as not XLA-compatible (`self.supports_jit = False`): "
        "Keras then compiles a model holding it without XLA"
    )
    newline = ctx.module.default_newline
    indent = _indent(ctx.module, [*path, cls.body])
    if init is None:
        if any(type(s) is cst.FunctionDef and s.name.value == "__init__" for s in
               descendants(cls)) or _sets_supports_jit(cls):  # fmt: skip
            return None
        inner = indent + ctx.module.default_indent
        added = (
            f"def __init__(self, *args, **kwargs):{newline}"
            f"{inner}super().__init__(*args, **kwargs){newline}"
            f"{inner}self.supports_jit = False{newline}"
        )
        first = body[0]
        if type(first) is cst.SimpleStatementLine:  # a docstring or a class attribute
            span: object = insertion_after(first)
            text = f"{newline}{newline}{indent}{added}"
        elif isinstance(first, cst.FunctionDef | cst.ClassDef):
            span, start = above(ctx.module, first)
            text = f"{added}{newline}{indent}{start}"
        else:
            return None
        return NodeFix("unsafe", message, ((span, text),))  # type: ignore[arg-type]
    if _sets_supports_jit(init):
        return None
    call = _super_init(init)
    if call is None:
        return None
    indent = _indent(ctx.module, [*path, cls.body, init, init.body])
    text = f"{ctx.module.code_for_node(call)}{newline}{indent}self.supports_jit = False"
    return NodeFix("unsafe", message, ((call, text),))


def _sets_supports_jit(func: cst.CSTNode) -> bool:
    return any(
        type(n) is cst.Attribute and n.attr.value == "supports_jit" for n in descendants(func)
    )


def _super_init(func: cst.FunctionDef) -> cst.Call | None:
    """The `super().__init__(...)` call that is a statement of the function's own block."""
    block = func.body
    if type(block) is not cst.IndentedBlock:
        return None
    for statement in block.body:
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is not cst.Expr or type(small.value) is not cst.Call:
                continue
            if is_super_init(small.value):
                return small.value
    return None


def _indent(module: cst.Module, path: Sequence[cst.CSTNode]) -> str:
    return "".join(
        (node.indent if node.indent is not None else module.default_indent)
        for node in path
        if isinstance(node, cst.IndentedBlock)
    )


# tf.histogram_fixed_width(values, value_range, nbins=100, dtype=tf.int32, name=None)
_HISTOGRAM = Signature(
    positional=("values", "value_range", "nbins", "dtype", "name"),
    defaults=(
        ("nbins", cst.Integer("100")),
        ("dtype", cst.parse_expression("tf.int32")),
        ("name", cst.Name("None")),
    ),
)
_HISTOGRAM_NAMES = frozenset({"tensorflow.histogram_fixed_width"})


def xla_twin_fix(ctx: FileContext, node: cst.Call, qualnames: frozenset[str]) -> NodeFix | None:
    """The rewrite of call `node` (of the op `qualnames` names) with ops XLA compiles, or
    None when there is none for this op or this spelling of the call."""
    if not qualnames or not qualnames <= _HISTOGRAM_NAMES:
        return None
    if any(a.star for a in node.args):
        return None
    bound = bind_call(_HISTOGRAM, node)
    args = bound.arguments
    values, value_range = args.get("values"), args.get("value_range")
    nbins = args.get("nbins")
    unclear = bound.missing or bound.extra_positional or bound.extra_keywords
    if values is None or value_range is None or "name" in args or unclear:
        return None
    if type(values) not in (cst.Name, cst.Attribute):
        return None  # read twice: only what reading twice cannot change
    if nbins is not None and type(nbins) not in (cst.Name, cst.Integer):
        return None
    tf, imported = ctx.import_name("tensorflow", "tf")
    code = ctx.module.code_for_node
    count = code(nbins) if nbins is not None else "100"
    dtype = code(args["dtype"]) if "dtype" in args else f"{tf}.int32"
    parts = (code(values), code(value_range))
    if any("\n" in part or "\r" in part for part in parts):
        return None
    text = (
        f"{tf}.math.unsorted_segment_sum({tf}.ones_like({parts[0]}, dtype={dtype}), "
        f"{tf}.histogram_fixed_width_bins({parts[0]}, {parts[1]}, nbins={count}), {count})"
    )
    return NodeFix(
        "unsafe",
        "count the bins with ops XLA compiles: `tf.histogram_fixed_width_bins` and "
        "`tf.math.unsorted_segment_sum`",
        ((node, text),),
        (imported,) if imported else (),
    )


# The tf.function keywords that relax its signature after a new shape (the second is the
# old spelling of the first); one set already, even to False, leaves the decorator alone.
_RELAXING_OPTIONS = frozenset({"reduce_retracing", "experimental_relax_shapes"})


def reduce_retracing_fix(ctx: FileContext, decorator: cst.BaseExpression) -> NodeFix | None:
    """`@tf.function` / `@tf.function(...)` -> the same with `reduce_retracing=True`: one
    relaxed trace (a `None` for each dimension that varied) serves every later shape. None for
    `partial(tf.function, ...)` (a positional argument) or a decorator that sets the option."""
    code = ctx.module.code_for_node(decorator)
    if type(decorator) is not cst.Call:
        text = f"{code}(reduce_retracing=True)"
    elif any(a.keyword is None or a.keyword.value in _RELAXING_OPTIONS for a in decorator.args):
        return None
    else:
        head = code[:-1].rstrip().rstrip(",")
        text = f"{head}{', ' if decorator.args else ''}reduce_retracing=True)"
    return NodeFix("unsafe", "add `reduce_retracing=True` to the tf.function", ((decorator, text),))
