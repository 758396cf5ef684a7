"""The project pass reads call lines from CPython's tree (model/project/lines.py): each call
it places must be on libcst's own line, whatever order libcst's fields keep the calls in."""

import ast

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.model.project.lines import CallLines, CallOrder, place
from jitlint.python.walker import Walker

SOURCE = """\
import jax
from pkg import h, k
v = h(50); w = k(51)


@h(k(1))
def f(x, y=h(2), /, z: k(3) = h(4), *args: k(5), w=h(6), **kw: k(7)) -> k(8):
    d = {h(9): k(10), **h(11), k(12): h(13)}
    e = h(14) if k(15) else h(16)
    g = h(*k(17), a=h(18), *k(19), **h(20))
    try:
        h(21)
    except k(22) as err:
        h(23)
    lam = lambda a=h(24), *, b=k(25): h(a)
    s = f"{h(26)!r:>{k(27)}}" "tail" f"{h(28)}"
    return [h(i) for i in k(29) if h(i)]; h(30)


@k(31)
class C(h(32), metaclass=k(33)):
    def m(self, x=h(34)):
        match x:
            case [a, b] if h(35):
                return k(36)
            case {"key": v}:
                return h(37)(k(38))(h(39))
    (h(40)
     .attr(k(41)))
"""


def walk(source: str) -> tuple[cst.Module, CallOrder]:
    module = cst.parse_module(source)
    order = CallOrder()
    walker = Walker([order])
    order.parents = walker.parents
    walker.walk(module)
    return module, order


def test_every_call_placed_on_libcsts_line() -> None:
    module, order = walk(SOURCE)
    lines = CallLines(module, ast.parse(SOURCE), order)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert len(order.calls) > 40
    for call, top in zip(order.calls, order.tops, strict=True):
        assert lines.line(call, top) == positions[call].start.line, module.code_for_node(call)
        # A record may name the callee expression of the call (the TF records do).
        assert lines.line(call.func, top) == positions[call].start.line


def test_disagreeing_trees_place_nothing_and_text_search_takes_over() -> None:
    """A CPython tree of other code (here: one call fewer) places no call; `place` falls
    back to searching the text and still finds libcst's lines."""
    module, order = walk(SOURCE)
    other = ast.parse(SOURCE.replace("h(30)", "30"))
    lines = CallLines(module, other, order)
    last = next(top for top in module.body if isinstance(top, cst.FunctionDef))
    in_f = [(c, t) for c, t in zip(order.calls, order.tops, strict=True) if t is last]
    assert all(lines.line(call, top) is None for call, top in in_f)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    found = place(module, in_f, SOURCE, lines)
    assert found == {id(call): positions[call].start.line for call, _ in in_f}


def test_no_tree_places_nothing() -> None:
    module, order = walk(SOURCE)
    lines = CallLines(module, None, order)
    assert all(lines.line(c, t) is None for c, t in zip(order.calls, order.tops, strict=True))
