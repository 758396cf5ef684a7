from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.jax.api import lax_name
from jitlint.model.jax.transforms import Application, axis_names_bound, literal_axis_names
from jitlint.model.library.jax_facts import axis_collective, axis_transform
from jitlint.python.binding import keyword_argument, positional_argument
from jitlint.python.names import leaf_name
from jitlint.rules.base import Rule


class UnboundCollectiveAxis(Rule):
    """
    ## What it does
    Checks collectives that name an axis (`lax.psum`, `pmean`, `pmax`, `all_gather`,
    `ppermute`, `axis_index`, ... as jax's own signatures list them) against the
    transformations the model sees around them: on some chain of calls from the module's own
    code to the collective, every transformation is known, and none binds the axis name
    (`jax.pmap(f)` without `axis_name=`, or with another name; `jax.jit` binds none).

    ## Why is this bad
    Collectives reduce over an axis that an enclosing `pmap`, `vmap` or `shard_map` names.
    Without one, tracing stops:

    ```text
    NameError: Found an unbound axis name: batch. To fix this, please call psum under
    `jax.shard_map`.
    ```

    ## Example
    ```python
    import jax
    import jax.numpy as jnp
    from jax import lax


    def normalize(x):
        return x / lax.psum(x, "batch")  # error: JIT119


    def normalize_all(x):
        return jax.pmap(normalize)(x)


    normalize_all(jnp.ones((jax.local_device_count(), 3)))
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp
    from jax import lax


    def normalize(x):
        return x / lax.psum(x, "batch")


    def normalize_all(x):
        return jax.pmap(normalize, axis_name="batch")(x)


    normalize_all(jnp.ones((jax.local_device_count(), 3)))
    ```

    ## Fix safety
    When one name is missing and the chain has exactly one `jax.pmap` or `jax.vmap` applied
    by a call (`jax.pmap(f)`, `partial(jax.pmap, ...)`) that names no axis, the fix adds
    `axis_name="<name>"` to it. It is unsafe: it binds the name for every collective under
    that transformation, and the author may have meant the collective to name another axis
    (or a transformation the chain does not show) instead.

    ## Known problems
    Only literal axis names are checked, and only along chains the model follows from the
    module's own code (a function applied here but called only from other files is not
    checked). A `shard_map` (which binds its mesh's axes), a non-literal `axis_name`, an
    `axis_env`, or a framework's own transformation (flax, haiku, equinox) on the way makes
    the chain unknown, and unknown never reports.

    A function whose decorators the model cannot read (a `partial` it does not resolve, a
    project's own wrapper) may bind an axis: a chain through a call of it is unknown, so it
    never reports (google-research/big_vision decorates its step with
    `partial = functools.partial; @partial(jax.pmap, axis_name="batch")`).
    """

    code = "JIT119"
    name = "unbound-collective-axis"
    summary = "A collective names an axis that no transformation around it binds."
    tier = 2
    requires = ("jax",)
    uses_tracing = True
    runtime_error = "unbound axis name"
    fix_availability = "sometimes"

    VALID = (
        """
import jax
import jax.numpy as jnp
from jax import lax
def normalize(x):
    return x / lax.psum(x, "batch")
out = jax.pmap(normalize, axis_name="batch")(jnp.ones((1, 3)))
""",
        # vmap names the axis; jit around it binds nothing and needs nothing.
        """
import jax
import jax.numpy as jnp
from jax import lax
@jax.jit
def center(xs):
    return jax.vmap(lambda x: x - lax.pmean(x, "i"), axis_name="i")(xs)
center(jnp.ones((4, 3)))
""",
        # A shard_map binds its mesh's axes: unknown here.
        """
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P
def total(x):
    return lax.psum(x, "data")
mesh = jax.make_mesh((1,), ("data",))
out = jax.shard_map(total, mesh=mesh, in_specs=P("data"), out_specs=P())(jnp.ones(4))
""",
        # The axis name is a parameter: unknown.
        """
import jax
import jax.numpy as jnp
from jax import lax
def mean(x, axis_name):
    return lax.pmean(x, axis_name)
out = jax.pmap(lambda x: mean(x, "i"))(jnp.ones((1, 3)))
""",
        # A decorator the model does not read (an alias of `functools.partial`) may bind the
        # axis of a loss that `value_and_grad` differentiates inside the step.
        """
import functools
import jax
import jax.numpy as jnp
from jax import lax
partial = functools.partial
@partial(jax.pmap, axis_name="batch")
def update(params, x):
    def loss_fn(p):
        return lax.pmean(jnp.mean(x * p), axis_name="batch")
    return jax.value_and_grad(loss_fn)(params)
update(jnp.ones((1, 3)), jnp.ones((1, 3)))
""",
        # Applied here, called only from elsewhere: where it runs is unknown.
        """
import jax
from jax import lax
@jax.jit
def allreduce(x):
    return lax.psum(x, "batch")
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp
from jax import lax
def helper(x):
    return lax.psum(x, "batch")  # error: JIT119
def update(x):
    return helper(x) * 2
def main():
    print(jax.pmap(update)(jnp.ones((1, 3))))
if __name__ == "__main__":
    main()
""",
        # The name bound is another one.
        """
from functools import partial
import jax
import jax.numpy as jnp
from jax import lax
@partial(jax.pmap, axis_name="devices")
def step(x):
    return lax.pmean(x, axis_name="batch")  # error: JIT119
step(jnp.ones((1, 2)))
""",
        # jit alone binds no axis.
        """
import jax
import jax.numpy as jnp
from jax import lax
@jax.jit
def rank(x):
    return x + lax.axis_index("i")  # error: JIT119
rank(jnp.ones(3))
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        leaf = leaf_name(node.func)
        if leaf is None or axis_collective(lax_name(leaf)) is None:
            return
        path = self.ctx.path_to(node)
        qualnames = self.ctx.names.qualified_names(node.func, path)
        if len(qualnames) != 1:
            return
        parameter = axis_collective(next(iter(qualnames)))
        if parameter is None:
            return
        argument = _argument(node, parameter.name, parameter.position)
        names = literal_axis_names(argument) if argument is not None else None
        if not names:
            return
        trace = self.ctx.tracing.function_at(path)
        if trace is None:
            return
        for chain in self.ctx.tracing.call_chains(trace):
            missing = _missing(chain, names)
            if missing:
                self._report(node, leaf, missing, chain)
                return

    def _report(
        self, node: cst.Call, leaf: str, missing: list[str], chain: list[Application]
    ) -> None:
        tracing = self.ctx.tracing
        axis = ", ".join(repr(n) for n in missing)
        around = ", ".join(f"`{a.transform.qualname}` (line {tracing.line(a.site)})" for a in chain)
        mappings = [a for a in chain if _binds_axis_name(a)]
        mapping = mappings[0] if mappings else None
        if mapping is not None:
            help = (
                f"name the axis on the `{mapping.transform.qualname}` at line "
                f"{tracing.line(mapping.site)}: `axis_name={axis}`"
            )
        else:
            help = "run it under a `jax.pmap`/`jax.vmap`/`jax.shard_map` that names the axis"
        self.report(
            node,
            f"`{leaf}` names the axis {axis}, but no transformation around it binds it "
            f"(reached through {around}): tracing raises NameError: unbound axis name",
            help=help,
            fix=_add_axis_name(self.ctx.module, mappings, missing),
        )


def _argument(call: cst.Call, keyword: str, position: int | None) -> cst.BaseExpression | None:
    found = keyword_argument(call, keyword)
    if found is None and position is not None:
        found = positional_argument(call, position)
    return found.value if found is not None and not found.star else None


def _binds_axis_name(application: Application) -> bool:
    """Whether jax's facts say the transformation's `axis_name=` binds a name for the
    collectives inside it (`jax.pmap`, `jax.vmap`)."""
    facts = axis_transform(application.transform.qualname)
    return facts is not None and facts.binds_axis_name


def _missing(chain: list[Application], names: frozenset[str]) -> list[str]:
    """The names no application of a fully known `chain` binds; [] when it binds them all or
    when some application may bind names that cannot be read."""
    if not chain:
        return []
    bound: set[str] = set()
    for application in chain:
        if axis_transform(application.transform.qualname) is None:
            return []
        found = axis_names_bound(application)
        if found is None:
            return []
        bound |= found
    return sorted(names - bound)


def _add_axis_name(
    module: cst.Module, mappings: list[Application], missing: list[str]
) -> NodeFix | None:
    """`axis_name="<name>"` added to the one pmap/vmap call of the chain that names no axis."""
    if len(missing) != 1 or len(mappings) != 1:
        return None
    site = mappings[0].site
    if type(site) is not cst.Call or any(a.star for a in site.args):  # type: ignore[attr-defined]
        return None
    if any(a.keyword is not None and a.keyword.value == "axis_name" for a in mappings[0].args):
        return None  # it names another axis: which one is meant is a question for the author
    # `jax.pmap(f, "x")`: named by position (where the transform takes `axis_name` is jax's)
    qualname = mappings[0].transform.qualname
    facts = axis_transform(qualname)
    position = dict(facts.parameters).get("axis_name") if facts is not None else None
    positional = sum(a.keyword is None for a in site.args)  # type: ignore[attr-defined]
    if position is not None and positional > position:
        return None
    added = cst.Arg(
        keyword=cst.Name("axis_name"),
        value=cst.SimpleString(repr(missing[0]).replace("'", '"')),
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
    )
    args = list(site.args)  # type: ignore[attr-defined]
    if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
        args[-1] = args[-1].with_changes(
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
    new = site.with_changes(args=[*args, added])
    return NodeFix(
        "unsafe",
        f"Name the axis on `{qualname}`: `axis_name={missing[0]!r}`",
        ((site, module.code_for_node(new)),),
    )
