"""The Python-language facts rules ask about (jitlint/python/builtins_facts.py)."""

from __future__ import annotations

import logging
import operator
import time

import libcst as cst

from jitlint.python.builtins_facts import AUGMENTED_OPERATORS, CLOCKS, LOG_METHODS


def test_every_augmented_assignment_names_its_operator():
    kinds = {k for k in vars(cst).values() if isinstance(k, type) and issubclass(k, cst.BaseAugOp)}
    kinds.discard(cst.BaseAugOp)
    assert set(AUGMENTED_OPERATORS) == kinds
    assert all(callable(getattr(operator, n, None)) for n in AUGMENTED_OPERATORS.values())


def test_clocks_and_log_methods_exist():
    assert all(callable(getattr(time, q.removeprefix("time."), None)) for q in CLOCKS)
    logger = logging.getLogger("jitlint-test")
    assert all(callable(getattr(logger, m, None)) for m in LOG_METHODS)
