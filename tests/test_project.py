"""The project pass: traced code calling helpers imported from other files of the run."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from helpers import run_cli

import jitlint.engine.runner as runner
from jitlint import lint_source
from jitlint.engine.cache import CACHE_DIR

UTIL = """\
import math


def h(x, n=2):
    if x > 0:
        return x
    return x * n


def middle(x):
    return local(x)


def local(x):
    return float(x)


class Model:
    def h(self, x):
        if x > 0:
            return x
        return x
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def project(tmp_path: Path, train: str, util: str = UTIL, **more: str) -> Path:
    files = {"pkg/__init__.py": "", "pkg/util.py": util, "pkg/train.py": train}
    files.update({name.replace("__", "/") + ".py": text for name, text in more.items()})
    return write(tmp_path, files)


def check(root: Path, *args: str) -> tuple[int, list[dict[str, object]], str]:
    before = os.getcwd()
    os.chdir(root)
    try:
        status, out, err = run_cli("--format", "json", "--no-cache", *(args or ("pkg",)))
    finally:
        os.chdir(before)
    return status, json.loads(out) if out.strip() else [], err


def where(found: list[dict[str, object]]) -> list[tuple[object, object, object]]:
    return [(d["path"], d["line"], d["code"]) for d in found]


def test_hazard_in_an_imported_helper_is_reported_where_it_is(tmp_path):
    root = project(
        tmp_path,
        """\
        import jax
        from pkg import util


        @jax.jit
        def step(params, x):
            return util.h(x)
        """,
    )
    status, found, err = check(root)
    assert status == 1, err
    assert where(found) == [("pkg/util.py", 5, "JIT101")]
    message = str(found[0]["message"])
    assert "`x` is traced because `step` (pkg/train.py:7), compiled by `jax.jit`" in message
    assert "passes a traced value to `h`" in message
    # A file linted on its own has no project view: the helper is not known to be traced.
    assert lint_source((root / "pkg/util.py").read_text(), "pkg/util.py") == []


@pytest.mark.parametrize(
    "imports, call",
    [
        ("from .util import h", "h(x)"),
        ("from pkg.util import h as g", "g(x)"),
        ("import pkg.util as u", "u.h(x)"),
        ("import pkg.util", "pkg.util.h(x)"),
        ("from . import util", "util.h(x, n=3)"),
    ],
)
def test_import_spellings(tmp_path, imports, call):
    train = f"import jax\n{imports}\n\n\n@jax.jit\ndef step(x):\n    return {call}\n"
    _, found, err = check(project(tmp_path, train))
    assert where(found) == [("pkg/util.py", 5, "JIT101")], err


def test_helpers_of_the_helper_are_followed(tmp_path):
    """A local helper of the imported one, and a helper in a third module (another round)."""
    root = project(
        tmp_path,
        """\
        import jax
        from pkg import util, deep


        @jax.jit
        def step(x):
            return util.middle(x) + deep.outer(x)
        """,
        pkg__deep="""\
        from pkg.util import h


        def outer(y):
            return h(y)
        """,
    )
    _, found, err = check(root)
    assert where(found) == [("pkg/util.py", 5, "JIT101"), ("pkg/util.py", 15, "JIT102")], err
    via_deep = str(found[0]["message"])
    assert "`outer` (pkg/deep.py:5), called by `step` (pkg/train.py:7)" in via_deep


@pytest.mark.parametrize(
    "decorator, call",
    [
        ("@jax.jit", "util.h(x.shape[0])"),  # a shape is a Python int
        ("@jax.jit", "util.h(3)"),
        ("@partial(jax.jit, static_argnames='n')", "util.h(n)"),
        ("@jax.jit", "util.h(*[x])"),  # what a star argument fills is unknown
        ("@jax.grad", "util.h(x)"),  # under grad alone, bool conversion works
    ],
)
def test_no_finding(tmp_path, decorator, call):
    train = f"""\
import jax
from functools import partial
from pkg import util


{decorator}
def step(x, n):
    return {call}
"""
    status, found, err = check(project(tmp_path, train))
    assert (status, found) == (0, []), err


@pytest.mark.parametrize("call", ["util.Model().h(x)", "util.Model.h(None, x)"])
def test_methods_of_imported_classes_are_followed(tmp_path, call):
    """A method of a class of another file, called from traced code on an instance (or on
    the class): traced there, its `self` an instance whose fields are unknown."""
    train = f"""\
import jax
from pkg import util


@jax.jit
def step(x):
    return {call}
"""
    _, found, err = check(project(tmp_path, train))
    assert where(found) == [("pkg/util.py", 20, "JIT101")], err


def test_jitted_method_of_an_imported_instance(tmp_path):
    """`jax.jit(obj.method)` with `obj` made from another file's class: the method is traced
    there with `self` bound; a constructor called from traced code runs its `__init__`."""
    train = """\
    import jax
    from pkg.util import Model
    from pkg.shapes import Grid


    def main():
        model = Model()
        step = jax.jit(model.h)
        step(1.0)


    @jax.jit
    def build(n):
        return Grid(n)


    main()
    """
    shapes = """\
    import jax.numpy as jnp


    class Grid:
        def __init__(self, n):
            self.cells = jnp.zeros((n, n))
    """
    _, found, err = check(project(tmp_path, train, pkg__shapes=shapes))
    assert where(found) == [("pkg/shapes.py", 6, "JIT103"), ("pkg/util.py", 20, "JIT101")], err


def test_rebound_name_is_not_followed(tmp_path):
    train = """\
    import jax
    from pkg.util import h
    from pkg import util

    if util:
        h = abs


    @jax.jit
    def step(x):
        util = None
        return h(x), util.h(x)
    """
    status, found, err = check(project(tmp_path, train))
    assert (status, found) == (0, []), err


def test_helper_module_not_in_the_run(tmp_path):
    root = project(tmp_path, "import jax\nfrom pkg import util\nstep = jax.jit(util.h)\n")
    (root / "pkg/train.py").write_text(
        "import jax\nfrom pkg import util\n\n\n@jax.jit\ndef step(x):\n    return util.h(x)\n"
    )
    status, found, err = check(root, "pkg/train.py")
    assert (status, found) == (0, []), err
    # A module the imports name but no file of the run is: dropped too.
    (root / "pkg/train.py").write_text(
        "import jax\nimport other.util\n\n\n@jax.jit\ndef step(x):\n    return other.util.h(x)\n"
    )
    assert check(root) == (0, [], "")


def test_cycles_between_modules_end(tmp_path):
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": """\
            import jax
            from pkg import b


            @jax.jit
            def f(x):
                return b.g(x)


            def k(x):
                if x > 0:
                    return b.g(x)
                return x
            """,
            "pkg/b.py": """\
            from pkg import a


            def g(x):
                return a.k(x) + a.f(x)
            """,
        },
    )
    _, found, err = check(root)
    assert where(found) == [("pkg/a.py", 11, "JIT101")], err
    assert "`g` (pkg/b.py:5), called by `f` (pkg/a.py:7)" in str(found[0]["message"])


FILLER = {f"pkg/filler_{i:02}.py": f"X_{i} = {i}\n" for i in range(runner._MIN_FILES_FOR_POOL)}
TRAIN = """\
import jax
from pkg import util


@jax.jit
def step(x, y):
    return util.h(x) + util.middle(y)
"""


def test_jobs_and_cache_give_identical_output(tmp_path, monkeypatch):
    root = project(tmp_path, TRAIN)
    write(root, FILLER)
    outputs = {}
    for jobs in ("1", "2"):
        for fmt in ("json", "full"):
            before = os.getcwd()
            os.chdir(root)
            try:
                outputs[jobs, fmt] = run_cli("--format", fmt, "--no-cache", "-j", jobs, "pkg")
            finally:
                os.chdir(before)
    assert outputs["1", "json"] == outputs["2", "json"]
    assert outputs["1", "full"] == outputs["2", "full"]
    fresh = json.loads(outputs["1", "json"][1])
    assert where(fresh) == [("pkg/util.py", 5, "JIT101"), ("pkg/util.py", 15, "JIT102")]

    def cached(*args: str) -> list[dict[str, object]]:
        before = os.getcwd()
        os.chdir(root)
        try:
            _, out, err = run_cli("--format", "json", *args, "pkg")
        finally:
            os.chdir(before)
        assert "error" not in err, err
        return json.loads(out) if out.strip() else []

    assert cached("-j2") == fresh  # cold: fills the cache
    assert (root / CACHE_DIR).is_dir()

    def no_linting(*args: object, **kwargs: object) -> object:
        raise AssertionError("a cached file was linted again")

    with monkeypatch.context() as patch:
        patch.setattr(runner, "lint_text", no_linting)
        assert cached("-j1") == fresh  # warm: every round answered from the cache

    # The caller changes: the helper's second-round result must not be reused.
    (root / "pkg/train.py").write_text(TRAIN.replace("util.h(x)", "util.h(x.shape[0])"))
    assert where(cached("-j1")) == [("pkg/util.py", 15, "JIT102")]
    assert cached("-j1") == check(root)[1]
    # ... and back: train.py is linted again, the helper's earlier variant is still there.
    (root / "pkg/train.py").write_text(TRAIN)
    lint_text = runner.lint_text

    def only_train(source: bytes, path: str, *args: object, **kwargs: object) -> object:
        assert path == "pkg/train.py", f"{path} was linted again"
        return lint_text(source, path, *args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(runner, "lint_text", only_train)
        assert cached("-j1") == fresh
    # The helper changes: its findings move.
    (root / "pkg/util.py").write_text("# moved\n" + UTIL)
    moved = cached("-j1")
    assert where(moved) == [("pkg/util.py", 6, "JIT101"), ("pkg/util.py", 16, "JIT102")]
    assert moved == check(root)[1]


def test_fix_uses_the_project_pass(tmp_path):
    """A finding `jitlint check` shows in an imported helper is fixable by `--fix`."""
    root = project(tmp_path, TRAIN)
    before = os.getcwd()
    os.chdir(root)
    try:
        status, diff, err = run_cli("--diff", "--unsafe-fixes", "pkg")
        assert status == 1, err
        assert "+++ b/pkg/util.py" in diff
        status, _, err = run_cli("--fix", "--unsafe-fixes", "--no-cache", "pkg")
    finally:
        os.chdir(before)
    assert "error" not in err, err
    fixed = (root / "pkg/util.py").read_text()
    assert "jnp.where(x > 0" in fixed
    assert "JIT101" not in {d["code"] for d in check(root)[1]}


# ---- transformations applied in one file to a function of another ----------------------
MODEL = """\
def loss(params, x, training=True):
    if training:
        params = params * 2
    if x > 0:
        return params
    return x


def predict(w, x):
    return float(x) + w


def grad_only(x):
    if x > 0:
        return x
    return -x
"""


@pytest.mark.parametrize(
    "imports, application, expected",
    [
        ("from .model import loss", "jax.jit(loss)", [4]),
        ("from pkg import model", "jax.jit(model.loss)", [4]),
        ("import pkg.model as m", "jax.jit(m.loss, donate_argnums=0)", [4]),
        # `training` has a default (a Python value the caller may leave out) and is static
        # here besides; `params` static by position, so `if x > 0` alone remains.
        ("from pkg import model", "jax.jit(model.loss, static_argnames=('training',))", [4]),
        ("from pkg import model", "jax.jit(model.loss, static_argnums=(0, 2))", [4]),
        ("from pkg import model", "jax.jit(model.loss, static_argnames=('x',))", []),
        ("from pkg import model", "jax.jit(model.loss, static_argnums=1)", []),
        ("from pkg import model", "partial(jax.jit, static_argnums=1)(model.loss)", []),
        ("from pkg import model", "partial(jax.jit, static_argnums=0)(model.loss)", [4]),
        # As for a local jit-of-grad, the parameters are the inner transformation's view:
        # only the differentiated one is known traced.
        ("from pkg import model", "jax.jit(jax.value_and_grad(model.loss))", []),
        ("from pkg import model", "jax.jit(jax.value_and_grad(model.grad_only))", [14]),
        ("from pkg import model", "jax.value_and_grad(model.loss, argnums=1)", []),
        ("from pkg import model", "jax.grad(model.grad_only)", []),  # grad alone: bool works
        ("from pkg import model", "jax.jit(jax.grad(model.grad_only))", [14]),
        ("from pkg import model", "jax.jit(partial(model.loss, 1.0, 2.0))", []),
        ("from pkg import model", "jax.jit(partial(model.loss, 1.0))", [4]),
        ("import equinox as eqx\nfrom pkg import model", "eqx.filter_jit(model.loss)", []),
        ("from pkg import model", "jax.vmap(model.predict)", [10]),
        ("from pkg import model", "jax.vmap(model.predict, in_axes=(0, None))", []),
    ],
)
def test_transformation_applied_to_an_imported_function(tmp_path, imports, application, expected):
    train = f"import jax\nfrom functools import partial\n{imports}\n\nstep = {application}\n"
    root = project(tmp_path, train, pkg__model=MODEL)
    _, found, err = check(root)
    assert [d["line"] for d in found if d["path"] == "pkg/model.py"] == expected, err
    assert [d for d in found if d["path"] != "pkg/model.py"] == []


def test_the_message_names_the_application_in_the_other_file(tmp_path):
    train = """\
    import jax
    from pkg import model


    def main(data):
        step = jax.jit(
            model.loss, static_argnames="training"
        )
        return step(1.0, data)
    """
    _, found, err = check(project(tmp_path, train, pkg__model=MODEL))
    assert where(found) == [("pkg/model.py", 4, "JIT101")], err
    message = str(found[0]["message"])
    assert (
        "`x` is traced because it is a non-static argument of `loss`, which `jax.jit` compiles "
        "at pkg/train.py:6" in message
    )
    # The jit call is in another file: no fix may edit it (jnp.where's still applies).
    fix = found[0]["fix"]
    assert fix is None or "static_argnames" not in str(fix)


def test_an_application_inside_traced_code_takes_its_level(tmp_path):
    """`jax.grad(f)` called inside a jitted function: traced at the jit's level."""
    train = """\
    import jax
    from pkg import model


    @jax.jit
    def step(x):
        return jax.grad(model.grad_only)(x)
    """
    _, found, err = check(project(tmp_path, train, pkg__model=MODEL))
    assert where(found) == [("pkg/model.py", 14, "JIT101")], err


def test_applications_to_what_is_not_a_top_level_function_are_dropped(tmp_path):
    train = """\
    import jax
    from pkg import model
    from pkg.model import Net

    c = jax.jit(model.CONSTANT)
    d = jax.vmap(Net)
    """
    more = "\n\nCONSTANT = 3\n\n\nclass Net:\n    def apply(self, x):\n        return float(x)\n"
    status, found, err = check(project(tmp_path, train, pkg__model=MODEL + more))
    assert (status, found) == (0, []), err


@pytest.mark.parametrize("applied", ["net.apply", "model.Net.apply"])
def test_applications_to_methods_of_imported_classes(tmp_path, applied):
    """A transformation of a method of another file's class (bound to an instance made
    from it, or taken from the class) traces the method there."""
    train = f"""\
import jax
from pkg import model
from pkg.model import Net

net = Net()
a = jax.jit({applied})
"""
    more = "\n\nclass Net:\n    def apply(self, x):\n        return float(x)\n"
    _, found, err = check(project(tmp_path, train, pkg__model=MODEL + more))
    lines = MODEL.count("\n") + 5
    assert where(found) == [("pkg/model.py", lines, "JIT102")], err


APPLY = """\
import jax
from pkg import model

step = jax.jit(model.loss)
predict = jax.vmap(model.predict)
"""


def test_applications_give_identical_output_across_jobs_and_follow_the_cache(tmp_path):
    root = project(tmp_path, APPLY, pkg__model=MODEL)
    write(root, FILLER)

    def run(*args: str) -> tuple[int, str, str]:
        before = os.getcwd()
        os.chdir(root)
        try:
            return run_cli(*args, "pkg")
        finally:
            os.chdir(before)

    for fmt in ("json", "full"):
        assert run("--format", fmt, "--no-cache", "-j1") == run(
            "--format", fmt, "--no-cache", "-j2"
        )
    fresh = json.loads(run("--format", "json", "--no-cache")[1])
    assert where(fresh) == [("pkg/model.py", 4, "JIT101"), ("pkg/model.py", 10, "JIT102")]

    def cached() -> list[tuple[object, object, object]]:
        _, out, err = run("--format", "json", "-j1")
        assert "error" not in err, err
        return where(json.loads(out) if out.strip() else [])

    assert cached() == where(fresh)  # fills the cache
    # The file applying jit changes: the application's entry is part of the callee's key.
    (root / "pkg/train.py").write_text(
        APPLY.replace("model.loss)", "model.loss, static_argnums=1)")
    )
    assert cached() == [("pkg/model.py", 10, "JIT102")]
    (root / "pkg/train.py").write_text(APPLY.replace("jax.vmap", "jax.grad"))
    assert cached() == [("pkg/model.py", 4, "JIT101")]
    (root / "pkg/train.py").write_text(APPLY)
    assert cached() == where(fresh)


# ---- re-exports ---------------------------------------------------------------------------
USE_LOSS = """\
import jax
from pkg import loss


@jax.jit
def step(p, x):
    return loss(p, x)


grad_step = jax.jit(jax.grad(loss, argnums=1))
"""


@pytest.mark.parametrize(
    "init, more",
    [
        ("from .model import loss\n", {}),
        ("from pkg.model import loss\n", {}),
        ("from .model import loss as loss\nfrom .model import predict\n", {}),
        ("from . import model\nfrom .model import *\nloss = model.loss\n", None),
        # Two hops: the package re-exports what one of its modules re-exports.
        ("from .api import loss\n", {"pkg/api.py": "from pkg.model import loss\n"}),
    ],
)
def test_reexports_through_a_package(tmp_path, init, more):
    root = project(tmp_path, USE_LOSS, pkg__model=MODEL)
    write(root, {"pkg/__init__.py": init, **(more or {})})
    _, found, err = check(root)
    if more is None:  # a star import, an assignment: not followed
        assert found == [], err
        return
    assert where(found) == [("pkg/model.py", 4, "JIT101")], err
    # The application ranks first; without it, the call is what traces `loss`.
    assert "which `jax.jit` compiles at pkg/train.py:10" in str(found[0]["message"])
    (root / "pkg/train.py").write_text(USE_LOSS.split("\n\n\ngrad_step")[0])
    _, found, err = check(root)
    assert where(found) == [("pkg/model.py", 4, "JIT101")], err
    message = str(found[0]["message"])
    assert "`step` (pkg/train.py:7), compiled by `jax.jit`, passes a traced value" in message


@pytest.mark.parametrize(
    "files",
    [
        # A loop of re-exports with no def at its end.
        {"pkg/__init__.py": "from .a import loss\n", "pkg/a.py": "from pkg import loss\n"},
        {"pkg/__init__.py": "from pkg import loss\n"},
        # Two meanings: whichever import works at run time.
        {"pkg/__init__.py": "try:\n    from .fast import loss\nexcept ImportError:\n"
         "    from .model import loss\n", "pkg/fast.py": "def loss(p, x):\n    return x\n"},
        # Bound again after the import.
        {"pkg/__init__.py": "from .model import loss\n\n\ndef loss(p, x):\n    return x\n"},
        # Too many hops.
        {"pkg/__init__.py": "from .a import loss\n", "pkg/a.py": "from .b import loss\n",
         "pkg/b.py": "from .c import loss\n", "pkg/c.py": "from .model import loss\n"},
    ],
)  # fmt: skip
def test_loops_and_ambiguous_reexports_are_dropped(tmp_path, files):
    root = project(tmp_path, USE_LOSS, pkg__model=MODEL)
    write(root, files)
    status, found, err = check(root)
    assert (status, found) == (0, []), err


def test_reexports_are_cached(tmp_path, monkeypatch):
    root = project(tmp_path, USE_LOSS, pkg__model=MODEL)
    write(root, {"pkg/__init__.py": "from .model import loss\n"})

    def cached() -> list[tuple[object, object, object]]:
        before = os.getcwd()
        os.chdir(root)
        try:
            _, out, err = run_cli("--format", "json", "pkg")
        finally:
            os.chdir(before)
        assert "error" not in err, err
        return where(json.loads(out) if out.strip() else [])

    assert cached() == [("pkg/model.py", 4, "JIT101")]
    with monkeypatch.context() as patch:
        patch.setattr(runner, "lint_text", lambda *a, **k: pytest.fail("linted again"))
        assert cached() == [("pkg/model.py", 4, "JIT101")]
    # The re-export goes: the helper is linted again, on its own.
    (root / "pkg/__init__.py").write_text("")
    assert cached() == []


def test_call_lines_match_libcst_positions():
    """The project pass finds a call's line by searching its text (or, when the text repeats,
    by a line-counting codegen); both must agree with libcst's own positions."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    from jitlint.model.context import FileContext
    from jitlint.model.project.outbound import _lines

    source = (
        "import jax\n"
        "from pkg.util import h\n\n"
        "@jax.jit\n"
        "def f(x):\n"
        "    y = h(x)  # h(x) again in a comment\n"
        "    z = (\n"
        "        h(y)\n"
        "    )\n"
        "    w = ((\n"
        "        h(\n"
        "            z)))\n"
        "    return h(x) + w\n\n"
        "class C:\n"
        "    def m(self, x):\n"
        "        return h(x) + h(x)\n\n"
        "def g(x):\n"
        "    return h(x)\n\n"
        "def g(x):\n"
        "    return h(x)\n"
    )
    module = cst.parse_module(source)
    calls: list[tuple[cst.Call, cst.CSTNode]] = []
    for top in module.body:

        class Calls(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call, top: cst.CSTNode = top) -> None:
                calls.append((node, top))

        top.visit(Calls())
    ctx = FileContext(module, "m.py", source)
    found = _lines(ctx.tracing, calls, source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    expected = {id(c): positions[c].start.line for c, _ in calls}
    assert found == expected
    assert len(set(found.values())) > 3  # unique and repeated texts both occur


def test_methods_inherited_from_imported_bases(tmp_path):
    """`super().__call__(x)` and `self.check(x)` reach methods of base classes defined in
    other files (the first of several mixins that defines the method)."""
    train = """\
    import jax
    from pkg.bases import Base
    from pkg.mixins import Logging, Checks


    class Model(Base, Logging, Checks):
        def __call__(self, x):
            self.check(x)
            return super().__call__(x)


    @jax.jit
    def step(x):
        return Model()(x)
    """
    bases = """\
    class Base:
        def __call__(self, x):
            if x.sum() > 0:
                return x
            return -x
    """
    mixins = """\
    class Logging:
        def log(self, x):
            return x


    class Checks:
        def check(self, x):
            assert x.max() < 10
    """
    root = project(tmp_path, train, pkg__bases=bases, pkg__mixins=mixins)
    _, found, err = check(root)
    assert where(found) == [("pkg/bases.py", 3, "JIT101"), ("pkg/mixins.py", 8, "JIT101")], err


STEP = """\
import jax


@jax.jit
def train_step(x, training):
    if training:
        x = x * 0.5
    return x


def evaluate(x, training):
    if training:
        return x
    return -x
"""


@pytest.mark.parametrize(
    "flag, expected",
    [
        ("True", [("pkg/util.py", 6, "JIT101")]),  # jit makes a Python bool one traced array
        ("flags.training", []),  # an unknown Python value may be a container: not reported
    ],
)
def test_a_python_loop_in_another_file_passes_a_flag_to_a_jitted_step(tmp_path, flag, expected):
    train = f"""\
        import jax
        from .util import evaluate, train_step


        def main(flags):
            for _ in range(3):
                train_step(1.0, {flag})
            evaluate(1.0, True)  # not jitted: a Python bool stays one
        """
    _, found, err = check(project(tmp_path, train, util=STEP))
    assert where(found) == expected, err


def test_apply_of_an_imported_flax_module_reaches_its_call(tmp_path):
    model = """\
        import flax.linen as nn


        class Block(nn.Module):
            rate: float

            @nn.compact
            def __call__(self, x, training):
                return nn.Dropout(self.rate, deterministic=not training)(x)
        """
    train = """\
        import jax
        from .model import Block

        block = Block(0.1)


        @jax.jit
        def step(params, x, training: bool, key):
            return block.apply(params, x, training, rngs={"dropout": key})
        """
    _, found, err = check(project(tmp_path, train, pkg__model=model))
    assert where(found) == [("pkg/model.py", 9, "JIT101")], err


SQUASH = """\
import math

import equinox as eqx
import jax.numpy as jnp


def gain(bound):
    return jnp.log1p(jnp.exp(bound))


class Squash(eqx.Module):
    scale: float

    def __init__(self, bound: float):
        self.scale = math.exp(gain(bound))
"""


@pytest.mark.parametrize(("transform", "want"), [("jax.vmap", []), ("jax.jit", [15])])
def test_a_constructor_called_under_vmap_alone_runs_its_constant_operations_eagerly(
    tmp_path, transform, want
):
    """Built in another file's vmapped factory, the module's constructor runs a jnp
    operation on a Python float: a concrete array under vmap alone, a tracer under jit
    [observed on jax 0.10.2]. The call record carries whether the caller is staged."""
    train = f"""\
import jax
from pkg.util import Squash


def stack(keys, bound: float = 3.0):
    def one(key):
        return Squash(bound)

    return {transform}(one)(keys)
"""
    _, found, err = check(project(tmp_path, train, SQUASH))
    assert where(found) == [("pkg/util.py", line, "JIT102") for line in want], err


def test_call_records_keep_whether_their_caller_is_staged():
    from jitlint.model.jax.crossfile.records import CallRecord

    staged = CallRecord(".util.h", 7, "`step`", "compiled by `jax.jit`", 2, ((None, 1),), False)
    eager = CallRecord(".util.h", 7, "`f`", "traced by `jax.vmap`", 2, (), False, staged=False)
    assert len(staged.to_json()) == 7  # the format records made before staging was kept
    for record in (staged, eager):
        assert CallRecord.from_json(record.to_json()) == record
