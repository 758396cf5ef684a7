"""JIT203/JIT213's fix: compile without XLA (unsafe), where the switch is, or say why not.
The fixture pairs run under TensorFlow: the original fails to compile, the fixed one runs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jitlint import fix_source, lint_source

FIXTURES = Path(__file__).parent / "fixtures" / "fixes"
FIT = """
import numpy as np
width = model.outputs[0].shape[-1]
model.fit(np.ones((8, 4), "float32"), np.ones((8, width), "float32"), epochs=1, verbose=0)
print("fitted")
"""


def run(source: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.py"
    script.write_text(source)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300
    )


@pytest.mark.tensorflow
def test_jit203_fixed_fixture_runs_and_the_original_does_not(tmp_path):
    pytest.importorskip("tensorflow")
    before = (FIXTURES / "JIT203_jit_compile_off.in.py").read_text()
    after = (FIXTURES / "JIT203_jit_compile_off.out.py").read_text()
    for source, works in ((before, False), (after, True)):
        proc = run(source + "\nmodel = build()\n" + FIT, tmp_path)
        if works:
            assert proc.returncode == 0 and "fitted" in proc.stdout, proc.stderr[-2000:]
        else:
            assert "Detected unsupported operations" in proc.stderr, proc.stderr[-2000:]


def test_jit213_fix_keeps_each_layer_off_xla_or_turns_off_the_compile():
    source = (FIXTURES / "JIT213_supports_jit.in.py").read_text()
    result = fix_source(source, "m.py", select=["JIT213"], unsafe=True)
    # Probe opts out in its __init__; Plain, whose helper holds the op, gets an __init__
    # that passes everything on; the loss is in no layer, so the compile turns XLA off.
    assert "super().__init__(**kwargs)\n        self.supports_jit = False\n" in result.source
    plain_init = (
        '"""Reports its inputs through a helper of the module."""\n\n'
        "    def __init__(self, *args, **kwargs):\n"
        "        super().__init__(*args, **kwargs)\n"
        "        self.supports_jit = False\n\n"
        "    def call(self, inputs):\n"
    )
    assert plain_init in result.source
    assert 'model.compile(optimizer="adam", loss=noisy_mse, jit_compile=False)' in result.source
    assert not result.remaining
    assert fix_source(source, "m.py", select=["JIT213"]).source == source  # unsafe only


@pytest.mark.tensorflow
def test_jit213_fixed_fixture_fits_without_xla(tmp_path):
    pytest.importorskip("tensorflow")
    after = (FIXTURES / "JIT213_supports_jit.out.py").read_text()
    checks = "\nassert [layer.supports_jit for layer in model.layers[:2]] == [False, False]\n"
    proc = run(after + checks + FIT, tmp_path)
    assert proc.returncode == 0 and "fitted" in proc.stdout, proc.stderr[-2000:]


def test_a_switch_in_another_file_or_two_compiles_leave_no_fix_and_say_why():
    source = textwrap.dedent(
        """
        import tensorflow as tf
        def helper(x):
            tf.print(x)
            return x
        @tf.function(jit_compile=True)
        def f(x):
            return helper(x)
        @tf.function(jit_compile=True)
        def g(x):
            return helper(x) * 2
        """
    )
    (finding,) = lint_source(source, "m.py", select=["JIT203"])
    assert finding.fix is None
    assert "not in this file, or there are several" in (finding.help or ""), finding.help


def test_a_jit_compile_keyword_that_is_not_true_is_left_alone():
    source = textwrap.dedent(
        """
        import tensorflow as tf
        @tf.function(jit_compile=True)
        def f(x):
            tf.print(x)
            return x
        g = tf.function(lambda x: x, jit_compile=False)
        """
    )
    fixed = fix_source(source, "m.py", select=["JIT203"], unsafe=True).source
    assert "@tf.function(jit_compile=False)" in fixed
    assert fixed.count("jit_compile=False") == 2


def test_jit203_histogram_is_rewritten_only_where_its_values_can_be_read_twice():
    template = textwrap.dedent(
        """
        import tensorflow as tf
        @tf.function(jit_compile=True)
        def counts(x):
            return tf.histogram_fixed_width({values}, [0.0, 1.0], nbins=4)
        """
    )
    named = fix_source(template.format(values="x"), "m.py", select=["JIT203"], unsafe=True)
    assert "tf.histogram_fixed_width_bins(x, [0.0, 1.0], nbins=4), 4)" in named.source
    assert "jit_compile=True" in named.source  # XLA stays on
    computed = fix_source(template.format(values="x * 2"), "m.py", select=["JIT203"], unsafe=True)
    assert "histogram_fixed_width_bins" not in computed.source
    assert "jit_compile=False" in computed.source  # the fix that turns XLA off instead
