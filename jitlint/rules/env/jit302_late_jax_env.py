from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.env.timeline import EnvWrite, timeline
from jitlint.model.library.jax_facts import bool_env_strings, config_env
from jitlint.rules.base import Rule


def config_value(kind: str, text: str) -> str | None:
    """The Python literal `jax.config.update` takes for the env string, if certain."""
    if kind == "bool":
        lowered = text.strip().lower()
        if lowered in bool_env_strings(True):
            return "True"
        return "False" if lowered in bool_env_strings(False) else None
    if kind == "int":
        try:
            return str(int(text))
        except ValueError:
            return None
    if kind == "float":
        try:
            return repr(float(text))
        except ValueError:
            return None
    if kind == "str" and text:  # "" means "unset" for several options
        return repr(text)
    return None


class LateJaxEnv(Rule):
    """
    ## What it does
    Finds `JAX_*` configuration variables (`JAX_ENABLE_X64`, `JAX_PLATFORMS`,
    `JAX_DISABLE_JIT`, ...) written through `os.environ` after jax has been imported, and
    any `os.putenv` of them.

    ## Why is this bad
    `import jax` defines every configuration option with `os.getenv("JAX_<NAME>", default)`,
    so the environment is read once, during the import. A later write is silently ignored.
    Observed on jax 0.10.2 by writing each variable after `import jax`:

    - `JAX_ENABLE_X64=1`: `jnp.ones(1).dtype` stays `float32`;
    - `JAX_PLATFORMS=tpu`: `jax.devices()` still answers `[CpuDevice(id=0)]`;
    - `JAX_DISABLE_JIT`, `JAX_LOG_COMPILES`, `JAX_DEBUG_NANS`, `JAX_NUM_CPU_DEVICES`,
      `JAX_DEFAULT_MATMUL_PRECISION`, `JAX_TRACEBACK_FILTERING`,
      `JAX_COMPILATION_CACHE_DIR`: all keep their defaults.

    `os.putenv` changes the C environment but not `os.environ`, which is what jax reads, so
    jax never sees it, even before the import. Variables that are not options
    (`JAX_COORDINATOR_ADDRESS`, `JAX_LOCAL_DEVICE_IDS`, ...) are read later, by
    `jax.distributed.initialize()`, and are not reported.

    ## Example
    ```python
    import os

    import jax
    import jax.numpy as jnp

    os.environ["JAX_ENABLE_X64"] = "1"  # error: JIT302
    print(jnp.ones(3).dtype)  # float32
    ```

    ## Use instead
    ```python
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    print(jnp.ones(3).dtype)  # float64
    ```

    ## Fix safety
    For `os.environ["JAX_<NAME>"] = "<literal>"` the write is replaced by
    `jax.config.update("jax_<name>", value)`, with the value converted as jax converts the
    variable (`"1"`/`"true"`/`"on"`... to `True`, digits to an int). The fix is safe: the
    write had no effect in this process, and the update does what it meant. It is offered
    only when no JAX computation precedes the write, because some options
    (`jax_num_cpu_devices`) raise `RuntimeError` when updated after the backend started.
    `update`, `setdefault` and `putenv` are reported without a fix: `setdefault` keeps a value
    from the shell, which `jax.config.update` would override.

    ## Known problems
    A write is not reported when the module also sets the same option through `jax.config`
    (`jax.config.update("jax_enable_x64", True)` next to the write), since that works.
    Only the module's own `import jax` (or of a library that imports it: flax, optax,
    equinox, haiku, chex, numpyro, ...) is seen; a write before the module's import can still
    be late if another module imported jax first. Options defined outside `import jax`
    (jax2tf, test utilities) are not known. Files that start child processes are skipped,
    since the write may be meant for the child.
    """

    code = "JIT302"
    name = "late-jax-env"
    summary = "A `JAX_*` configuration variable is written after `import jax` read it."
    severity = "warning"
    fix_availability = "sometimes"
    requires = ("JAX_",)
    runtime_error = None

    VALID = (
        # Before the import: read by jax.
        """
import os
os.environ["JAX_ENABLE_X64"] = "1"
import jax
""",
        # Not a configuration option: read by jax.distributed.initialize().
        """
import os
import jax
os.environ["JAX_COORDINATOR_ADDRESS"] = "10.0.0.1:1234"
jax.distributed.initialize()
""",
        # The import is only for type checkers.
        """
import os
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    import jax
os.environ["JAX_PLATFORMS"] = "cpu"
""",
        # Meant for a child process.
        """
import os
import subprocess
import jax
os.environ["JAX_PLATFORMS"] = "cpu"
subprocess.run(["python", "-c", "import jax"])
""",
        # The right way after import.
        """
import jax
jax.config.update("jax_enable_x64", True)
""",
        # The module also sets the option through jax.config, which works after the import.
        """
import os
import jax
os.environ["JAX_ENABLE_X64"] = "1"
jax.config.update("jax_enable_x64", True)
""",
        # An import inside a function that has not run when the module writes the variable.
        """
import os
def load():
    import jax
    return jax
os.environ["JAX_ENABLE_X64"] = "true"
""",
    )
    INVALID = (
        """
import os
import jax
os.environ["JAX_ENABLE_X64"] = "1"  # error: JIT302
""",
        """
import os
import jax.numpy as jnp
os.environ["JAX_PLATFORMS"] = "cpu"  # error: JIT302
x = jnp.ones(3)
""",
        """
import os
import optax
def main():
    os.environ.update({"JAX_DISABLE_JIT": "1"})  # error: JIT302
""",
        """
import os
os.putenv("JAX_ENABLE_X64", "1")  # error: JIT302
import jax
""",
        """
from os import environ
from jax import numpy as jnp
environ.setdefault("JAX_DEFAULT_MATMUL_PRECISION", "highest")  # error: JIT302
""",
    )

    def visit_Module(self, node: cst.Module) -> None:
        env = timeline(self.ctx)
        if env.child_processes:
            return
        for write in env.writes:
            kind = config_env().get(write.key)
            if kind is None:
                continue
            option = write.key.lower()
            if write.kind == "putenv":
                self.report(
                    write.node,
                    f"`os.putenv({write.key!r}, ...)` is never seen by jax: it reads "
                    "`os.environ`, which putenv does not change",
                    help=f'use `jax.config.update("{option}", ...)` after `import jax`, or set '
                    f"`os.environ[{write.key!r}]` before it",
                )
                continue
            imported = write.before.jax_import
            if imported is None or self._also_configured(option):
                continue
            self.report(
                write.node,
                f"`{write.key}` is written after jax is imported, but jax reads it once, "
                "during the import: this value is silently ignored",
                help=f'use `jax.config.update("{option}", ...)`, or set `{write.key}` before '
                "jax is imported",
                fix=self._fix(write, kind),
            )

    def _also_configured(self, option: str) -> bool:
        """The module also sets the option through `jax.config` (belt and braces): the
        late write is then harmless."""
        source = self.ctx.source
        return "config" in source and (f'"{option}"' in source or f"'{option}'" in source)

    def _fix(self, write: EnvWrite, kind: str) -> NodeFix | None:
        node = write.node
        if write.kind != "setitem" or write.before.jax_backend is not None:
            return None
        if not isinstance(node, cst.Assign) or len(node.targets) != 1:
            return None
        text = _literal(write.value)
        value = config_value(kind, text) if text is not None else None
        if value is None:
            return None
        jax_name, statement = self.ctx.import_name("jax", "jax")
        option = write.key.lower()
        return NodeFix(
            "safe",
            f'replace with `jax.config.update("{option}", {value})`',
            ((node, f'{jax_name}.config.update("{option}", {value})'),),
            (statement,) if statement else (),
        )


def _literal(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None
