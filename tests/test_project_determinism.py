"""jitlint's output is a function of its input: the same project linted under different
`PYTHONHASHSEED`s gives the same JSON. Sets of strings (a name's candidate meanings, the
facts of classes that share a name in different files) iterate in an order the hash seed
picks; whatever decides a finding must not follow that order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

# Seeds that order {"tf_keras...", "tensorflow.keras..."} both ways (on CPython 3.11, 0-4
# one way and 5-7 the other: main before the fix reported the Keras 2 layer under 5-7).
SEEDS = ("0", "1", "5", "7")

# A Keras layer whose `call` builds a shape from a loop variable: JIT213 under Keras 3's
# `jit_compile="auto"`, nothing under Keras 2 (no "auto").
_NET = """\
import tensorflow as tf

from .base import Base


class Net(Base):
    def call(self, x):
        total = tf.zeros([])
        for i in tf.range(3):
            total += tf.reduce_sum(tf.ones([i + 1]))
        return x * total
"""
_TRAIN = """\
import keras

from .net import Net

model = keras.Sequential([Net()])
model.compile(optimizer="adam", loss="mse")
"""
_MODEL = """\
import jax
import jax.numpy as jnp

from .config import Config


@jax.jit
def make(cfg: Config, x):
    return jnp.zeros((cfg.depth, 3)) + x
"""
FILES = {
    # Two classes named `Base`: a Keras 2 layer (tf_keras is tried first) and a Keras 3 one.
    "pkg/legacy/base.py": """\
        try:
            import tf_keras as keras
        except ImportError:
            from tensorflow import keras


        class Base(keras.layers.Layer):
            pass
        """,
    "pkg/modern/base.py": """\
        from tensorflow import keras


        class Base(keras.layers.Layer):
            pass
        """,
    "pkg/legacy/net.py": _NET,
    "pkg/modern/net.py": _NET,
    "pkg/legacy/train.py": _TRAIN,
    "pkg/modern/train.py": _TRAIN,
    # Two equinox classes named `Config`: `depth` a traced leaf in one, static in the other.
    "pkg/leaf/config.py": """\
        import equinox as eqx


        class Config(eqx.Module):
            depth: int
        """,
    "pkg/static/config.py": """\
        import equinox as eqx


        class Config(eqx.Module):
            depth: int = eqx.field(static=True)
        """,
    "pkg/leaf/model.py": _MODEL,
    "pkg/static/model.py": _MODEL,
}


def _write(root: Path) -> None:
    for name, text in {**FILES, "pkg/__init__.py": ""}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _lint(root: Path, seed: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", "--format", "json", "pkg"],
        capture_output=True, text=True, cwd=root, check=False,
        env={**os.environ, "PYTHONHASHSEED": seed},
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def test_same_named_classes_give_the_same_findings_under_every_hash_seed(tmp_path):
    _write(tmp_path)
    outputs = {seed: _lint(tmp_path, seed) for seed in SEEDS}
    first = outputs[SEEDS[0]]
    for seed, output in outputs.items():
        assert output == first, f"PYTHONHASHSEED={seed} differs from {SEEDS[0]}"
    found = {(f["path"], f["code"]) for f in json.loads(first)}
    # Each class keeps its own facts: the Keras 3 subclass has "auto" XLA, the Keras 2 one
    # none; the leaf `depth` is traced, the static one is not.
    assert ("pkg/modern/net.py", "JIT213") in found
    assert not any(path.startswith("pkg/legacy/") for path, _ in found)
    assert ("pkg/leaf/model.py", "JIT103") in found
    assert not any(path.startswith("pkg/static/") for path, _ in found)
