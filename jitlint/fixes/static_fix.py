"""A fix shared by the JIT1xx rules: make a traced `jax.jit` parameter static.

When a finding's traced value comes from a parameter of a function that `jax.jit` compiles,
the usual remedy is `static_argnames=("n",)`. The edit goes on the jit application itself:
`@jax.jit` becomes `@jax.jit(static_argnames=("n",))`, and a `jax.jit(...)` or
`partial(jax.jit, ...)` call gets the keyword (or its literal tuple grows). It is always
unsafe: the function now compiles once per distinct value, and every caller must pass a
hashable Python value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.values import Value
from jitlint.model.jax.frameworks import equinox
from jitlint.model.jax.jit import StaticSpec, spec_from_args
from jitlint.model.jax.transforms import Entry
from jitlint.python.binding import Signature, bind_call

if TYPE_CHECKING:
    from jitlint.model.context import FileContext

_JIT = {"jax.jit"}


def static_argname_fix(ctx: FileContext, value: Value, leaves: bool = False) -> NodeFix | None:
    """A fix making the jit parameter at the root of `value` static, if there is one.
    `leaves`: also when `value` is a leaf of the parameter (`sizes[0]` of a tuple `sizes`);
    JIT103 asks for it, where the leaf is used as a size and so must be a Python int."""

    why = value.why
    roots = ("param", "passed", "leaf") if leaves else ("param", "passed")
    if not why or why[0] not in roots:
        return None
    name, entry = why[1], why[2]
    if not isinstance(entry, Entry) or entry.transform.qualname not in _JIT:
        return None
    if entry.origin is not None:
        return None  # jit is applied in another file: the edit belongs there
    site = entry.site
    module = ctx.module
    if why[0] == "leaf" and not _sizes_passed(ctx, entry, name):
        return None  # the container may hold arrays: it could not be hashed
    if type(site) in (cst.Name, cst.Attribute):  # `@jax.jit`
        if not any(d.decorator is site for d in _decorators(entry)):
            return None
        text = f'{module.code_for_node(site)}(static_argnames=("{name}",))'
    elif type(site) is cst.Call:
        position = _position(entry.func, name)
        text = with_static_name(module, site, name, position)  # type: ignore[arg-type]
        if text is None:
            return None
    else:
        return None
    return NodeFix("unsafe", f"mark `{name}` static with `static_argnames`", ((site, text),))


def _sizes_passed(ctx: FileContext, entry: Entry, name: str) -> bool:
    """Every call of the jitted function in this file (at least one) passes parameter
    `name` a tuple display of int literals, such as `(32, 32)`."""
    func = entry.func
    if type(func) is not cst.FunctionDef:
        return False
    callee = func.name.value
    if type(entry.site) is cst.Call:  # `step = jax.jit(f)`: callers call `step`
        callee = next(
            (
                t.target.value
                for s in ctx.module.body
                if type(s) is cst.SimpleStatementLine
                for a in s.body
                if type(a) is cst.Assign and a.value is entry.site
                for t in a.targets
                if type(t.target) is cst.Name
            ),
            "",
        )
    signature = Signature.of(func)
    passed: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [ctx.module]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if type(node) is not cst.Call or type(node.func) is not cst.Name:
            continue
        if node.func.value != callee or any(a.star for a in node.args):
            continue
        given = bind_call(signature, node).arguments.get(name)
        if given is None:
            return False
        passed.append(given)
    return bool(passed) and all(
        type(v) is cst.Tuple and all(type(e.value) is cst.Integer for e in v.elements)
        for v in passed
    )


def _decorators(entry: Entry) -> tuple[cst.Decorator, ...]:
    func = entry.func
    return func.decorators if type(func) is cst.FunctionDef else ()  # type: ignore[union-attr]


def _position(func: object, name: str) -> int | None:
    """The index of positional parameter `name` of a def (`self` included)."""
    if type(func) is not cst.FunctionDef:
        return None
    positional = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
    return positional.index(name) if name in positional else None


def with_static_name(
    module: cst.Module, call: cst.Call, name: str, position: int | None = None
) -> str | None:
    """`call` (a `jax.jit(...)` or `partial(jax.jit, ...)`) with `name` made static: its
    `static_argnames` grows, or, where only `static_argnums` is given (then JAX infers the
    names from it, and adding names would stop that), `position` joins the numbers."""
    spec = spec_from_args(call.args)
    if spec.argnums_arg is not None:
        if spec.argnames_arg is not None or spec.argnums is None or position is None:
            return None
        if position in spec.argnums:
            return None
        numbers = tuple(sorted((*spec.argnums, position)))
        literal = (
            "(" + ", ".join(str(n) for n in numbers) + ("," if len(numbers) == 1 else "") + ")"
        )
        new_arg = spec.argnums_arg.with_changes(value=cst.parse_expression(literal))
        args = [new_arg if a is spec.argnums_arg else a for a in call.args]
        return module.code_for_node(call.with_changes(args=args))
    if spec.argnames_arg is not None:
        if spec.argnames is None or name in spec.argnames:
            return None
        names = (*spec.argnames, name)
        literal = "(" + ", ".join(f'"{n}"' for n in names) + ("," if len(names) == 1 else "") + ")"
        new_arg = spec.argnames_arg.with_changes(value=cst.parse_expression(literal))
        args = [new_arg if a is spec.argnames_arg else a for a in call.args]
    else:
        if any(a.star for a in call.args):
            return None
        keyword = cst.Arg(
            value=cst.parse_expression(f'("{name}",)'),
            keyword=cst.Name("static_argnames"),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=cst.SimpleWhitespace(""),
            ),
        )
        args = list(call.args)
        if args:
            args[-1] = args[-1].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
        args.append(keyword)
    return module.code_for_node(call.with_changes(args=args))


def without_static_fix(
    module: cst.Module, site: cst.CSTNode, spec: StaticSpec, name: str, position: int | None
) -> NodeFix | None:
    """The jit application `site` (a `jax.jit(...)` or `partial(jax.jit, ...)` call) with
    parameter `name` (at `position`) no longer static, for a parameter every call gives an
    array, which JAX cannot hash. Where the spec then names nothing, the keyword goes.
    Unsafe: the parameter is traced, so Python control flow on it would now fail."""
    if type(site) is not cst.Call or (spec.argnums_arg is None) == (spec.argnames_arg is None):
        return None  # no spec, or both spellings (each would need editing)
    if spec.argnums_arg is not None:
        arg, kept = spec.argnums_arg, [str(n) for n in spec.argnums or () if n != position]
        if position is None or spec.argnums is None or position not in spec.argnums:
            return None
    else:
        arg = spec.argnames_arg
        if spec.argnames is None or name not in spec.argnames:
            return None
        kept = [f'"{n}"' for n in spec.argnames if n != name]
    if kept:
        literal = "(" + ", ".join(kept) + ("," if len(kept) == 1 else "") + ")"
        args = [
            a.with_changes(value=cst.parse_expression(literal)) if a is arg else a
            for a in site.args
        ]
    else:
        args = [a for a in site.args if a is not arg]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    text = module.code_for_node(site.with_changes(args=args) if args else site.func)
    func = site.func
    leaf = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", "")
    if leaf == "partial" and len(args) == 1 and args[0].keyword is None:
        text = module.code_for_node(args[0].value)  # `partial(jax.jit)` is `jax.jit`
    return NodeFix(
        "unsafe",
        f"make `{name}` traced (not static): it receives an array, which JAX cannot hash",
        ((site, text),),
    )


_DATACLASS = frozenset({"dataclasses.dataclass"})


def frozen_dataclass_fix(
    ctx: FileContext, class_name: str, by_identity: bool = False
) -> NodeFix | None:
    """`@dataclass` -> `@dataclass(frozen=True)` on the file's only class `class_name`, so its
    instances hash (by their fields) and can be static arguments. Unsafe: assigning to a
    field of an instance now raises FrozenInstanceError. `by_identity` (a field holds a
    value JAX cannot hash, such as an array, so a field hash would fail): `eq=False`
    instead, so instances hash and compare by identity; the compiled code keeps the fields
    of the first trace per instance, and an `==` of two instances, which compared arrays
    and had no single truth value, now compares identities."""
    classes = [s for s in ctx.module.body if type(s) is cst.ClassDef and s.name.value == class_name]
    if len(classes) != 1:
        return None
    keyword = "eq=False" if by_identity else "frozen=True"
    path = [ctx.module, classes[0]]
    for decorator in classes[0].decorators:
        expr = decorator.decorator
        call = expr if type(expr) is cst.Call else None
        target = call.func if call is not None else expr
        names = ctx.names.qualified_names(target, path)
        if not names or not names <= _DATACLASS:
            continue
        code = ctx.module.code_for_node
        if call is None:
            text = f"{code(expr)}({keyword})"
        else:
            keywords = {a.keyword.value for a in call.args if a.keyword is not None}
            if keywords & {"frozen", "eq", "unsafe_hash"} or any(a.star for a in call.args):
                return None
            inner = code(call).rstrip()[:-1].rstrip()
            separator = "" if inner.endswith(("(", ",")) else ", "
            text = f"{inner}{separator}{keyword})"
        if by_identity:
            message = (
                f"compare `{class_name}` by identity (`eq=False`): its instances then hash "
                "by identity, and the compiled code keeps the fields of the first trace"
            )
        else:
            message = (
                f"freeze `{class_name}` (`frozen=True`): its instances then hash by their "
                "fields; assigning to a field afterwards raises FrozenInstanceError"
            )
        return NodeFix("unsafe", message, ((expr, text),))
    return None


_SCALAR_ANNOTATIONS = frozenset(("bool", "int", "float", "str"))


def static_field_fix(
    ctx: FileContext, attribute: cst.Attribute, path: list[cst.CSTNode]
) -> NodeFix | None:
    """`self.rate` in a method of an equinox Module of this file whose field is declared
    `rate: float` -> `rate: float = eqx.field(static=True)`: the field then lives in the
    module's static part, a Python value, instead of a traced leaf.

    Unsafe: every distinct value compiles again, the field must be hashable, and a traced
    value (a field computed inside jit) can no longer be stored in it.
    """
    if type(attribute.value) is not cst.Name or attribute.value.value != "self":
        return None
    owner = next((n for n in reversed(path) if type(n) is cst.ClassDef), None)
    if owner is None or owner not in ctx.module.body:
        return None
    class_path = [ctx.module, owner]
    if not any(
        len(found := ctx.names.qualified_names(base.value, class_path)) == 1
        and found <= equinox.PLUGIN.class_bases
        for base in owner.bases  # type: ignore[attr-defined]
    ):
        return None
    name = attribute.attr.value
    for line in owner.body.body:  # type: ignore[attr-defined]
        if type(line) is not cst.SimpleStatementLine or len(line.body) != 1:
            continue
        field = line.body[0]
        if type(field) is not cst.AnnAssign or type(field.target) is not cst.Name:
            continue
        if field.target.value != name:
            continue
        annotation = field.annotation.annotation
        if type(annotation) is not cst.Name or annotation.value not in _SCALAR_ANNOTATIONS:
            return None
        eqx, imported = ctx.import_name(*equinox.IMPORT_AS)
        code = ctx.module.code_for_node
        default = f", default={code(field.value)}" if field.value is not None else ""
        if type(field.value) is cst.Call:
            return None  # already `eqx.field(...)` or another field factory
        text = f"{name}: {annotation.value} = {eqx}.field(static=True{default})"
        return NodeFix(
            "unsafe",
            f"declare `{name}` a static field (`{eqx}.field(static=True)`): one compilation "
            "per value, and it can no longer hold a traced value",
            ((field, text),),
            (imported,) if imported else (),
        )
    return None
