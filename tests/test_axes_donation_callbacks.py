"""The model queries behind JIT115/JIT118/JIT119: jit donation specs, the chains of
transformations from the module's code to a function, the axis names each binds, and the
generated facts they read."""

from __future__ import annotations

import libcst as cst
import pytest
from helpers import found
from test_tracing import _context, _find

from jitlint.model.context import FileContext
from jitlint.model.jax.jit import donation
from jitlint.model.jax.transforms import Application, axis_names_bound
from jitlint.model.library.jax_facts import axis_collective, axis_transform, importable_module
from jitlint.python.uses import first_use


def _chains(ctx: FileContext, name: str) -> list[list[str]]:
    func, _ = _find(ctx, lambda n: type(n) is cst.FunctionDef and n.name.value == name)
    trace = ctx.tracing.trace(func)
    assert trace is not None
    return [[a.transform.qualname for a in chain] for chain in ctx.tracing.call_chains(trace)]


def test_generated_axis_callback_and_module_facts():
    psum = axis_collective("jax.lax.psum")
    assert psum is not None and (psum.name, psum.position) == ("axis_name", 1)
    index = axis_collective("jax.lax.axis_index")
    assert index is not None and index.position == 0
    assert axis_collective("jax.numpy.sum") is None
    pmap, vmap, jit = (axis_transform(n) for n in ("jax.pmap", "jax.vmap", "jax.jit"))
    assert pmap is not None and pmap.binds_axis_name and ("axis_name", 1) in pmap.parameters
    assert vmap is not None and vmap.binds_axis_name
    assert jit is not None and not jit.parameters and not jit.binds_axis_name
    # Staged code drops an unused pure_callback; an eager vmap still runs it.
    assert jit.runs_unused_pure_callback is False
    assert vmap.runs_unused_pure_callback is True
    shard_map = axis_transform("jax.shard_map")
    assert shard_map is not None and "mesh" in dict(shard_map.parameters)
    assert importable_module("jax.experimental.host_callback") is False
    assert importable_module("no.such.module") is None


def test_donation_is_completed_through_the_signature():
    ctx = _context(
        """
        from functools import partial
        import jax

        @partial(jax.jit, donate_argnums=(0, -1))
        def step(state, batch, *, scale=1.0, cache=None):
            return state

        named = jax.jit(lambda a, b: a, donate_argnames="b")
        """
    )
    func, path = _find(ctx, lambda n: type(n) is cst.FunctionDef)
    spec = donation(ctx.jit.from_decorators(func, path))
    assert spec is not None
    assert spec.positions == {0, 1} and spec.names == {"state", "batch"}
    assert spec.donates(None, "batch") and not spec.donates(None, "scale")
    call, path = _find(
        ctx,
        lambda n: (
            type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value == "jit"
        ),
    )
    lambda_spec = donation(ctx.jit.from_call(call, path))
    assert lambda_spec is not None and lambda_spec.positions == {1}


def test_chains_follow_calls_from_the_module_and_skip_unknown_starts():
    ctx = _context(
        """
        from functools import partial
        import jax
        from jax import lax

        def helper(x):
            return lax.psum(x, "i")

        @partial(jax.pmap, axis_name="i")
        def step(x):
            return lax.scan(lambda c, r: (c, helper(r)), 0.0, x)[1]

        @jax.jit
        def never_called_here(x):
            return x

        def main(xs):
            return step(xs)

        main(None)
        """
    )
    assert _chains(ctx, "step") == [["jax.pmap"]]
    assert _chains(ctx, "helper") == [["jax.pmap", "jax.lax.scan"]]
    assert _chains(ctx, "never_called_here") == []  # applied here, called from elsewhere


def test_axis_names_bound_by_each_spelling():
    ctx = _context(
        """
        import jax
        jax.pmap(f, "x")
        jax.pmap(f, axis_name=("x", "y"))
        jax.vmap(f, 0, 0, "v")
        jax.vmap(f, axis_name=NAME)
        jax.shard_map(f, mesh=mesh, in_specs=P(), out_specs=P())
        jax.jit(f)
        """
    )
    results = []
    for statement in ctx.module.body[1:]:
        call = statement.body[0].value
        transform = ctx.tracing.discovery.resolve(call.func, [ctx.module, call])
        assert transform is not None
        results.append(axis_names_bound(Application(transform, tuple(call.args), call)))
    assert results == [{"x"}, {"x", "y"}, {"v"}, None, None, set()]


def test_first_use_ignores_metadata_and_stops_at_a_binding():
    module = cst.parse_module("print(a.shape, len(a), a is None)\na = 1\nprint(a)\n")
    first, second, third = module.body
    assert first_use(first, "a", {"shape"}, {"len"}) is None
    assert first_use(first, "a") is not None  # without the exemptions, a read
    assert first_use(second, "a") == "write"
    assert isinstance(first_use(third, "a"), cst.Name)


def test_jit119_is_silent_inside_flax_lifted_vmap():
    source = """
    import jax
    import jax.numpy as jnp
    import flax.linen as nn
    from jax import lax

    class Inner(nn.Module):
        @nn.compact
        def __call__(self, x):
            return x - lax.pmean(x, "batch")

    class Outer(nn.Module):
        @nn.compact
        def __call__(self, xs):
            vmapped = nn.vmap(Inner, in_axes=0, out_axes=0, axis_name="batch",
                              variable_axes={"params": None}, split_rngs={"params": False})
            return vmapped()(xs)

    model = Outer()
    xs = jnp.ones((4, 3))
    params = model.init(jax.random.key(0), xs)
    out = jax.jit(model.apply)(params, xs)
    """
    assert found(source, {"JIT119"}) == set()


def test_jit119_follows_nested_application_and_stacked_decorators():
    source = """
    import jax
    import jax.numpy as jnp
    from jax import lax

    def f(x):
        return lax.psum(x, "i")

    g = jax.jit(jax.pmap(f, axis_name="i"))
    g(jnp.ones((1, 2)))

    @jax.jit
    @jax.vmap
    def h(x):
        return lax.pmean(x, "j")

    h(jnp.ones((2, 2)))
    """
    assert found(source, {"JIT119"}) == {(15, "JIT119")}


def test_jit118_host_callback_is_a_warning_where_the_declared_jax_still_ships_it():
    from jitlint.engine.linter import lint_text
    from jitlint.model.library.versions import OPTIONS_KEY

    source = "from jax.experimental import host_callback as hcb\n"
    old = lint_text(source, "case.py", {"JIT118"}, {OPTIONS_KEY: {"jax": "0.4.30"}})
    new = lint_text(source, "case.py", {"JIT118"}, {OPTIONS_KEY: {"jax": "0.5.0"}})
    default = lint_text(source, "case.py", {"JIT118"})
    assert [(d.code, d.severity) for d in old.diagnostics] == [("JIT118", "warning")]
    assert [(d.code, d.severity) for d in new.diagnostics] == [("JIT118", "error")]
    assert [d.severity for d in default.diagnostics] == ["error"]  # the facts' jax 0.10.2


@pytest.mark.parametrize(
    ("upper", "expected"),
    [
        ("<=0.4.7", []),  # `jax==0.4.7`: no jax without the module can be installed
        ("<0.4.35", []),  # nothing past 0.4.34, the last release that shipped it
        ("<0.5", [("JIT118", "warning")]),  # 0.4.35 to 0.4.x lack it: it breaks there
        (None, [("JIT118", "warning")]),  # `jax>=0.4.7`: open above
    ],
)
def test_jit118_is_silent_where_the_declared_range_allows_no_jax_without_host_callback(
    upper, expected
):
    from jitlint.engine.linter import lint_text
    from jitlint.model.library.versions import OPTIONS_KEY, UPPER_KEY

    options = {"jax": "0.4.7"} | ({UPPER_KEY.format("jax"): upper} if upper else {})
    source = "from jax.experimental import host_callback as hcb\n"
    result = lint_text(source, "case.py", {"JIT118"}, {OPTIONS_KEY: options})
    assert [(d.code, d.severity) for d in result.diagnostics] == expected


def test_the_declared_jax_range_travels_as_its_upper_bound(tmp_path):
    from jitlint.config import ConfigResolver
    from jitlint.framework_versions import VersionResolver

    (tmp_path / "requirements.txt").write_text("jax==0.4.7\njaxlib==0.4.7\n")
    target = tmp_path / "pkg" / "m.py"
    options = VersionResolver().options(target, ConfigResolver(cwd=tmp_path).for_file(target))
    assert options["jax"] == "0.4.7" and options["jax-upper"] == "<=0.4.7"
    (tmp_path / "requirements.txt").write_text("jax>=0.4.7\n")
    options = VersionResolver().options(target, ConfigResolver(cwd=tmp_path).for_file(target))
    assert "jax-upper" not in options
