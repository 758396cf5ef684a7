"""Name resolution on the Python floor: imports, aliases made by assignment, shadowing."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jitlint.python.attributes import read_only_into_text
from jitlint.python.names import UNKNOWN, Names
from jitlint.python.uses import calls_of_name, calls_of_result, read_only_by_checks


def _meanings(source: str, name: str) -> frozenset[str]:
    """What `name` read in the last statement (at module level) may stand for."""
    module = cst.parse_module(textwrap.dedent(source))
    names = Names(module)
    return names.qualified_names(cst.Name(name), [module])


def test_an_import_names_its_module():
    assert _meanings("import functools as ft\n", "ft") == {"functools"}


def test_an_assignment_of_a_dotted_name_is_an_alias():
    source = """
        import functools
        partial = functools.partial
        """
    assert _meanings(source, "partial") == {"functools.partial"}


def test_aliases_chain_and_attributes_follow_them():
    source = """
        import jax
        numpy_module = jax.numpy
        jnp = numpy_module
        """
    module = cst.parse_module(textwrap.dedent(source))
    names = Names(module)
    where = cst.parse_expression("jnp.where")
    assert names.qualified_names(where, [module]) == {"jax.numpy.where"}


def test_a_name_bound_twice_keeps_both_meanings():
    source = """
        import numpy
        import jax.numpy
        xp = numpy
        xp = jax.numpy
        """
    assert _meanings(source, "xp") == {"numpy", "jax.numpy"}


def test_an_assignment_of_anything_else_stays_unknown():
    source = """
        import functools
        partial = functools.partial(print, end="")
        """
    assert _meanings(source, "partial") == {UNKNOWN}


def test_a_self_referencing_alias_ends():
    source = """
        x = x.y
        """
    assert _meanings(source, "x") == {UNKNOWN}


def _calls_of(source: str) -> list[str] | None:
    module = cst.parse_module(textwrap.dedent(source))
    func = module.body[0]
    assert isinstance(func, cst.FunctionDef)
    assign = func.body.body[0].body[0]  # type: ignore[attr-defined]
    target = assign.targets[0].target
    found = calls_of_name(func.body, target.value, target)
    return None if found is None else [module.code_for_node(call) for call in found]


def test_every_call_of_a_name_bound_once():
    source = """\
        def run(x):
            g = make()
            y = g(x, n=2)
            return [g(z) for z in y], obj.g, h(g=1)
        """
    assert _calls_of(source) == ["g(x, n=2)", "g(z)"]


@pytest.mark.parametrize(
    "use", ["return g", "keep(g)", "g = other", "def inner(g): return g(1)", "del g"]
)
def test_a_name_that_may_be_called_elsewhere_has_no_known_calls(use):
    source = f"""\
        def run(x):
            g = make()
            g(x)
            {use}
        """
    assert _calls_of(source) is None


def _calls_of_result(source: str) -> list[str] | None:
    module = cst.parse_module(textwrap.dedent(source))
    func = module.body[0]
    assert isinstance(func, cst.FunctionDef)
    maker = func.body.body[0]
    assert isinstance(maker, cst.FunctionDef)
    found = calls_of_result(func.body, maker.name.value, maker.name)
    return None if found is None else [module.code_for_node(call) for call in found]


def test_every_call_of_what_a_factory_returns():
    source = """\
        def run(x):
            def make(n):
                return lambda v: v * n
            return make(2)(x), make(3)(x, k=1), obj.make, h(make=1)
        """
    assert _calls_of_result(source) == ["make(2)(x)", "make(3)(x, k=1)"]


def test_every_call_of_a_factorys_result_bound_once():
    source = """\
        def run(x):
            def make(n):
                return lambda v: v * n
            step = make(2)
            return [step(v) for v in x], make(3)(x)
        """
    assert _calls_of_result(source) == ["step(v)", "make(3)(x)"]


@pytest.mark.parametrize(
    "use",
    ["f = make(2)", "f = make(2); keep(f)", "keep(make)", "return make(2)", "make(2)"],
)
def test_a_factory_whose_result_may_be_called_elsewhere_has_no_known_calls(use):
    source = f"""\
        def run(x):
            def make(n):
                return lambda v: v * n
            make(1)(x)
            {use}
        """
    assert _calls_of_result(source) is None


@pytest.mark.parametrize(
    ("read", "checked"),
    [
        ("assert len(log) == 1", True),
        ("self.assertEqual(log[0], 2)", True),
        ("if not log:\n        self.skipTest('none')", True),
        ("if not log:\n        print('none')", False),
        ("print(log)", False),
        ("return log", False),
    ],
)
def test_a_name_read_only_by_checks(read, checked):
    source = f"""\
def test_f(self):
    log = []
    def f(x):
        log.append(x)
    f(1)
    {read}
"""
    module = cst.parse_module(source)
    func = module.body[0]
    inner = func.body.body[1]  # type: ignore[attr-defined]
    assert read_only_by_checks(func.body, "log", inner) is checked  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("read", "text"),
    [
        ('"op_{}".format(self.n)', True),
        ('f"op_{self.n}"', True),
        ("str(self.n)", True),
        ('"op_%d" % self.n', True),
        ("self.n * 2", False),
        ("self.n", False),
    ],
)
def test_an_attribute_read_only_into_text(read, text):
    source = f"""\
class Layer:
    def __init__(self):
        self.n = 0
    def call(self, x):
        self.n += 1
        return x, {read}
"""
    cls = cst.parse_module(source).body[0]
    assert read_only_into_text(cls, "n") is text  # type: ignore[arg-type]


def test_a_dict_of_functions_that_is_only_iterated_calls_them_in_its_loop():
    source = """\
        def run(x):
            g = make()
            table = {"plain": f, "made": g}
            for key, fn in table.items():
                fn(x, key=key)
            for fn in table.values():
                fn(x)
        """
    assert _calls_of(source) == ["fn(x, key=key)", "fn(x)"]


@pytest.mark.parametrize("use", ["keep(table)", "table['made'](x)", "for fn in table: fn(x)"])
def test_a_dict_of_functions_used_otherwise_hides_their_calls(use):
    source = f"""\
        def run(x):
            g = make()
            table = {{"made": g}}
            for key, fn in table.items():
                fn(x)
            {use}
        """
    assert _calls_of(source) is None
