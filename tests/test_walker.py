"""The traversal every rule and model shares: which children it yields, in which order."""

from __future__ import annotations

import libcst as cst

from jitlint.python.walker import Walker, child_fields, iter_children

SOURCE = "from . import a as b\n\n\n@d\ndef f(x, *, y=1) -> int:\n    return g(x)[0] + y\n"


def test_child_fields_are_real_fields_only():
    # libcst's __dataclass_fields__ also lists `__slots__`: reading it on every node cost
    # every traversal a tuple of strings to skip.
    for node_type in (cst.Call, cst.Module, cst.FunctionDef, cst.Name, cst.Pass):
        names = child_fields(node_type)
        assert not any(name.startswith("__") for name in names), (node_type, names)
    assert child_fields(cst.Call) == ("func", "args")
    assert child_fields(cst.Pass) == ()


def test_children_are_nodes_in_source_order():
    module = cst.parse_module(SOURCE)
    function = module.body[1]
    assert isinstance(function, cst.FunctionDef)
    kinds = [type(child).__name__ for child in iter_children(function)]
    assert kinds == ["Name", "Parameters", "IndentedBlock", "Decorator", "Annotation"]
    top = [type(child).__name__ for child in iter_children(module)]
    assert top == ["SimpleStatementLine", "FunctionDef"]
    name = function.name
    assert iter_children(name) == []  # `value` is a string, not a node


def test_walk_visits_in_order_and_leaves_after_children():
    events: list[str] = []

    class Listener:
        def visit_Call(self, node: cst.Call) -> None:
            events.append("visit Call")

        def leave_Call(self, node: cst.Call) -> None:
            events.append("leave Call")

        def visit_Name(self, node: cst.Name) -> None:
            events.append(f"visit {node.value}")

    walker = Walker([Listener()])
    walker.walk(cst.parse_module("h(g(x), y)\n"))
    assert events == [
        "visit Call", "visit h", "visit Call", "visit g", "visit x", "leave Call", "visit y",
        "leave Call",
    ]  # fmt: skip
    assert walker.parents == []


def test_a_leaf_is_left_right_after_its_visit_with_the_same_parents():
    # The walk leaves a node without children at once (no round trip through its stack):
    # its leave hooks still run after its visit and before its next sibling, and see the
    # same ancestors.
    events: list[tuple[str, str, tuple[str, ...]]] = []

    class Listener:
        parents: list[cst.CSTNode] = []

        def _note(self, what: str, node: cst.CSTNode) -> None:
            label = node.value if isinstance(node, cst.Name) else type(node).__name__
            events.append((what, label, tuple(type(p).__name__ for p in self.parents)))

        def visit_Name(self, node: cst.Name) -> None:
            self._note("visit", node)

        def leave_Name(self, node: cst.Name) -> None:
            self._note("leave", node)

        def visit_Pass(self, node: cst.Pass) -> None:
            self._note("visit", node)

        def leave_Pass(self, node: cst.Pass) -> None:
            self._note("leave", node)

    listener = Listener()
    walker = Walker([listener])
    listener.parents = walker.parents
    walker.walk(cst.parse_module("f(a)\npass\n"))
    call = ("Module", "SimpleStatementLine", "Expr", "Call")
    assert events == [
        ("visit", "f", call), ("leave", "f", call),
        ("visit", "a", (*call, "Arg")), ("leave", "a", (*call, "Arg")),
        ("visit", "Pass", ("Module", "SimpleStatementLine")),
        ("leave", "Pass", ("Module", "SimpleStatementLine")),
    ]  # fmt: skip
    assert walker.parents == []


def test_a_node_type_reads_alike_before_and_after_its_reader_is_compiled(monkeypatch):
    # A type is read by a loop over its fields until it has been read often; then by a
    # reader compiled for it. Both list the same children, in the same order.
    from jitlint.python import walker

    monkeypatch.setattr(walker, "_readers", {})
    module = cst.parse_module(
        "import a.b as c\n"
        "from d import (e, f)\n"
        "@g(h=1)\n"
        "def i(j, *k, l: int = 2, **m) -> None:\n"
        "    '''doc'''\n"
        "    for n, o in p[1:2, ::3]:\n"
        "        q = [r for r in s if r] or {t: u for t, u in v}\n"
        "        w += x if y else (lambda z: z)(-1)\n"
        "    while not (a < b <= c):\n"
        "        try:\n"
        "            raise E from F\n"
        "        except (G, H) as I:\n"
        "            del J[0], K.L\n"
        "        finally:\n"
        "            yield f'{M!r:>{N}}'\n"
        "    with O() as P, Q:\n"
        "        return [*R], {**S}, (T := 1), U[...]\n"
        "class V(W, metaclass=X):\n"
        "    Y: int = 3\n"
    )
    nodes = list(walker.descendants(module))
    first = [[id(child) for child in iter_children(node)] for node in nodes]
    # Read twice (a compile costs more than a small file's few reads), a type is not compiled.
    assert walker._readers[cst.ClassDef].__code__.co_filename == walker.__file__
    assert walker._readers[cst.Name] is walker._no_children  # a name holds no node
    for _ in range(walker._COMPILE_AFTER + 1):
        again = [[id(child) for child in iter_children(node)] for node in nodes]
        assert again == first
    compiled = [r for r in walker._readers.values() if r.__code__.co_filename.startswith("<")]
    assert compiled  # the second phase was read too
