"""How `jax.jit` is applied to a function, and which parameters it treats as static.

This is the decorator and call-site side of the JAX model: it recognises `@jax.jit`,
`@jit`, `@jax.jit(static_argnames=...)`, `@partial(jax.jit, ...)`, `g = jax.jit(f, ...)` and
`jax.jit(f, ...)(...)`, reads literal `static_argnums`/`static_argnames`, and completes one from
the other the way JAX does (only when exactly one of them is given).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from jitlint.python.binding import Signature, bind_call
from jitlint.python.builtins_facts import PARTIAL
from jitlint.python.names import Names

JIT_CALLABLES = {"jax.jit", "jax.pjit", "jax.experimental.pjit.pjit"}


@dataclass(frozen=True)
class StaticSpec:
    """Literal static arguments; None where the argument is absent or not a literal."""

    argnums: tuple[int, ...] | None
    argnames: tuple[str, ...] | None
    argnums_arg: cst.Arg | None
    argnames_arg: cst.Arg | None

    def effective(self, sig: Signature | None) -> tuple[set[int], set[str]] | None:
        """Static positions and names as JAX computes them; None if they cannot be known."""
        if (self.argnums_arg is not None and self.argnums is None) or (
            self.argnames_arg is not None and self.argnames is None
        ):
            return None
        nums = set(self.argnums or ())
        names = set(self.argnames or ())
        if self.argnums_arg is not None and self.argnames_arg is None:
            if sig is None:
                return nums, set()
            names = {
                sig.positional[i]
                for i in nums
                if -len(sig.positional) <= i < len(sig.positional)
                and sig.positional[i] not in sig.positional_only
            }
            nums = {i % len(sig.positional) if i < 0 else i for i in nums if sig.positional}
        elif self.argnames_arg is not None and self.argnums_arg is None:
            if sig is None:
                return set(), names
            nums = {i for i, n in enumerate(sig.positional) if n in names}
        return nums, names


@dataclass(frozen=True)
class JitApplication:
    """One place where jit is applied: a decorator or a `jax.jit(...)` call."""

    node: cst.CSTNode  # the decorator expression or the jit call
    func: cst.FunctionDef | cst.Lambda | None  # the compiled function, when known
    spec: StaticSpec
    # True when other decorators sit between jit and the def: the signature jit sees is unknown.
    wrapped: bool = False
    # The file that applies it, when that is another file of the run (model/jax/crossfile/
    # returned.py): `node` and `func` are then copies read from its export, never edited.
    origin: str | None = None

    @property
    def signature(self) -> Signature | None:
        if self.func is None or self.wrapped:
            return None
        return Signature.of(self.func)

    @property
    def func_name(self) -> str:
        if isinstance(self.func, cst.FunctionDef):
            return self.func.name.value
        return "<lambda>" if self.func is not None else "the jitted function"


@dataclass(frozen=True)
class JitArgument:
    """One argument of a call of a jitted function, and whether jit takes it as static."""

    arg: cst.Arg
    index: int  # its position among the call's arguments
    param: str | None  # the parameter it reaches; None at `*args` or an unknown signature
    static: bool | None  # None when the spec and signature cannot say


def jit_arguments(
    app: JitApplication, nums: set[int], names: set[str], call: cst.Call
) -> list[JitArgument]:
    """The arguments of `call` (of the function `app` jits, with the static positions and
    names `static_call` gives) up to its first star argument."""
    sig = app.signature
    # Without a signature JAX's inference from one list to the other is unknown.
    positions_known = sig is not None or app.spec.argnames_arg is None
    names_known = sig is not None or app.spec.argnums_arg is None
    targets = bind_call(sig, call).targets if sig is not None else ()
    out = []
    for index, arg in enumerate(call.args):
        if arg.star:
            break
        if arg.keyword is not None:
            param: str | None = arg.keyword.value
            static = param in names if names_known else None
        else:
            target = targets[index] if index < len(targets) else None
            param = target if sig is not None and target in sig.positional else None
            static = index in nums if positions_known else None
        out.append(JitArgument(arg, index, param, static))
    return out


def _literal_ints(node: cst.BaseExpression) -> tuple[int, ...] | None:
    if isinstance(node, cst.Integer):
        return (int(node.value, 0),)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _literal_ints(node.expression)
        return (-inner[0],) if inner and len(inner) == 1 else None
    if isinstance(node, cst.Tuple | cst.List):
        out: list[int] = []
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                return None
            value = _literal_ints(element.value)
            if value is None or len(value) != 1:
                return None
            out.append(value[0])
        return tuple(out)
    return None


def _literal_strs(node: cst.BaseExpression) -> tuple[str, ...] | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return (value,) if isinstance(value, str) else None
    if isinstance(node, cst.Tuple | cst.List):
        out: list[str] = []
        for element in node.elements:
            if not isinstance(element, cst.Element) or not isinstance(
                element.value, cst.SimpleString
            ):
                return None
            value = element.value.evaluated_value
            if not isinstance(value, str):
                return None
            out.append(value)
        return tuple(out)
    return None


def spec_from_args(args: Sequence[cst.Arg]) -> StaticSpec:
    nums_arg = names_arg = None
    for arg in args:
        if arg.keyword is None:
            continue
        if arg.keyword.value == "static_argnums":
            nums_arg = arg
        elif arg.keyword.value == "static_argnames":
            names_arg = arg
    return StaticSpec(
        argnums=_literal_ints(nums_arg.value) if nums_arg else None,
        argnames=_literal_strs(names_arg.value) if names_arg else None,
        argnums_arg=nums_arg,
        argnames_arg=names_arg,
    )


class JitModel:
    """Answers "is this jit, and with what static arguments?" for expressions in a module.

    Cheap structural tests (does the expression spell a jit-like identifier?) run before any
    name resolution, so modules and calls that cannot involve jit build no scopes.
    """

    def __init__(
        self, names: Names, foreign: Callable[[str], JitApplication | None] | None = None
    ) -> None:
        self.names = names
        # The jit another file of the run applies to the function an import names, by the
        # import's qualified name (model/jax/crossfile/returned.py `jitted_by_name`).
        self.foreign = foreign

    @cached_property
    def spellings(self) -> frozenset[str]:
        """Identifiers that may denote jit here: `jit`, `pjit`, and aliases imported for them."""
        found = {"jit", "pjit"}
        for name, bindings in self.names.scope(self.names.module).bindings.items():
            if any(b.kind == "import" and b.qualname in JIT_CALLABLES for b in bindings):
                found.add(name)
        return frozenset(found)

    def mentions_jit(self, expr: cst.CSTNode) -> bool:
        """Whether `expr` contains a name or attribute spelled like jit (a cheap pre-test)."""
        kind = type(expr)
        if kind is cst.Name:
            return expr.value in self.spellings  # type: ignore[attr-defined]
        if kind is cst.Attribute:
            return expr.attr.value in self.spellings  # type: ignore[attr-defined]
        if kind is cst.Call:
            return self.mentions_jit(expr.func) or any(  # type: ignore[attr-defined]
                self.mentions_jit(arg.value)
                for arg in expr.args  # type: ignore[attr-defined]
            )
        return False

    @cached_property
    def candidate_names(self) -> frozenset[str]:
        """Names that may be bound to a jitted callable: defs with a jit-like decorator and
        targets of `name = <call mentioning jit>`, anywhere in the module. A superset."""
        found: set[str] = set()
        stack: list[cst.CSTNode] = [self.names.module]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is cst.FunctionDef:
                if any(self.mentions_jit(d.decorator) for d in node.decorators):  # type: ignore[attr-defined]
                    found.add(node.name.value)  # type: ignore[attr-defined]
            elif kind is cst.Assign or kind is cst.AnnAssign:
                value = node.value  # type: ignore[attr-defined]
                if value is not None and self.mentions_jit(value):
                    targets = (
                        [t.target for t in node.targets]  # type: ignore[attr-defined]
                        if kind is cst.Assign
                        else [node.target]  # type: ignore[attr-defined]
                    )
                    found.update(t.value for t in targets if type(t) is cst.Name)
            # Statements only: descend through bodies, never into expressions.
            body = getattr(node, "body", None)
            if isinstance(body, tuple | list):
                stack.extend(body)
            elif body is not None and type(body) is not cst.Module:
                stack.append(body)
            for extra in ("orelse", "finalbody", "handlers", "cases"):
                value = getattr(node, extra, None)
                if isinstance(value, tuple | list):
                    stack.extend(value)
                elif value is not None:
                    stack.append(value)
        return frozenset(found)

    def is_jit(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> bool:
        if not self.mentions_jit(expr):
            return False
        return self.names.resolves_to(expr, path, JIT_CALLABLES)

    def jit_spec(self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]) -> StaticSpec | None:
        """The static spec if `expr` is jit itself, `jit(**spec)` or `partial(jit, **spec)`."""
        if not self.mentions_jit(expr):
            return None
        if self.is_jit(expr, path):
            return StaticSpec(None, None, None, None)
        if not isinstance(expr, cst.Call):
            return None
        positional = [a for a in expr.args if a.keyword is None and not a.star]
        if self.is_jit(expr.func, path) and not positional:
            return spec_from_args(expr.args)
        if (
            self.names.resolves_to(expr.func, path, PARTIAL)
            and len(positional) == 1
            and self.is_jit(positional[0].value, path)
        ):
            return spec_from_args(expr.args)
        return None

    def from_decorators(
        self, func: cst.FunctionDef, path: Sequence[cst.CSTNode]
    ) -> JitApplication | None:
        """The jit applied to `func` by its decorators; `path` ends at `func`."""
        for index, decorator in enumerate(func.decorators):
            spec = self.jit_spec(decorator.decorator, [*path, decorator])
            if spec is not None:
                wrapped = index != len(func.decorators) - 1
                return JitApplication(decorator.decorator, func, spec, wrapped)
        return None

    def from_call(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> JitApplication | None:
        """`jax.jit(f, ...)`; `path` ends at `call`."""
        if not self.mentions_jit(call.func):
            return None
        positional = [a for a in call.args if a.keyword is None]
        if not positional or positional[0].star or not self.is_jit(call.func, path):
            return None
        return JitApplication(
            call, self.function_named(positional[0].value, path), spec_from_args(call.args)
        )

    def function_named(
        self, expr: cst.CSTNode, path: Sequence[cst.CSTNode]
    ) -> cst.FunctionDef | cst.Lambda | None:
        if isinstance(expr, cst.Lambda):
            return expr
        if isinstance(expr, cst.Name):
            bindings = self.names.lookup(expr.value, path)
            if bindings and len(bindings) == 1 and bindings[0].kind == "def":
                return bindings[0].node  # type: ignore[return-value]
        return None

    def static_call(
        self, call: cst.Call, path: Sequence[cst.CSTNode]
    ) -> tuple[JitApplication, set[int], set[str]] | None:
        """The jitted callee of `call` with its static positions and names, when both are
        known (see `StaticSpec.effective`)."""
        if type(call.func) not in (cst.Name, cst.Call):
            return None
        app = self.jitted_callee(call, path) or self._imported_jit(call, path)
        if app is None:
            return None
        static = app.spec.effective(app.signature)
        if static is None:
            return None
        return app, static[0], static[1]

    def _imported_jit(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> JitApplication | None:
        """The jit another file applies to the function `call` calls by an imported name."""
        if self.foreign is None or type(call.func) is not cst.Name:
            return None
        bindings = self.names.lookup(call.func.value, path)
        if not bindings or len(bindings) != 1 or bindings[0].kind != "import":
            return None
        qualname = bindings[0].qualname
        return self.foreign(qualname) if qualname else None

    def jitted_callee(self, call: cst.Call, path: Sequence[cst.CSTNode]) -> JitApplication | None:
        """The jit application behind the callee of `call`, if the callee is a jitted function.

        Handles a name bound once to a jit-decorated `def` or to `jax.jit(f, ...)`, and the
        direct form `jax.jit(f, ...)(args)`.
        """
        func = call.func
        if isinstance(func, cst.Call):
            return self.from_call(func, path)
        if type(func) is not cst.Name or func.value not in self.candidate_names:
            return None
        found = self.names.lookup_with_path(func.value, path)
        if found is None or len(found[0]) != 1:
            return None
        binding, scope_path = found[0][0], found[1]
        if binding.kind == "def" and isinstance(binding.node, cst.FunctionDef):
            return self.from_decorators(binding.node, [*scope_path, binding.node])
        if binding.kind == "assign" and isinstance(binding.node, cst.Call):
            return self.from_call(binding.node, [*scope_path, binding.node])
        return None


@dataclass(frozen=True)
class Donation:
    """The arguments a jit application donates (`donate_argnums`/`donate_argnames`), completed
    from each other through the signature as jax does [observed on jax 0.10.2: an argument
    passed by keyword at a donated position is donated too]."""

    positions: frozenset[int]
    names: frozenset[str]
    options: tuple[cst.Arg, ...]  # as written, for messages

    def donates(self, position: int | None, keyword: str | None) -> bool:
        return (position is not None and position in self.positions) or (
            keyword is not None and keyword in self.names
        )


def donation(app: JitApplication) -> Donation | None:
    """What `app` donates, when it donates something and the options are literals."""
    node = app.node
    if type(node) is not cst.Call:
        return None  # a bare `@jax.jit`
    nums_arg = names_arg = None
    for arg in node.args:  # type: ignore[attr-defined]
        if arg.keyword is not None and arg.keyword.value == "donate_argnums":
            nums_arg = arg
        elif arg.keyword is not None and arg.keyword.value == "donate_argnames":
            names_arg = arg
        elif arg.star == "**":
            return None
    if nums_arg is None and names_arg is None:
        return None
    nums = _literal_ints(nums_arg.value) if nums_arg is not None else ()
    names = _literal_strs(names_arg.value) if names_arg is not None else ()
    if nums is None or names is None:
        return None
    positions, keywords = set(nums), set(names)
    sig = app.signature
    if sig is not None:
        count = len(sig.positional)
        positions = {i % count if i < 0 and count else i for i in positions}
        keywords |= {sig.positional[i] for i in positions if 0 <= i < count}
        positions |= {sig.positional.index(n) for n in keywords if n in sig.positional}
    elif any(i < 0 for i in positions):
        return None
    if not positions and not keywords:
        return None
    options = tuple(a for a in (nums_arg, names_arg) if a is not None)
    return Donation(frozenset(positions), frozenset(keywords), options)
