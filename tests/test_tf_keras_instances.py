"""Keras instances followed through the project (model/domain/instances.py, keras.py
`instances_called_directly`, tf_outbound.py's "inst"/"hand" records): a class whose every
instance is only called in eager code runs no graph code; any use not followed keeps
Keras' contract that its `call` is graph code (issues 28 and 29)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from test_project import check, where, write

from jitlint.api import lint_source

NETS = """\
import tensorflow as tf
from tensorflow import keras


class Policy(keras.Model):
    def build(self, shape):
        self.dense = keras.layers.Dense(2)

    def call(self, x):
        out = self.dense(x)
        print(x.numpy())
        return out


def train_policy(model, x, steps):
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(x))
        tape.gradient(loss, model.trainable_variables)
"""
MAIN = """\
import tensorflow as tf
from pkg.nets import Policy, train_policy


def train(x, policy=None):
    if policy is None:
        policy = Policy()
    train_policy(policy, x, steps=3)
    {extra}
    return x, policy


def main():
    x = tf.ones((1, 3))
    hidden, net = train(x)
    _, _ = train(hidden, policy=net)


main()
"""


def run(root: Path, extra: str = "", **more: str) -> list[tuple[object, object, object]]:
    files = {"pkg/__init__.py": "", "pkg/nets.py": NETS, "pkg/main.py": MAIN.format(extra=extra)}
    files.update(more)
    status, found, err = check(write(root, files), "pkg")
    assert status in (0, 1), err
    return [site for site in where(found) if site[2] == "JIT204"]


FINDING = [("pkg/nets.py", 11, "JIT204")]


def test_an_instance_passed_to_the_classs_module_and_called_eagerly(tmp_path: Path) -> None:
    # Made in `train`, returned to `main` and passed back, handed to `train_policy` of the
    # class's module, called there under a plain GradientTape: eager only.
    assert run(tmp_path) == []


def test_fit_on_an_instance_keeps_the_contract(tmp_path: Path) -> None:
    assert run(tmp_path, extra="policy.fit(x, x)") == FINDING


def test_an_instance_called_in_a_tf_function_keeps_the_contract(tmp_path: Path) -> None:
    extra = "tf.function(lambda t: policy(t))(x)"
    assert run(tmp_path, extra=extra) == FINDING


def test_another_maker_that_is_not_followed_keeps_the_contract(tmp_path: Path) -> None:
    other = """\
    from tensorflow import keras
    from pkg.nets import Policy

    model = keras.Sequential([Policy()])
    """
    assert run(tmp_path, **{"pkg/serve.py": textwrap.dedent(other)}) == FINDING


def test_a_module_that_builds_symbolic_inputs_keeps_the_contract(tmp_path: Path) -> None:
    extra = "tf.keras.Input(shape=(3,))"
    assert run(tmp_path, extra=extra) == FINDING


def test_a_subclassed_class_keeps_the_contract(tmp_path: Path) -> None:
    # The subclass's instances run `Policy.call` too, and are not followed.
    nets = NETS + "\n\nclass Bigger(Policy):\n    pass\n"
    assert run(tmp_path, **{"pkg/nets.py": nets}) == FINDING


def test_the_classs_module_alone_keeps_the_contract(tmp_path: Path) -> None:
    # Linted on its own, nothing says where instances go: a library class.
    assert [d.code for d in lint_source(NETS, "pkg/nets.py")] == ["JIT204"]


ONE_FILE = """\
import tensorflow as tf
from tensorflow import keras


class Policy(keras.Model):
    def call(self, x):
        print(x.numpy())
        return x


def step(model, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x))
    return tape.gradient(loss, model.trainable_variables)


def make(path):
    net = Policy()
    if path:
        net.load_weights(path)
    return net


def main():
    model = make(None)
    step(model, tf.ones((1, 3)))
{more}
"""


def codes(source: str) -> list[str]:
    return [d.code for d in lint_source(source, "m.py")]


def test_one_file_instances_through_returns_and_parameters() -> None:
    assert codes(ONE_FILE.format(more="")) == []


def test_one_file_a_graph_caller_of_the_parameter_makes_it_a_root() -> None:
    more = "\n@tf.function\ndef graph_step(x):\n    return step(make(None), x)\n"
    assert codes(ONE_FILE.format(more=more)) == ["JIT204"]


def test_one_file_a_block_builder_keeps_the_contract() -> None:
    # Made here, called on the function's own input, the output returned: a functional
    # model may be built on it.
    more = "\ndef block(features):\n    layer = Policy()\n    out = layer(features)\n"
    more += "    return out\n"
    assert codes(ONE_FILE.format(more=more)) == ["JIT204"]


def test_one_file_an_instance_put_in_a_container_keeps_the_contract() -> None:
    more = "\nmodels = [make(None)]\n"
    assert codes(ONE_FILE.format(more=more)) == ["JIT204"]


TRAINER = """\
class Trainer:
    def __init__(self, model):
        self.model = model

    def fit_steps(self, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(self.model(x))
        {last}


def run():
    trainer = Trainer(make(None))
    trainer.fit_steps(tf.ones((1, 3)))
"""


def test_one_file_an_instance_kept_on_self_and_called_eagerly() -> None:
    last = "return tape.gradient(loss, self.model.trainable_variables)"
    assert codes(ONE_FILE.format(more=TRAINER.format(last=last))) == []


def test_one_file_an_instance_kept_on_self_and_fitted_keeps_the_contract() -> None:
    last = "self.model.fit(x, x)"
    assert codes(ONE_FILE.format(more=TRAINER.format(last=last))) == ["JIT204"]


def test_one_file_an_attribute_a_subclass_may_use_keeps_the_contract() -> None:
    last = "return tape.gradient(loss, self.model.trainable_variables)"
    more = TRAINER.format(last=last) + "\n\nclass Fitting(Trainer):\n    pass\n"
    assert codes(ONE_FILE.format(more=more)) == ["JIT204"]


# An instance given positionally past a callee's named parameters lands in its `*args`:
# nothing follows it there, so it escapes (and the follower must not index past them).
STARRED_CALLEES = {
    "a constructor": "class Holder:\n    def __init__(self, *parts):\n        self.parts = parts\n"
    "\n\nholder = Holder(make(None))\n",
    "a constructor, after a named one": "class Pair:\n    def __init__(self, first, *rest):\n"
    "        self.rest = rest\n\n\npair = Pair(1, make(None))\n",
    "a function": "def keep(*items):\n    return items\n\n\nkept = keep(make(None))\n",
    # `model` is keyword-only: the second positional argument is collected by `*rest`.
    "a function with a keyword-only parameter after them": "def keep(first, *rest, model=None):"
    "\n    return rest\n\n\nkept = keep(1, make(None))\n",
    "a constructor with a keyword-only parameter after them": "class Box:\n"
    "    def __init__(self, *parts, model=None):\n        self.parts = parts\n\n\n"
    "box = Box(make(None))\n",
}


@pytest.mark.parametrize("callee", sorted(STARRED_CALLEES))
def test_one_file_an_instance_given_to_starred_parameters_keeps_the_contract(
    callee: str,
) -> None:
    assert codes(ONE_FILE.format(more=STARRED_CALLEES[callee])) == ["JIT204"]


def test_an_eager_only_layer_keeps_its_input_dtype() -> None:
    # Keras casts `call`'s inputs to the layer's dtype eagerly too: the float32 constant
    # still meets a float64 input (a dtype hazard), while `.numpy()` runs eagerly.
    source = """\
import tensorflow as tf


class Potential(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__(dtype="float64")

    def call(self, x):
        print(x.numpy())
        return x - tf.constant([0.5, 1.0])


def main():
    layer = Potential()
    layer(tf.ones((2, 2), tf.float64))
"""
    assert codes(source) == ["JIT201"]
