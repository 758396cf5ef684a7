"""The framework versions a file is linted for, as rules read them (`ctx.versions`).

The front ends resolve each file's versions (jitlint/framework_versions.py: the config's
`jax-version`/`tensorflow-version`/`keras-version`, else the project's declared requirements)
and hand them to the engine in the file's rule options under `OPTIONS_KEY`, so they travel
wherever the options do: to worker processes, into the cache key, through fix passes and
notebooks. What is not given is the version jitlint's generated facts were made for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

FRAMEWORKS = ("jax", "tensorflow", "keras")
OPTIONS_KEY = "framework-versions"
# TensorFlow 2.16 made Keras 3 its `tf.keras`; before it, `tf.keras` was Keras 2.
KERAS_3_SINCE_TENSORFLOW = (2, 16)

Version = tuple[int, ...]
# A file that sets `TF_USE_LEGACY_KERAS` itself (`os.environ["TF_USE_LEGACY_KERAS"] = "1"`,
# or through `setdefault(...)`, `putenv(...)`) runs tf-keras, Keras 2, whatever the versions say.
_LEGACY_KERAS_IN_FILE = re.compile(
    r"""TF_USE_LEGACY_KERAS['"]\s*(?:\]\s*=|,)\s*['"]?(?:1|true|True)\b"""
)
_VERSION = re.compile(r"v?(\d+(?:\.\d+)*)")


def parse_version(text: str) -> Version | None:
    """`"0.4.30"` -> (0, 4, 30); a pre-release or local tail is dropped (`2.16.0rc1` ->
    (2, 16, 0)); None for text that does not start with a version."""
    match = _VERSION.match(text.strip())
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def keras_for_tensorflow(tensorflow: Version) -> str:
    """The Keras major version `tf.keras` is in that TensorFlow release."""
    return "3" if tensorflow >= KERAS_3_SINCE_TENSORFLOW else "2"


@cache
def facts_versions() -> dict[str, str]:
    """The versions jitlint's shipped facts were generated with (jitlint/data/, scripts/)."""
    from jitlint.model.library.jax_facts import jax_version
    from jitlint.model.library.tf_facts import op_table

    tensorflow = op_table()[0]
    return {
        "jax": jax_version(),
        "tensorflow": tensorflow,
        "keras": keras_for_tensorflow(parse_version(tensorflow) or ()),
    }


@dataclass(frozen=True)
class FrameworkVersions:
    """One file's framework versions, parsed. What was not given is the facts' version; a
    Keras version not given follows a given TensorFlow version (its `tf.keras`)."""

    given: Mapping[str, str]

    @classmethod
    def from_options(cls, options: Mapping[str, str] | None) -> FrameworkVersions:
        return cls(dict(options or {}))

    def text(self, framework: str) -> str:
        given = self.given.get(framework)
        if given is not None:
            return given
        tensorflow = self.given.get("tensorflow")
        if framework == "keras" and tensorflow is not None:
            return keras_for_tensorflow(parse_version(tensorflow) or ())
        return facts_versions()[framework]

    def version(self, framework: str) -> Version:
        return parse_version(self.text(framework)) or ()

    @property
    def jax(self) -> Version:
        return self.version("jax")

    @property
    def tensorflow(self) -> Version:
        return self.version("tensorflow")

    @property
    def keras(self) -> Version:
        return self.version("keras")

    def keras_of_file(self, source: str) -> Version:
        """The Keras version a file with this text runs: Keras 2 where it turns on tf-keras
        itself, else the Keras its versions give."""
        return (2,) if _LEGACY_KERAS_IN_FILE.search(source) else self.keras

    @property
    def keras_stated(self) -> bool:
        """Whether the Keras major is given (configured or declared, itself or through its
        TensorFlow), not the facts' default: a hazard of one major only is an error only then."""
        return "keras" in self.given or "tensorflow" in self.given
