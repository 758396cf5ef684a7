from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import libcst as cst

from jitlint.fixes.node_fix import NodeFix
from jitlint.model.domain.captures import per_configuration
from jitlint.model.domain.repeats import enclosing_loop
from jitlint.model.tf.api import TF_FUNCTION
from jitlint.model.tf.repeats import (
    KERAS_MODEL_MAKERS,
    called_def,
    called_tf_function,
    called_tf_function_options,
    conversion_dtype,
    keeping,
    model_remade_for_inference,
    retracing_argument,
)
from jitlint.python.builtins_facts import ENUMERATE
from jitlint.python.uses import loop_iterable
from jitlint.rules.base import Rule

_FUNCTIONS = (cst.FunctionDef, cst.Lambda)
# How the calls that load or build a Keras model end (the model says which they are).
_MODEL_MAKERS = frozenset(name.rpartition(".")[2] for name in KERAS_MODEL_MAKERS)


class Retracing(Rule):
    """
    ## What it does
    Finds code that makes a `tf.function` trace again and again:

    - a `tf.function` created inside a loop (`tf.function(f)` or a decorated `def` in the
      loop body), or inside a function or method that runs more than once (called in a
      loop, in this module or another module of the run, or from a function that is, or
      called repeatedly by contract: a model's `predict`, an agent's `act`, a Keras
      callback's `on_epoch_end`, a request handler; model/domain/repeats.py), so that every
      iteration or call starts from a new, untraced function;
    - a Keras model loaded or built the same way every time such code runs
      (`load_model("model.keras")` in a function called for every sample) and only used
      there to predict: each new model traces its own predict function again;
    - a `tf.function` without `input_signature` (a function, or a method through `self`
      or an instance) called with a Python value that changes from call to call: the
      variable of a loop over `range(...)` or a literal list (numbers, strings, lists),
      a name the loop reassigns with Python arithmetic (`epsilon *= 0.9`), or a parameter
      that receives such a value where its function is called in a loop. A value from a
      written-out list is a handful of configurations: it is reported only where the
      function reads it where a tensor would serve as well (`tf.cast`, `tf.gather`'s
      indices, an arithmetic or ordering operand), not as a shape, a branch or an option
      (each value then needs its own trace), and not where a loop inside the one over the
      list calls the function again with the same value (one trace per value, reused);
    - a `tf.function` without `input_signature` or `reduce_retracing=True` called, in a
      `for` loop over a `tf.data` dataset whose elements vary in shape, with an element:
      `.padded_batch(n)` without fixed `padded_shapes` (each batch padded to its own
      longest element), `bucket_by_sequence_length`, or `from_generator` with a `None`
      dimension in its signature, through `.batch`, `.prefetch`, `.shuffle` and the like
      (model/tf/model.py: `varying_element_shapes`).

    A `tf.function` built once, in `main()`, a test or at module level, is not reported:
    it traces once. Nor is one built once per element of a set-up loop (a host, a device, a
    data split) and kept without being called there: stored on an object, collected in a
    list, or handed to a call that keeps it (`server.bind(fn)`), directly or as what a
    factory called in the loop returns. Each traces once and is then reused. Nor is one
    made on each pass of a grid of configurations, every loop around it a `for` over a
    written-out list of literals whose element it reads (in its body, in its decorator's
    arguments such as `jit_compile=jc`, or through what the pass builds from it, `dec =
    Decoder(terminate=t)`, or what the pass sets under an `if` on the element); the list may
    also name values that exist already (`(tf.float32, tf.float64)`, a tuple of classes,
    names bound once): each configuration needs its own trace. Nor is one
    made by a memoised loader, past `if key in cache: return cache[key]` or under
    `if key not in cache:`, that stores it in a cache outliving the call (a module's dict,
    an attribute of `self`): it is made the first time per key (a Keras model loaded
    that way too). Nor is one
    made in graph code, where it is traced into the outer graph, but only where the code
    runs as graph code on every path: a helper that a `tf.function` calls and eager code
    calls too (at module level, from a plain function) still makes a new one per eager call.
    Nor is one made in a function that a retry loop runs once (`while running: try: running
    = run_experiment(config)`, where `run_experiment` returns `False` on every path): the
    loop runs it again only after an error, to start over.

    ## Why is this bad
    Tracing runs the Python function and builds a graph (and, with `jit_compile=True`,
    compiles it with XLA). It is meant to happen once per input signature. A new function
    object has an empty cache, and Python scalars are part of the cache key by value, so
    these patterns trace (and compile) on every call. TensorFlow only warns:

    ```text
    WARNING:tensorflow:5 out of the last 5 calls to <function f> triggered tf.function
    retracing. Tracing is expensive ...
    ```

    ## Example
    ```python
    import tensorflow as tf


    @tf.function
    def scale(x, factor):
        return x * factor


    x = tf.constant([1.0, 2.0])
    for step in range(10):
        x = scale(x, step)  # error: JIT207
    ```

    ## Use instead
    ```python
    import tensorflow as tf


    @tf.function
    def scale(x, factor):
        return x * factor


    x = tf.constant([1.0, 2.0])
    for step in range(10):
        x = scale(x, tf.constant(step, tf.float32))
    ```

    ## Example: a dataset whose batches vary in shape
    Each padded batch has its own length, and each new length is a new input signature:
    this traces the step four times, once per batch (TF 2.21). `reduce_retracing=True`
    (the fix) traces it twice: after the second shape TF traces a relaxed signature with
    `None` for the dimensions that changed, and every later batch reuses it.

    ```python
    import tensorflow as tf


    def sentences():
        for length in (3, 9, 4, 7, 12, 5, 10, 6):
            yield tf.range(length)


    @tf.function
    def step(tokens):
        return tf.reduce_sum(tokens)


    dataset = tf.data.Dataset.from_generator(
        sentences, output_signature=tf.TensorSpec([None], tf.int32)
    ).padded_batch(2)
    for batch in dataset:
        step(batch)  # error: JIT207
    ```

    ## Fix safety
    A `tf.function` made on every call of a module-level function or method (not in a loop)
    is made once instead. A decorated local `def` that reads nothing of its function moves,
    whole, to module level above the function (or its class); one that reads the method's
    `self` and nothing else of it moves to the end of the class's `__init__`, followed by
    `self.name = name`, and the method's uses read `self.name`. A `tf.function(...)` call
    becomes a new module-level name or, when it reads `self`, a new attribute set at the
    end of `__init__`. Only when every other name it reads is a module-level name bound
    once (before the function, for module level), `self.x` it reads at definition time is
    set in `__init__`, the class has an `__init__` ending with a simple statement and no
    decorator, and its bases are plain classes of the module or TensorFlow/Keras classes;
    never out of a `try`, `with` or lambda.

    The fix is unsafe: the function is now traced once per input signature for the whole
    run, so a value it reads that changes between calls (an attribute of `self`, a global)
    is baked in from the first trace; moving it into `__init__` needs that every instance
    is made by that `__init__`.

    A decorated local `def` that cannot move (it reads a local or parameter of the call)
    loses its `@tf.function` instead, when the function around it
    only calls it or hands it to a TensorFlow API (`tf.while_loop(cond, body, ...)`), and
    the decorator sets no option but `jit_compile`, `reduce_retracing` or `autograph`: it
    then runs eagerly, the same ops on the same values, never traced. Unsafe: it no longer
    runs as a graph (slower where it is called many times), and Python code in it (a
    `print`, a counter) runs on every call instead of once per trace. A `tf.function(...)`
    call made in a loop has no fix.

    A changing Python value passed to a `tf.function` (a decorated `def` or method of the
    module) becomes a tensor only where it is converted as the Python value was. Where the
    function reads the parameter nowhere but as the value of `tf.cast(param, dtype)` or the
    indices of `tf.gather(params, param)`, it becomes `tf.constant(value)`: both convert a
    Python value with the dtype `tf.constant` infers (int32, or int64 when it does not fit;
    float32), and `tf.cast` then casts. (A list of a new length still traces again, once
    per length instead of once per value.)
    Where every read is an operand of an arithmetic operator or an ordering comparison
    (`<`, `<=`, `>`, `>=`) beside a tensor whose dtype the model knows, the same for all
    reads, it becomes `tf.constant(value, tf.<dtype>)`: a tensor operator converts a Python
    operand to its tensor operand's dtype. The function then computes the same values,
    traced once. The fix is unsafe: Python code that runs while tracing (a `print`, a
    counter) now runs once instead of once per value, and a dtype the model got wrong (it
    follows assignments, not the order they run in) makes the call fail. Anywhere else no fix
    is offered: a tensor changes Python-level branching on the argument (`range(n)`,
    `if n > 3:` without autograph), and without a known dtype the inferred one may not be
    the one the function's ops meet (`x * factor` with a float32 `x` refuses the int32
    `tf.constant(step)` where it took the Python int).

    A tf.function called with an element of a dataset whose elements vary in shape gets
    `reduce_retracing=True` on its decorator (`@tf.function` or `@tf.function(...)` with
    keywords only, and none of them `reduce_retracing`), where it is a `def` or method of
    the module. Unsafe: the relaxed trace sees `None` where it saw a number, so code that
    reads a static dimension (`x.shape[1]` as a Python int) gets `None`; and under
    `jit_compile=True` only the tracing is saved: XLA needs static shapes and still
    compiles each new one.

    ## Known problems
    A loop that runs its body once is no loop here: one over a written-out collection of
    one element (`for x in [a]:`, `range(1)`), or one whose body ends, on every path, in
    `break`, `return`, `raise` or a process exit (an `if`/`else` whose every branch does
    included; a `try` whose handlers go on retries only after an error).

    A Keras model made in repeated code is reported only when the arguments that make it
    read nothing but module-level names that the repeating code does not rebind, and
    literals (a model per path, per layer or per converted variant is a different model
    each time) and the code does not also compile, fit or evaluate it (a
    fresh model per fold or trial is wanted).

    A function called in a grid of configurations, every loop around the call a `for` over
    a written-out list or tuple of literals whose value the call passes (a test over `use_fft
    in [True, False]`), runs once per configuration, and so do the functions it calls on
    every path: what they make is not reported (each configuration needs its own trace).
    A loop over `range(...)` or over data is no such grid.

    Only callees defined in the same file (a decorated `def`, a name assigned
    `tf.function(...)`, a decorated method) are checked for varying arguments, and a
    varying value is followed through one parameter. Python arguments that are genuinely
    configuration (`training=True`) retrace by design and do not vary, so they are not
    reported.

    A dataset is known to vary in shape only where the loop iterates it directly or through
    a name bound once to its pipeline; a `.map` or any other transformation the model does
    not know stops the search (it may pad or crop). A last partial batch of fixed-size
    elements (`.batch(n)` without `drop_remainder=True`) is not reported: it traces once
    more, not once per batch. Keras `fit`, `predict` and the like run their own relaxed
    functions and are not this case.
    """

    code = "JIT207"
    name = "retracing"
    fix_availability = "sometimes"
    summary = "A tf.function is retraced on every call or every loop iteration."
    severity = "warning"
    framework = "tensorflow"
    requires = ("function", "load_model", "clone_model", "model_from_json", "Sequential", "Model(")
    runtime_error = None

    VALID = (
        # A factory called per stage stores each stage's serving function on the model it
        # returns, with `setattr` as `model.serving_fn = serving` would: one per stage, kept
        # (tensorflow/gnn's sampler stages).
        """
import tensorflow as tf
def make_stage(model):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def serving(x):
        return model(x)
    setattr(model, "serving_fn", serving)
    return model
def build(stages):
    return {i: make_stage(stage) for i, stage in enumerate(stages)}
""",
        # A module-level loop over model variants: each pass builds another model, and a
        # sub-model of it to compare (keras-vision-models' conversion scripts).
        """
import keras
import numpy as np
configs = [{"name": "small"}, {"name": "large"}]
sample = np.zeros((1, 8))
for config in configs:
    model = keras.Sequential([keras.layers.Dense(4, name=config["name"])])
    model.build((None, 8))
    head = keras.Model(inputs=model.input, outputs=model.layers[-1].output)
    print(head.predict(sample))
""",
        # A test's grid of configurations: each pass builds another decoder from the element
        # (or compiles with another `jit_compile`), and a new tf.function for it: one trace
        # per configuration, nothing to reuse (sionna's decoder tests).
        """
import tensorflow as tf
class Decoder(tf.Module):
    def __init__(self, terminate):
        self.terminate = terminate
    def __call__(self, u):
        return u
def test_decoders(u):
    for t in [False, True]:
        dec = Decoder(terminate=t)
        @tf.function
        def run_graph(x):
            return dec(x)
        run_graph(u)
    for jc in (False, True):
        @tf.function(jit_compile=jc)
        def run(x):
            return x * 2
        run(u)
        twice = tf.function(lambda x: x + x, jit_compile=jc)
        twice(u)
""",
        # The loop hands the tf.function what the environment returned, copied from one
        # name to another (`state = following`): an array, not Python arithmetic.
        """
import tensorflow as tf
@tf.function
def scores(state):
    return state * 2.0
def rollout(env):
    state = env.reset()
    while True:
        scores(state)
        following, done = env.step(0)
        if done:
            break
        state = following
""",
        # The parameter that a loop fills with a decaying Python float is rebound to a NumPy
        # array before the call: the tf.function receives an array, traced by shape and
        # dtype, and the parameter's own value never reaches it.
        """
import numpy as np
import tensorflow as tf
class Agent:
    @tf.function
    def scores(self, state):
        return state * 2.0
    def act(self, state):
        state = np.asarray([state], dtype="float32")
        return self.scores(state)
def main():
    agent = Agent()
    temperature = 1.0
    for _ in range(100):
        agent.act(temperature)
        temperature *= 0.99
""",
        # A test's grid of configurations (written-out lists, each loop's value passed): the
        # visualizer it runs builds its step, one call down, once per configuration and runs
        # it many times; a shared step would trace once per configuration too.
        """
import tensorflow as tf
def make_step(scale):
    @tf.function
    def step(image):
        return image * scale
    return step
def visualize(image, scale, steps):
    step = make_step(scale)
    for _ in range(steps):
        image = step(image)
    return image
def test_grid(image):
    for scale in [0.5, 2.0]:
        for steps in [2, 4]:
            visualize(image, scale, steps=steps)
""",
        # A retry loop on a flag: the experiment returns False on every path, so the loop
        # runs it once, and again only after an error (a new run, rebuilt from scratch).
        """
import tensorflow as tf
def run_experiment(scale, xs):
    @tf.function
    def step(x):
        return x * scale
    for x in xs:
        step(x)
    return False
def main(xs):
    running = True
    while running:
        try:
            running = run_experiment(2.0, xs)
        except tf.errors.UnavailableError:
            print("retrying")
""",
        # A test's grid called directly: the shape and the option the tf.function reads as
        # Python values (a shape, a constructor's argument) make another program per pass;
        # a tensor could not serve them, so each trace is needed.
        """
import tensorflow as tf
class Coder:
    def __init__(self, kind):
        self.kind = kind
    def __call__(self, x):
        return x
@tf.function
def encode(shape, kind):
    return Coder(kind)(tf.zeros(shape))
def test_shapes():
    for kind in ["short", "long", "wide"]:
        for shape in [[4], [2, 4], [1, 2, 8]]:
            encode(shape, kind)
""",
        # A grid's value held over an inner loop: two rates, each traced once and reused on
        # every epoch.
        """
import tensorflow as tf
@tf.function
def step(x, rate):
    return x * rate
def train(x, epochs):
    for rate in [0.1, 0.01]:
        for epoch in range(epochs):
            x = step(x, rate)
    return x
""",
        # A grid of values that exist already (dtypes, names bound once), and what each pass
        # derives from them under an `if` on the element: each pass builds its own channel
        # and a tf.function closing over it, one trace per configuration.
        """
import tensorflow as tf
class Channel:
    def __init__(self, precision, schedule):
        self.precision = precision
    def __call__(self, x):
        return x
FLOODING = "flooding"
LAYERED = "layered"
def test_channels(x):
    for schedule in [FLOODING, LAYERED]:
        for dt in (tf.float32, tf.float64):
            if dt == tf.float64:
                precision = "double"
            else:
                precision = "single"
            channel = Channel(precision, schedule)
            @tf.function
            def run(y):
                return channel(y)
            run(tf.cast(x, dt))
""",
        # Loops that run their body once (python/uses.py): over one written-out element, or
        # leaving on every path of an `if`/`else`.
        """
import sys
import tensorflow as tf
def g(y):
    return y * 2
def run(x):
    for item in [x]:
        f = tf.function(g)
        f(item)
        f(item * 2)
    while True:
        f = tf.function(g)
        f(x)
        f(x + 1)
        if x is not None:
            break
        else:
            sys.exit(1)
""",
        # A factory called once per element of a list of devices: each tf.function is for
        # another device, traced once.
        """
import tensorflow as tf
def devices():
    return [d.name for d in tf.config.list_logical_devices("GPU")]
def on_device(f, device):
    def run(*args):
        with tf.device(device):
            return f(*args)
    return tf.function(run)
def check(x):
    for device in devices():
        on_device(tf.identity, device)(x)
""",
        # A tensor argument, and a Python argument that does not vary.
        """
import tensorflow as tf
@tf.function
def f(x, n):
    return x * n
for i in tf.range(10):
    f(i, 2)
for batch in dataset:
    f(batch, 3)
""",
        # input_signature turns Python numbers into tensors.
        """
import tensorflow as tf
@tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
def f(n):
    return n + 1
for i in range(10):
    f(i)
""",
        # Built once, called in a loop.
        """
import tensorflow as tf
def train(model, data):
    step = tf.function(model.train_step)
    for batch in data:
        step(batch)
""",
        # A factory that returns the function is called once.
        """
import tensorflow as tf
def make(f):
    return tf.function(f, jit_compile=True)
""",
        # Made and called once per call of a function that runs repeatedly: one trace per
        # run by design (a closure over per-call state); made behind a cache check.
        """
import tensorflow as tf
def jacobian(f, x):
    @tf.function
    def numerical():
        return f(x + 1e-3) - f(x - 1e-3)
    return numerical()
class Runner:
    def step_fn(self):
        if self._fn is None:
            self._fn = tf.function(lambda v: v * 2)
        return self._fn
for i in range(3):
    jacobian(tf.exp, tf.constant(float(i)))
    Runner().step_fn()
""",
        # Memoised loaders called in a loop: past a cache hit's early return, or under
        # `if key not in cache:`, into a cache that outlives the call (a module's dict,
        # `self`'s), the function is made once per key and then reused
        # (model/domain/guards.py `runs_once_per_key`).
        """
import tensorflow as tf
_steps = {}
def step_for(name):
    if name in _steps:
        return _steps[name]
    @tf.function
    def step(x):
        return x * 2.0
    _steps[name] = step
    return step
def scaled_for(name):
    if name not in _steps:
        _steps[name] = tf.function(lambda x: x * 3.0)
    return _steps[name]
class Loader:
    def __init__(self):
        self.steps = {}
    def get(self, name):
        if name in self.steps:
            return self.steps[name]
        step = tf.function(lambda x: x - 1.0)
        self.steps[name] = step
        return step
def train(x, loader):
    for _ in range(10):
        x = step_for("train")(x)
        x = scaled_for("scale")(x)
        x = loader.get("shift")(x)
    return x
""",
        # A Keras model loaded by a memo for every sample: loaded once per key.
        """
import tensorflow as tf
MODEL_PATH = "model.keras"
_models = {}
def predicted(name, x):
    if name not in _models:
        model = tf.keras.models.load_model(MODEL_PATH)
        _models[name] = model
        return model.predict(x)
    return _models[name].predict(x)
def serve(samples):
    for sample in samples:
        predicted("classifier", sample)
""",
        # One per host, bound to that host's server and stored, never called in the loop.
        """
import tensorflow as tf
def serve(hosts):
    for host in hosts:
        @tf.function(input_signature=[])
        def pending():
            return host.done < host.wanted
        host.pending = pending
        host.server.bind(pending)
""",
        # A fresh model per fold is trained (wanted); one model per path is a different
        # model each time.
        """
import tensorflow as tf
def cross_validate(folds):
    for train, test in folds:
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(loss="mse")
        model.fit(train)
        model.predict(test)
def score(paths, x):
    for path in paths:
        tf.keras.models.load_model(path).predict(x)
        model = tf.keras.models.load_model(path)
        model.predict(x)
""",
        # A model built up per configuration: the layer it adds reads the loop's axis, so
        # each pass predicts with another model, traced once.
        """
import tensorflow as tf
def check_axis(inputs, axis):
    layer = tf.keras.layers.LayerNormalization(axis=axis)
    model = tf.keras.models.Sequential()
    model.add(layer)
    return model.predict(inputs, steps=1)
def test_every_axis():
    inputs = tf.random.normal((2, 3, 4))
    for axis in range(1, 3):
        check_axis(inputs, axis)
def stacked(inputs, widths):
    layers = []
    for width in widths:
        layers.append(tf.keras.layers.Dense(width))
    model = tf.keras.Sequential(layers)
    return model.predict(inputs)
def sweep(inputs):
    for widths in ([4], [8, 4]):
        stacked(inputs, widths)
""",
        # Built and called once: in main(), in a test.
        """
import tensorflow as tf
def main():
    f = tf.function(lambda x: x * 2)
    print(f(tf.constant(1.0)))
def test_compiles():
    @tf.function(jit_compile=True)
    def g(x):
        return x + 1
    assert g(tf.constant(1.0)) == 2.0
if __name__ == "__main__":
    main()
""",
        # Datasets whose elements keep one shape, or a function that relaxes its signature:
        # fixed padded_shapes, a last partial batch (one more trace), reduce_retracing, an
        # input_signature with `None` dimensions, Keras `fit` (its own relaxed functions).
        """
import tensorflow as tf
@tf.function
def step(x):
    return tf.reduce_sum(x)
@tf.function(reduce_retracing=True)
def relaxed(x):
    return tf.reduce_sum(x)
@tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
def signed(x):
    return tf.reduce_sum(x)
def lines():
    yield [1, 2]
lines_ds = tf.data.Dataset.from_generator(lines, output_signature=tf.TensorSpec([None], tf.int32))
for x in lines_ds.padded_batch(4, padded_shapes=[16], drop_remainder=True):
    step(x)
for x in tf.data.Dataset.range(10).batch(3):
    step(x)
for x in lines_ds.padded_batch(4):
    relaxed(x)
    signed(x)
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(loss="mse")
model.fit(lines_ds.padded_batch(4))
""",
        # A factory called in a loop with another configuration on each pass (the loop's
        # Python variable): each function is traced once for its own configuration, as a
        # shared one would be for each value (model-optimization's per-summand-count tests).
        """
import tensorflow as tf
def make(count):
    @tf.function
    def step(x):
        parts = [x * i for i in range(count)]
        return tf.add_n(parts)
    return step
for count in [1, 3, 7]:
    make(count)(tf.constant(1.0))
""",
        # A helper that makes a tf.function, called in loops autograph stages (over
        # `tf.range`, a dataset, a `while` on a tensor) of a tf.function: each body is
        # traced once per trace, so the helper runs once or twice per trace, never per
        # step (google-research/seed_rl's ppo_training_step; observed on TF 2.21). Its
        # other caller runs it once per call.
        """
import tensorflow as tf
def single_epoch(x):
    @tf.function
    def train_on_minibatch(y):
        return y * 2.0
    for minibatch in tf.split(x, 2):
        x = train_on_minibatch(minibatch)
    return x
@tf.function
def training_step(x, epochs):
    x = single_epoch(x)
    for _ in tf.range(epochs - 1):
        x = single_epoch(x)
    return x
@tf.function
def over_data(x):
    for batch in tf.data.Dataset.from_tensor_slices(x).batch(2):
        x = single_epoch(x + batch)
    while tf.reduce_sum(x) < 10.0:
        x = single_epoch(x)
    return x
def warm_up(x):
    return single_epoch(x)
""",
    )
    INVALID = (
        # A grid's value read only where a tensor would serve (an arithmetic operand): every
        # rate traces again for nothing.
        """
import tensorflow as tf
@tf.function
def scaled(x, rate):
    return x * rate
def sweep(x):
    for rate in [0.5, 0.25, 0.125, 0.0625]:
        scaled(x, rate)  # error: JIT207
""",
        # A loop on a flag that the call may leave true: it runs the call again and again.
        """
import tensorflow as tf
def poll(queue):
    @tf.function  # error: JIT207
    def step(x):
        return x * 2.0
    for x in queue.batch():
        step(x)
    return queue.is_open()
def serve(queue):
    running = True
    while running:
        try:
            running = poll(queue)
        except tf.errors.UnavailableError:
            print("retrying")
""",
        # A counted value held over an inner loop still traces once per epoch.
        """
import tensorflow as tf
@tf.function
def step(x, epoch):
    return x * epoch
def train(x, batches):
    for epoch in range(100):
        for batch in batches:
            x = step(x, epoch)  # error: JIT207
    return x
""",
        # A sub-model of one model built before the loop is the same on every pass.
        """
import keras
import numpy as np
sample = np.zeros((1, 8))
base = keras.Sequential([keras.layers.Dense(4)])
for name in ["a", "b"]:
    probe = keras.Model(inputs=base.input, outputs=base.output)  # error: JIT207
    print(name, probe.predict(sample))
""",
        # Within a grid pass, a loop over steps makes the same tf.function again each step.
        """
import tensorflow as tf
def train(u, steps, dec):
    for t in [False, True]:
        for _ in range(steps):
            @tf.function  # error: JIT207
            def again(x):
                return dec(x) if t else x
            again(u)
""",
        # The same visualizer over a count: every pass rebuilds the same step.
        """
import tensorflow as tf
def make_step(scale):
    @tf.function  # error: JIT207
    def step(image):
        return image * scale
    return step
def visualize(image, scale, steps):
    step = make_step(scale)
    for _ in range(steps):
        image = step(image)
    return image
def test_rounds(image):
    for scale in range(3):
        visualize(image, 2.0, steps=scale)
""",
        # The same factory called once per batch of a dataset: the same work, retraced.
        """
import tensorflow as tf
def on_device(f, device):
    def run(*args):
        with tf.device(device):
            return f(*args)
    return tf.function(run)  # error: JIT207
def check(dataset):
    for batch in dataset:
        on_device(tf.identity, "GPU:0")(batch)
""",
        # A factory called in a loop with the same configuration each time.
        """
import tensorflow as tf
def make(scale):
    @tf.function  # error: JIT207
    def step(x):
        return x * scale
    return step
for _ in range(3):
    make(2.0)(tf.constant(1.0))
""",
        """
import tensorflow as tf
def f(x):
    return x * 2
for i in range(3):
    g = tf.function(f)  # error: JIT207
    g(tf.constant(1.0))
""",
        """
import tensorflow as tf
def run(xs):
    step = tf.function(lambda v: v + 1)  # error: JIT207
    return [step(x) for x in xs]
for _ in range(3):
    run([tf.constant(1.0)])
""",
        # Loaders that look like memos but are not: the cache is a local dict, empty on
        # every call; the cache hit does not return, so the function is made again.
        """
import tensorflow as tf
_steps = {}
def step_for(name):
    steps = {}
    if name in steps:
        return steps[name]
    @tf.function  # error: JIT207
    def step(x):
        return x * 2.0
    steps[name] = step
    return step
def scaled_for(name):
    if name in _steps:
        print("cached")
    step = tf.function(lambda x: x * 3.0)  # error: JIT207
    _steps[name] = step
    return step
def train(x):
    for _ in range(10):
        x = step_for("train")(x)
        x = scaled_for("scale")(x)
    return x
""",
        # A method that runs once per epoch defines the step; a decaying Python float.
        """
import tensorflow as tf
class Trainer:
    def epoch(self, data, rate):
        @tf.function  # error: JIT207
        def step(x):
            return x * 2
        for x in data:
            step(x)
        return self.scaled(x, rate)
    @tf.function
    def scaled(self, x, rate):
        return x * rate
    def act(self, x, epsilon):
        return self.scaled(x, epsilon)  # error: JIT207
def main(data):
    trainer = Trainer()
    epsilon = 1.0
    for _ in range(10):
        trainer.epoch(data, 0.1)
        trainer.act(data, epsilon)
        epsilon *= 0.9
""",
        """
import tensorflow as tf
def step(x, lr):
    return x * lr
fast_step = tf.function(step)
x = tf.constant(1.0)
for lr in [0.1, 0.01, 0.001]:
    x = fast_step(x, lr=lr)  # error: JIT207
""",
        """
import tensorflow as tf
for layer in range(4):
    @tf.function  # error: JIT207
    def f(x):
        return x
""",
        # The same model built up again (a fixed layer added) for every sample.
        """
import tensorflow as tf
def classify(sample):
    layer = tf.keras.layers.Dense(4)
    model = tf.keras.models.Sequential()  # error: JIT207
    model.add(layer)
    return model.predict(sample)
def serve(samples):
    for sample in samples:
        classify(sample)
""",
        # A model loaded again for every received sample (tensorflow/tensorflow#43501); a
        # step made per call of a method that runs by contract (a model's `predict`).
        """
import tensorflow as tf
MODEL_PATH = "model.keras"
def prediction(signal):
    model = tf.keras.models.load_model(MODEL_PATH)  # error: JIT207
    return model.predict(signal)
def serve(samples):
    for sample in samples:
        prediction(sample)
class Peaks:
    def predict(self, batches):
        @tf.function  # error: JIT207
        def step(x):
            return self.model(x)
        return [step(b) for b in batches]
""",
        # Elements that vary in shape: padded per batch, bucketed, a generator's `None`
        # length through `.batch(1)` (tensorflow/tensorflow#38002).
        """
import tensorflow as tf
@tf.function
def step(x):
    return tf.reduce_sum(x)
class Trainer:
    @tf.function(jit_compile=True)
    def train(self, x, y):
        return tf.reduce_sum(x) + tf.reduce_sum(y)
def lines():
    yield [1, 2], [3]
spec = (tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.int32))
pairs = tf.data.Dataset.from_generator(lines, output_signature=spec)
for x, y in pairs.padded_batch(8).prefetch(2):
    step(x)  # error: JIT207
trainer = Trainer()
for i, (x, y) in enumerate(pairs.batch(1)):
    trainer.train(x, y)  # error: JIT207
buckets = pairs.bucket_by_sequence_length(lambda x, y: tf.shape(x)[0], [4], [2, 2])
for x, y in buckets:
    step(y)  # error: JIT207
""",
        # The same helper in a Python loop of eager code, and in a `tf.range` loop of a
        # helper that eager code calls too: eagerly, a loop over a tensor iterates in
        # Python and makes a tf.function per pass.
        """
import tensorflow as tf
def single_epoch(x):
    @tf.function  # error: JIT207
    def train_on_minibatch(y):
        return y * 2.0
    for minibatch in tf.split(x, 2):
        x = train_on_minibatch(minibatch)
    return x
def train(x, epochs):
    for _ in range(epochs):
        x = single_epoch(x)
    return x
""",
        """
import tensorflow as tf
def single_epoch(x):
    @tf.function  # error: JIT207
    def train_on_minibatch(y):
        return y * 2.0
    for minibatch in tf.split(x, 2):
        x = train_on_minibatch(minibatch)
    return x
def run_epochs(x, epochs):
    for _ in tf.range(epochs):
        x = single_epoch(x)
    return x
@tf.function
def training_step(x, epochs):
    return run_epochs(x, epochs)
run_epochs(tf.constant([1.0, 2.0]), tf.constant(4))
""",
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        kind = type(func)
        leaf = func.attr.value if kind is cst.Attribute else getattr(func, "value", "")  # type: ignore[attr-defined]
        if leaf in _MODEL_MAKERS:
            self._remade_model(node)
        if kind is cst.Attribute:
            if func.attr.value == "function":  # type: ignore[attr-defined]
                self._built(node)
            elif type(func.value) is cst.Name:  # type: ignore[attr-defined]
                self._called(node)
        elif kind is cst.Name:
            if func.value == "function":  # type: ignore[attr-defined]
                self._built(node)
            else:
                self._called(node)

    def _graph_only(self, path: Sequence[cst.CSTNode]) -> bool:
        """The end of `path` runs only as graph code (a `must` context): there a nested
        `tf.function` or model is traced into the outer graph once. A helper that eager code
        calls too may still rebuild one per eager call."""
        context = self.ctx.tf.context(path)
        return context is not None and context.must

    def _remade_model(self, node: cst.Call) -> None:
        """A Keras model loaded or built the same way every time code that runs repeatedly
        runs, and only used there for prediction: each new model traces again."""
        path = self.ctx.path_to(node)
        found = model_remade_for_inference(self.ctx.tf, node, path)
        if found is None or self._graph_only(path):
            return  # graph code traces it into the outer graph
        name, where = found
        self.report(
            node,
            f"the Keras model `{name}` is made again {where}, and only predicts there: each "
            "new model traces (and compiles) its predict function again",
            help="load or build the model once (at module level, in `__init__` or before "
            "the loop) and reuse it",
        )

    def _built(self, node: cst.Call) -> None:
        if not any(a.keyword is None for a in node.args):
            return  # the decorator factory tf.function(jit_compile=True)
        path = self.ctx.path_to(node)
        loop = enclosing_loop(path)
        if loop is not None and (
            keeping(self.ctx.tf).kept_per_iteration(path)
            or per_configuration(self.ctx.names, node, path)
        ):
            loop = None  # one per element of the loop (a host, a device, a configuration)
        repeats = self.ctx.tf.repeats
        repeated = None if loop is not None else repeats.remade_by_owner(node, path, path)
        if loop is None and repeated is None:
            return  # built once: at module level, in main(), in a test
        if not self.ctx.names.resolves_to(node.func, path, TF_FUNCTION):
            return
        if self._graph_only(path):
            return  # inside graph code a nested tf.function is inlined into the outer graph
        where = "inside a loop" if loop is not None else repeated
        found: NodeFix | str = "it is inside a loop"
        if loop is None:
            from jitlint.fixes.hoisting.out import TF_BASES, hoist_call_fix_or_reason

            found = hoist_call_fix_or_reason(
                self.ctx,
                node,
                path,
                self._new_names,
                _base(node, path),
                prefixes=TF_BASES,
                what="the tf.function",
            )
        self.report(
            node,
            f"a new tf.function is created {where}: each one traces (and compiles) again",
            help="create the tf.function once, outside the loop or at module level"
            + (f"; no automatic fix: {found}" if isinstance(found, str) else ""),
            fix=found if isinstance(found, NodeFix) else None,
        )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not node.decorators:
            return
        path = self.ctx.path_to(node)
        in_loop = (
            enclosing_loop(path) is not None
            and not keeping(self.ctx.tf).def_kept_per_iteration(path)
            and not per_configuration(self.ctx.names, node, path)
        )
        # The owner of a decorated def is the function around the def itself.
        repeats = self.ctx.tf.repeats
        repeated = None if in_loop else repeats.remade_by_owner(node, path, path[:-1])
        if not in_loop and repeated is None:
            return
        for decorator in node.decorators:
            spec = self.ctx.tf.tf_function_spec(decorator.decorator, [*path, decorator])
            if spec is None:
                continue
            if self._graph_only(path[:-1]):
                return  # defined in graph code: inlined into the outer graph
            if in_loop:
                message = (
                    f"`{node.name.value}` is a new tf.function on every loop iteration: each "
                    "one traces (and compiles) again"
                )
            else:
                message = (
                    f"`{node.name.value}` is a new tf.function on every call, {repeated}: "
                    "each one starts with an empty trace cache, so it traces (and compiles) "
                    "again every time"
                )
            found: NodeFix | str = "it is defined inside a loop"
            if not in_loop:
                from jitlint.fixes.hoisting.out import TF_BASES, move_def_fix_or_reason

                found = move_def_fix_or_reason(
                    self.ctx, node, path, self._new_names[1], prefixes=TF_BASES
                )
            if isinstance(found, str):  # it cannot be made once: run it eagerly
                from jitlint.fixes.eager_fix import eager_fix

                found = eager_fix(self.ctx, node, decorator, path) or found
            self.report(
                decorator.decorator,
                message,
                help="define the tf.function once (module level, or in __init__), and pass "
                "what it closes over as arguments"
                + (f"; no automatic fix: {found}" if isinstance(found, str) else ""),
                fix=found if isinstance(found, NodeFix) else None,
            )
            return

    @cached_property
    def _new_names(self) -> tuple[set[str], set[str]]:
        """Names and attribute names a fix out of a function must not choose."""
        from jitlint.fixes.hoist_fix import names_in
        from jitlint.fixes.hoisting.scope import attribute_names

        return names_in(self.ctx.module), attribute_names(self.ctx.module)

    def _called(self, node: cst.Call) -> None:
        """A tf.function (without input_signature) called with a Python value that changes
        from call to call: the loop's variable, or a parameter that receives one."""
        if not any(type(a.value) is cst.Name for a in node.args):
            return
        path = self.ctx.path_to(node)
        owner = next((n for n in reversed(path[:-1]) if type(n) in _FUNCTIONS), None)
        passed = self.ctx.tf.repeats.varying.get(id(owner)) if owner is not None else None
        if not passed and enclosing_loop(path) is None:
            return  # neither a loop nor a parameter that receives changing values
        name = called_tf_function(self.ctx.tf, node, path)
        if name is None or self._graph_only(path):
            return
        varying = self._varying_arguments(node, path)
        if not varying:
            self._varying_shapes(node, path)
            return
        arg, why = varying[0]
        self.report(
            arg,
            f"`{name}` is a tf.function called with `{arg.value}`, {why}: every distinct "  # type: ignore[attr-defined]
            "Python value traces (and compiles) the function again",
            help="pass a tensor (tf.constant(value)), or give the function an input_signature",
            fix=self._tensor_fix(node, path, [a for a, _ in varying]),
        )

    def _varying_shapes(self, node: cst.Call, path: Sequence[cst.CSTNode]) -> None:
        """A tf.function without `input_signature` or `reduce_retracing` called, in a `for`
        loop over a dataset whose elements vary in shape, with an element: every new shape
        traces again (one trace per padded length, hazards.md)."""
        found = called_tf_function_options(self.ctx.tf, node, path)
        if found is None or found[1][2] or found[1][3]:
            return
        for arg in node.args:
            if type(arg.value) is not cst.Name or arg.star:
                continue
            why = self._dataset_element(arg.value, path)
            if why is None:
                continue
            self.report(
                arg.value,
                f"`{found[0]}` is a tf.function called with `{arg.value.value}`, an element "
                f"of a dataset whose elements vary in shape ({why}): every new shape traces "
                "(and compiles) the function again",
                help="give the tf.function `reduce_retracing=True`, or an `input_signature` "
                "with `None` for the dimensions that vary",
                fix=self._relax_fix(node, path),
            )
            return

    def _dataset_element(self, name: cst.Name, path: Sequence[cst.CSTNode]) -> str | None:
        """Why `name`, bound by an enclosing `for` over a dataset, varies in shape, if it does."""
        iterable = loop_iterable(
            name, path, lambda f: self.ctx.names.resolves_to(f, path, ENUMERATE)
        )
        return None if iterable is None else self.ctx.tf.varying_element_shapes(iterable, path)

    def _relax_fix(self, node: cst.Call, path: Sequence[cst.CSTNode]) -> NodeFix | None:
        """`reduce_retracing=True` on the decorator of the called `def`: one relaxed trace
        (a `None` for each dimension that varied) serves every later shape."""
        found = called_def(self.ctx.tf, node, path)
        if found is None:
            return None
        func = found[0]
        for decorator in func.decorators:
            expr = decorator.decorator
            if self.ctx.tf.tf_function_spec(expr, [*path, decorator]) is None:
                continue
            from jitlint.fixes.xla_fix import reduce_retracing_fix

            return reduce_retracing_fix(self.ctx, expr)
        return None

    def _tensor_fix(
        self, node: cst.Call, path: Sequence[cst.CSTNode], varying: list[cst.Name]
    ) -> NodeFix | None:
        """`tf.constant(value[, dtype])` for each changing argument, where the function
        converts it as it would the Python value (see fixes/tensor_argument.py)."""
        found = called_def(self.ctx.tf, node, path)
        if found is None:
            return None
        func, bound = found

        def qualified(call: cst.Call, path: Sequence[cst.CSTNode]) -> set[str]:
            return self.ctx.names.qualified_names(call.func, path)

        def dtype_of(expr: cst.BaseExpression, path: Sequence[cst.CSTNode]) -> str | None:
            info = self.ctx.tf.dtypes.info(expr, path)
            return None if info.numpy else info.name  # a NumPy operand stays NumPy

        func_path = self.ctx.tf.scope_path(func)
        from jitlint.fixes.tensor_argument import parameter_for, tensor_argument_fix

        dtypes = set()
        for value in varying:
            arg = next(a for a in node.args if a.value is value)
            param = parameter_for(func, node, arg, bound)
            dtype = (
                None
                if param is None
                else conversion_dtype(func, func_path, param, qualified, dtype_of)
            )
            if dtype is None:
                return None
            dtypes.add(dtype)
        if len(dtypes) != 1:
            return None  # one NodeFix spells one conversion
        spelled, imports = self.ctx.import_name("tensorflow", "tf")
        return tensor_argument_fix(varying, dtypes.pop(), spelled, (imports,) if imports else ())

    def _varying_arguments(
        self, node: cst.Call, path: Sequence[cst.CSTNode]
    ) -> list[tuple[cst.Name, str]]:
        """The arguments of the tf.function call `node` that make it trace again for
        nothing (model/tf/repeats.py `retracing_argument`), each with why."""
        out = []
        for arg in node.args:
            if arg.star:
                continue
            found = retracing_argument(self.ctx.tf, node, path, arg.value)
            if found is None:
                continue
            kind, where = found
            if kind == "loop":
                out.append((arg.value, "a Python value that changes every loop iteration"))
            else:
                why = f"a parameter that receives a changing Python value ({where})"
                out.append((arg.value, why))
        return out


def _base(node: cst.Call, path: Sequence[cst.CSTNode]) -> str:
    """`step_fn` for `step_fn = tf.function(...)`, else the wrapped function's name."""
    parent = path[-2] if len(path) >= 2 else None
    if type(parent) is cst.Assign and type(parent.targets[0].target) is cst.Name:  # type: ignore[attr-defined]
        return parent.targets[0].target.value  # type: ignore[attr-defined]
    expr = node.args[0].value
    if type(expr) is cst.Name:
        return f"{expr.value}_fn"  # type: ignore[attr-defined]
    if type(expr) is cst.Attribute:
        return f"{expr.attr.value.lstrip('_') or 'tf'}_fn"  # type: ignore[attr-defined]
    return "tf_fn"
