"""Generate the list of module classes flax linen and haiku export, from the installed ones.

A call of an instance of one of these classes reads or creates the module's parameters, which
only the framework's own (lifted) transformations may do inside a traced body (JIT120). The
linter never imports the frameworks; it reads the list this script writes.

A class counts when it is reachable by a public name of `flax.linen` or of `haiku` (and
`haiku.nets`) and is a subclass of `flax.linen.Module` / `haiku.Module` other than the base
itself. Names are recorded as users spell them: `flax.linen.Dense`, `haiku.nets.MLP`.

Usage: python scripts/gen_framework_modules.py [OUTPUT]
       (default: jitlint/data/framework_modules.json)
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import flax
import flax.linen
import haiku
import jax
import jax.numpy as jnp


def module_classes(namespace: ModuleType, prefix: str, base: type) -> list[str]:
    found = []
    for name in dir(namespace):
        if name.startswith("_"):
            continue
        value = getattr(namespace, name, None)
        if isinstance(value, type) and issubclass(value, base) and value is not base:
            found.append(f"{prefix}.{name}")
    return found


def _no_state_linen(cls: type) -> bool:
    """Whether an instance made without arguments holds no variables after `init`."""
    variables = cls().init(jax.random.PRNGKey(0), jnp.ones((2, 4)))
    return not jax.tree_util.tree_leaves(variables)


def _no_state_haiku(cls: type) -> bool:
    def forward(x: jax.Array) -> jax.Array:
        return cls()(x)

    params, state = haiku.transform_with_state(forward).init(
        jax.random.PRNGKey(0), jnp.ones((2, 4))
    )
    return not jax.tree_util.tree_leaves((params, state))


def stateless(names: list[str], probe: object) -> list[str]:
    """The classes that, made without arguments and called on a small array, create no
    parameters or state (`Dropout`, `Flatten`): calling them inside a raw transformation is
    fine. A class that needs arguments, or fails on the probe, counts as stateful."""
    out = []
    for name in names:
        module, _, attr = name.rpartition(".")
        cls = getattr(
            haiku.nets if module == "haiku.nets" else (haiku if module == "haiku" else flax.linen),
            attr,
        )
        try:
            if probe(cls):  # type: ignore[operator]
                out.append(name)
        except Exception:  # a required argument, or a probe input it does not accept
            continue
    return out


def main(argv: list[str]) -> int:
    warnings.simplefilter("ignore")  # deprecated aliases announce themselves on access
    default = Path(__file__).resolve().parent.parent / "jitlint" / "data"
    target = Path(argv[1]) if len(argv) > 1 else default / "framework_modules.json"
    facts = {
        "generator": "scripts/gen_framework_modules.py",
        "flax_version": flax.__version__,
        "haiku_version": haiku.__version__,
        "linen": sorted(module_classes(flax.linen, "flax.linen", flax.linen.Module)),
        "haiku": sorted(
            module_classes(haiku, "haiku", haiku.Module)
            + module_classes(haiku.nets, "haiku.nets", haiku.Module)
        ),
    }
    facts["stateless"] = sorted(
        stateless(facts["linen"], _no_state_linen) + stateless(facts["haiku"], _no_state_haiku)
    )
    target.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(
        f"wrote {target}: {len(facts['linen'])} linen, {len(facts['haiku'])} haiku", file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
