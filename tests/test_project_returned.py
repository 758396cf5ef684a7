"""Returned values across files (model/jax/crossfile/returned.py): a factory of one module returns
a jitted step, a partial or a NamedTuple of lists, and the module that calls it from Python
uses the value as if the factory were its own."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from test_project import check, where, write

from jitlint.model.domain.classes import Classes
from jitlint.model.jax.crossfile import returned
from jitlint.python.names import Names

BATCHES = """
from typing import List, NamedTuple


class Batch(NamedTuple):
    x: object
    names: List[str]
    order: List[str]


def make_batch(x):
    order = ["a", "b"]
    return Batch(x, [n for n in order], order=list(order))


def make_plain(x):
    return Batch(x, ("a",), order=("b",))
"""

TRAIN = """
import jax


def make_step(scale):
    def step(x, names, order):
        return x * scale

    return jax.jit(step, static_argnums=(1, 2)), scale


def make_decorated():
    @partial(jax.jit, static_argnames=("names",))
    def step(x, names):
        return x

    return step
"""

MAIN = """
from .batches import make_batch, make_plain
from .train import make_step


def main(x):
    batch = make_batch(x)
    step, _ = make_step(2.0)
    step(batch.x, batch.names, batch.order)
    plain = make_plain(x)
    step(plain.x, plain.names, plain.order)
    step(batch.x, tuple(batch.names), ("b",))


main(1.0)
"""


def _files(main: str = MAIN) -> dict[str, str]:
    return {
        "pkg/__init__.py": "",
        "pkg/batches.py": BATCHES,
        "pkg/train.py": "from functools import partial\n" + TRAIN,
        "pkg/main.py": main,
    }


def test_jitted_step_from_a_factory_with_lists_from_another_factory(tmp_path):
    root = write(tmp_path, _files())
    _, found, err = check(root)
    assert err == ""
    # The lists of `make_batch`'s NamedTuple go to the static positions; tuples do not.
    assert where(found) == [("pkg/main.py", 9, "JIT110"), ("pkg/main.py", 9, "JIT110")]
    message = found[0]["message"]
    assert "`names` is a static argument of `step`, which `train.make_step` (" in message
    assert "pkg/train.py) returns jitted, but this call passes a list" in message


def test_decorated_local_def_returned_by_name(tmp_path):
    main = """
from .train import make_decorated


def main(x):
    step = make_decorated()
    step(x, names=["a"])
    step(x, names=("a",))


if __name__ == "__main__":
    main(1.0)
"""
    root = write(tmp_path, _files(main))
    _, found, err = check(root)
    assert err == ""
    assert where(found) == [("pkg/main.py", 7, "JIT110")]


def test_one_file_alone_knows_nothing_of_the_factories(tmp_path):
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/main.py": MAIN})
    _, found, _ = check(root)
    assert where(found) == []


GENERIC = """
import functools

from .impl.reference import energy


class Potential:
    def __init__(self, cutoff):
        self.cutoff = cutoff

    def to_reference(self):
        return functools.partial(energy, cutoff=self.cutoff)

    def to_own(self):
        return functools.partial(local_energy, cutoff=self.cutoff)


def local_energy(x, cutoff):
    assert (x > cutoff).all()
    return x.sum()
"""

REFERENCE = """
def energy(x, cutoff, validate=True):
    if validate:
        assert (x > cutoff).all(), "too close"
    return x.sum()
"""

RUN = """
import jax
import jax.numpy as jnp

from .generic import Potential


def main():
    potential = Potential(cutoff=1.0)
    ref = potential.to_reference()
    print(jax.jit(ref)(jnp.ones(3)))
    own = potential.to_own()
    print(jax.jit(own)(jnp.ones(3)))


main()
"""


def _potential(tmp_path: Path, reference: str = REFERENCE) -> Path:
    files = {"pkg/__init__.py": "", "pkg/generic.py": GENERIC, "pkg/impl/__init__.py": ""}
    return write(tmp_path, {**files, "pkg/impl/reference.py": reference, "pkg/run.py": RUN})


def test_partial_returned_by_a_method_of_another_module_is_jitted(tmp_path):
    root = _potential(tmp_path)
    _, found, err = check(root)
    assert err == ""
    # The partial's target is found from run.py through generic.py's own import; the
    # second partial names a def of generic.py itself.
    assert where(found) == [
        ("pkg/generic.py", 19, "JIT101"),
        ("pkg/impl/reference.py", 4, "JIT101"),
    ]
    assert "pkg/run.py:11" in found[1]["message"]


def test_partial_bound_argument_is_not_traced(tmp_path):
    # `cutoff` is bound by the partial, so jit closes over it: a Python value, not a tracer.
    root = _potential(tmp_path, REFERENCE.replace("(x > cutoff)", "(cutoff > 0)"))
    _, found, err = check(root)
    assert err == ""
    assert where(found) == [("pkg/generic.py", 19, "JIT101")]


def _exports(source: str) -> dict[str, str]:
    names = Names(cst.parse_module(source))
    return {r.target: r.status for r in returned.exports(names, Classes(names))}


def test_exports_only_what_the_text_shows():
    facts = _exports(BATCHES + "from functools import partial\n" + TRAIN + GENERIC)
    assert sorted(facts) == [
        "Potential.to_own", "Potential.to_reference", "make_batch", "make_decorated", "make_step",
    ]  # fmt: skip
    # A tuple or NamedTuple of tuples, a plain value, an unknown call: nothing to export.
    assert _exports("def f(x):\n    return x, g(x)\n") == {}
    # Options that name a constant of the module would mean something else elsewhere.
    named = """
import jax
S = (1,)
def f():
    def g(x, y):
        return x
    return jax.jit(g, static_argnums=S)
"""
    assert _exports(named) == {}
    # Two returns that differ: not one value.
    two = """
import jax
def f(a):
    def g(x):
        return x
    if a:
        return jax.jit(g)
    return jax.jit(g, static_argnums=0)
"""
    assert _exports(two) == {}


def test_respelled_for_the_importing_file(tmp_path):
    fact = returned.VALUE_FACT + '{"args":0,"keywords":[],"partial":"@f"}'
    importer = str(tmp_path / "pkg" / "sub" / "run.py")
    exporter = str(tmp_path / "pkg" / "model.py")
    spelled = returned.respell(fact, lambda path, target: None, exporter, importer)
    assert spelled == returned.VALUE_FACT + '{"args":0,"keywords":[],"partial":"..model.f"}'
    # A target that does not resolve, or names the importing file itself: not sent.
    relative = returned.VALUE_FACT + '{"args":0,"keywords":[],"partial":".x.f"}'
    assert returned.respell(relative, lambda path, target: None, exporter, importer) is None
    own = returned.respell(fact, lambda path, target: None, importer, importer)
    assert own is None


METRICS = """
import functools


def accuracy(logits, labels, normalise=True):
    if normalise:
        total = labels.sum()
        if total > 0:
            return (logits.argmax(-1) == labels).sum() / total
    return (logits.argmax(-1) == labels).sum()


class Model:
    def get_metrics_fn(self):
        return functools.partial(accuracy, normalise=True)
"""

STEP = """
import jax

from .metrics import Model


def main(batch):
    model = Model()
    metrics_fn = model.get_metrics_fn()

    @jax.jit
    def step(logits, labels):
        return metrics_fn(logits, labels)

    return step(batch["x"], batch["y"])


if __name__ == "__main__":
    main({})
"""


def test_partial_returned_by_another_module_called_from_traced_code(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/metrics.py": METRICS, "pkg/train.py": STEP}
    _, found, err = check(write(tmp_path, files))
    assert err == ""
    # `normalise` is bound by the partial (a Python value); `labels` is traced.
    assert where(found) == [("pkg/metrics.py", 8, "JIT101")]
    assert "`step` (pkg/train.py:13), compiled by `jax.jit`" in found[0]["message"]


def test_facts_go_only_where_the_name_is_called(tmp_path):
    from jitlint.model.project.files import ProjectFiles, _value_facts

    paths = {name: str(tmp_path / name) for name in ("lib.py", "uses.py", "imports.py")}
    project = ProjectFiles.build(((p, n) for n, p in paths.items()), None)
    step = returned.VALUE_FACT + '{"def":"def s(x): ...","jit":"jax.jit","options":""}'
    batch = returned.VALUE_FACT + '{"fields":{"a":{"seq":"list"}},"kind":"dataclass","object":"B"}'
    exports = {paths["lib.py"]: {"make_step": step, "make_batch": batch}}
    reexports = {
        paths["uses.py"]: {"make_step": ".lib.make_step", "make_batch": ".lib.make_batch"},
        paths["imports.py"]: {"make_step": ".lib.make_step", "make_batch": ".lib.make_batch"},
    }
    texts = {
        paths["uses.py"]: b"step = make_step()\nb = make_batch()\n",
        paths["imports.py"]: b"b = make_batch ()\n# make_step is imported, never called\n",
    }
    sent = _value_facts(project, exports, reexports, texts.__getitem__)
    got = sorted((n, r.function) for p, r in sent for n in paths if paths[n] == p)
    # `imports.py` calls make_batch, but has no static argument for its lists to reach.
    assert got == [("uses.py", ".lib.make_batch"), ("uses.py", ".lib.make_step")]
    # Without the texts (a caller that has none) every importing file gets every fact.
    assert len(_value_facts(project, exports, reexports)) == 4


def test_an_instance_exports_the_fields_declared_a_builtin_scalar():
    source = """
from typing import NamedTuple, Optional


class Context(NamedTuple):
    num_graphs: int
    scale: float
    num_heads: Optional[int]
    label: object
    name: str
    count: int = None


def prepare(data, heads=None):
    return Context(len(data), 1.0, heads, data, name=None, count=len(data))
"""
    facts = _exports(source)
    # Not `name`: given None whatever it is declared, nor the Optional and plain fields, nor
    # `count`, whose None default says None is one of its values.
    value = '{"fields":{"num_graphs":{"scalar":"int"},"scale":{"scalar":"float"}}'
    assert facts == {"prepare": returned.VALUE_FACT + value + ',"kind":"namedtuple",'
                     '"object":"Context"}'}  # fmt: skip
    decoded = returned.decode(facts["prepare"], cst.Name("prepare"))
    assert repr(decoded.fields["num_graphs"]) == "Scalar(int, ?)"  # type: ignore[attr-defined]
