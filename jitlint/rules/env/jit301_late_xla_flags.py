from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.env.timeline import (
    EnvWrite,
    describe,
    imported_before,
    index_containing,
    literal_str,
    timeline,
)
from jitlint.rules.base import Rule


class LateXlaFlags(Rule):
    """
    ## What it does
    Finds `XLA_FLAGS` and `TF_XLA_FLAGS` written through `os.environ` (item assignment,
    `update`, `setdefault`) or `os.putenv` after the backend has already read them:

    - JAX reads `XLA_FLAGS` once, when its backend starts: the first device query
      (`jax.devices()`, `jax.device_count()`, `jax.default_backend()`, ...) or the first
      computation (`jnp.ones(...)`, `jax.random.key(0)`, calling a jitted function, ...).
    - TensorFlow reads `TF_XLA_FLAGS` when its runtime starts (the first eager op, device
      listing, dataset or `tf.function` call) and `XLA_FLAGS` at its first XLA compilation
      (the first call of a `jit_compile=True` function).

    ## Why is this bad
    Both variables are parsed once per process, so a later write is silently ignored: no
    error, no warning, the flags just do nothing. Observed on jax 0.10.2 and TF 2.21 by
    writing an unknown flag, which aborts the process at the moment the variable is parsed:

    - `import jax`, `jax.config.update(...)`, applying `jax.jit`, `jnp.finfo`, `jnp.dtype`,
      `jax.ShapeDtypeStruct`, `jax.eval_shape` and `jax.make_jaxpr` do **not** read
      `XLA_FLAGS`: writing it right after `import jax` works.
    - After `jax.devices()` or `jnp.ones(3)`, `--xla_force_host_platform_device_count=4`
      leaves `jax.device_count()` at 1 and `--xla_dump_to` writes nothing.
    - `import tensorflow`, `tf.function` decoration, `tf.config.threading`, `tf.random.set_seed`
      and building Keras layers do not read `TF_XLA_FLAGS`; `tf.constant`, `tf.Variable`,
      `tf.config.list_physical_devices()` and `tf.data` do.

    ## Example
    ```python
    import os

    import jax
    import jax.numpy as jnp

    print(jax.devices())
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"  # error: JIT301
    print(jnp.ones(3).sum())
    ```

    ## Use instead
    ```python
    import os

    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

    import jax
    import jax.numpy as jnp

    print(jax.devices())
    print(jnp.ones(3).sum())
    ```

    ## Fix safety
    When both the write (`os.environ["XLA_FLAGS"] = "<literal>"`) and the first computation
    are one-statement lines at module level, after the import of `os`, the fix moves the
    write just above the computation (a trailing comment stays behind, on a line of its
    own). It is unsafe: the flags now take effect, which changes
    what the program does (that is the point), and a backend started by another module
    first is not seen. A write with a computed value, or one inside a function, or alone in
    an `if` without `else`, moves the same way (with its `if`) above the first statement of
    its block that started the backend, when nothing in between binds or mutates a name it
    reads; unsafe likewise. In other cases there is no fix; setting the variable before
    `import jax` (or in the shell) is always early enough.

    ## Known problems
    Only what the module itself does is seen: a write is reported when a backend-starting
    call precedes it in the same module on every path (module level, or earlier in the same
    function; a function body also inherits what the module did before its `def`). Backends
    started by other modules, or by helper functions, are not seen. Files that start child
    processes (`subprocess`, `multiprocessing`, `os.system`) are skipped, since the write may
    be meant for the child, which reads the variable afresh.
    """

    code = "JIT301"
    name = "late-xla-flags"
    summary = "`XLA_FLAGS`/`TF_XLA_FLAGS` is written after the backend has read it."
    severity = "warning"
    framework = "jax"
    fix_availability = "sometimes"
    requires = ("XLA_FLAGS",)
    runtime_error = None

    VALID = (
        # After `import jax` but before any computation: still read.
        """
import os
import jax
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
jax.devices()
""",
        # jax.config.update, jnp.finfo and applying jax.jit do not start the backend.
        """
import os
import jax
import jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
EPS = jnp.finfo(jnp.float32).eps
f = jax.jit(lambda x: x)
os.environ["XLA_FLAGS"] = "--xla_dump_to=/tmp/dump"
""",
        # The computation sits in a function body that has not run yet.
        """
import os
import jax.numpy as jnp
def make():
    return jnp.ones(3)
os.environ["XLA_FLAGS"] = "--xla_dump_to=/tmp/dump"
""",
        # The device query happens on one branch only.
        """
import os
import sys
import jax
if "--list" in sys.argv:
    print(jax.devices())
else:
    os.environ["XLA_FLAGS"] = "--xla_dump_to=/tmp/dump"
""",
        # The write is meant for a child process.
        """
import os
import subprocess
import jax
jax.devices()
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
subprocess.run(["python", "worker.py"])
""",
        # TensorFlow: eager ops do not read XLA_FLAGS; only an XLA compile does.
        """
import os
import tensorflow as tf
x = tf.constant([1.0])
os.environ["XLA_FLAGS"] = "--xla_dump_to=/tmp/dump"
""",
        # Another module's environ-like object.
        """
import jax
env = {}
jax.devices()
env["XLA_FLAGS"] = "--xla_dump_to=/tmp/dump"
""",
    )
    INVALID = (
        """
import os
import jax
jax.devices()
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"  # error: JIT301
""",
        """
import os
import jax.numpy as jnp
x = jnp.ones(3)
os.environ.update(XLA_FLAGS="--xla_dump_to=/tmp/dump")  # error: JIT301
""",
        """
from os import environ
import jax
KEY = jax.random.key(0)
def main():
    environ["XLA_FLAGS"] = "--xla_dump_to=/tmp/dump"  # error: JIT301
""",
        """
import os
import jax
def main():
    n = jax.device_count()
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_fast_math=false")  # error: JIT301
""",
        """
import os
import tensorflow as tf
tf.config.list_physical_devices("GPU")
os.environ["TF_XLA_FLAGS"] = "--tf_xla_auto_jit=2"  # error: JIT301
""",
        """
import os
import tensorflow as tf
@tf.function(jit_compile=True)
def step(x):
    return x * 2
step(tf.constant(1.0))
os.environ["XLA_FLAGS"] = "--xla_dump_to=/tmp/dump"  # error: JIT301
""",
    )

    def visit_Module(self, node: cst.Module) -> None:
        env = timeline(self.ctx)
        if env.child_processes:
            return
        for write in env.writes:
            if write.key == "XLA_FLAGS":
                event = write.before.jax_backend
                backend = "the JAX backend, which reads XLA_FLAGS once"
                if event is None:
                    event = write.before.tf_xla
                    backend = "TensorFlow's first XLA compilation, which reads XLA_FLAGS once"
            elif write.key == "TF_XLA_FLAGS":
                event = write.before.tf_runtime
                backend = "the TensorFlow runtime, which reads TF_XLA_FLAGS once"
            else:
                continue
            if event is None:
                continue
            events = [event]
            if write.key == "XLA_FLAGS" and write.before.tf_xla is not None:
                events.append(write.before.tf_xla)
            from jitlint.fixes.hoisting.env_write import move_write_fix

            self.report(
                write.node,
                f"`{write.key}` is written after {describe(self.ctx, event)} started {backend}: "
                "this value is silently ignored",
                help=f"set `{write.key}` before the first computation or device query "
                "(right after the imports is early enough), or in the shell",
                fix=self._move_fix(write, events)
                or move_write_fix(self.ctx, write.path, events, write.key),
            )

    def _move_fix(self, write: EnvWrite, events: list[cst.CSTNode]) -> NodeFix | None:
        """Move a module-level `os.environ[KEY] = "literal"` line just above the module-level
        statement that started the backend, when that is a one-statement line after the
        import of `os`/`environ`. Anything else (a computed value, an event inside a block,
        a write in a function) is left to a person."""
        body = list(self.ctx.module.body)
        node = write.node
        if write.kind != "setitem" or len(write.path) != 3 or not isinstance(node, cst.Assign):
            return None
        line = write.path[1]
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        if len(node.targets) != 1 or literal_str(node.value) is None:
            return None
        starts = [index_containing(body, e) for e in events]
        if any(i is None for i in starts):
            return None
        first = body[min(starts)]  # type: ignore[type-var]
        if not isinstance(first, cst.SimpleStatementLine) or len(first.body) != 1:
            return None
        target = node.targets[0].target
        head = target.value if isinstance(target, cst.Subscript) else None  # type: ignore[union-attr]
        while isinstance(head, cst.Attribute):
            head = head.value
        if not isinstance(head, cst.Name) or not imported_before(body, head.value, first):
            return None
        code = self.ctx.module.code_for_node
        return NodeFix(
            "unsafe",
            f"move the `{write.key}` write above the first computation",
            (
                (first.body[0], f"{code(node)}\n{code(first.body[0])}"),
                (node, ""),
            ),
        )
