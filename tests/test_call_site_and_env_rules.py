"""JIT111, JIT113, JIT301, JIT302 beyond their inline cases: fixes applied to real code, and
the silent hazards (which the shared runtime test cannot check) observed in fresh processes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from jitlint import catalogue
from jitlint.diagnostics import Diagnostic
from jitlint.engine.linter import lint_text
from jitlint.rules import all_rules


def _lint(source: str, code: str) -> list[Diagnostic]:
    result = lint_text(textwrap.dedent(source), "case.py", {code})
    assert not result.errors, result.errors
    return result.diagnostics


def _apply(source: str, diagnostic: Diagnostic) -> str:
    """The text after applying one diagnostic's fix (edits never overlap within a fix)."""
    assert diagnostic.fix is not None
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    text = source
    for edit in sorted(diagnostic.fix.edits, key=lambda e: (e.line, e.column), reverse=True):
        begin, end = offset(edit.line, edit.column), offset(edit.end_line, edit.end_column)
        text = text[:begin] + edit.content + text[end:]
    return text


def _python(source: str) -> str:
    """Run `source` in a fresh interpreter (environment variables matter) and return stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_", "TF_XLA"))}
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


# -- JIT111 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            """
            import jax
            @jax.jit
            def f(x, mode):
                return x
            f(1.0, "a")
            """,
            'jax.jit(static_argnames=("mode",))',
        ),
        (
            """
            import jax
            from functools import partial
            @partial(jax.jit, static_argnames="n")
            def f(x, n, mode):
                return x
            f(1.0, 2, mode="a")
            """,
            'static_argnames=("n", "mode")',
        ),
        (
            """
            import jax
            from functools import partial
            @partial(jax.jit, static_argnums=(1,))
            def f(x, n, mode):
                return x
            f(1.0, 2, "a")
            """,
            "static_argnums=(1, 2)",
        ),
        (
            """
            import jax
            def f(x, mode):
                return x
            g = jax.jit(f, donate_argnums=0)
            g(1.0, mode="a")
            """,
            'jax.jit(f, donate_argnums=0, static_argnames=("mode",))',
        ),
    ],
)
def test_jit111_string_fix_adds_the_parameter_to_the_static_spec(source, expected):
    source = textwrap.dedent(source)
    (diagnostic,) = _lint(source, "JIT111")
    assert diagnostic.fix is not None and diagnostic.fix.applicability == "unsafe"
    fixed = _apply(source, diagnostic)
    assert expected in fixed
    assert _lint(fixed, "JIT111") == []


def test_jit111_no_fix_when_both_spec_lists_are_given():
    source = """
    import jax
    from functools import partial
    @partial(jax.jit, static_argnums=1, static_argnames="k")
    def f(x, n, mode, k=0):
        return x
    f(1.0, 2, "a")
    """
    (diagnostic,) = _lint(source, "JIT111")
    assert diagnostic.fix is None


@pytest.mark.jax
def test_jit111_fixes_run_under_jax():
    pytest.importorskip("jax")
    source = textwrap.dedent(
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def activate(x, kind):
            return jnp.tanh(x) if kind == "tanh" else x
        class Ops:
            @jax.jit
            @staticmethod
            def double(x):
                return 2 * x
        print(activate(jnp.ones(2), "tanh").shape, Ops.double(jnp.ones(2)).shape)
        """
    )
    while True:
        found = _lint(source, "JIT111")
        if not found:
            break
        source = _apply(source, found[0])
    namespace: dict[str, object] = {"__name__": "__fixed__"}
    exec(compile(source, "<fixed>", "exec"), namespace)


# -- JIT113 --------------------------------------------------------------------------------


@pytest.mark.jax
def test_jit113_example_recompiles_and_use_instead_does_not():
    pytest.importorskip("jax")
    rule = all_rules()["JIT113"]
    counter = "import jax\njax.config.update('jax_log_compiles', True)\n"
    for section, name, expected in (("Example", "<lambda>", 3), ("Use instead", "double", 1)):
        code = catalogue.section_code(rule, section)
        assert code is not None
        done = subprocess.run(
            [sys.executable, "-c", counter + code], capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr[-2000:]
        # One compile per loop iteration for the bad example, one in all for the good one.
        assert done.stderr.count(f"Finished XLA compilation of jit({name})") == expected


@pytest.mark.jax
def test_jit113_hoisted_example_compiles_once():
    pytest.importorskip("jax")
    bad = catalogue.section_code(all_rules()["JIT113"], "Example")
    assert bad is not None
    (diagnostic,) = _lint(bad, "JIT113")
    assert diagnostic.fix is not None and diagnostic.fix.applicability == "unsafe"
    fixed = _apply(bad, diagnostic)
    assert "jitted = jax.jit(lambda y: scale(y, 2.0))\nfor step in range(3):" in fixed
    assert _lint(fixed, "JIT113") == []
    counter = "import jax\njax.config.update('jax_log_compiles', True)\n"
    done = subprocess.run(
        [sys.executable, "-c", counter + fixed], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.count("Finished XLA compilation of jit(<lambda>)") == 1


@pytest.mark.parametrize(
    "loop",
    [
        # The lambda reads the loop variable: traced once, it would keep the first value.
        "for w in ws:\n    x = jax.jit(lambda y: y * w)(x)\n",
        # A partial argument assigned in the loop.
        "for w in ws:\n    s = w * 2\n    x = jax.jit(partial(f, s=s))(x)\n",
        # An array the lambda reads is changed in place in the loop.
        "buf = np.zeros(2)\nfor w in ws:\n    buf[0] = w[0]\n"
        "    x = jax.jit(lambda y: y * buf)(x)\n",
        # Out of a try: an exception would no longer be caught.
        "for w in ws:\n    try:\n        x = jax.jit(lambda y: y)(x)\n"
        "    except TypeError:\n        pass\n",
        # Not a loop statement.
        "xs = [jax.jit(lambda y: y)(w) for w in ws]\n",
    ],
)
def test_jit113_no_hoist_when_it_would_change_the_result(loop):
    # `ws` holds arrays: a closure over one per pass is reported (over a Python setting, or
    # a value of unknown kind, it would not be: a compile per configuration is wanted).
    header = (
        "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom functools import partial\n"
    )
    source = header + "ws = jnp.ones((3, 2))\n" + loop
    (diagnostic,) = _lint(source, "JIT113")
    assert diagnostic.fix is None


# -- JIT301 / JIT302 -----------------------------------------------------------------------


@pytest.mark.jax
def test_jit301_example_loses_the_flag_and_use_instead_keeps_it():
    pytest.importorskip("jax")
    rule = all_rules()["JIT301"]
    probe = "\nprint('devices', jax.device_count())\n"
    bad = _python(catalogue.section_code(rule, "Example") + probe)
    good = _python(catalogue.section_code(rule, "Use instead") + probe)
    assert "devices 1" in bad
    assert "devices 4" in good


@pytest.mark.jax
def test_jit302_example_is_ignored_and_use_instead_works():
    pytest.importorskip("jax")
    rule = all_rules()["JIT302"]
    assert "float32" in _python(catalogue.section_code(rule, "Example"))
    assert "float64" in _python(catalogue.section_code(rule, "Use instead"))


@pytest.mark.jax
def test_jit302_safe_fix_makes_the_setting_effective():
    pytest.importorskip("jax")
    source = textwrap.dedent(
        """
        import os
        import jax.numpy as jnp
        os.environ["JAX_ENABLE_X64"] = "true"
        print(jnp.ones(3).dtype)
        """
    )
    assert "float32" in _python(source)
    (diagnostic,) = _lint(source, "JIT302")
    assert diagnostic.fix is not None and diagnostic.fix.applicability == "safe"
    fixed = _apply(source, diagnostic)
    assert 'jax.config.update("jax_enable_x64", True)' in fixed
    assert "import jax\n" in fixed
    assert "float64" in _python(fixed)
    assert _lint(fixed, "JIT302") == []


@pytest.mark.parametrize(
    ("value", "fixable"),
    [('"1"', True), ('"off"', True), ('"maybe"', False), ("flag", False)],
)
def test_jit302_fix_only_for_values_jax_would_parse(value, fixable):
    source = f"import os\nimport jax\nflag = '1'\nos.environ['JAX_DEBUG_NANS'] = {value}\n"
    (diagnostic,) = _lint(source, "JIT302")
    assert (diagnostic.fix is not None) == fixable


def test_jit302_no_fix_after_the_backend_started():
    source = """
    import os
    import jax
    jax.devices()
    os.environ["JAX_NUM_CPU_DEVICES"] = "4"
    """
    (diagnostic,) = _lint(source, "JIT302")
    assert diagnostic.fix is None


def test_env_rules_report_at_the_write():
    source = """
    import os
    import jax
    jax.devices()
    os.environ["XLA_FLAGS"] = "--xla_dump_to=/tmp/x"
    os.environ["JAX_ENABLE_X64"] = "1"
    """
    assert [(d.line, d.code) for d in _lint(source, "JIT301")] == [(5, "JIT301")]
    assert [(d.line, d.code) for d in _lint(source, "JIT302")] == [(6, "JIT302")]


def test_jit111_staticmethod_swap_is_safe_and_exact():
    source = textwrap.dedent(
        """
        import jax
        class Ops:
            @jax.jit
            @staticmethod
            def double(x):
                return 2 * x
        """
    )
    (diagnostic,) = _lint(source, "JIT111")
    assert diagnostic.fix is not None and diagnostic.fix.applicability == "safe"
    fixed = _apply(source, diagnostic)
    assert "    @staticmethod\n    @jax.jit\n    def double" in fixed
    assert _lint(fixed, "JIT111") == []


@pytest.mark.jax
def test_jit301_move_fix_makes_the_flag_effective():
    pytest.importorskip("jax")
    source = catalogue.section_code(all_rules()["JIT301"], "Example")
    (diagnostic,) = _lint(source, "JIT301")
    assert diagnostic.fix is not None and diagnostic.fix.applicability == "unsafe"
    fixed = _apply(source, diagnostic)
    assert _lint(fixed, "JIT301") == []
    assert "devices 4" in _python(fixed + "\nprint('devices', jax.device_count())\n")


def test_jit301_no_move_fix_for_computed_values_or_writes_in_blocks():
    source = """
    import os
    import jax
    jax.devices()
    flags = "--xla_dump_to=/tmp/x"
    os.environ["XLA_FLAGS"] = flags
    if True:
        os.environ["XLA_FLAGS"] = "--xla_dump_to=/tmp/y"
    """
    found = _lint(source, "JIT301")
    assert [d.line for d in found] == [6, 8]
    assert all(d.fix is None for d in found)
