"""A pair of functions (`hk.transform(f)`) as a value that travels between files: a factory
returns it (crossfile/returned.py), a script passes it from Python to a step builder of another
module (records.CallRecord's `values`), and that module's traced code calls the pair's
`apply`: the factory's function runs there, traced with the arguments `apply` passes."""

from __future__ import annotations

import libcst as cst
from test_project import check, where, write

from jitlint.model.domain.classes import Classes
from jitlint.model.jax.crossfile import returned
from jitlint.model.jax.crossfile.records import CallRecord, Inbound
from jitlint.python.names import Names

NETS = """
import haiku as hk


class Scorer(hk.Module):
    def __call__(self, x):
        if x.mean() > 0:  # error: JIT101
            return x
        return -x


def make_net(scale=1.0):
    def forward(x):
        return Scorer()(x * scale)

    return hk.transform(forward)
"""

STEPS = """
import jax


def build_step(net):
    def step(params, key, x):
        return net.apply(params, key, x).sum()

    return jax.jit(step)
"""

SCRIPT = """
import jax
import jax.numpy as jnp

from pkg.nets import make_net
from pkg.steps import build_step

net = make_net()
key = jax.random.PRNGKey(0)
x = jnp.ones(3)
params = net.init(key, x)
step = build_step(net)
step(params, key, x)
"""


def _files(steps: str = STEPS, script: str = SCRIPT, nets: str = NETS) -> dict[str, str]:
    return {
        "pkg/__init__.py": "",
        "pkg/nets.py": nets,
        "pkg/steps.py": steps,
        "pkg/run.py": script,
    }


def test_pair_applied_in_another_files_jitted_closure(tmp_path):
    root = write(tmp_path, _files())
    _, found, err = check(root)
    assert err == ""
    assert where(found) == [("pkg/nets.py", 7, "JIT101")]
    message = str(found[0]["message"])
    assert "`forward`" in message
    assert "pkg/steps.py:7" in message


def test_pair_applied_only_eagerly_is_not_traced(tmp_path):
    # No jit on the path: `step` runs in Python, and so do `forward` and the module.
    eager = STEPS.replace("return jax.jit(step)", "return step")
    root = write(tmp_path, _files(steps=eager))
    _, found, err = check(root)
    assert err == ""
    assert where(found) == []


def test_pair_that_drops_the_rng_does_not_travel(tmp_path):
    # `without_apply_rng`'s `apply` takes no rng: the factory's return is not read, and the
    # step builder's `net` stays unknown (nothing is reported, nothing is misbound).
    nets = NETS.replace(
        "return hk.transform(forward)", "return hk.without_apply_rng(hk.transform(forward))"
    )
    root = write(tmp_path, _files(nets=nets))
    _, found, err = check(root)
    assert err == ""
    assert where(found) == []


def test_pair_of_the_scripts_own_function(tmp_path):
    # The script transforms a function of its own and hands the pair on: the step
    # builder's traced code runs it back in the script's file.
    script = """
import haiku as hk
import jax
import jax.numpy as jnp

from pkg.steps import build_step


def forward(x):
    if x.sum() > 0:
        return x
    return -x


net = hk.transform(forward)
step = build_step(net)
"""
    root = write(tmp_path, _files(script=script))
    _, found, err = check(root)
    assert err == ""
    assert where(found) == [("pkg/run.py", 10, "JIT101")]


def test_factory_exports_its_pair():
    names = Names(cst.parse_module(NETS))
    facts = {r.target: r.status for r in returned.exports(names, Classes(names))}
    assert facts == {
        "make_net": returned.VALUE_FACT
        + '{"pair":"@make_net.forward","transform":"haiku.transform"}'
    }


def test_call_record_values_survive_json():
    fact = returned.VALUE_FACT + '{"pair":".nets.make_net.forward","transform":"haiku.transform"}'
    record = CallRecord(".steps.build_step", 12, "module code", "called from Python", 0,
                        ((None, 2),), False, values=((0, fact),))  # fmt: skip
    assert CallRecord.from_json(record.to_json()) == record
    inbound = Inbound("build_step", "pkg/run.py:12", "module code", "called from Python", 0,
                      ((None, 2),), False, values=((0, fact),))  # fmt: skip
    assert inbound.to_json()[-1] == ((0, fact),)
