"""Facts about the TensorFlow Python API that the TF rules share, as plain data.

Nothing here imports TensorFlow. The XLA op table TF generates is in
model/library/tf_facts.py; here are small hand-kept tables, each with the reason it exists.
"""

from __future__ import annotations

from jitlint.model.library.tf_facts import api_output

TF = "tensorflow"


def canonical(names: frozenset[str]) -> frozenset[str]:
    """Qualified names with TF 2's compatibility spelling folded: `import
    tensorflow.compat.v2 as tf` (common in TF 1-era projects) means the same API."""
    if not any(n.startswith("tensorflow.compat.v2.") for n in names):
        return names
    return frozenset(n.replace("tensorflow.compat.v2.", "tensorflow.", 1) for n in names)


# `tf.function` and its deprecated spellings.
TF_FUNCTION = {
    "tensorflow.function",
    "tensorflow.compat.v2.function",
    "tensorflow.compat.v1.function",
    "tensorflow.python.eager.def_function.function",
    "tensorflow.python.eager.polymorphic_function.polymorphic_function.function",
}
# `tf.config.run_functions_eagerly(True)`: from then on every `tf.function`, Keras' own
# train/test/predict functions included, runs its Python eagerly (tf.data functions are still
# traced). Observed on TF 2.21 / Keras 3.15.
RUN_FUNCTIONS_EAGERLY = {
    "tensorflow.config.run_functions_eagerly",
    "tensorflow.config.experimental_run_functions_eagerly",
    "tensorflow.compat.v2.config.run_functions_eagerly",
}
DO_NOT_CONVERT = {
    "tensorflow.autograph.experimental.do_not_convert",
    "tensorflow.compat.v1.autograph.experimental.do_not_convert",
}
# Keras layers that own no variable, so that making one per trace costs nothing: layers
# without weights, and containers whose variables are those of the layers given to them
# (observed, TF 2.21 / Keras 3.15: `StackedRNNCells(cells)`, `RNN(cell)` and
# `TimeDistributed(layer)` made in a tf.function from ready layers retrace without error,
# where `Dense(4)` fails; `Bidirectional` copies its layer, and fails).
KERAS_STATELESS_LAYERS = frozenset(
    {
        "Flatten", "Reshape", "Permute", "Activation", "ReLU", "Softmax", "LeakyReLU", "ELU",
        "PReLU_", "Identity", "InputLayer", "Input", "Masking", "Lambda", "RepeatVector",
        "Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Dot",
        "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D",
        "AveragePooling2D", "AveragePooling3D", "MaxPool1D", "MaxPool2D", "MaxPool3D",
        "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAveragePooling1D",
        "GlobalAveragePooling2D", "GlobalAveragePooling3D", "GlobalMaxPooling1D",
        "GlobalMaxPooling2D", "GlobalMaxPooling3D", "GlobalAvgPool1D", "GlobalAvgPool2D",
        "GlobalMaxPool1D", "GlobalMaxPool2D", "ZeroPadding1D", "ZeroPadding2D",
        "ZeroPadding3D", "Cropping1D", "Cropping2D", "Cropping3D", "UpSampling1D",
        "UpSampling2D", "UpSampling3D", "Rescaling", "Resizing", "CenterCrop",
        "StackedRNNCells", "RNN", "TimeDistributed",
    }
)  # fmt: skip
# Keras layers that own a variable only under Keras 3: their random draws come from a
# `SeedGenerator`, whose state is a variable made by the constructor. Keras 2's draw from
# TensorFlow's random ops (no generator unless one is asked for), and make none.
KERAS_3_SEEDED_LAYERS = frozenset(
    {
        "Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D",
        "GaussianNoise", "GaussianDropout", "AlphaDropout",
    }
)  # fmt: skip
# `tf.data` methods whose function argument runs as graph code.
DATASET_METHODS = frozenset({"map", "filter", "flat_map", "interleave", "parallel_interleave"})
# Methods (besides TensorFlow's own functions) that call a function argument right away:
# tf.data pipelines, a distribution strategy's `run`, Python's `map`/`filter`.
RUNS_ITS_ARGUMENT = DATASET_METHODS | {"run", "experimental_run_v2", "map_structure"}

# `tf.data` sources and transformations whose elements vary in shape from one to the next,
# and why (each new shape traces a tf.function without `reduce_retracing` or a relaxed
# `input_signature` again; measured with TF 2.21, hazards.md). `padded_batch` varies only
# without `padded_shapes`; `from_generator` only where its signature has a `None` dimension.
VARYING_SHAPE_DATASETS: dict[str, str] = {
    "padded_batch": "`.padded_batch(...)` pads each batch to its own longest element",
    "bucket_by_sequence_length": "`bucket_by_sequence_length` makes batches of each "
    "bucket's own length",
    "from_generator": "`from_generator` declares a `None` dimension: each element keeps "
    "its own shape",
}
# Transformations that keep the shapes of a dataset's elements varying (or fixed) as they
# were: the shape question passes through them to their receiver. `batch` stacks elements of
# one shape, so varying elements make varying batches (a last partial batch of fixed-size
# elements is one more trace, not a new one per batch: not reported).
SHAPE_KEEPING_DATASET_METHODS = frozenset(
    {"batch", "cache", "filter", "prefetch", "repeat", "shuffle", "skip", "take", "shard",
     "with_options", "unbatch", "enumerate"}
)  # fmt: skip

# Control-flow ops whose function arguments run as graph code, and which of their positional
# arguments / keywords are functions.
GRAPH_CALLBACK_ARGS: dict[str, tuple[tuple[int, str], ...]] = {
    "tensorflow.while_loop": ((0, "cond"), (1, "body")),
    "tensorflow.cond": ((1, "true_fn"), (2, "false_fn")),
    "tensorflow.map_fn": ((0, "fn"),),
    "tensorflow.scan": ((0, "fn"),),
    "tensorflow.foldl": ((0, "fn"),),
    "tensorflow.foldr": ((0, "fn"),),
    "tensorflow.vectorized_map": ((0, "fn"),),
    "tensorflow.switch_case": (),
}
WHILE_LOOP = "tensorflow.while_loop"

# Results that are Python values, not tensors, although they come from `tf.`.
NON_TENSOR_CALLS = {
    f"{TF}.{name}"
    for name in (
        "executing_eagerly",
        "inside_function",
        "is_tensor",
        "as_dtype",
        "get_static_value",
        "name_scope",
        "device",
        "control_dependencies",
        "init_scope",
        "print",
        "group",
        "no_op",
        "Assert",
        "function",
        "custom_gradient",
        "recompute_grad",
        "make_tensor_proto",
        "make_ndarray",
        "is_symbolic_tensor",
        "type_spec_from_value",
        "get_logger",
        "executing_eagerly_outside_functions",
    )
}
# Namespaces whose calls do not produce tensors (configuration, I/O plumbing, modules).
NON_TENSOR_NAMESPACES = (
    "config",
    "data",
    "distribute",
    "keras",
    "nest",
    "dtypes",
    "autograph",
    "summary",
    "saved_model",
    "train",
    "test",
    "experimental",
    "compat",
    "errors",
    "sysconfig",
    "estimator",
    "lookup",
    "tpu",
    "xla",
    "types",
    "version",
    "io.gfile",
    "debugging",
    "feature_column",
    "queue",
    "mixed_precision",
    "profiler",
    "lite",
    "__internal__",
    "random.set_seed",
    "random.Generator",
    "random.get_global_generator",
    "random.experimental",
    "raw_ops",
)

# Run-time checks that XLA compiles as no-ops (`Assert` and `CheckNumerics` are in its kernel
# list as no-ops; observed, hazards T04). Checks TensorFlow makes on static shapes and dtypes
# while tracing (`assert_type`, `assert_rank`, `assert_shapes`, ...) still run, so they
# are not here.
DROPPED_CHECK_LEAVES = frozenset(
    {"Assert", "check_numerics", "assert_all_finite", "verify_tensor_all_finite"}
    | {
        f"assert_{name}"
        for name in (
            "equal", "none_equal", "near", "less", "less_equal", "greater", "greater_equal",
            "negative", "positive", "non_negative", "non_positive",
        )
    }
)  # fmt: skip
_CHECK_NAMESPACES = ("tensorflow.", "tensorflow.debugging.", "tensorflow.compat.v1.",
                     "tensorflow.compat.v1.debugging.", "tensorflow.math.")  # fmt: skip


def dropped_check(name: str) -> bool:
    """`name` is a TensorFlow run-time check that XLA drops (tf.debugging.assert_equal, ...)."""
    namespace, _, leaf = name.rpartition(".")
    return leaf in DROPPED_CHECK_LEAVES and f"{namespace}." in _CHECK_NAMESPACES


def checks_constants_while_tracing(name: str) -> bool:
    """The comparisons among the dropped checks (`assert_equal`, `assert_positive`, ...)
    compare inputs whose values are known while tracing (Python values) right there, and
    raise then: such a check still fires under XLA (TensorFlow's static check of a
    constant condition)."""
    return dropped_check(name) and name.rpartition(".")[2].startswith("assert_")


# Ops whose value under XLA is a compile-time constant even when their input is not: XLA
# compiles per static shape, so shape queries fold to constants (observed, hazards T03).
# Single APIs the TF rules ask about by name.
TF_PRINT = frozenset({f"{TF}.print", f"{TF}.compat.v1.print"})
TF_RANGE = frozenset({f"{TF}.range"})
TF_SHAPE = frozenset({f"{TF}.shape"})
# `tensor.numpy()`: an eager tensor's values as a NumPy array (a symbolic one has none).
EAGER_VALUE_METHOD = "numpy"
_NUMPY = "numpy."


def numpy_api(names: frozenset[str] | set[str]) -> bool:
    """Whether every one of `names` (and at least one) is a NumPy function."""
    return bool(names) and all(n.startswith(_NUMPY) for n in names)


# The last names of the calls the XLA checks read, as text gates before names are resolved:
# `tf.cond` (branches of different shapes), `tf.while_loop` and its `set_loop_options`
# (`shape_invariants`), `tf.slice` (its begin and size), and the `reduce_*` reductions (of a
# RaggedTensor).
COND_LEAF = "cond"
LOOP_SHAPE_LEAVES = frozenset({"while_loop", "set_loop_options"})
SLICE_LEAF = "slice"
_REDUCTION_PREFIX = "reduce_"


def reduction_leaf(leaf: str | None) -> bool:
    """Whether a call's last name is one of TF's reductions (`reduce_sum`, `reduce_max`, ...)."""
    return leaf is not None and leaf.startswith(_REDUCTION_PREFIX)


# What a type test proves about a TF value, for narrowing a name where the test held
# (model/tf/values.py). Instances of these are tensors in the model's sense (a Variable, a
# RaggedTensor, a SparseTensor too; `tf.is_tensor(x)` is True for each [observed, TF 2.21]):
# where `isinstance(x, T)` holds, x is none of Python's values.
IS_TENSOR = f"{TF}.is_tensor"
TENSOR_TYPES = frozenset(
    {
        f"{TF}.Tensor", f"{TF}.Variable", f"{TF}.RaggedTensor", f"{TF}.SparseTensor",
        f"{TF}.python.framework.ops.Tensor", IS_TENSOR,
    }
)  # fmt: skip
# No tensor, Variable or TensorArray is an instance of these (nor `None`, nor a PIL image):
# where `isinstance(x, T)` holds, x is not a tensor. Containers are left out: a list may hold
# tensors, and the model reads a list of tensors as one (CONTAINER_TYPES below).
NOT_TENSOR_TYPES = frozenset(
    {f"builtins.{n}" for n in ("int", "float", "bool", "complex", "str", "bytes")}
    | {f"numbers.{n}" for n in ("Number", "Complex", "Real", "Rational", "Integral")}
    | {f"numpy.{n}" for n in ("ndarray", "generic", "number", "integer", "floating", "bool_")}
    | {"types.NoneType", "PIL.Image.Image"}
)


# `tf.ragged` functions that make a RaggedTensor with the row partition of one they are
# given (an op applied to the flat values): their raggedness is their input's, not new.
PARTITION_KEEPING_RAGGED = frozenset({f"{TF}.ragged.map_flat_values"})


# Python's containers: where `isinstance(x, T)` holds, x is a list, tuple or dict, which the
# model may read as the tensors it holds, but which Python tests and unpacks itself.
CONTAINER_TYPES = frozenset(f"builtins.{n}" for n in ("list", "tuple", "dict", "set", "frozenset"))


def proves_container(types: frozenset[str], held: bool) -> bool:
    """Whether `isinstance(x, types)` evaluating to `held` proves x is a Python container."""
    return held and bool(types) and types <= CONTAINER_TYPES


def proves_tensor(types: frozenset[str], held: bool) -> bool:
    """Whether `isinstance(x, types)` evaluating to `held` proves x is a tensor (not Python)."""
    return held and bool(types) and types <= TENSOR_TYPES


def proves_not_tensor(types: frozenset[str], held: bool) -> bool:
    """Whether `isinstance(x, types)` evaluating to `held` proves x is not a tensor."""
    return held and bool(types) and types <= NOT_TENSOR_TYPES


SHAPE_QUERIES = {f"{TF}.shape", f"{TF}.size", f"{TF}.rank", f"{TF}.shape_n"}
# Stateful random ops: their values are never compile-time constants.
STATEFUL_RNG = {
    f"{TF}.random.{name}"
    for name in (
        "uniform",
        "normal",
        "truncated_normal",
        "gamma",
        "poisson",
        "shuffle",
        "categorical",
        "log_uniform_candidate_sampler",
    )
} | {f"{TF}.compat.v1.random_uniform", f"{TF}.compat.v1.random_normal"}

# NumPy functions that read only a tensor's shape or dtype (or a dtype itself), so they work on
# the symbolic tensors of graph code (`np.shape` and `np.ndim` were observed to work inside a
# tf.function on TF 2.21) where the others fail converting the tensor.
NUMPY_METADATA_FUNCTIONS = frozenset(
    f"numpy.{n}"
    for n in ("shape", "ndim", "dtype", "result_type", "issubdtype", "promote_types",
              "finfo", "iinfo", "isscalar", "iterable")
)  # fmt: skip

# The spellings of the `tf.Variable` constructor.
VARIABLE_CLASSES = frozenset(
    {f"{TF}.Variable", f"{TF}.compat.v1.Variable", f"{TF}.compat.v2.Variable"}
)

# A Keras layer's methods that make a weight (a variable).
WEIGHT_MAKERS = frozenset({"add_weight", "add_variable"})
# Keras's own variable classes.
KERAS_VARIABLE_CLASSES = frozenset(
    {"keras.Variable", "keras.backend.Variable", "tensorflow.keras.Variable",
     "keras.variables.Variable"}
)  # fmt: skip
# Every class whose construction makes a variable (TF's, any spelling, and Keras's): inside a
# tf.function each fails the same way on a trace after the first (observed, TF 2.21, for
# `tf.compat.v1.Variable` as for `tf.Variable`: "tf.function only supports singleton
# tf.Variables created on the first call").
VARIABLE_CONSTRUCTORS = VARIABLE_CLASSES | KERAS_VARIABLE_CLASSES
# Functions that make a variable: Keras's backend API (TF 2's `tf.keras.backend.variable`).
VARIABLE_FUNCTIONS = frozenset(
    {"tensorflow.keras.backend.variable", "tensorflow.compat.v1.keras.backend.variable",
     "tf_keras.backend.variable"}
)  # fmt: skip

# TensorFlow 1's logging modules (absl logging under TensorFlow's name).
TF_LOG_MODULES = frozenset({f"{TF}.compat.v1.logging", f"{TF}.logging"})

# A Keras optimizer's methods that apply gradients (and make its slot variables when first
# called).
OPTIMIZER_APPLY_METHODS = frozenset({"apply_gradients", "minimize", "apply"})

# Dtype spellings.
FLOAT_DTYPES = {"float16", "bfloat16", "float32", "float64", "complex64", "complex128"}
DTYPE_ALIASES = {"double": "float64", "half": "float16", "float": "float32"}
WIDE_DTYPES = {"float64", "complex128"}  # where a float32 constant loses precision

# Ops whose result has the dtype of their (first) tensor operand and that need all their
# tensor operands to share it: a float32 constant among float64 operands fails (T14).
SAME_DTYPE_OPS = {
    f"{TF}.{name}"
    for name in (
        "add",
        "subtract",
        "multiply",
        "divide",
        "truediv",
        "maximum",
        "minimum",
        "pow",
        "matmul",
        "linalg.matmul",
        "math.add",
        "math.subtract",
        "math.multiply",
        "math.divide",
        "math.maximum",
        "math.minimum",
        "math.pow",
        "math.squared_difference",
        "squared_difference",
        "tensordot",
        "linalg.tensordot",
        "einsum",
        "add_n",
        "math.add_n",
        "concat",
        "stack",
        "where",
    )
}
# Ops whose result keeps the dtype of their first argument (for dtype propagation only).
DTYPE_PRESERVING = SAME_DTYPE_OPS | {
    f"{TF}.{name}"
    for name in (
        "exp",
        "math.exp",
        "log",
        "math.log",
        "sqrt",
        "math.sqrt",
        "square",
        "math.square",
        "abs",
        "math.abs",
        "negative",
        "reshape",
        "transpose",
        "expand_dims",
        "squeeze",
        "reduce_sum",
        "reduce_mean",
        "reduce_max",
        "reduce_min",
        "math.reduce_sum",
        "math.reduce_mean",
        "tile",
        "gather",
        "identity",
        "stop_gradient",
        "sin",
        "cos",
        "tanh",
        "math.tanh",
        "nn.relu",
        "nn.softmax",
        "math.softplus",
        "nn.softplus",
        "sigmoid",
        "math.sigmoid",
        "linalg.inv",
        "linalg.cholesky",
        "broadcast_to",
        # elementwise math and reductions that keep the dtype
        "math.erf",
        "math.erfc",
        "erf",
        "erfc",
        "math.log1p",
        "math.expm1",
        "math.sin",
        "math.cos",
        "math.tan",
        "math.sinh",
        "math.cosh",
        "math.asin",
        "math.acos",
        "math.atan",
        "math.lgamma",
        "math.digamma",
        "math.sign",
        "sign",
        "floor",
        "ceil",
        "round",
        "math.floor",
        "math.ceil",
        "math.round",
        "clip_by_value",
        "math.reciprocal",
        "reciprocal",
        "math.rsqrt",
        "rsqrt",
        "math.log_sigmoid",
        "nn.elu",
        "nn.selu",
        "nn.gelu",
        "nn.leaky_relu",
        "math.softsign",
        "nn.log_softmax",
        "math.log_softmax",
        "math.l2_normalize",
        "nn.l2_normalize",
        "reduce_prod",
        "math.reduce_prod",
        "reduce_logsumexp",
        "math.reduce_logsumexp",
        "math.reduce_std",
        "math.reduce_variance",
        "math.reduce_max",
        "math.reduce_min",
        "cumsum",
        "math.cumsum",
        "cumprod",
        "math.cumprod",
        "linalg.diag_part",
        "linalg.trace",
        "linalg.det",
        "linalg.logdet",
        "linalg.triangular_solve",
        "linalg.solve",
        "squeeze",
        "pad",
        "roll",
        "reverse",
        "gather_nd",
        "boolean_mask",
        "math.negative",
        "math.exp",
        "math.pow",
    )
}


# What a TF function returns is TensorFlow's to say (tf_facts.api_output, probed by
# scripts/gen_xla_ops.py): one tensor, or a Python list of tensors whose length is static, which
# Python iterates and unpacks in any graph code (`for part in tf.unstack(x, axis=-1):`).
def single_output(name: str) -> bool:
    """A TF function known to return one tensor (not a list or tuple of them)."""
    return api_output(name.replace("tensorflow.compat.v2.", "tensorflow.", 1)) == "tensor"


def list_output(name: str) -> bool:
    """A TF function known to return a Python list of tensors."""
    return api_output(name.replace("tensorflow.compat.v2.", "tensorflow.", 1)) == "list"
