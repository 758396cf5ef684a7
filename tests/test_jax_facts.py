"""The shipped JAX library facts are what scripts/gen_jax_facts.py produces from jax."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jitlint.model.library import jax_facts
from jitlint.model.library.jax_facts import (
    FACTS_FILE,
    collective,
    shard_map_none_spec_argument,
    static_parameters,
)

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "jitlint" / "data" / FACTS_FILE


def test_facts_load_without_jax_and_record_their_version():
    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert raw["generator"] == "scripts/gen_jax_facts.py"
    assert jax_facts.jax_version() == raw["jax_version"]
    zeros = static_parameters("jax.numpy.zeros")
    assert zeros is not None and "shape" in zeros.always
    one_hot = static_parameters("jax.nn.one_hot")
    assert one_hot is not None and "num_classes" in one_hot.always
    # Declared by jax's own jit wrapper:
    argsort = static_parameters("jax.numpy.argsort")
    assert argsort is not None and "axis" in argsort.always
    # An int is a size, an array is permuted: only a traced int fails.
    permutation = static_parameters("jax.random.permutation")
    assert permutation is not None
    assert permutation.if_int == {"x"} and "x" not in permutation.always
    assert static_parameters("jax.numpy.sin") is None


def test_reading_the_facts_imports_no_framework():
    code = (
        "import sys\n"
        "from jitlint.model.library.jax_facts import collective, static_parameters\n"
        "static_parameters('jax.numpy.zeros'); collective('jax.lax.psum')\n"
        "assert not {'jax', 'numpy', 'tensorflow'} & set(sys.modules), sys.modules.keys()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_collectives_and_shard_map_facts():
    psum = collective("jax.lax.psum")
    assert psum is not None and psum.returns_structure and psum.constant_gives_python_value
    pmean = collective("jax.lax.pmean")
    assert pmean is not None and pmean.returns_structure
    assert collective("jax.numpy.sum") is None
    assert jax_facts.axis_size_is_python_int()
    assert shard_map_none_spec_argument() == {
        "called directly": "python value",
        "under jax.jit": "tracer",
    }


def test_numpy_functions_on_tracers():
    on_tracer = jax_facts.numpy_on_tracer
    # They call the array's own method: a tracer (a list of them for `split`).
    assert on_tracer("numpy.sum") == on_tracer("numpy.reshape") == "dispatch"
    assert on_tracer("numpy.searchsorted") == "dispatch"  # probed on a one-axis array
    assert on_tracer("numpy.split") == on_tracer("numpy.dsplit") == "dispatch_list"
    # They read the shape or dtype (`issubdtype` is given a traced array's dtype).
    assert on_tracer("numpy.shape") == on_tracer("numpy.issubdtype") == "static"
    assert on_tracer("numpy.finfo") == on_tracer("numpy.iinfo") == "static"
    assert on_tracer("numpy.sin") == on_tracer("numpy.float32") == "converts"
    assert on_tracer("numpy.linalg.inv") == on_tracer("numpy.fft.fft") == "converts"
    # `np.array_equal` swallows the conversion error and answers False: not static.
    assert on_tracer("numpy.array_equal") == "other"
    # A size jax wants static: JIT103's traced shape, not a conversion.
    assert on_tracer("numpy.zeros") == on_tracer("numpy.arange") == "size"
    assert on_tracer("numpy.random.normal") is None
    assert not jax_facts.numpy_probed("numpy.random.normal")
    assert jax_facts.numpy_probed("numpy.linalg.no_such_function")
    assert jax_facts.jax_numpy_twin("numpy.sin") and jax_facts.jax_numpy_twin("numpy.bool_")
    assert not jax_facts.jax_numpy_twin("numpy.errstate")
    assert "numpy.split" in jax_facts.numpy_names("dispatch_list")


def test_counted_sizes():
    nonzero = jax_facts.counted_size("jax.numpy.nonzero")
    assert nonzero == jax_facts.CountedSize("size", bounded=True)
    # `bincount` counts values into bins: `length=`, and `x.size` bins may be too few.
    assert jax_facts.counted_size("jax.numpy.bincount") == jax_facts.CountedSize("length", False)
    # The union of two sets can be longer than the first.
    union = jax_facts.counted_size("jax.numpy.union1d")
    assert union is not None and not union.bounded
    for name in ("unique_values", "unique_counts", "unique_inverse", "unique_all", "compress"):
        assert jax_facts.counted_size(f"jax.numpy.{name}") is not None, name
    assert jax_facts.counted_size("jax.numpy.sum") is None
    assert jax_facts.counted_size("jax.numpy.repeat") is None  # `total_repeat_length`


def test_at_methods_and_builtin_twins():
    # `x[i] += v` is `x.at[i].add(v)`; `mul` and `multiply` both multiply: jnp's name wins.
    assert jax_facts.at_method("add") == "add" and jax_facts.at_method("mul") == "multiply"
    assert jax_facts.at_method("truediv") == "divide"
    # `mod` agreed with `subtract` on one sample (2.5 % 2.0 == 2.5 - 2.0); two tell them apart.
    assert jax_facts.at_method("mod") is None and jax_facts.at_method("floordiv") is None
    assert jax_facts.builtin_twin("max") == "maximum"  # NaN-propagating, unlike `fmax`
    assert jax_facts.builtin_twin("min") == "minimum" and jax_facts.builtin_twin("len") is None


def test_math_twins():
    twins = jax_facts.math_twins()
    assert {"sqrt", "asin", "atan2", "hypot", "isnan", "fabs"} <= twins
    # `jnp.gcd` exists, but `math.gcd` refuses the float samples: a name alone is not enough.
    assert "gcd" not in twins and "factorial" not in twins


def test_fresh_wrappers():
    wrappers = jax_facts.fresh_wrappers()
    # Each application is a new function, so a jit of it traces again (JIT113 in a loop).
    assert {"jax.vmap", "jax.grad", "jax.checkpoint", "jax.named_call"} <= wrappers
    # Those that need more than the function to be called on an array are not probed so.
    assert "jax.lax.scan" not in wrappers and "jax.eval_shape" not in wrappers


def test_tree_mapping():
    # Of a dict, a dict of arrays: only an array argument gives an array.
    assert {"jax.lax.stop_gradient", "jax.device_put"} <= jax_facts.tree_mapping()


def test_weak_types():
    weak = jax_facts.weak_types
    # The makers of strong float arrays; integer makers leave a weak float weak.
    assert {"jax.numpy.ones", "jax.random.normal", "numpy.zeros"} <= weak("strong_float_makers")
    assert not {"jax.numpy.arange", "jax.random.randint"} & weak("strong_float_makers")
    # `jnp.asarray(0.0)` keeps the weak type; NumPy's makes a float64 array, which is strong.
    assert weak("weak_wrappers") == {"jax.numpy.asarray", "jax.numpy.array"}
    assert "numpy.asarray" in weak("dtyped_wrappers")
    assert {"jax.numpy.sum", "jax.numpy.where", "jax.numpy.matmul"} <= weak("strong_if_any")
    assert "sum" in weak("reducing_methods") and "argmax" not in weak("reducing_methods")


def test_configuration_read_from_the_environment():
    options = jax_facts.config_env()
    assert options["JAX_ENABLE_X64"] == "bool"
    assert options["JAX_NUM_CPU_DEVICES"] == "int"
    assert options["JAX_PLATFORMS"] == "str"
    assert options["JAX_DEFAULT_DEVICE"] == "other"  # also takes a device object
    assert "JAX_CHECK_VMA" not in options  # `check_vma` reads CHECK_VMA, not a JAX_ variable
    assert {"1", "true", "on"} <= jax_facts.bool_env_strings(True)
    assert {"0", "false", "off"} <= jax_facts.bool_env_strings(False)
    assert "enable" not in jax_facts.bool_env_strings(True) | jax_facts.bool_env_strings(False)


def test_value_reading_methods():
    methods = jax_facts.value_reading_methods()
    # They need the values as Python data: a tracer has none (JIT102).
    assert {"item", "tolist", "tobytes"} <= methods
    # A tracer fails these too, but what they hand back does not depend on the values.
    assert not {"is_deleted", "devices", "unsafe_buffer_pointer", "delete"} & methods
    # These work on a tracer; `nonzero` fails, but returns arrays (a shape problem, JIT105).
    assert not {"sum", "astype", "reshape", "nonzero"} & methods


@pytest.mark.jax
def test_shipped_facts_equal_what_the_script_produces_now(tmp_path):
    jax = pytest.importorskip("jax")
    if jax_facts.jax_version() != jax.__version__:
        pytest.skip(f"facts built with jax {jax_facts.jax_version()}, have {jax.__version__}")
    out = tmp_path / FACTS_FILE
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_jax_facts.py"), str(out)],
        check=True,
        capture_output=True,
        timeout=1200,
    )
    assert out.read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8")
