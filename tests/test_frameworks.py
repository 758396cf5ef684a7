"""Framework semantics (model/jax/frameworks/): haiku's transformed pairs, equinox modules as
static arguments, and the declarations that say a static argument cannot be hashed. Each
case marks its expected findings with `# error: CODE`; the unmarked lines must stay clean."""

from __future__ import annotations

import pytest
from helpers import expected, found

CODES = {"JIT101", "JIT102", "JIT103", "JIT110", "JIT111"}

HK_STANDALONE = """
import haiku as hk
import jax
import jax.numpy as jnp


def encode(ind, emb):
    size = jnp.sum(ind)
    if size == 0:  # error: JIT101
        return jnp.mean(emb, axis=0)
    return jnp.sum(emb * ind[..., None], axis=-2) / size


class Model(hk.Module):
    def __init__(self, dim=4, name="m"):
        super().__init__(name=name)
        self.dim = dim

    def __call__(self, x, names):
        if len(names) > 2:
            x = x * 2
        z = hk.Linear(self.dim)(x)
        candidates = [frozenset(), frozenset({"a"})]
        logits = jnp.array([jnp.sum(encode(jnp.zeros(len(names)), z)) for c in candidates])
        order = jnp.argsort(logits)
        return [candidates[i] for i in order]  # error: JIT102


def make():
    def model_fn(x, names):
        return Model()(x, names)

    return hk.transform(model_fn)


net = make()
x = jnp.ones((3, 2))
params = net.init(None, x, ["a", "b", "c"])
jax.jit(net.apply)(params, None, x, ["a", "b", "c"])
"""

# The same module and factory, but the project applies the pair eagerly and never traces an
# apply: `hk.transform` traces nothing by itself, and the module is built in the file's own
# transformed function, so no contract stands in for users the run cannot see.
HK_EAGER_APPLY = (
    HK_STANDALONE.replace("  # error: JIT101", "")
    .replace("  # error: JIT102", "")
    .replace("jax.jit(net.apply)(", "net.apply(")
)

# A factory whose pair leaves the run, the module built in it: nothing of the run calls the
# factory, so its users are where a library's are, and haiku's users compile `apply` with
# `jax.jit`: the module keeps the haiku contract (tracing.py `_pair_stays`).
HK_FACTORY_ONLY = HK_STANDALONE[: HK_STANDALONE.index("net = make()")]

HK_JITTED_APPLY = """
import functools
import haiku as hk
import jax
import jax.numpy as jnp


class Net(hk.Module):
    def __call__(self, x, is_training):
        x = hk.Linear(4)(x)
        if is_training:  # error: JIT101
            x = x * 0.5
        return x


def forward(x, is_training):
    return Net()(x, is_training)


model = hk.without_apply_rng(hk.transform_with_state(forward))


@jax.jit
def update(params, state, x, is_training):
    out, state = model.apply(params, state, x, is_training)
    return jnp.mean(out), state


params, state = model.init(jax.random.PRNGKey(0), jnp.ones(3), True)
update(params, state, jnp.ones(3), True)
"""

HK_STATIC_FLAG = """
import functools
import haiku as hk
import jax


class Net(hk.Module):
    def __call__(self, x, is_training):
        if is_training:
            x = x * 0.5
        return x


def forward(x, is_training):
    return Net()(x, is_training)


model = hk.transform(forward)


@functools.partial(jax.jit, static_argnums=3)
def loss(params, rng, x, is_training):
    return model.apply(params, rng, x, is_training).sum()
"""

EQX_STATIC_SELF = """
import functools
import jax
import jax.numpy as jnp
import equinox as eqx


class Memory(eqx.Module):
    buffer: jax.Array


class Proc(eqx.Module):
    memory: Memory
    n: int = eqx.field(static=True)

    @functools.partial(jax.jit, static_argnames=["self"])  # error: JIT110
    def run(self, x):
        return self.memory.buffer * x


class Layered(eqx.Module):
    net: eqx.nn.MLP

    @functools.partial(jax.jit, static_argnums=0)  # error: JIT110
    def run(self, x):
        return self.net(x)


class OnlyStatic(eqx.Module):
    n: int = eqx.field(static=True)

    @functools.partial(jax.jit, static_argnames=["self"])
    def run(self, x):
        return x * self.n


class Hashed(eqx.Module):
    w: jax.Array

    def __hash__(self):
        return id(self)

    @functools.partial(jax.jit, static_argnames=["self"])
    def run(self, x):
        return self.w * x
"""

# A base from another file: only the fields say it is an equinox module (a warning).
EQX_IMPORTED_BASE = """
import functools
import jax
import equinox as eqx
from .core import ProcessorBase


class Proc(ProcessorBase):
    net: eqx.nn.MLP

    @functools.partial(jax.jit, static_argnames=["self"])  # error: JIT110
    def run(self, x):
        return self.net(x)


class Plain(ProcessorBase):
    size: int

    @functools.partial(jax.jit, static_argnames=["self"])
    def run(self, x):
        return x * self.size
"""

ANNOTATED_STATIC = """
import jax
from typing import List, Optional


def step(x, names: List[str], order: list, keys: tuple, flag: Optional[float] = None):
    return x


fast = jax.jit(step, static_argnums=(1, 2))  # error: JIT110
tuples = jax.jit(step, static_argnums=(3,))
"""

OPTIONAL_SCALAR = """
import functools
import jax
from typing import Optional


@jax.jit
def run(x, timestamp: Optional[float] = None, scale: float | None = None, tag=None):
    t = timestamp or 0.0  # error: JIT101
    s = scale or 1.0  # error: JIT101
    u = tag or 0.0
    return x * s + t + u


@functools.partial(jax.jit, static_argnames=["timestamp"])
def static_run(x, timestamp: Optional[float] = None):
    return x + (timestamp or 0.0)
"""

AND_CHAIN = """
import jax
import jax.numpy as jnp


def finite(s):
    return jnp.all(jnp.isfinite(s))


def has_rank(s):
    return s.ndim >= 1


@jax.jit
def valid(state):
    return (has_rank(state) and  # error: JIT101
            finite(state) and
            has_rank(state))


@jax.jit
def shapes_only(state):
    return has_rank(state) and has_rank(state) and state.shape[0] > 1
"""

LINEN_APPLY = """
import flax.linen as nn
import jax
import jax.numpy as jnp


class Block(nn.Module):
    features: int
    rate: float

    @nn.compact
    def __call__(self, x, training):
        y = nn.Dense(self.features)(x)
        if training:  # error: JIT101
            y = y * 0.5
        if self.features > 2:
            y = y * 2
        return y

    def scale(self, x):
        if self.rate > 0.1:  # error: JIT101
            return x
        return x * 2


block = Block(3, 0.2)
variables = block.init(jax.random.PRNGKey(0), jnp.ones((2, 3)), False)
apply = jax.jit(block.apply)
print(apply(variables, jnp.ones((2, 3)), True))


@jax.jit
def init_with_traced_rate(x, layer):
    rate = jnp.minimum(0.05 * layer, 0.3)
    return Block(3, rate).init(jax.random.PRNGKey(0), x, False, method="scale")
"""

# The module and the haiku pair are Python objects, not pytrees of arrays.
NOT_PYTREES = """
import flax.linen as nn
import haiku as hk
import jax
import jax.numpy as jnp


class Classifier(nn.Module):
    n: int

    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.n)(x)


@jax.jit
def eval_step(model, params, x):
    return model.apply({"params": params}, x)


def evaluate(model, params, x):
    return eval_step(model, params, x)  # error: JIT111


model = Classifier(3)
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 2)))["params"]
evaluate(model, params, jnp.ones((1, 2)))

net = hk.transform(lambda x: hk.Linear(1)(x))


@jax.jit
def fit(pair, params, x):
    return pair.apply(params, None, x)


def closed(params, x):
    return net.apply(params, None, x)


fit(net, None, jnp.ones(2))  # error: JIT111
jax.jit(closed)(None, jnp.ones(2))
"""

# Arguments jax.grad does not differentiate pass through as they are: a tracer from the
# enclosing jit stays one.
GRAD_PASSTHROUGH = """
import jax
import jax.numpy as jnp


def loss(w, x, flag):
    if flag:  # error: JIT101
        return jnp.sum(w * x)
    return jnp.sum(w)


@jax.jit
def step(w, x, flag: bool):
    return jax.grad(loss)(w, x, flag)


def plain(w, x):
    return jax.grad(loss)(w, x, True)
"""


@pytest.mark.parametrize(
    "source",
    [
        HK_STANDALONE,
        HK_EAGER_APPLY,
        HK_FACTORY_ONLY,
        HK_JITTED_APPLY,
        HK_STATIC_FLAG,
        EQX_STATIC_SELF,
        EQX_IMPORTED_BASE,
        ANNOTATED_STATIC,
        OPTIONAL_SCALAR,
        AND_CHAIN,
        LINEN_APPLY,
        NOT_PYTREES,
        GRAD_PASSTHROUGH,
    ],
    ids=[
        "hk-standalone",
        "hk-eager-apply",
        "hk-factory-only",
        "hk-jitted-apply",
        "hk-static-flag",
        "eqx-static-self",
        "eqx-imported-base",
        "annotated-static",
        "optional-scalar",
        "and-chain",
        "linen-apply",
        "not-pytrees",
        "grad-passthrough",
    ],
)
def test_framework_shapes(source: str) -> None:
    assert found(source, CODES) == expected(source)


def test_imported_base_is_a_warning() -> None:
    from jitlint.engine.linter import lint_text

    result = lint_text(EQX_IMPORTED_BASE, "case.py", {"JIT110"})
    assert [d.severity for d in result.diagnostics] == ["warning"]
    assert "ProcessorBase" in result.diagnostics[0].message


def test_haiku_message_names_the_transform() -> None:
    from jitlint.engine.linter import lint_text

    result = lint_text(HK_STANDALONE, "case.py", {"JIT101"})
    (diagnostic,) = result.diagnostics
    assert "`model_fn`, which `jax.jit(net.apply)` traces at line" in diagnostic.message


OPTAX_NORM = """
import jax
import jax.numpy as jnp
import optax


@jax.jit
def step(grads):
    norm = optax.global_norm(grads)
    return float(norm)  # error: JIT102


def report(grads):
    return float(optax.global_norm(grads))
"""


def test_optax_results_are_traced() -> None:
    assert found(OPTAX_NORM, CODES) == expected(OPTAX_NORM)


@pytest.mark.jax
def test_optax_array_results_are_tracers_under_jit() -> None:
    """Each name in frameworks/optax.py returns a tracer inside jax.jit."""
    jax = pytest.importorskip("jax")
    optax = pytest.importorskip("optax")
    import jax.numpy as jnp

    from jitlint.model.jax.frameworks.optax import ARRAY_RESULTS

    one = jnp.ones(3)
    calls = {
        "global_norm": lambda x: optax.global_norm({"a": x}),
        "tree.norm": lambda x: optax.tree.norm({"a": x}),
        "safe_norm": lambda x: optax.safe_norm(x, 1e-6),
        "safe_root_mean_squares": lambda x: optax.safe_root_mean_squares(x, 1e-6),
        "sigmoid_binary_cross_entropy": lambda x: optax.sigmoid_binary_cross_entropy(x, x),
        "softmax_cross_entropy_with_integer_labels": lambda x: (
            optax.softmax_cross_entropy_with_integer_labels(x[None], jnp.array([0]))
        ),
        "l2_loss": lambda x: optax.l2_loss(x),
    }
    names = {name.split(".", 1)[1] for name in ARRAY_RESULTS}
    for name in names:
        func = calls.get(name, lambda x, name=name: getattr(optax, name)(x, x))
        kinds = []

        def probe(x, func=func, kinds=kinds):
            kinds.append(isinstance(func(x), jax.core.Tracer))
            return x

        jax.jit(probe)(one)
        assert kinds == [True], name


STATIC_ARRAY_FIELDS = """
import equinox as eqx
import flax.struct
import jax
import jax.numpy as jnp


class Observations(eqx.Module):
    data: jax.Array = eqx.field(static=True)  # error: JIT110
    size: int = eqx.field(static=True)
    weights: jax.Array = eqx.field(static=False)


@flax.struct.dataclass
class State:
    table: jnp.ndarray = flax.struct.field(pytree_node=False)  # error: JIT110
    step: int = flax.struct.field(pytree_node=False)


step = jax.jit(lambda state: state.step)
"""


def test_static_array_fields() -> None:
    assert found(STATIC_ARRAY_FIELDS, CODES) == expected(STATIC_ARRAY_FIELDS)


HK_COMPILED_APPLY = """
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np


class Block(hk.Module):
    def __call__(self, x):
        return x + hk.Linear(x.shape[-1])(x)


class Encoder(hk.Module):
    def __init__(self, n):
        super().__init__()
        self.scale = float(np.random.uniform(0.5, 1.5))  # error: JIT107
        self.blocks = [Block() for _ in range(n)]

    def __call__(self, x):
        def body(i, h):
            return self.blocks[i](h)  # error: JIT102

        return jax.lax.fori_loop(0, len(self.blocks), body, x) * self.scale


model = hk.transform(lambda x: Encoder(3)(x))
apply = jax.jit(model.apply)
apply(None, None, jnp.ones((2, 3)))
"""


def test_jitted_haiku_apply() -> None:
    codes = CODES | {"JIT107"}
    assert found(HK_COMPILED_APPLY, codes) == expected(HK_COMPILED_APPLY)


# `jax.grad(f)` of a jitted `f`: the jit's own static spec still decides (a tracer from
# the enclosing jit reaching a static parameter cannot be hashed).
GRAD_OF_JITTED = """
import functools
import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(2,))
def model_loss(params, x, is_training):
    return jnp.mean(params * x), 0


@jax.jit
def update(params, x, is_training):
    grads, _ = jax.grad(model_loss, has_aux=True)(params, x, is_training)  # error: JIT110
    return grads


@jax.jit
def update_static(params, x):
    grads, _ = jax.grad(model_loss, has_aux=True)(params, x, True)
    return grads


update(jnp.ones(3), jnp.ones(3), True)
update_static(jnp.ones(3), jnp.ones(3))
"""


def test_grad_of_jitted_keeps_static_spec() -> None:
    from jitlint.engine.linter import lint_text

    assert found(GRAD_OF_JITTED, CODES) == expected(GRAD_OF_JITTED)
    (diagnostic,) = lint_text(GRAD_OF_JITTED, "case.py", {"JIT110"}).diagnostics
    assert "passes a tracer" in diagnostic.message


NNX_LIST_INDEX = """
import jax
import jax.numpy as jnp
from flax import nnx


class PerStep(nnx.Module):
    def __init__(self, n, rngs):
        self.n = n
        self.layers = nnx.List([nnx.Linear(2, 2, rngs=rngs) for _ in range(n)])

    def __call__(self, x, t):
        if self.n > 2:
            x = x * 2
        return self.layers[t](x)  # error: JIT102


@nnx.jit
def predict(model, x, t):
    return model(x, t)


model = PerStep(3, nnx.Rngs(0))
predict(model, jnp.ones((1, 2)), jnp.array(1))
"""


def test_nnx_jit_keeps_the_graph_static() -> None:
    assert found(NNX_LIST_INDEX, CODES) == expected(NNX_LIST_INDEX)


EQX_PARTITION = """
import equinox as eqx
import jax
import jax.numpy as jnp


class Block(eqx.Module):
    weight: jax.Array
    rate: float
    depth: int

    def __init__(self, rate=0.1):
        self.weight = jnp.ones(4)
        self.rate = rate
        self.depth = 2

    def __call__(self, x):
        if self.rate > 0:  # error: JIT101
            x = x * (1.0 - self.rate)
        return self.weight * x


@jax.jit
def forward(params, static, x):
    return eqx.combine(params, static)(x)


block = Block()
params, static = eqx.partition(block, eqx.is_array_like)
forward(params, static, jnp.ones(4))
"""


def test_eqx_partition_and_combine() -> None:
    assert found(EQX_PARTITION, CODES) == expected(EQX_PARTITION)


# A scalar parameter with a real default is most often left at it: not traced.
DEFAULT_SCALAR = """
import jax


@jax.jit
def loss(x, apply_softmax: bool = True, blank_id: int = 0):
    if apply_softmax:
        x = jax.nn.softmax(x)
    return x[blank_id]
"""


def test_scalar_with_a_default_is_not_traced() -> None:
    assert found(DEFAULT_SCALAR, CODES) == set()


# `nn.checkpoint` counts the module as argument 0: static_argnums=(1,) is `x`.
LINEN_CHECKPOINT = """
import flax.linen as nn
import jax
import jax.numpy as jnp


class Block(nn.Module):
    width: int

    @nn.compact
    def __call__(self, x, deterministic):
        if not deterministic:  # error: JIT101
            x = nn.Dropout(0.1)(x, deterministic=False)
        return nn.Dense(self.width)(x)


class Fixed(nn.Module):
    @nn.compact
    def __call__(self, x, deterministic):
        if not deterministic:
            x = x * 0.5
        return x


class Encoder(nn.Module):
    @nn.compact
    def __call__(self, x, deterministic):
        x = nn.checkpoint(Block, static_argnums=(1,))(width=4)(x, deterministic)
        return nn.checkpoint(Fixed, static_argnums=(2,))()(x, deterministic)


Encoder().init(jax.random.PRNGKey(0), jnp.ones((2, 4)), True)
"""


def test_linen_checkpoint_counts_the_module() -> None:
    assert found(LINEN_CHECKPOINT, CODES) == expected(LINEN_CHECKPOINT)


# `check and jnp.all(x)`: whenever the Python check passes, the value is the tracer.
AND_RETURNS_TRACER = """
import jax
import jax.numpy as jnp


def valid(state, dim):
    return state.ndim == 1 and state.shape[0] == dim and jnp.all(jnp.isfinite(state))


def shapes(state, dim):
    return state.ndim == 1 and state.shape[0] == dim


@jax.jit
def step(state):
    if not valid(state, 3):  # error: JIT101
        state = state * 0
    if not shapes(state, 3):
        state = state * 2
    return state
"""


def test_and_chain_value_is_its_tracer() -> None:
    assert found(AND_RETURNS_TRACER, CODES) == expected(AND_RETURNS_TRACER)


LAYER_SIZES = """
import flax.linen as nn
import jax
import jax.numpy as jnp


class Policy(nn.Module):
    sizes: tuple
    out: int

    @nn.compact
    def __call__(self, x):
        for size in self.sizes:
            x = nn.Dense(size)(x)  # error: JIT103
        return nn.Dense(self.out)(x)


@jax.jit
def make(rng, obs, sizes):
    return Policy(sizes=sizes, out=2).init(rng, obs)


make(jax.random.PRNGKey(0), jnp.ones((1, 3)), (4, 4))
"""


def test_layer_sizes_must_be_static() -> None:
    assert found(LAYER_SIZES, CODES) == expected(LAYER_SIZES)


def test_layer_size_parameters_match_the_installed_signatures() -> None:
    import importlib
    import inspect

    from jitlint.model.domain.plugins import shape_params

    assert len(shape_params()) >= 13  # every plug-in's layers
    for qualname, (positions, keywords) in shape_params().items():
        module, _, name = qualname.rpartition(".")
        try:
            target = getattr(importlib.import_module(module), name)
        except ImportError:
            continue
        signature = inspect.signature(target.__init__ if "nnx" in module else target)
        names = [p for p in signature.parameters if p != "self"]
        assert [names[i] for i in positions] == list(keywords), qualname
