from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.jax.api import (
    HOST_CALLBACK,
    HOST_CALLBACK_LAST_SHIPPED,
    HOST_CALLBACK_MODULE,
    HOST_CALLBACK_PACKAGE,
    HOST_CALLBACK_REPLACEMENTS,
    PURE_CALLBACK,
)
from jitlint.model.jax.tracing import FunctionTrace
from jitlint.model.jax.transforms import Application
from jitlint.model.library.jax_facts import axis_transform, importable_module, jax_version
from jitlint.python.builtins_facts import IMPORT_ERRORS
from jitlint.rules.base import Rule

_DEFAULT_ADVICE = (
    "`jax.debug.callback`/`jax.debug.print`, `jax.experimental.io_callback` or `jax.pure_callback`"
)


class RemovedHostCallback(Rule):
    """
    ## What it does
    Checks for imports and uses of `jax.experimental.host_callback`, which jax deprecated in
    0.4.26 and has since removed (the module cannot be imported from the jax the linter's
    facts were generated with). It also checks for a `jax.pure_callback` whose result is
    unused inside code that a staging transformation (`jax.jit`, `pmap`, `lax.scan`, ...)
    compiles: JAX drops it as dead code, so the callback never runs.

    ## Why is this bad
    The import fails before anything runs:

    ```text
    >>> from jax.experimental import host_callback as hcb
    ImportError: cannot import name 'host_callback' from 'jax.experimental'
    >>> import jax.experimental.host_callback
    ModuleNotFoundError: No module named 'jax.experimental.host_callback'
    ```

    (`hcb.id_tap` becomes `jax.experimental.io_callback` or `jax.debug.callback`,
    `hcb.id_print` `jax.debug.print`, `hcb.call` `jax.pure_callback`, and `hcb.barrier_wait`
    `jax.effects_barrier()`; jax-ml/jax#20385.)

    A `pure_callback` is declared free of side effects, so when nothing uses its result the
    compiled program leaves it out: the print, log or file write in it silently never
    happens under `jax.jit` (it does run in eager code and under an eager `vmap`). The
    example below logs nothing.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp

    LOG = []


    def record(value):
        LOG.append(float(value))
        return value


    @jax.jit
    def step(x):
        jax.pure_callback(record, jax.ShapeDtypeStruct((), jnp.float32), x.sum())  # error: JIT118
        return x * 2


    step(jnp.ones(3))
    jax.effects_barrier()
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp
    from jax.experimental import io_callback

    LOG = []


    def record(value):
        LOG.append(float(value))
        return value


    @jax.jit
    def step(x):
        io_callback(record, jax.ShapeDtypeStruct((), jnp.float32), x.sum())
        return x * 2


    step(jnp.ones(3))
    jax.effects_barrier()
    assert LOG == [3.0]
    ```

    ## Fix safety
    An import of the module alone on its line, whose every use is `id_tap(f, x)` or
    `id_print(x)` with positional arguments, gets the taps rewritten and the import
    dropped: `id_tap(f, x)` becomes `jax.debug.callback(f, x, ())` (the callback still gets
    a `transforms` argument, empty as it was outside `vmap`/`jvp`), followed by `x` where the
    tap's result is used (`(jax.debug.callback(f, x, ()), x)[1]`, for a name `x`), and
    `id_print(x)` `jax.debug.print("{}", x)`. Unsafe: under `vmap` the callback now gets the
    batch without the transforms describing it, output is formatted by JAX, and
    `jax.debug.callback` runs unordered. Other uses (`call`, keywords, other spellings) have
    no fix: choosing between `io_callback`, `pure_callback` and `jax.debug.callback`
    depends on what the callback does. An unused `pure_callback` becomes
    `jax.experimental.io_callback` with the same arguments (`vmap_method=`, which
    `io_callback` does not take, becomes its default `ordered=False`): an unordered
    `io_callback` is kept under `jax.jit`, `vmap` and the lax loops [observed on jax
    0.10.2]. The fix is unsafe: the callback now runs, which is the point, but it may not be
    ready for it (an exception it raises now stops the program).

    ## Known problems
    An import guarded by `try`/`except ImportError` (code that supports old and new jax) is
    not reported. In a project that declares jax 0.4.34 or older (the last release that
    shipped the module; `jax-version` in the config, else its requirements) the finding is a
    warning: the code works there and breaks on the upgrade. Where the declared range allows
    no newer jax (`jax==0.4.7`, `jax<0.4.35`) nothing is reported: the project as installed
    cannot meet the newer releases. An unused
    `pure_callback` is reported only where the model sees a staging transformation around
    it: applied to its function, or on a chain of calls from the module's code.
    """

    code = "JIT118"
    name = "removed-host-callback"
    summary = "`jax.experimental.host_callback` is gone; an unused `pure_callback` is dropped."
    tier = 2
    requires = ("host_callback", "pure_callback")
    uses_tracing = True
    fix_availability = "sometimes"
    caught_by = IMPORT_ERRORS

    VALID = (
        # Supporting old and new jax on purpose.
        """
try:
    from jax.experimental import host_callback as hcb
except ImportError:
    hcb = None
""",
        # The result is used: it stays in the program.
        """
import jax
import jax.numpy as jnp
@jax.jit
def f(x):
    y = jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return x + y
""",
        # Eager code: the callback runs.
        """
import jax
import jax.numpy as jnp
def f(x):
    jax.pure_callback(print, None, x)
    return x
f(jnp.ones(2))
""",
        # io_callback is the tool for side effects.
        """
import jax
from jax.experimental import io_callback
@jax.jit
def f(x):
    io_callback(print, None, x, ordered=True)
    return x
""",
        # Not jax's module.
        """
from mylib import host_callback
host_callback.id_tap(print, 1)
""",
    )
    INVALID = (
        """
import jax.experimental.host_callback as hcb  # error: JIT118
""",
        """
from jax.experimental.host_callback import id_tap, barrier_wait  # error: JIT118
""",
        """
import jax
import jax.experimental
def log(x):
    return jax.experimental.host_callback.id_print(x)  # error: JIT118
""",
        """
import jax
import jax.numpy as jnp
def report(v):
    print(v)
    return v
@jax.jit
def step(x):
    jax.pure_callback(report, jax.ShapeDtypeStruct(x.shape, x.dtype), x)  # error: JIT118
    return x * 2
""",
        # Reached from a scan body that the module runs.
        """
import jax
import jax.numpy as jnp
from jax import lax
def body(carry, x):
    jax.pure_callback(print, jax.ShapeDtypeStruct((), jnp.float32), x)  # error: JIT118
    return carry + x, x
lax.scan(body, 0.0, jnp.arange(3.0))
""",
    )

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = _dotted(alias.name)
            if dotted == HOST_CALLBACK or dotted.startswith(HOST_CALLBACK + "."):
                self._removed(alias, None, self._fix(node))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        module = _dotted(node.module)
        if module == HOST_CALLBACK or module.startswith(HOST_CALLBACK + "."):
            names = node.names
            first = names[0].name.value if not isinstance(names, cst.ImportStar) else None  # type: ignore[union-attr]
            self._removed(node, first if isinstance(first, str) else None)
        elif module == HOST_CALLBACK_PACKAGE and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if type(alias.name) is cst.Name and alias.name.value == HOST_CALLBACK_MODULE:
                    self._removed(alias, None, self._fix(node))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != HOST_CALLBACK_MODULE:
            return
        if any(type(p) in (cst.Import, cst.ImportFrom) for p in self.ctx.parents):
            return
        path = self.ctx.path_to(node)
        if self.ctx.names.qualified_names(node, path) == {HOST_CALLBACK}:
            parent = self.ctx.parents[-1] if self.ctx.parents else None
            used = parent.attr.value if type(parent) is cst.Attribute else None  # type: ignore[union-attr]
            self._removed(node, used)

    def _fix(self, node: cst.Import | cst.ImportFrom) -> NodeFix | None:
        line = self.ctx.parents[-1] if self.ctx.parents else None
        from jitlint.fixes.host_callbacks import host_callback_fix

        return host_callback_fix(self.ctx, line) if type(line) is cst.SimpleStatementLine else None

    def _removed(self, node: cst.CSTNode, api: str | None, fix: NodeFix | None = None) -> None:
        if importable_module(HOST_CALLBACK) is not False:
            return  # the facts' jax still has it
        advice = HOST_CALLBACK_REPLACEMENTS.get(api or "", _DEFAULT_ADVICE)
        if self.ctx.versions.all_at_most("jax", HOST_CALLBACK_LAST_SHIPPED):
            return  # every jax the project allows ships it: nothing fails as installed
        declared = self.ctx.versions.jax
        if declared <= HOST_CALLBACK_LAST_SHIPPED:
            # The jax the file is linted for still ships it: it breaks on the upgrade.
            version = ".".join(map(str, declared))
            self.report(
                node,
                f"`{HOST_CALLBACK}` is deprecated (jax 0.4.26) and removed after jax 0.4.34: "
                f"it works with the declared jax {version}, and fails with ImportError on "
                f"newer releases (jax {jax_version()} cannot import it)",
                help=f"use {advice}",
                severity="warning",
                fix=fix,
            )
            return
        self.report(
            node,
            f"`{HOST_CALLBACK}` was deprecated in jax 0.4.26 and is gone (jax "
            f"{jax_version()} cannot import it): importing it raises ImportError "
            "(ModuleNotFoundError), reaching it as an attribute AttributeError",
            help=f"use {advice}",
            fix=fix,
        )

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if type(call) is not cst.Call:
            return
        path = self.ctx.path_to(call)
        if self.ctx.names.qualified_names(call.func, path) != PURE_CALLBACK:  # type: ignore[attr-defined]
            return
        trace = self.ctx.tracing.function_at(path)
        if trace is None:
            return
        staging = self._staging(trace)
        if staging is None:
            return
        where = f"`{staging.transform.qualname}` at line {self.ctx.tracing.line(staging.site)}"
        self.report(
            call,
            f"the result of `jax.pure_callback` is unused, and under {where} JAX drops it as "
            "dead code: the callback never runs",
            help="for side effects call `jax.debug.callback(...)` or "
            "`jax.experimental.io_callback(..., ordered=True)`; or use the result",
            fix=self._io_callback(call),
        )

    def _io_callback(self, call: cst.Call) -> NodeFix | None:
        if any(a.star == "**" for a in call.args):
            return None
        spelled, import_line = self.ctx.import_name("jax.experimental.io_callback", "io_callback")
        # Edit the callee and the `vmap_method=` argument only, so the layout of the other
        # arguments stays as written; `ordered=False`, io_callback's default, takes the place
        # of `vmap_method=`, which io_callback would pass on to the callback.
        replacements: list[tuple[cst.CSTNode, str]] = [(call.func, spelled)]
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "vmap_method":
                replacements.append((arg.value, "False"))
                replacements.append((arg.keyword, "ordered"))
        return NodeFix(
            "unsafe",
            "Call the callback through `io_callback`, which JAX keeps",
            tuple(replacements),
            imports=(import_line,) if import_line else (),
        )

    def _staging(self, trace: FunctionTrace) -> Application | None:
        """A transformation around `trace`'s function that drops unused pure callbacks: one
        applied to the function itself, or one on a chain of calls from the module."""
        tracing = self.ctx.tracing
        chains = []
        for entry in trace.entries:
            if entry.origin is None and entry.contract is None:
                applied = tracing.discovery.applications(entry)
                if applied is not None:
                    chains.append(applied)
        chains += tracing.call_chains(trace)
        for chain in chains:
            for application in chain:
                facts = axis_transform(application.transform.qualname)
                if facts is not None and facts.runs_unused_pure_callback is False:
                    return application
        return None


def _dotted(expr: cst.BaseExpression) -> str:
    if type(expr) is cst.Name:
        return expr.value  # type: ignore[attr-defined]
    if type(expr) is cst.Attribute:
        return f"{_dotted(expr.value)}.{expr.attr.value}"  # type: ignore[attr-defined]
    return ""
