"""A pair of functions (`hk.transform(f)`) as a value that travels between files: a factory
returns it (crossfile/returned.py), a script passes it from Python to a step builder of another
module (records.CallRecord's `values`), and that module's traced code calls the pair's
`apply`: the factory's function runs there, traced with the arguments `apply` passes."""

from __future__ import annotations

import libcst as cst
from test_project import check, where, write

from jitlint.model.domain.classes import Classes
from jitlint.model.jax.crossfile import returned
from jitlint.model.jax.crossfile.records import RETURNED, CallRecord, Inbound, given_values
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


LIBRARY_NETS = """
import haiku as hk
import jax.numpy as jnp


class Scorer(hk.Module):
    def __call__(self, x):
        if jnp.mean(x) > 0:  # error: JIT101
            return x
        return -x


def make_net():
    def forward(x):
        return Scorer()(x)

    return hk.transform(forward)
"""


def test_pair_that_leaves_the_run_keeps_the_contract(tmp_path):
    # Nothing of the run calls the factory: its pair leaves the run, as a library's does,
    # and haiku's users compile `apply` with `jax.jit`: the module is traced by contract.
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/nets.py": LIBRARY_NETS})
    _, found, err = check(root)
    assert err == ""
    assert where(found) == [("pkg/nets.py", 8, "JIT101")]
    assert "haiku modules run inside `hk.transform`" in str(found[0]["message"])


def test_pair_taken_by_an_eager_caller_stays_in_the_run(tmp_path):
    # Another file calls the factory and runs the pair in Python only: the run shows where
    # the pair goes (records.RETURNED), and nothing is traced.
    script = """
import jax
import jax.numpy as jnp

from pkg.nets import make_net

net = make_net()
key = jax.random.PRNGKey(0)
x = jnp.ones(3)
params = net.init(key, x)
print(net.apply(params, key, x))
"""
    files = {"pkg/__init__.py": "", "pkg/nets.py": LIBRARY_NETS, "pkg/run.py": script}
    root = write(tmp_path, files)
    _, found, err = check(root)
    assert err == ""
    assert where(found) == []


def test_pair_of_a_factory_the_file_calls_stays_in_the_run(tmp_path):
    nets = (
        NETS
        + """

net = make_net()
"""
    )
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/nets.py": nets})
    _, found, err = check(root)
    assert err == ""
    assert where(found) == []


def test_returned_marker_is_no_parameters_value():
    fact = returned.VALUE_FACT + '{"pair":"@make_net.forward","transform":"haiku.transform"}'
    call = Inbound("make_net", "pkg/run.py:3", "module code", "called from Python", 0,
                   (), False, values=((RETURNED, ""), (0, fact)))  # fmt: skip
    assert given_values(call) == ((0, fact),)


def test_pair_taken_through_a_local_import_stays_in_the_run(tmp_path):
    # A wrapper imports the factory in its own body (no return fact reaches it there): the
    # call still says the run shows a caller, and the module is not traced by contract.
    wrapper = """
import jax


def make_net_again():
    from pkg.nets import make_net as old_make

    return old_make()
"""
    files = {"pkg/__init__.py": "", "pkg/nets.py": LIBRARY_NETS, "pkg/wrap.py": wrapper}
    root = write(tmp_path, files)
    _, found, err = check(root)
    assert err == ""
    assert where(found) == []
