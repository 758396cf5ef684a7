"""Graph code run as Python, and where not: fixes/eager_fix.py (a tf.function that cannot be
made once runs eagerly, JIT206/JIT207, only where dropping its decorator keeps every use
working) and JIT208's log call through `tf.py_function` (only with tensors handed in)."""

from __future__ import annotations

import textwrap

from jitlint import fix_source, lint_source

REPEATED = """
import tensorflow as tf

def run(xs, offset):
    {decorator}
    def shift(x):
        return x + offset
{uses}

for k in range(3):
    run([tf.ones([2])], float(k))
"""


def _source(decorator: str, uses: str) -> str:
    return textwrap.dedent(REPEATED).format(decorator=decorator, uses=uses)


def test_a_local_tf_function_that_is_only_called_loses_its_decorator():
    source = _source("@tf.function(jit_compile=True)", "    return [shift(x) for x in xs]")
    (finding,) = lint_source(source, "m.py", select=["JIT207"])
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    fixed = fix_source(source, "m.py", select=["JIT207"], unsafe=True).source
    assert "@tf.function" not in fixed
    assert "    def shift(x):\n        return x + offset\n" in fixed
    assert fix_source(source, "m.py", select=["JIT207"]).source == source  # unsafe only


def test_no_eager_fix_where_the_tf_function_itself_is_used_or_its_options_matter():
    concrete = _source(
        "@tf.function",
        "    shift.get_concrete_function(tf.TensorSpec([2]))\n    return [shift(x) for x in xs]",
    )
    stored = _source("@tf.function", "    SEEN.append(shift)\n    return [shift(x) for x in xs]")
    signature = _source(
        "@tf.function(input_signature=[tf.TensorSpec([2])])", "    return [shift(x) for x in xs]"
    )
    for source in (concrete, stored, signature):
        found = lint_source(source, "m.py", select=["JIT207"])
        assert found and all(f.fix is None for f in found), source
        assert "no automatic fix" in (found[0].help or "")


def test_a_variable_made_in_a_method_that_is_handed_on_gets_no_eager_fix():
    source = textwrap.dedent(
        """
        import tensorflow as tf

        class Factory(tf.Module):
            @tf.function
            def new_weight(self, shape):
                return tf.reduce_sum(tf.Variable(tf.zeros(shape)))

        factory = Factory()
        make = factory.new_weight
        """
    )
    (finding,) = lint_source(source, "m.py", select=["JIT206"])
    assert finding.fix is None, finding.fix


def test_jit208_log_fix_only_where_every_local_it_reads_is_a_tensor():
    template = textwrap.dedent(
        """
        import logging
        import tensorflow as tf

        @tf.function
        def step(x, every):
            loss = tf.reduce_mean(x)
            logging.info({message})
            return loss
        """
    )
    tensor_only = template.format(message='"loss " + str(loss)')
    (finding,) = lint_source(tensor_only, "m.py", select=["JIT208"])
    assert finding.fix is not None
    # `every` is a Python value here: handed to py_function it would become a tensor.
    with_python = template.format(message='"loss " + str(loss) + " every " + str(every)')
    (finding,) = lint_source(with_python, "m.py", select=["JIT208"])
    assert finding.fix is None


def test_jit204_dataset_function_runs_through_py_function_only_with_known_dtypes():
    template = textwrap.dedent(
        """
        import tensorflow as tf

        def scaled(signal, label):
            values = signal.numpy()
            return {returned}, label

        ds = tf.data.Dataset.from_tensor_slices(([[1.0]], [0])).map(scaled)
        {extra}
        """
    )
    known = template.format(returned="tf.constant(values * 2, dtype=tf.float32)", extra="")
    (finding,) = lint_source(known, "m.py", select=["JIT204"])
    assert finding.fix is not None
    fixed = fix_source(known, "m.py", select=["JIT204"], unsafe=True).source
    assert "[tf.float32, label.dtype]" in fixed
    # The dtype of a NumPy array is not known; a function also used elsewhere stays.
    unknown = template.format(returned="values * 2", extra="")
    reused = template.format(
        returned="tf.constant(values, dtype=tf.float32)", extra="print(scaled)"
    )
    for source in (unknown, reused):
        (finding,) = lint_source(source, "m.py", select=["JIT204"])
        assert finding.fix is None, source
