"""The lines of the nodes a file's records name (outbound.py, tf_outbound.py).

libcst's tree has no positions, and its PositionProvider costs ~1.4x a parse. The engine's
depth guard has already parsed the file with CPython's parser (python/guards.py), whose nodes carry
lines: the k-th call of a module-level statement, in the order the engine's walker meets
libcst's nodes, is the k-th call of the same statement in CPython's tree walked in the same
order. A call this does not place (no CPython tree, counts that disagree, a callee that
differs) is placed from the text: searched for when it occurs once, else counted by a
codegen of the node around it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

import libcst as cst
from libcst._nodes.internal import CodegenState


class CallOrder:
    """A walker listener (python/walker.py): every call in source order, with the
    module-level statement it is in. `parents` is set to the walker's ancestor stack."""

    def __init__(self) -> None:
        self.parents: list[cst.CSTNode] = []
        self.calls: list[cst.Call] = []
        self.tops: list[cst.CSTNode | None] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        parents = self.parents
        self.tops.append(parents[1] if len(parents) > 1 else None)


class CallLines:
    """Lines of calls (and of the callee expression of a call) from CPython's tree."""

    def __init__(self, module: cst.Module, tree: ast.Module | None, order: CallOrder) -> None:
        self._module = module
        self._tree = tree
        self._order = order
        self._lines: dict[int, int] = {}
        self._spans: dict[int, tuple[int, int]] | None = None
        self._callees: dict[int, cst.Call] = {}
        self._statements: dict[int, list[ast.stmt]] = {}

    def line(self, node: cst.CSTNode, top: cst.CSTNode | None) -> int | None:
        if self._tree is None or top is None:
            return None
        if self._spans is None:
            self._index()
        call = node if type(node) is cst.Call else self._callees.get(id(node))
        if call is None:
            return None
        if id(top) in self._spans:  # type: ignore[operator]
            self._place(top)
        return self._lines.get(id(call))

    def _index(self) -> None:
        spans: dict[int, tuple[int, int]] = {}
        for at, top in enumerate(self._order.tops):
            key = id(top)
            start = spans.get(key, (at, at))[0]
            spans[key] = (start, at + 1)
        self._spans = spans
        self._callees = {id(call.func): call for call in self._order.calls}
        # libcst keeps `a; b` as one statement line, CPython as two statements.
        body = self._tree.body  # type: ignore[union-attr]
        at = 0
        for statement in self._module.body:
            count = len(statement.body) if type(statement) is cst.SimpleStatementLine else 1
            self._statements[id(statement)] = body[at : at + count]
            at += count
        if at != len(body):
            self._statements.clear()

    def _place(self, top: cst.CSTNode) -> None:
        start, end = self._spans.pop(id(top))  # type: ignore[union-attr]
        statements = self._statements.get(id(top))
        if not statements:
            return
        found = [call for statement in statements for call in _calls_in_walk_order(statement)]
        if len(found) != end - start:
            return
        calls = self._order.calls
        for call, twin in zip(calls[start:end], found, strict=True):
            if _same_callee(call.func, twin.func):
                self._lines[id(call)] = twin.lineno


def _calls_in_walk_order(root: ast.AST) -> list[ast.Call]:
    """The calls below `root` in the order the engine's walker meets libcst's nodes: depth
    first, each node's children in the order of libcst's fields (a function's decorators
    after its body, a class's bases after its body, ...)."""
    found = []
    stack = [root]
    fields_of = _NODE_FIELDS
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _OWN_ORDER:
            if kind is ast.Call:
                found.append(node)
            children = _children(node)
        else:
            # The common case read here, not through `_children`: most nodes are names and
            # constants, left at once (a call per node was ~a sixth of the walk).
            fields = fields_of.get(kind)
            if fields is None:
                fields = fields_of[kind] = _node_fields(kind)
            if not fields:
                continue
            children = []
            for name in fields:
                value = getattr(node, name)
                if type(value) is list:
                    children += value
                elif value is not None:
                    children.append(value)
        children.reverse()
        stack += children
    return found


# The kinds whose children `_children` orders (or filters) itself.
_OWN_ORDER = frozenset(
    {ast.Call, ast.ClassDef, ast.arguments, ast.Dict, ast.ExceptHandler, ast.match_case}
)


def _children(node: ast.AST) -> list[ast.AST]:
    kind = type(node)
    if kind is ast.Call:  # libcst keeps positional and keyword arguments in one list
        return [node.func, *sorted([*node.args, *node.keywords], key=_start)]  # type: ignore[attr-defined]
    if kind is ast.ClassDef:
        return [*node.body, *node.bases, *node.keywords, *node.decorator_list]  # type: ignore[attr-defined]
    if kind is ast.arguments:
        return _parameters(node)  # type: ignore[arg-type]
    if kind is ast.Dict:
        pairs = zip(node.keys, node.values, strict=True)  # type: ignore[attr-defined]
        return [part for key, value in pairs for part in (key, value) if part is not None]
    if kind is ast.ExceptHandler:
        return [*node.body, *([node.type] if node.type else [])]  # type: ignore[attr-defined]
    if kind is ast.match_case:
        guard = [node.guard] if node.guard else []  # type: ignore[attr-defined]
        return [node.pattern, *node.body, *guard]  # type: ignore[attr-defined]
    fields = _NODE_FIELDS.get(kind)
    if fields is None:
        fields = _NODE_FIELDS[kind] = _node_fields(kind)
    out: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name)
        if type(value) is list:
            out += value
        elif value is not None:
            out.append(value)
    return out


# Fields that never hold a node with a call below it: names, flags, numbers, and leaves
# (`ctx`, operators, an import's aliases). `ast.iter_child_nodes` tests every field's value
# with isinstance; reading only the others is ~2x faster over a whole file.
_NOT_CALL_HOLDERS = frozenset(
    {"arg", "argtypes", "asname", "attr", "conversion", "ctx", "id", "is_async", "kind"}
    | {"kwd_attrs", "level", "lineno", "module", "n", "name", "names", "op", "ops", "rest"}
    | {"s", "simple", "tag", "type_comment"}
)
_NODE_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: (), ast.MatchSingleton: ()}


def _node_fields(kind: type) -> tuple[str, ...]:
    """The fields of an `ast` node type that may hold nodes: each is a node, None, or a
    list of nodes (the lists that may hold None, `Dict.keys` and `kw_defaults`, are read by
    `_children`'s own cases)."""
    return tuple(name for name in kind._fields if name not in _NOT_CALL_HOLDERS)


def _start(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def _parameters(node: ast.arguments) -> list[ast.AST]:
    """libcst's order: each parameter's annotation then default, the plain parameters, `*`,
    keyword-only, `**`, and the positional-only ones last."""
    positional = [*node.posonlyargs, *node.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(node.defaults))
    pairs = list(zip(positional, [*defaults, *node.defaults], strict=True))
    posonly = len(node.posonlyargs)
    ordered = [*pairs[posonly:]]
    if node.vararg is not None:
        ordered.append((node.vararg, None))
    ordered += zip(node.kwonlyargs, node.kw_defaults, strict=True)
    if node.kwarg is not None:
        ordered.append((node.kwarg, None))
    ordered += pairs[:posonly]
    return [part for arg, default in ordered for part in (arg.annotation, default) if part]


def _same_callee(func: cst.BaseExpression, twin: ast.expr) -> bool:
    kind = type(func)
    if kind is cst.Name:
        return type(twin) is ast.Name and twin.id == func.value  # type: ignore[attr-defined]
    if kind is cst.Attribute:
        return type(twin) is ast.Attribute and twin.attr == func.attr.value  # type: ignore[attr-defined]
    return type(twin) is not ast.Name and type(twin) is not ast.Attribute


def place(
    module: cst.Module,
    nodes: Sequence[tuple[cst.CSTNode, cst.CSTNode | None]],
    source: str,
    calls: CallLines | None = None,
) -> dict[int, int]:
    """The line of each node, given with its module-level statement.

    Calls come from `calls` where it places them. Otherwise libcst reproduces the source
    exactly, so a text that occurs once in the file, or once in the text of the statement
    around it (found once in the file), places the node; only what repeats even there is
    counted by a codegen of that statement (~0.2x a parse for the whole module)."""
    code = module.code_for_node
    lines: dict[int, int] = {}
    around: dict[int, tuple[cst.CSTNode | None, list[cst.CSTNode]]] = {}
    for node, scope in nodes:
        known = calls.line(node, scope) if calls is not None else None
        if known is not None:
            lines[id(node)] = known
            continue
        head = _call_head(node, code)
        at = _unique(source, head) if head is not None else None
        if at is not None:
            lines[id(node)] = _line_at(source, at, head)  # type: ignore[arg-type]
            continue
        text = code(node)
        at = _unique(source, text)
        if at is None:
            around.setdefault(id(scope), (scope, []))[1].append(node)
        else:
            lines[id(node)] = _line_at(source, at, text)
    for scope, group in around.values():
        scope_text = code(scope) if scope is not None else ""
        base = _unique(source, scope_text) if scope is not None else None
        if base is None:
            lines.update(counted_lines(module, module, 1, group))
            continue
        rest = []
        for node in group:
            text = code(node)
            at = _unique(scope_text, text)
            if at is None:
                rest.append(node)
            else:
                lines[id(node)] = _line_at(source, base + at, text)
        if rest:
            first = source.count("\n", 0, base) + 1
            lines.update(counted_lines(module, scope, first, rest))  # type: ignore[arg-type]
    return lines


class _LineCounter(CodegenState):
    """Codegen that only counts lines and notes where the wanted nodes start: the call lines
    cost a codegen pass (~0.2x a parse), not libcst's PositionProvider (~1.4x)."""

    def __init__(self, module: cst.Module, wanted: set[int]) -> None:
        super().__init__(module.default_indent, module.default_newline)
        self.wanted = wanted
        self.line = 1
        self.starts: dict[int, tuple[int, int]] = {}

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self.line += value.count("\n")

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted:
            self.starts[id(node)] = (self.line, len(self.tokens))


def _unique(source: str, text: str) -> int | None:
    at = source.find(text)
    return at if at >= 0 and source.find(text, at + 1) < 0 else None


def _call_head(node: cst.CSTNode, code: Callable[[cst.CSTNode], str]) -> str | None:
    """`f(` for a call `f(...)` written without parentheses around it: when that text occurs
    once in the file it places the call, without generating the text of its arguments
    (a lambda or a long argument list can be most of a function)."""
    if type(node) is not cst.Call or node.lpar:  # type: ignore[attr-defined]
        return None
    space = node.whitespace_after_func  # type: ignore[attr-defined]
    if type(space) is not cst.SimpleWhitespace or space.value:
        return None
    return code(node.func) + "("  # type: ignore[attr-defined]


def _line_at(source: str, at: int, text: str) -> int:
    # A call's text may begin with its own parentheses and line breaks.
    at += len(text) - len(text.lstrip("( \t\r\n\\"))
    return source.count("\n", 0, at) + 1


def counted_lines(
    module: cst.Module, root: cst.CSTNode, first_line: int, nodes: list[cst.CSTNode]
) -> dict[int, int]:
    """The line of each of `nodes` below `root` (which starts on `first_line`), by one
    counting codegen of `root`."""
    state = _LineCounter(module, {id(node) for node in nodes})
    state.line = first_line
    root._codegen(state)
    lines = {}
    for key, (line, start) in state.starts.items():
        # A call's text may begin with its own parentheses and line breaks.
        for token in state.tokens[start:]:
            if token.strip() not in ("", "("):
                break
            line += token.count("\n")
        lines[key] = line
    return lines
