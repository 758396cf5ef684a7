"""Framework versions: config keys, declared requirements, the facts' defaults, what a rule
gates on (JIT213 and Keras 2), the cache key, and `--show-settings`."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli

from jitlint import lint_source
from jitlint.config import ConfigError, ConfigResolver, load_settings
from jitlint.engine.linter import lint_text
from jitlint.framework_versions import VersionResolver, declared_in
from jitlint.model.library.jax_facts import jax_version
from jitlint.model.library.tf_facts import op_table
from jitlint.model.library.versions import (
    OPTIONS_KEY,
    FrameworkVersions,
    facts_versions,
    parse_version,
)

# JIT213's own bad example: a `tf.print` in a layer of a model compiled at the default.
KERAS_LAYER = textwrap.dedent(
    """\
    import tensorflow as tf
    from tensorflow import keras


    class Probe(keras.layers.Layer):
        def call(self, inputs):
            tf.print("batch mean:", tf.reduce_mean(inputs))
            return inputs


    model = keras.Sequential([keras.Input((4,)), Probe()])
    model.compile(optimizer="sgd", loss="mse")
    """
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def resolved(tmp_path: Path, file: str = "pkg/m.py") -> dict[str, tuple[str, str]]:
    target = tmp_path / file
    settings = ConfigResolver(cwd=tmp_path).for_file(target)
    return {
        name: (found.version, found.source)
        for name, found in VersionResolver().for_file(target, settings).items()
    }


# ---- versions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "version"),
    [("0.4.30", (0, 4, 30)), ("2.16.0rc1", (2, 16, 0)), ("3", (3,)), ("v2.15", (2, 15)),
     ("latest", None), ("", None)],
)  # fmt: skip
def test_parse_version(text, version):
    assert parse_version(text) == version


def test_the_defaults_are_the_facts_versions():
    facts = facts_versions()
    assert facts["jax"] == jax_version()
    assert facts["tensorflow"] == op_table()[0]
    assert facts["keras"] == "3"  # tf.keras of TensorFlow 2.16 and later
    versions = FrameworkVersions({})
    assert versions.jax == parse_version(jax_version())


def test_a_keras_version_not_given_follows_tensorflow():
    assert FrameworkVersions({"tensorflow": "2.15.1"}).keras == (2,)
    assert FrameworkVersions({"tensorflow": "2.16"}).keras == (3,)
    assert FrameworkVersions({"tensorflow": "2.15", "keras": "3.2"}).keras == (3, 2)


# ---- the config ----------------------------------------------------------------------------


def test_config_keys(tmp_path):
    config = write(
        tmp_path / "pyproject.toml",
        """\
        [tool.jitlint]
        jax-version = "0.4.30"
        tensorflow-version = "2.15"
        keras-version = " 2.15.0 "
        """,
    )
    settings = load_settings(config)
    assert settings.framework_versions == {
        "jax": ("0.4.30", config),
        "tensorflow": ("2.15", config),
        "keras": ("2.15.0", config),
    }


# 0.4 is a TOML float, not a string.
@pytest.mark.parametrize("value", ["0.4", '"newest"', '""', "[1]"])
def test_a_bad_version_is_a_config_error(tmp_path, value):
    config = write(tmp_path / "jitlint.toml", f"jax-version = {value}\n")
    with pytest.raises(ConfigError, match="`jax-version` must be a version string"):
        load_settings(config)


def test_versions_are_inherited_through_extend_and_overridden(tmp_path):
    write(tmp_path / "jitlint.toml", 'jax-version = "0.4.20"\ntensorflow-version = "2.15"\n')
    child = write(
        tmp_path / "sub" / "jitlint.toml", 'extend = "../jitlint.toml"\njax-version = "0.4.35"\n'
    )
    settings = load_settings(child)
    assert settings.framework_versions["jax"] == ("0.4.35", child)
    assert settings.framework_versions["tensorflow"] == ("2.15", tmp_path / "jitlint.toml")


# ---- declared requirements -----------------------------------------------------------------


def test_pyproject_dependencies_and_lower_bounds(tmp_path):
    write(
        tmp_path / "pyproject.toml",
        """\
        [project]
        name = "demo"
        dependencies = ["numpy", "jax[cuda12]>=0.4.20,<0.5; python_version >= '3.10'"]

        [project.optional-dependencies]
        tf = ["tensorflow-cpu==2.15.*", "keras<3"]
        """,
    )
    declared = declared_in(tmp_path)
    assert declared is not None
    assert declared["jax"].version == "0.4.20"
    assert "project.dependencies" in declared["jax"].detail
    assert declared["tensorflow"].version == "2.15"
    # An upper bound alone names no version, but `keras<3` still says Keras 2.
    assert declared["keras"].version is None
    assert declared["keras"].keras_2("keras")


def test_requirements_files_and_poetry(tmp_path):
    write(
        tmp_path / "requirements-dev.txt",
        """\
        -r requirements.txt
        # a comment
        jax ~= 0.4.31  # pinned for the CI
        keras>=3.1,!=3.2
        tensorflow==2.15.1 --hash=sha256:0123 \\
        """,
    )
    declared = declared_in(tmp_path)
    assert declared is not None
    assert (declared["jax"].version, declared["keras"].version) == ("0.4.31", "3.1")
    assert declared["tensorflow"].version == "2.15.1"
    assert declared["jax"].detail.endswith("requirements-dev.txt line 3")

    poetry = tmp_path / "poetry"
    write(
        poetry / "pyproject.toml",
        """\
        [tool.poetry.dependencies]
        python = "^3.10"
        jax = "^0.4.26"
        tensorflow = {version = "~2.14", optional = true}
        """,
    )
    declared = declared_in(poetry)
    assert declared is not None
    assert (declared["jax"].version, declared["tensorflow"].version) == ("0.4.26", "2.14")


@pytest.mark.parametrize(
    ("requirement", "keras", "source"),
    [
        ("tensorflow<=2.11", "2", "tensorflow"),
        ("tensorflow<2.16", "2", "tensorflow"),
        ("tensorflow<2.16.0", "2", "tensorflow"),
        ("tensorflow<=2.15.1", "2", "tensorflow"),
        ("tensorflow~=2.15.0", "2", "tensorflow"),  # below 2.16
        ("tensorflow==2.15.*", "2", "tensorflow"),
        ("tensorflow>=2.10,<2.16", "2", "tensorflow"),
        ("tensorflow>=2.16,<2.20", "3", "tensorflow"),
        ("tensorflow>=2.17", "3", "tensorflow"),
        ("keras<3", "2", "requirements"),
        # Ranges that hold TensorFlows with either Keras: the project is undecided.
        ("tensorflow>=2.6", "undecided", "undecided"),
        ("tensorflow~=2.10", "undecided", "undecided"),  # below 3.0: 2.16 and later too
        ("tensorflow<=2.16", "undecided", "undecided"),  # no version and an open major
        ("tensorflow<3", "undecided", "undecided"),
        ("tensorflow!=2.16", "undecided", "undecided"),
        ("keras<=3.0", "undecided", "undecided"),
        ("numpy>=1.20", "undecided", "undecided"),  # nothing about TensorFlow or Keras
    ],
)
def test_the_tensorflow_range_decides_the_keras_major(tmp_path, requirement, keras, source):
    write(tmp_path / "requirements.txt", requirement + "\n")
    versions = resolved(tmp_path)
    expected = facts_versions()["keras"] if keras == "facts" else keras
    assert versions["keras"] == (expected, source)
    if requirement.startswith("tensorflow<"):
        assert versions["tensorflow"][1] == "facts"  # no TensorFlow version is made up
    elif requirement.startswith(("tensorflow>", "tensorflow=", "tensorflow~")):
        assert versions["tensorflow"][1] == "requirements"  # its lower bound, as before


def test_an_open_range_leaves_out_keras_3_findings_until_the_code_decides(tmp_path):
    # `tensorflow>=2.6` holds TensorFlows with either Keras: JIT213 (Keras 3's "auto") is
    # not reported, until the project's code shows Keras 3 or `tensorflow>=2.16` says it.
    from jitlint.frontends.lsp.editor import EditorState

    write(tmp_path / "requirements.txt", "tensorflow>=2.6\n")
    path = write(tmp_path / "m.py", KERAS_LAYER)
    state = EditorState([tmp_path])
    assert state.lint(state.setup(path), KERAS_LAYER) == []
    write(tmp_path / "requirements.txt", "tensorflow>=2.16\n")
    state = EditorState([tmp_path])
    assert [d.line for d in state.lint(state.setup(path), KERAS_LAYER)] == [7]
    write(tmp_path / "requirements.txt", "tensorflow>=2.6\n")
    write(tmp_path / "pkg" / "ops.py", "from keras import ops\n")
    state = EditorState([tmp_path])
    assert [d.line for d in state.lint(state.setup(path), KERAS_LAYER)] == [7]


def test_the_keras_2_of_an_upper_bound_says_where_it_came_from(tmp_path):
    write(tmp_path / "requirements.txt", "numpy\ntensorflow<=2.11\n")
    settings = ConfigResolver(cwd=tmp_path).for_file(tmp_path / "m.py")
    keras = VersionResolver().for_file(tmp_path / "m.py", settings)["keras"]
    assert (keras.version, keras.source) == ("2", "tensorflow")
    assert keras.file == tmp_path / "requirements.txt"
    assert keras.detail == "tensorflow<=2.11 in requirements.txt line 2"


def test_a_lower_bound_anywhere_beats_an_earlier_upper_bound_alone(tmp_path):
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\ndependencies = ["tensorflow<3"]\n')
    write(tmp_path / "requirements.txt", "tensorflow>=2.17\n")
    declared = declared_in(tmp_path)
    assert declared is not None and declared["tensorflow"].version == "2.17"
    assert resolved(tmp_path)["keras"] == ("3", "tensorflow")


SETUP_PY = """\
    import os
    import setuptools
    from version import __version__

    REQUIRED = ["numpy", "tensorflow<=2.11"]
    TESTS: list = ["pytest"]

    setuptools.setup(
        name="demo",
        version=__version__,
        install_requires=REQUIRED + ["absl-py"],
        extras_require={"jax": ["jax>=0.4.20"], "test": TESTS},
    )
    """


def test_setup_py_is_read_from_its_syntax_tree(tmp_path):
    # `from version import ...` would fail if the file were run: it is only parsed.
    write(tmp_path / "setup.py", SETUP_PY)
    declared = declared_in(tmp_path)
    assert declared is not None
    assert declared["jax"].version == "0.4.20"
    assert declared["jax"].detail == "jax>=0.4.20 in setup.py extras_require.jax"
    assert declared["tensorflow"].version is None
    assert declared["tensorflow"].detail == "tensorflow<=2.11 in setup.py install_requires"
    assert resolved(tmp_path)["keras"] == ("2", "tensorflow")
    assert resolved(tmp_path)["jax"] == ("0.4.20", "requirements")


@pytest.mark.parametrize(
    "text",
    [
        "from setuptools import setup\nsetup(name='x', install_requires=['tensorflow==2.15.1'])\n",
        "import setuptools as st\nDEPS = ('tensorflow==2.15.1',)\n"
        "st.setup(install_requires=DEPS)\n",
        "from setuptools import setup\nsetup(install_requires='tensorflow==2.15.1')\n",
        # a table of requirement groups, one entry per keyword
        "from setuptools import setup\nreqs = {'install': ['tensorflow-gpu==2.15.1'], 'test': []}\n"
        "install_requires = reqs['install']\nsetup(install_requires=install_requires)\n",
        "from setuptools import setup\n"
        "setup(install_requires={'a': ['tensorflow==2.15.1']}['a'])\n",
    ],
)
def test_setup_py_requirement_shapes(tmp_path, text):
    write(tmp_path / "setup.py", text)
    assert resolved(tmp_path)["tensorflow"] == ("2.15.1", "requirements")


@pytest.mark.parametrize(
    "text",
    [
        "from setuptools import setup\nsetup(name='x')\n",  # no requirements at all
        "def broken(:\n",
        "from setuptools import setup\n"
        "setup(install_requires=open('requirements.in').read().split())\n",
        # an entry the table does not have, or a key that is not a literal
        "from setuptools import setup\nreqs = {'install': ['tensorflow==2.15.1']}\n"
        "setup(install_requires=reqs['test'])\n",
        "from setuptools import setup\nreqs = {'install': ['tensorflow==2.15.1']}\nk = 'install'\n"
        "setup(install_requires=reqs[k])\n",
    ],
)
def test_setup_py_without_literal_requirements_declares_nothing(tmp_path, text):
    write(tmp_path / "setup.py", text)
    declared = declared_in(tmp_path)
    assert declared is None or "tensorflow" not in declared
    # A setup.py that declares requirements makes a project, whose Keras is then undecided.
    assert resolved(tmp_path)["keras"] == (("3", "facts") if declared is None else U)


def test_setup_cfg_install_requires_and_extras(tmp_path):
    write(
        tmp_path / "setup.cfg",
        """\
        [metadata]
        name = demo

        [options]
        install_requires =
            numpy  # any
            tensorflow-cpu<2.16

        [options.extras_require]
        jax = jax>=0.4.30
        """,
    )
    declared = declared_in(tmp_path)
    assert declared is not None
    assert declared["jax"].detail == "jax>=0.4.30 in setup.cfg extras_require.jax"
    assert resolved(tmp_path)["keras"] == ("2", "tensorflow")


def test_a_directory_without_requirement_files_declares_nothing(tmp_path):
    assert declared_in(tmp_path) is None
    write(tmp_path / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    assert declared_in(tmp_path) is None  # no dependency table: the search goes on upwards
    write(tmp_path / "pyproject.toml", "not = [valid toml\n")
    assert declared_in(tmp_path) is None


def test_precedence_config_then_requirements_then_tensorflow_then_facts(tmp_path):
    assert resolved(tmp_path) == {
        "jax": (facts_versions()["jax"], "facts"),
        "tensorflow": (facts_versions()["tensorflow"], "facts"),
        "keras": ("3", "facts"),
    }
    write(tmp_path / "requirements.txt", "jax==0.4.25\ntensorflow==2.15.1\n")
    assert resolved(tmp_path) == {
        "jax": ("0.4.25", "requirements"),
        "tensorflow": ("2.15.1", "requirements"),
        "keras": ("2", "tensorflow"),
    }
    write(tmp_path / "jitlint.toml", 'jax-version = "0.4.36"\nkeras-version = "3.3"\n')
    assert resolved(tmp_path) == {
        "jax": ("0.4.36", "config"),
        "tensorflow": ("2.15.1", "requirements"),
        "keras": ("3.3", "config"),
    }


def test_only_configured_or_declared_versions_travel_in_the_options(tmp_path):
    # The facts' versions are the engine's fallback: a project declaring none keeps the
    # options (and the cache key) it had, and reads no facts until a rule asks.
    target = tmp_path / "m.py"
    settings = ConfigResolver(cwd=tmp_path).for_file(target)
    assert VersionResolver().options(target, settings) == {
        "keras": "code-or-facts",  # the code of the file's folder may still say Keras 2
        "keras-project": str(tmp_path / "*.py"),
    }
    write(tmp_path / "requirements.txt", "tensorflow==2.15.1\n")
    assert VersionResolver().options(target, settings) == {"tensorflow": "2.15.1", "keras": "2"}


def test_a_dockerfile_from_the_tensorflow_image_declares_that_tensorflow(tmp_path):
    write(
        tmp_path / "docker" / "Dockerfile",
        "FROM tensorflow/tensorflow:2.3.1-gpu\nRUN pip install pillow\n",
    )
    write(tmp_path / "pkg" / "__init__.py", "")
    assert resolved(tmp_path) == {
        "jax": (facts_versions()["jax"], "facts"),
        "tensorflow": ("2.3.1", "requirements"),
        "keras": ("2", "tensorflow"),  # tf.keras of TF 2.3 converts a layer's call
    }
    declared = declared_in(tmp_path)
    assert declared is not None
    assert declared["tensorflow"].file == tmp_path / "docker" / "Dockerfile"
    assert "FROM tensorflow/tensorflow:2.3.1" in declared["tensorflow"].detail


def test_dockerfiles_with_several_tensorflow_images_declare_the_range(tmp_path):
    write(tmp_path / "Dockerfile.gpu", "FROM tensorflow/tensorflow:2.4.1-gpu\n")
    write(tmp_path / "docker" / "serve.dockerfile", "FROM tensorflow/tensorflow:2.17.0\n")
    assert resolved(tmp_path)["tensorflow"] == ("2.4.1", "requirements")
    # 2.4 has Keras 2 and 2.17 Keras 3: the range leaves the major to the code.
    assert resolved(tmp_path)["keras"] == ("undecided", "undecided")
    write(tmp_path / "docker" / "serve.dockerfile", "FROM tensorflow/tensorflow:2.9.3-gpu\n")
    assert resolved(tmp_path)["keras"] == ("2", "tensorflow")


@pytest.mark.parametrize(
    "image",
    [
        "FROM python:3.10\nRUN pip install tensorflow\n",
        "FROM nvcr.io/nvidia/tensorflow:25.02-tf2-py3\n",  # the vendor's own numbering
        "FROM tensorflow/tensorflow:latest-gpu\n",
        "# FROM tensorflow/tensorflow:2.3.1\nFROM ubuntu:22.04\n",
    ],
)
def test_a_dockerfile_without_a_versioned_tensorflow_image_declares_nothing(tmp_path, image):
    write(tmp_path / "Dockerfile", image)
    assert declared_in(tmp_path) is None


def test_the_nearest_declaring_directory_wins(tmp_path):
    write(tmp_path / "requirements.txt", "jax==0.4.25\n")
    write(tmp_path / "lib" / "pyproject.toml", '[project]\nname = "lib"\ndependencies = []\n')
    write(tmp_path / "app" / "README.md", "no requirements here\n")
    assert resolved(tmp_path, "app/m.py")["jax"] == ("0.4.25", "requirements")
    # The sub-project declares requirements, none of them jax: its own, not its parent's.
    assert resolved(tmp_path, "lib/m.py")["jax"] == (facts_versions()["jax"], "facts")


@pytest.mark.parametrize(
    "setting",
    [".github/workflows/ci.yml", "tox.ini", "setup.cfg"],
)
def test_a_legacy_keras_setting_makes_keras_2(tmp_path, setting):
    # tf.keras imports alone leave the Keras major open; TF_USE_LEGACY_KERAS in the
    # project's test environment says tf.keras is tf-keras (Keras 2), even on TensorFlow 2.16+.
    write(tmp_path / "requirements.txt", "tensorflow>=2.16\n")
    write(tmp_path / "pkg" / "README.md", "no settings here\n")
    assert resolved(tmp_path, "pkg/m.py")["keras"] == ("3", "tensorflow")
    write(tmp_path / setting, "env:\n  TF_USE_LEGACY_KERAS: ${{ matrix.legacy }}\n")
    target = tmp_path / "pkg" / "m.py"
    found = VersionResolver().for_file(target, ConfigResolver(cwd=tmp_path).for_file(target))
    assert (found["keras"].version, found["keras"].source) == ("2", "legacy-keras")
    assert found["keras"].file == tmp_path / setting
    write(tmp_path / "requirements.txt", "tensorflow>=2.16\nkeras>=3.0\n")
    assert resolved(tmp_path, "pkg/m.py")["keras"] == ("3.0", "requirements")  # declared wins


def test_a_setting_named_otherwise_is_not_legacy_keras(tmp_path):
    write(tmp_path / "tox.ini", "[testenv]\nsetenv = TF_USE_LEGACY_KERAS_X=1\n")
    assert resolved(tmp_path)["keras"] == ("3", "facts")


U = ("undecided", "undecided")  # a project whose declarations and code leave it open


@pytest.mark.parametrize(
    ("requirements", "code", "expected"),
    [
        # Nothing declares the Keras: a layer calling `self.add_metric` runs only on Keras 2.
        ("numpy\n", "        self.add_metric(loss)\n", ("2", "code")),
        ("tensorflow>=2.6\n", "        self.add_update(op)\n", ("2", "code")),  # open range
        ("numpy\n", "model.compile(loss='mse', experimental_run_tf_function=False)\n",
         ("2", "code")),
        ("numpy\n", "        self.add_loss(loss)\n", U),  # Keras 3 has it
        ("numpy\n", "        other.add_metric(loss)\n", U),  # not a layer's own
        # The class's own method of that name, not Keras'.
        ("numpy\n", "        self.add_metric(loss)\n    def add_metric(self, x):\n        pass\n",
         U),
        # A declared TensorFlow decides; the code does not override it.
        ("tensorflow>=2.16\n", "        self.add_metric(loss)\n", ("3", "tensorflow")),
        # The project's own code choosing tf-keras at run time (TensorFlow unversioned).
        ("tensorflow\n", '        os.environ["TF_USE_LEGACY_KERAS"] = "1"\n', ("2", "code")),
        ("numpy\n", "        os.environ.setdefault('TF_USE_LEGACY_KERAS', 'true')\n",
         ("2", "code")),
        # Reading or testing the setting, or setting it false, chooses nothing.
        ("tensorflow\n", '        os.environ.get("TF_USE_LEGACY_KERAS", "1")\n', U),
        ("tensorflow\n", '        legacy = os.environ["TF_USE_LEGACY_KERAS"] == "1"\n', U),
        ("tensorflow\n", '        os.environ["TF_USE_LEGACY_KERAS"] = "0"\n', U),
        # Code that only Keras 3 runs decides an undecided project (keras_evidence.py).
        ("tensorflow>=2.6\n", "        return keras.ops.sum(x)\n", ("3", "code")),
        ("numpy\n", "        from keras import layers, ops\n", ("3", "code")),
        ("numpy\n", "        self.seed = keras.random.SeedGenerator(1)\n", ("3", "code")),
        ("numpy\n", "        keras.config.set_floatx('float64')\n", ("3", "code")),
        ("numpy\n", "        import keras_core\n", ("3", "code")),
        # Spellings Keras 2 (2.13 on, and tf-keras) has as well decide nothing.
        ("numpy\n", "        from keras.src.engine import base_layer\n", U),
        ("numpy\n", "        keras.saving.register_keras_serializable()(Head)\n", U),
        ("tensorflow>=2.6\n", "        return tf.random.normal(x)\n", U),
        # Keras 2 code beats Keras 3 code (precision first).
        ("numpy\n", "        keras.ops.sum(x)\n        self.add_metric(x)\n", ("2", "code")),
        # A declared TensorFlow decides; Keras 3 code does not override Keras 2.
        ("tensorflow<2.16\n", "        return keras.ops.sum(x)\n", ("2", "tensorflow")),
    ],
)  # fmt: skip
def test_code_that_only_one_keras_runs_decides_an_undecided_project(
    tmp_path, requirements, code, expected
):
    write(tmp_path / "requirements.txt", requirements)
    write(tmp_path / "pkg" / "m.py", "import tensorflow as tf\n")
    write(tmp_path / "pkg" / "layers" / "head.py", f"class Head:\n    def call(self):\n{code}")
    assert resolved(tmp_path, "pkg/m.py")["keras"] == expected


def test_keras_2_code_decides_a_file_outside_any_declaring_project(tmp_path):
    # No requirement file anywhere (a TF 2.0-2.5 era repository often declares nothing): the
    # module's own folder (no package) shows Keras 2 code, so Keras 2; its subfolders are not
    # read, and Keras 3 code changes nothing (the facts' Keras is 3 already).
    write(tmp_path / "heads.py", "from tensorflow.python.keras.engine import keras_tensor\n")
    write(tmp_path / "model.py", "import tensorflow as tf\n")
    assert resolved(tmp_path, "model.py")["keras"] == ("2", "code")
    write(tmp_path / "app" / "m.py", "import tensorflow as tf\n")
    assert resolved(tmp_path, "app/m.py")["keras"] == ("3", "facts")
    write(tmp_path / "app" / "k.py", "import keras\nx = keras.ops.ones(2)\n")
    assert resolved(tmp_path, "app/m.py")["keras"] == ("3", "facts")
    # In a package, the whole package: from its topmost `__init__.py` folder down.
    for folder in ("pkg", "pkg/layers", "pkg/metrics"):
        write(tmp_path / folder / "__init__.py", "")
    write(tmp_path / "pkg" / "layers" / "attention.py", "import tensorflow as tf\n")
    assert resolved(tmp_path, "pkg/layers/attention.py")["keras"] == ("3", "facts")
    write(
        tmp_path / "pkg" / "metrics" / "head.py",
        "class Head:\n    def call(self):\n        self.add_metric(1)\n",
    )
    assert resolved(tmp_path, "pkg/layers/attention.py")["keras"] == ("2", "code")
    # A declaring project decides as before: an undecided one reads its own tree.
    write(tmp_path / "app" / "requirements.txt", "numpy\n")
    assert resolved(tmp_path, "app/m.py")["keras"] == ("3", "code")


@pytest.mark.parametrize(
    ("code", "keras_2"),
    [
        ("from tensorflow.python.keras.engine import keras_tensor\n", True),
        ("import tensorflow.python.keras.backend as K\n", True),
        ("from tensorflow.python.ops import math_ops\n", False),  # not its Keras
        ("from tensorflow import keras\n", False),
    ],
)
def test_importing_tensorflows_own_keras_is_keras_2_code(code, keras_2):
    from jitlint.model.library.keras_evidence import keras_2_code

    assert (keras_2_code(code.encode()) is not None) == keras_2


# ---- the undecided Keras major: the options, the lazy scan, the model's answers --------------


def test_an_undecided_project_travels_as_undecided_and_its_root(tmp_path):
    write(tmp_path / "requirements.txt", "tensorflow>=2.6\n")
    target = tmp_path / "pkg" / "m.py"
    settings = ConfigResolver(cwd=tmp_path).for_file(target)
    assert VersionResolver().options(target, settings) == {
        "tensorflow": "2.6",
        "keras": "undecided",
        "keras-project": str(tmp_path),
    }
    # The code is not read to make the options: a JAX-only file pays no scan.
    write(tmp_path / "pkg" / "k.py", "from keras import ops\n")
    assert VersionResolver().options(target, settings)["keras"] == "undecided"
    # Outside any declaring project: its folder's code, read on request, else the facts'.
    lone = tmp_path.parent / f"{tmp_path.name}-lone" / "m.py"
    assert VersionResolver().options(lone, ConfigResolver(cwd=lone.parent).for_file(lone)) == {
        "keras": "code-or-facts",
        "keras-project": str(lone.parent / "*.py"),
    }


@pytest.mark.parametrize(
    ("requirements", "setup_requires", "keras"),
    [
        # A Keras 3 pin beside a declared tf-keras: which one tf.keras is, is open.
        ("tensorflow==2.16.1\nkeras==3.12.0\n", '"tf-keras"', "undecided"),
        ("tensorflow>=2.16\n", '"tf_keras>=2.16"', "undecided"),
        # Without tf-keras the same pins decide Keras 3; with a Keras 2 TensorFlow, 2.
        ("tensorflow==2.16.1\nkeras==3.12.0\n", '"numpy"', "3.12.0"),
        ("tensorflow<2.16\n", '"tf-keras"', "2"),
    ],
)
def test_tf_keras_beside_a_keras_3_leaves_the_major_open(
    tmp_path, requirements, setup_requires, keras
):
    write(tmp_path / "requirements.txt", requirements)
    write(tmp_path / "setup.py", f"setup(install_requires=[{setup_requires}])\n")
    target = tmp_path / "pkg" / "m.py"
    settings = ConfigResolver(cwd=tmp_path).for_file(target)
    assert VersionResolver().options(target, settings)["keras"] == keras


def test_the_keras_major_of_an_undecided_project_is_read_from_its_code_on_request(tmp_path):
    from jitlint.model.library import keras_evidence

    write(tmp_path / "requirements.txt", "numpy\n")
    write(tmp_path / "pkg" / "m.py", "import tensorflow as tf\n")
    options = {"keras": "undecided", "keras-project": str(tmp_path)}
    keras_evidence.forget_evidence()
    versions = FrameworkVersions.from_options(options)
    assert versions.keras_major_of_file("import tensorflow as tf\n") is None
    assert versions.evidence_read == [(str(tmp_path), "undecided")]
    assert not versions.keras_stated
    write(tmp_path / "pkg" / "k.py", "import keras\nseed = keras.random.SeedGenerator(1)\n")
    keras_evidence.forget_evidence()
    versions = FrameworkVersions.from_options(options)
    assert versions.keras_major_of_file("") == 3 and versions.keras_stated
    assert versions.evidence_read == [(str(tmp_path), f"3:{tmp_path / 'pkg' / 'k.py'}")]
    # The file's own tf-keras setting still wins; no project: the facts' Keras 3.
    assert versions.keras_major_of_file('os.environ["TF_USE_LEGACY_KERAS"] = "1"') == 2
    assert FrameworkVersions.from_options({}).keras_major_of_file("") == 3
    assert FrameworkVersions.from_options({}).evidence_read == []
    # Outside any declaring project: Keras 2 where the folder's code shows it, else the facts'.
    scope = str(tmp_path / "pkg" / "*.py")
    outside = {"keras": "code-or-facts", "keras-project": scope}
    keras_evidence.forget_evidence()
    versions = FrameworkVersions.from_options(outside)
    assert versions.keras_major_of_file("") == 3 and not versions.keras_stated
    update = "class H:\n    def call(self, x):\n        self.add_update(x)\n"
    write(tmp_path / "pkg" / "h.py", update)
    keras_evidence.forget_evidence()
    versions = FrameworkVersions.from_options(outside)
    assert versions.keras_major_of_file("") == 2 and versions.keras_stated
    assert versions.evidence_read == [(scope, f"2:{tmp_path / 'pkg' / 'h.py'}")]


def test_a_lint_without_tf_rules_reads_no_project_code(tmp_path, monkeypatch):
    from jitlint.model.library import keras_evidence

    def scan(root):
        raise AssertionError(f"scanned {root}")

    monkeypatch.setattr(keras_evidence, "scan_project", scan)
    keras_evidence.forget_evidence()
    options = {OPTIONS_KEY: {"keras": "undecided", "keras-project": str(tmp_path)}}
    source = "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
    result = lint_text(source, "m.py", {"JIT101", "JIT213", "JIT205"}, options)
    assert [d.code for d in result.diagnostics] == ["JIT101"]
    assert result.keras_evidence == {}
    # A TF rule that asks does read it (the engine reports the rule's crash here).
    assert "scanned" in "".join(lint_text(KERAS_LAYER, "m.py", {"JIT213"}, options).errors)


# A `tf.debugging` check in a Keras layer's `call`: dropped only where XLA compiles it.
KERAS_ASSERT = """\
import tensorflow as tf
class Log(tf.keras.layers.Layer):
    def call(self, x):
        tf.debugging.assert_positive(x)
        return tf.math.log(x)
model = tf.keras.Sequential([Log()])
model.compile(loss="mse"{flag})
"""


@pytest.mark.parametrize(
    ("code", "source", "lines"),
    [
        ("JIT213", KERAS_LAYER, [7]),  # Keras 3's compile default, `jit_compile="auto"`
        ("JIT205", None, [4]),  # a Keras method run without autograph (KERAS_METRIC below)
        ("JIT209", KERAS_ASSERT.format(flag=""), [4]),  # an assert XLA drops under "auto"
        ("JIT206", "from keras import ops\n" + "{lazy}", [6]),  # Keras 3 refuses lazy weights
    ],
)
@pytest.mark.parametrize(
    ("requirements", "reported"),
    [
        (None, True),  # a lone file: no declaring project, the facts' Keras 3, as before
        ("tensorflow>=2.16\n", True),  # tf.keras is Keras 3
        ("tensorflow>=2.6\n", False),  # either Keras, and no Keras 3 code: undecided
        ("tensorflow>=2.6\nkeras>=3\n", True),
    ],
)
def test_keras_3_findings_are_left_out_where_the_major_is_undecided(
    tmp_path, code, source, lines, requirements, reported
):
    source = source if source is not None else KERAS_METRIC
    source = source.replace("{lazy}", LAZY_WEIGHT)
    # The file's own `from keras import ops` (JIT206's case) is in the linted text, not on
    # disk: the project's code (empty here) decides, as it would for an unsaved buffer.
    target = tmp_path / "m.py"
    if requirements is not None:
        write(tmp_path / "requirements.txt", requirements)
    versions = VersionResolver().options(target, ConfigResolver(cwd=tmp_path).for_file(target))
    assert (versions.get("keras") == "undecided") == (requirements == "tensorflow>=2.6\n")
    result = lint_text(source, str(target), {code}, {OPTIONS_KEY: versions})
    assert [d.line for d in result.diagnostics] == (lines if reported else [])


def test_findings_that_hold_under_both_majors_stay_where_it_is_undecided(tmp_path):
    write(tmp_path / "requirements.txt", "tensorflow>=2.6\n")
    options = {OPTIONS_KEY: {"keras": "undecided", "keras-project": str(tmp_path)}}
    # An explicit `jit_compile=True` compiles with XLA under Keras 2 and Keras 3.
    source = KERAS_ASSERT.format(flag=", jit_compile=True")
    assert [d.line for d in lint_text(source, "m.py", {"JIT209"}, options).diagnostics] == [4]
    # A real `tf.function(jit_compile=True)` root.
    source = (
        "import tensorflow as tf\n@tf.function(jit_compile=True)\ndef f(x):\n"
        "    tf.debugging.assert_positive(x)\n    return x\n"
    )
    assert [d.line for d in lint_text(source, "m.py", {"JIT209"}, options).diagnostics] == [4]


def test_the_cache_follows_the_project_code_that_decides_the_keras_major(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "requirements.txt", "tensorflow>=2.6\n")
    write(tmp_path / "m.py", KERAS_LAYER)
    runs = []
    for other in ("x = 1\n", "from keras import ops\n", "x = 1\n"):
        write(tmp_path / "pkg" / "other.py", other)
        status, out, _ = run_cli("--select", "JIT213", "--format", "concise", "m.py")
        runs.append((status, "m.py:7:" in out))
    # m.py's bytes never change: its cached result is dropped when the scan's answer does.
    assert runs == [(0, False), (1, True), (0, False)]
    assert (tmp_path / ".jitlint_cache").is_dir()


# ---- a rule that depends on the version: JIT213 and Keras 2 ---------------------------------


@pytest.mark.parametrize(
    ("versions", "flagged"),
    [
        ({}, True),  # the facts' Keras 3
        ({"keras": "3.0"}, True),
        ({"tensorflow": "2.16"}, True),
        ({"keras": "2.15"}, False),  # Keras 2 has no jit_compile="auto"
        ({"tensorflow": "2.15.1"}, False),  # whose tf.keras is Keras 2
        ({"tensorflow": "2.15.1", "keras": "3.1"}, True),
    ],
)
def test_jit213_depends_on_the_keras_version(versions, flagged):
    result = lint_text(KERAS_LAYER, "m.py", {"JIT213"}, {OPTIONS_KEY: versions})
    assert [d.line for d in result.diagnostics] == ([7] if flagged else [])


LAZY_WEIGHT = """\
import tensorflow as tf
class Scale(tf.keras.layers.Layer):
    def call(self, x):
        if not hasattr(self, "bias"):
            self.bias = self.add_weight(shape=(), initializer="zeros")
        return x + self.bias
"""


@pytest.mark.parametrize(
    ("versions", "flagged"),
    [
        # Nothing declared: the Keras major is unknown, and unknown is never an error
        # (Keras 2 makes the weight on the first trace only).
        ({}, False),
        ({"keras": "3.15"}, True),  # a built layer refuses new weights, lazily too
        ({"tensorflow": "2.16"}, True),  # its tf.keras is Keras 3
        ({"keras": "2.15"}, False),  # Keras 2 makes it on the first trace only
        ({"tensorflow": "2.15.1"}, False),
    ],
)
def test_jit206_lazy_add_weight_depends_on_the_keras_version(versions, flagged):
    result = lint_text(LAZY_WEIGHT, "m.py", {"JIT206"}, {OPTIONS_KEY: versions})
    assert [d.line for d in result.diagnostics] == ([5] if flagged else [])


@pytest.mark.parametrize(
    ("versions", "flagged"),
    [({}, True), ({"keras": "3.15"}, True), ({"keras": "2.15"}, False)],
)
def test_jit206_a_keras_3_only_module_says_keras_3_when_nothing_is_declared(versions, flagged):
    source = "from keras import ops\n" + LAZY_WEIGHT
    result = lint_text(source, "m.py", {"JIT206"}, {OPTIONS_KEY: versions})
    assert [d.line for d in result.diagnostics] == ([6] if flagged else [])


KERAS_METRIC = """\
import tensorflow as tf
class Rank(tf.keras.metrics.Metric):
    def update_state(self, labels, predictions, sample_weight=None):
        if tf.rank(labels) == 1:
            labels = tf.reshape(labels, (-1, 1))
        return labels
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(loss="mse", metrics=[Rank()])
"""


@pytest.mark.parametrize(
    ("versions", "flagged"),
    [
        ({}, True),  # the facts' Keras 3 runs update_state without autograph
        ({"tensorflow": "2.16"}, True),
        ({"tensorflow": "2.7"}, False),  # tf.keras 2 converts it: the `if` is a tf.cond
        ({"keras": "2.15"}, False),
    ],
)
def test_jit205_keras_methods_follow_the_keras_version(versions, flagged):
    result = lint_text(KERAS_METRIC, "m.py", {"JIT205"}, {OPTIONS_KEY: versions})
    assert [d.line for d in result.diagnostics] == ([4] if flagged else [])


DROPOUT_IN_CALL = """\
import tensorflow as tf
class Attend(tf.keras.layers.Layer):
    def call(self, x):
        dropped = tf.keras.layers.Dropout(0.2)(x)
        return tf.reduce_sum(dropped, axis=-1)
"""


@pytest.mark.parametrize(
    ("versions", "flagged"),
    [
        ({}, True),  # the facts' Keras 3: the constructor makes a SeedGenerator variable
        ({"tensorflow": "2.16"}, True),
        ({"tensorflow": "2.7"}, False),  # Keras 2's Dropout draws with random ops: no variable
        ({"keras": "2.15"}, False),
    ],
)
def test_jit206_a_dropout_owns_a_variable_only_under_keras_3(versions, flagged):
    result = lint_text(DROPOUT_IN_CALL, "m.py", {"JIT206"}, {OPTIONS_KEY: versions})
    assert [d.line for d in result.diagnostics] == ([4] if flagged else [])


def test_the_api_uses_the_configured_versions(tmp_path):
    write(tmp_path / "jitlint.toml", 'keras-version = "2"\n')
    settings = load_settings(tmp_path / "jitlint.toml")
    assert lint_source(KERAS_LAYER, "m.py", select=["JIT213"], settings=settings) == []
    assert lint_source(KERAS_LAYER, "m.py", select=["JIT213"]) != []


def test_cli_reads_the_requirements_and_the_cache_follows_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "m.py", KERAS_LAYER)
    requirements = tmp_path / "requirements.txt"
    runs = []
    for declared in ("tensorflow>=2.16\n", "tensorflow==2.15.1\n", "tensorflow>=2.16\n"):
        requirements.write_text(declared)
        status, out, _ = run_cli("--select", "JIT213", "--format", "concise", "m.py")
        runs.append((status, "m.py:7:" in out))
    assert runs == [(1, True), (0, False), (1, True)]
    assert (tmp_path / ".jitlint_cache").is_dir()


# ---- --show-settings -----------------------------------------------------------------------


def project(tmp_path: Path) -> Path:
    write(
        tmp_path / "pyproject.toml",
        """\
        [project]
        name = "demo"
        dependencies = ["jax>=0.4.30"]

        [tool.jitlint]
        extend-select = ["JIT002"]
        keras-version = "2"

        [tool.jitlint.per-file-ignores]
        "tests/*" = ["JIT107"]
        "scripts/*" = ["JIT1"]
        """,
    )
    return write(tmp_path / "tests" / "test_m.py", "import jax\n")


def test_show_settings_as_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    project(tmp_path)
    status, out, _ = run_cli(
        "--show-settings", "tests/test_m.py", "--format", "json", "--ignore", "JIT113"
    )
    assert status == 0
    report = json.loads(out)
    assert report["config"] == str(tmp_path / "pyproject.toml")
    assert report["selection"] == [
        {"from": str(tmp_path / "pyproject.toml"), "extend-select": ["JIT002"]},
        {"from": "command line", "ignore": ["JIT113"]},
    ]
    enabled = set(report["enabled"])
    assert "JIT002" in enabled and "JIT107" not in enabled and "JIT113" not in enabled
    assert "JIT101" in enabled
    applies = {e["pattern"]: e["applies"] for e in report["per_file_ignores"]}
    assert applies == {"tests/*": True, "scripts/*": False}
    versions = report["framework_versions"]
    assert versions["jax"] == {
        "version": "0.4.30",
        "source": "requirements",
        "file": str(tmp_path / "pyproject.toml"),
        "detail": "jax>=0.4.30 in project.dependencies",
    }
    assert versions["keras"]["source"] == "config" and versions["keras"]["version"] == "2"
    assert versions["tensorflow"] == {
        "version": facts_versions()["tensorflow"],
        "source": "facts",
        "file": None,
        "detail": "",
    }


def test_show_settings_as_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    project(tmp_path)
    status, out, _ = run_cli("--show-settings", "tests/test_m.py")
    assert status == 0
    assert f"config: {tmp_path / 'pyproject.toml'}" in out
    assert "tests/* = JIT107" in out and "; applies)" in out
    assert "scripts/* = JIT1" in out and "does not apply" in out
    assert "jax: 0.4.30 (requirements:" in out
    assert "keras: 2 (config:" in out and "`tool.jitlint.keras-version`" in out
    assert "the version jitlint's facts were generated for" in out


def test_show_settings_names_the_upper_bound_behind_keras_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "setup.py", SETUP_PY)
    write(tmp_path / "m.py", "x = 1\n")
    status, out, _ = run_cli("--show-settings", "m.py")
    assert status == 0
    line = next(line for line in out.splitlines() if line.strip().startswith("keras:"))
    assert "keras: 2 (tf.keras of every TensorFlow allowed:" in line
    assert "setup.py, tensorflow<=2.11 in setup.py install_requires" in line


def test_show_settings_names_the_code_behind_keras_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "requirements.txt", "numpy\n")
    write(tmp_path / "m.py", "class Head:\n    def call(self, x):\n        self.add_metric(x)\n")
    status, out, _ = run_cli("--show-settings", "m.py")
    assert status == 0
    line = next(line for line in out.splitlines() if line.strip().startswith("keras:"))
    assert "keras: 2 (the project's code runs only on Keras 2: `self.add_metric`" in line
    assert "m.py" in line


def test_show_settings_says_what_undecided_means_and_names_keras_3_code(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "requirements.txt", "tensorflow>=2.6\n")
    write(tmp_path / "m.py", "x = 1\n")
    status, out, _ = run_cli("--show-settings", "m.py")
    line = next(line for line in out.splitlines() if line.strip().startswith("keras:"))
    assert status == 0 and line.startswith("  keras: undecided (the project ")
    assert "tensorflow>=2.6 in requirements.txt line 1 allows TensorFlows with" in line
    assert "set `keras-version` to decide" in line
    write(tmp_path / "m.py", "from keras import ops\n")
    status, out, _ = run_cli("--show-settings", "m.py")
    line = next(line for line in out.splitlines() if line.strip().startswith("keras:"))
    assert "keras: 3 (the project's code runs only on Keras 3: `from keras import ops`" in line


def test_show_settings_without_a_config_and_for_a_missing_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "m.py", "x = 1\n")
    status, out, _ = run_cli("--show-settings", "m.py")
    assert status == 0 and "config: (none: the defaults)" in out
    assert "JIT002" not in out.split("enabled: ")[1].splitlines()[0]
    status, _, err = run_cli("--show-settings", "missing.py")
    assert status == 2 and "missing.py: no such file or directory" in err


def test_show_settings_reports_a_config_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "jitlint.toml", "jax-version = 4\n")
    write(tmp_path / "m.py", "x = 1\n")
    status, _, err = run_cli("--show-settings", "m.py")
    assert status == 2 and "`jax-version` must be a version string" in err


def test_the_editor_lints_a_buffer_for_the_file_s_versions(tmp_path):
    from jitlint.frontends.lsp.editor import EditorState

    path = write(tmp_path / "m.py", KERAS_LAYER)
    state = EditorState([tmp_path])
    assert [d.line for d in state.lint(state.setup(path), KERAS_LAYER)] == [7]
    write(tmp_path / "requirements.txt", "tensorflow==2.15.1\n")
    state = EditorState([tmp_path])
    assert state.lint(state.setup(path), KERAS_LAYER) == []


def test_odd_requirement_files_are_passed_over(tmp_path):
    import os

    os.mkfifo(tmp_path / "requirements-fifo.txt")  # never opened for a blocking read
    write(
        tmp_path / "pyproject.toml",
        'tool = 1\n[project]\nname = "x"\ndependencies = ["jax==0.4.2"]\n',
    )
    declared = declared_in(tmp_path)
    assert declared is not None and declared["jax"].version == "0.4.2"


@pytest.mark.parametrize(
    ("setting", "flagged"),
    [
        ('os.environ["TF_USE_LEGACY_KERAS"] = "1"', False),
        ("os.environ.setdefault('TF_USE_LEGACY_KERAS', '1')", False),
        ('os.environ["TF_USE_LEGACY_KERAS"] = "0"', True),
        ('print(os.environ.get("TF_USE_LEGACY_KERAS"))', True),
    ],
)
def test_a_file_that_turns_on_tf_keras_is_linted_for_keras_2(setting, flagged):
    source = f"import os\n{setting}\n{KERAS_LAYER}"
    result = lint_text(source, "m.py", {"JIT213"}, {OPTIONS_KEY: {}})
    assert bool(result.diagnostics) is flagged


@pytest.mark.parametrize(
    ("setting", "keras"),
    [
        ('os.environ["TF_USE_LEGACY_KERAS"] = "1"', 2),
        ("os.environ.setdefault('TF_USE_LEGACY_KERAS', 'true')", 2),
        ('os.putenv("TF_USE_LEGACY_KERAS", "1")', 2),
        ('os.environ["TF_USE_LEGACY_KERAS"] = "0"', 3),
        ('print(os.environ.get("TF_USE_LEGACY_KERAS"))', 3),
    ],
)
def test_a_file_that_sets_tf_use_legacy_keras_itself_runs_keras_2(setting, keras):
    versions = FrameworkVersions.from_options({"keras": "3.15"})
    assert versions.keras_major_of_file(f"import os\n{setting}\n") == keras


@pytest.mark.parametrize(
    "code",
    [
        "        self.add_metric(loss)\n",
        "        self.add_update(op)\n",
        "model.compile(loss='mse', experimental_run_tf_function=False)\n",
        '        os.environ["TF_USE_LEGACY_KERAS"] = "1"\n',
        "        os.putenv('TF_USE_LEGACY_KERAS', 'True')\n",
        "import tensorflow.python.keras.backend as K\n",
        "from keras import (layers, ops)\n",
        "        self.seed = keras.random.SeedGenerator(1)\n",
        "        import keras_core\n",
        "x = keras.src.trainers\n",
    ],
)
def test_the_scans_substring_tests_pass_every_match(code):
    # keras_evidence.py tests for a substring before running each pattern: every match
    # must contain one, or evidence would be missed.
    from jitlint.model.library import keras_evidence as ke

    found = [
        m.group()
        for pattern in (ke.KERAS_2_ONLY_CODE, ke.LEGACY_KERAS_IN_CODE)
        for m in re.finditer(pattern, code.encode())
    ]
    found += [m.group().encode() for m in re.finditer(ke.KERAS_3_ONLY_CODE, code)]
    assert found
    words = (*ke._KERAS_2_WORDS, b"TF_USE_LEGACY_KERAS", b"keras")
    assert all(any(word in match for word in words) for match in found)
    assert (ke.keras_2_code(code.encode()) or ke.keras_3_code(code)) is not None


def test_each_directory_is_probed_for_declarations_once(tmp_path, monkeypatch):
    # The nearest declarations and the root of an undecided Keras walk up the same
    # directories: a one-file run outside any project reads each of them once.
    from jitlint import framework_versions

    probed: list[Path] = []
    real = framework_versions.declared_in

    def declared_in_counted(directory: Path):
        probed.append(directory)
        return real(directory)

    monkeypatch.setattr(framework_versions, "declared_in", declared_in_counted)
    target = tmp_path / "a" / "b" / "m.py"
    target.parent.mkdir(parents=True)
    target.write_text("import jax\n", encoding="utf-8")
    settings = ConfigResolver(cwd=tmp_path).for_file(target)
    options = VersionResolver().options(target, settings)
    assert options["keras"] == "code-or-facts"  # no declaring project above the file
    assert probed and len(probed) == len(set(probed))
