"""The lint's parse (engine/parsing.py): libcst's tree, built with cheaper constructors that
are swapped in for the parse only."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from jitlint.engine import parsing
from jitlint.engine.parsing import _cheap_constructors, parse

PACKAGE = Path(__file__).resolve().parents[1] / "jitlint"

SHAPES = '''\
"""doc"""
from __future__ import annotations
import a.b as c, d
from .e import (f, g as h)
@decorator(1, *args, key=value, **kwargs)
async def fn(p, /, q: int = 1, *r, s, t=2, **u) -> list[int]:
    async with x as (y, z), w:
        async for i in range(3):
            await i
    return [v for v in w if v] + {k: v for k, v in w.items()} or (lambda m=1, *n: m)
class K(Base, metaclass=Meta):
    attribute: int = 3
    def method(self):
        global G
        nonlocal_ = f"{self!r:>{width}} {'x'}" + rb"\\d" + 0x1F + 1_000j
        match self:
            case [1, *rest] if rest: pass
            case {"key": value, **other}: pass
            case Point(x=0) | None: pass
            case _: pass
        try:
            del a[1:2, ::3], b.c
        except* (ValueError, TypeError) as error:
            raise RuntimeError from error
        finally:
            yield from (yield)
while (n := n - 1) > 0 and not -~n < 3 <= 4 is not None:
    assert n, "message"; x @= y; print(*a, sep="")
else:
    pass
'''


def test_the_tree_is_libcsts_own():
    sources = [SHAPES, *(p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))[::9])]
    for source in sources:
        ours, theirs = parse(source), cst.parse_module(source)
        assert ours.deep_equals(theirs)
        assert ours.code == source


def test_the_cheap_constructors_are_used_and_put_back():
    constructors = _cheap_constructors()
    assert cst.Name in constructors and cst.FunctionDef in constructors
    own = cst.Name.__dict__["__init__"]
    assert own is constructors[cst.Name][0]
    parse("x = y\n")
    # After the parse, libcst's own constructor runs again, with its check.
    assert cst.Name.__dict__["__init__"] is own
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
    with pytest.raises(cst.ParserSyntaxError):
        parse("def (:\n")
    assert cst.Name.__dict__["__init__"] is own
    with pytest.raises(cst.CSTValidationError):
        cst.Name("1x")


def test_the_cheap_constructors_are_made_only_after_enough_source(monkeypatch):
    # Making them costs what they save on about 100 KB: a one-file run must not pay for them.
    monkeypatch.setattr(parsing, "_constructors", None)
    monkeypatch.setattr(parsing, "_parsed_chars", 0)
    assert parse("x = y\n").code == "x = y\n"
    assert parsing._constructors is None
    source = "x = y\n" * 20_000
    assert parse(source).deep_equals(cst.parse_module(source))
    assert parsing._constructors is not None and cst.Name in parsing._constructors


def test_a_cheap_constructor_sets_the_fields_as_the_dataclass_does():
    for cls, arguments in [
        (cst.Name, {"value": "x"}),
        (cst.LeftParen, {}),  # a field from a default factory
        (cst.Arg, {"value": cst.Name("v"), "keyword": cst.Name("k")}),
    ]:
        cheap = _cheap_constructors()[cls][1]
        built, expected = object.__new__(cls), cls(**arguments)
        cheap(built, **arguments)
        assert built.deep_equals(expected)


def test_parses_in_two_threads_leave_libcsts_check_in_place():
    # The editor server parses in its main thread and in the project pass's thread.
    import threading

    own_check = cst.CSTNode.__dict__["__post_init__"]
    own_name = cst.Name.__dict__["__init__"]
    source = "\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(300))
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(5):
                assert parse(source).code == source
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert cst.CSTNode.__dict__["__post_init__"] is own_check
    assert cst.Name.__dict__["__init__"] is own_name
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
