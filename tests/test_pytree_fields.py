"""Fields of module-local pytree classes (model/jax/pytree_fields.py): equinox Modules and flax
struct dataclasses. `self.n` is static or traced by how the field is declared and by which
transformation traces the object; the runtime tests below check each claim under jax."""

from __future__ import annotations

import textwrap

import pytest
from helpers import expected, found

from jitlint.api import lint_source

RULES = {"JIT101", "JIT102", "JIT103"}

EQX = """
import jax
import jax.numpy as jnp
import equinox as eqx
from typing import Callable
from jaxtyping import Array, Float

class MLP(eqx.Module):
    w: jax.Array
    b: Float[Array, "n"]
    n: int
    flag: bool
    act: Callable
    depth: int = eqx.field(static=True)
    width: int = eqx.static_field()

    {decorator}
    def __call__(self, x):
        {body}
        return x
"""

FLAX = """
import jax
import jax.numpy as jnp
import flax.struct

@flax.struct.dataclass
class State:
    x: jax.Array
    step: int
    size: int = flax.struct.field(pytree_node=False)

class Other(flax.struct.PyTreeNode):
    y: jnp.ndarray
    k: int = flax.struct.field(pytree_node=False)

{decorator}
def update(state: State, other: Other):
    {body}
    return state
"""


def _codes(template: str, decorator: str, body: str) -> set[tuple[int, str]]:
    return found(template.replace("{decorator}", decorator).replace("{body}", body), RULES)


@pytest.mark.parametrize(
    ("decorator", "body", "fires"),
    [
        # Static fields are aux data: never traced.
        ("@eqx.filter_jit", "if self.depth > 1 and self.width > 2: x = x * 2", False),
        ("@eqx.filter_jit", "x = x + jnp.zeros(self.depth)", False),
        # filter_jit: every non-array leaf is static.
        ("@eqx.filter_jit", "if self.n > 1 and self.flag: x = self.act(x)", False),
        ("@eqx.filter_jit", "x = x * float(self.n) + sum(range(self.n))", False),
        # ... and array leaves are traced.
        ("@eqx.filter_jit", "if self.w.sum() > 0: x = -x", True),
        ("@eqx.filter_jit", "if self.b[0] > 0: x = -x", True),
        ("@eqx.filter_vmap", "if self.w > 0: x = -x", True),
        # Shapes of array fields are static.
        ("@eqx.filter_jit", "if self.w.shape[0] > 1: x = -x", False),
        # `@jax.jit` on a method: `self` is an argument, every leaf is traced.
        ("@jax.jit", "if self.n > 1: x = -x", True),
        ("@jax.jit", "if self.depth > 1: x = self.act(x)", False),
        # No transformation in the file: an equinox module's `__call__` is traced by
        # contract (issue #29), its users hand the module to `filter_jit`: array leaves
        # traced, static fields and Python values not.
        ("", "if self.w.sum() > 0: x = -x", True),
        ("", "if self.n > 1 and self.depth > 1: x = -x", False),
        ("", "if self.w.shape[0] > 1: x = -x", False),
    ],
)
def test_equinox_module_fields(decorator, body, fires):
    assert bool(_codes(EQX, decorator, body)) == fires


@pytest.mark.parametrize(
    ("decorator", "body", "fires"),
    [
        ("@jax.jit", "if state.size > 1 and other.k > 1: pass", False),
        ("@jax.jit", "z = jnp.zeros((state.size, other.k))", False),
        # jax.jit traces every leaf of a pytree argument, Python ints included.
        ("@jax.jit", "if state.step > 1: pass", True),
        ("@jax.jit", "z = jnp.zeros(state.step)", True),
        ("@jax.jit", "if other.y.sum() > 0: pass", True),
        # filter_jit: an int leaf is static.
        ("@eqx.filter_jit", "if state.step > 1: pass", False),
        ("@eqx.filter_jit", "if state.x.sum() > 0: pass", True),
        # Static by static_argnums: the whole object is static.
        ("@partial(jax.jit, static_argnums=0)", "if state.step > 1: pass", False),
        # Not under any transformation.
        ("", "if state.step > 1: pass", False),
    ],
)
def test_flax_struct_fields(decorator, body, fires):
    template = FLAX.replace("import jax\n", "import jax\nimport equinox as eqx\n", 1)
    template = template.replace("import jax\n", "import jax\nfrom functools import partial\n", 1)
    assert bool(_codes(template, decorator, body)) == fires


def test_flax_struct_method_under_jit():
    source = """
    import jax
    import flax.struct

    @flax.struct.dataclass
    class State:
        x: jax.Array
        step: int
        size: int = flax.struct.field(pytree_node=False)

        @jax.jit
        def advance(self):
            if self.size > 1:
                pass
            if self.step > 1:  # error: JIT101
                pass
            return self
    """
    assert found(source, RULES) == expected(textwrap.dedent(source))


@pytest.mark.parametrize(
    "change",
    [
        # A custom __init__ may store anything: only static declarations are trusted.
        ("    depth: int", "    def __init__(self, w):\n        self.w = w\n    depth: int"),
        # A class from elsewhere, or with a base the analysis does not know.
        ("class MLP(eqx.Module):", "class MLP(Base):"),
        ("class MLP(eqx.Module):", "class MLP(eqx.Module, Mixin):"),
        # A field whose value is not what the annotation says.
        ("    w: jax.Array", "    w: jax.Array = eqx.field(converter=jnp.asarray)"),
        ("    w: jax.Array", "    w: jax.Array = 1.0"),
        ("    w: jax.Array", "    w: jax.Array | None"),
        ("    w: jax.Array", "    w: jax.Array = eqx.field(default_factory=make)"),
        # A name also bound otherwise in the class body.
        ("    w: jax.Array", "    w: jax.Array\n    w = property(lambda self: 1)"),
    ],
)
def test_unsure_fields_stay_unknown(change):
    source = EQX.replace("{decorator}", "@eqx.filter_jit").replace(
        "{body}", "if self.w.sum() > 0: x = -x"
    )
    assert found(source, RULES) != set()
    old, new = change
    assert old in source
    assert found(source.replace(old, new, 1), RULES) == set()


def test_custom_init_keeps_static_fields_static():
    source = EQX.replace("{decorator}", "@eqx.filter_jit").replace(
        "{body}", "if self.depth > 1: x = x * 2"
    )
    source = source.replace(
        "    depth: int", "    def __init__(self):\n        pass\n    depth: int"
    )
    assert found(source, RULES) == set()


def test_class_from_another_module_is_not_modelled():
    source = """
    import jax
    from models import State

    @jax.jit
    def update(state: State):
        if state.step > 1:
            pass
        return state
    """
    assert found(source, RULES) == set()


def test_message_names_the_field_and_the_transformation():
    source = textwrap.dedent(FLAX).replace("{decorator}", "@jax.jit")
    source = source.replace("{body}", "if state.step > 1: pass")
    (diagnostic,) = lint_source(source, select=["JIT101"])
    assert "`step` is a non-static field of `State`" in diagnostic.message
    assert "`jax.jit` traces every leaf of `state`" in diagnostic.message


# ---- under jax ------------------------------------------------------------------------------


def _kinds(tree, names):
    """Which of `tree`'s attributes are tracers."""
    jax = pytest.importorskip("jax")
    return {n: isinstance(getattr(tree, n), jax.core.Tracer) for n in names}


@pytest.mark.jax
def test_jit_traces_int_leaves_but_not_meta_fields():
    # flax.struct.dataclass registers its class with this very call (flax/struct.py).
    jax = pytest.importorskip("jax")
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class State:
        x: jax.Array
        step: int
        size: int

    jax.tree_util.register_dataclass(State, ["x", "step"], ["size"])
    seen = {}

    def probe(state):
        seen.update(_kinds(state, ["x", "step", "size"]))
        return state.x

    jax.jit(probe)(State(jax.numpy.ones(2), 3, 4))
    assert seen == {"x": True, "step": True, "size": False}


@pytest.mark.jax
def test_flax_struct_fields_under_jit_and_filter_jit():
    jax = pytest.importorskip("jax")
    struct = pytest.importorskip("flax.struct")
    eqx = pytest.importorskip("equinox")

    @struct.dataclass
    class State:
        x: jax.Array
        step: int
        size: int = struct.field(pytree_node=False)

    seen = {}

    def probe(state):
        seen.update(_kinds(state, ["x", "step", "size"]))
        return state.x

    state = State(jax.numpy.ones(2), 3, 4)
    jax.jit(probe)(state)
    assert seen == {"x": True, "step": True, "size": False}
    eqx.filter_jit(probe)(state)
    assert seen == {"x": True, "step": False, "size": False}


@pytest.mark.jax
def test_equinox_fields_under_filter_jit_and_jit():
    jax = pytest.importorskip("jax")
    eqx = pytest.importorskip("equinox")
    seen = {}
    names = ["w", "n", "flag", "depth"]

    class MLP(eqx.Module):
        w: jax.Array
        n: int
        flag: bool
        depth: int = eqx.field(static=True)

        @eqx.filter_jit
        def __call__(self, x):
            seen.update(_kinds(self, names))
            return x

        @jax.jit
        def jitted(self, x):
            seen.update(_kinds(self, names))
            return x

    model = MLP(jax.numpy.ones(2), 3, True, 4)
    model(1.0)
    assert seen == {"w": True, "n": False, "flag": False, "depth": False}
    jax.jit(lambda m: seen.update(_kinds(m, names)))(model)
    assert seen == {"w": True, "n": True, "flag": True, "depth": False}
    seen.clear()
    model.jitted(1.0)  # `self` is a jax.jit argument like any other
    assert seen == {"w": True, "n": True, "flag": True, "depth": False}
