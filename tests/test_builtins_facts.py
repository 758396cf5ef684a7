"""The Python-language facts rules ask about (jitlint/python/builtins_facts.py)."""

from __future__ import annotations

import builtins
import collections.abc
import logging
import operator
import time
import typing

import libcst as cst

from jitlint.python.builtins_facts import (
    AUGMENTED_OPERATORS,
    CLOCKS,
    CONTAINER_ANNOTATIONS,
    LOG_METHODS,
    container_annotation,
    exception_catchers,
    not_none_annotation,
    tuple_element_annotation,
)


def test_every_augmented_assignment_names_its_operator():
    kinds = {k for k in vars(cst).values() if isinstance(k, type) and issubclass(k, cst.BaseAugOp)}
    kinds.discard(cst.BaseAugOp)
    assert set(AUGMENTED_OPERATORS) == kinds
    assert all(callable(getattr(operator, n, None)) for n in AUGMENTED_OPERATORS.values())


def test_clocks_and_log_methods_exist():
    assert all(callable(getattr(time, q.removeprefix("time."), None)) for q in CLOCKS)
    logger = logging.getLogger("jitlint-test")
    assert all(callable(getattr(logger, m, None)) for m in LOG_METHODS)


def test_container_annotations_name_real_types():
    known = {*vars(typing), *vars(collections.abc), *vars(collections), *vars(builtins)}
    assert known >= CONTAINER_ANNOTATIONS


def _annotation(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def _element(text: str, index: int, count: int) -> str | None:
    part = tuple_element_annotation(_annotation(text), index, count)
    return None if part is None else cst.Module([]).code_for_node(part)


def test_tuple_element_annotations():
    assert _element("Tuple[Dict[str, tf.Tensor], tf.Tensor]", 0, 2) == "Dict[str, tf.Tensor]"
    assert _element("typing.Tuple[A, B, C]", 2, 3) == "C"
    assert _element("tuple[list[int], ...]", 4, 6) == "list[int]"
    assert _element("Tuple[A, B]", 0, 3) is None  # unpacked into another number of names
    assert _element("Dict[str, A]", 0, 2) is None
    assert _element("tf.Tensor", 0, 2) is None


def test_container_annotation():
    for text in ("Dict[str, tf.Tensor]", "list", "typing.Sequence[int]", "Mapping"):
        assert container_annotation(_annotation(text)), text
    for text in ("tf.Tensor", "jax.Array", "int", "Optional[Dict[str, int]]"):
        assert not container_annotation(_annotation(text)), text


def test_exception_catchers_are_the_class_and_its_builtin_bases():
    for name in ("TypeError", "ValueError", "IndexError", "KeyError", "ModuleNotFoundError"):
        expected = {
            f"builtins.{c.__name__}" for c in getattr(builtins, name).__mro__ if c is not object
        }
        assert exception_catchers(name) == expected
    assert exception_catchers("RuntimeError") == {"builtins.RuntimeError"}


def test_only_a_plain_builtin_scalar_annotation_rules_out_none():
    def parsed(text: str) -> str | None:
        return not_none_annotation(cst.parse_expression(text))

    assert parsed("int") == "int"
    assert parsed("builtins.str") == "str"
    for text in ("Optional[int]", "int | None", "object", "np.int32", "'int'", "List[int]"):
        assert parsed(text) is None, text
