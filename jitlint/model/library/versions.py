"""The framework versions a file is linted for, as rules read them (`ctx.versions`).

The front ends resolve each file's versions (jitlint/framework_versions.py: the config's
`jax-version`/`tensorflow-version`/`keras-version`, else the project's declared requirements)
and hand them to the engine in the file's rule options under `OPTIONS_KEY`, so they travel
wherever the options do: to worker processes, into the cache key, through fix passes and
notebooks. What is not given is the version jitlint's generated facts were made for.

A file outside any declaring project gets `keras: "code-or-facts"` and `keras-project`: its
package (or its own directory's files): Keras 2 where that code shows it, else the facts'.
A project whose declarations leave the Keras major open gets `keras: "undecided"` and
`keras-project: <its root>` in the options; the Keras major of its files is then what the
project's code shows (model/library/keras_evidence.py), read only when a TensorFlow rule asks
(`keras_major_of_file`), or undecided: no finding that needs Keras 3 semantics is reported.
Why the scan is not in the options (and so not in the cache key): it reads every `*.py` file
of the project, which a lint of a JAX-only file should not pay. Instead a lint that read it
records its answer (`evidence_read`), the result cache stores that answer beside the result,
and a cached result is used only while the scan still gives the same answer (engine/runner.py),
so the scan runs for cached files only where a TensorFlow rule read it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from jitlint.model.library.keras_evidence import evidence_key, project_evidence

FRAMEWORKS = ("jax", "tensorflow", "keras")
OPTIONS_KEY = "framework-versions"
# The Keras "version" of a project whose declarations do not decide the major, and the key
# naming that project's root (the directory whose code decides it).
UNDECIDED = "undecided"
PROJECT_KEY = "keras-project"
# The Keras "version" of a file outside any declaring project: Keras 2 where the code of its
# package (`keras-project`, a root or a `directory_scope`) shows it, else the facts' Keras.
CODE_OR_FACTS = "code-or-facts"
# "jax-upper": the declared range's upper bound, as `<=0.4.7` or `<0.5` (absent: none).
UPPER_KEY = "{}-upper"
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
    # (project root, answer) of the code scan, once a Keras major was asked of it: the
    # result cache keeps it beside the result (see the module's docstring).
    evidence_read: list[tuple[str, str]] = field(default_factory=list, compare=False)

    @classmethod
    def from_options(cls, options: Mapping[str, str] | None) -> FrameworkVersions:
        return cls(dict(options or {}))

    def text(self, framework: str) -> str:
        given = self.given.get(framework)
        if framework == "keras" and given in (UNDECIDED, CODE_OR_FACTS):
            return facts_versions()["keras"]  # the major itself: `keras_major_of_file`
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

    def all_at_most(self, framework: str, limit: Version) -> bool:
        """Whether every version the project's declared range allows is `limit` or older
        (False without a declared upper bound)."""
        bound = self.given.get(UPPER_KEY.format(framework), "")
        inclusive = bound.startswith("<=")
        version = parse_version(bound.removeprefix("<=").removeprefix("<"))
        if version is None:
            return False
        # `<0.4.35` allows nothing past 0.4.34; `<0.5` allows 0.4.99.
        after = (*limit[:-1], limit[-1] + 1) if limit else limit
        return version <= limit if inclusive else version <= after

    @property
    def tensorflow(self) -> Version:
        return self.version("tensorflow")

    @property
    def keras(self) -> Version:
        return self.version("keras")

    def keras_major_of_file(self, source: str) -> int | None:
        """The Keras major a file with this text runs: 2 where it turns on tf-keras itself;
        else the configured or declared one; in an undecided project, the one its code
        shows, or None (undecided); the facts' Keras where there is no declaring project."""
        if _LEGACY_KERAS_IN_FILE.search(source):
            return 2
        if self.given.get("keras") == CODE_OR_FACTS:
            return 2 if self._package_shows_keras_2() else self.version("keras")[0]
        if self.given.get("keras") == UNDECIDED:
            root = self.given.get(PROJECT_KEY, "")
            if not root:
                return None
            found = project_evidence(root)
            self.evidence_read.append((root, evidence_key(root)))
            return found.major if found is not None else None
        keras = self.keras
        return keras[0] if keras else None

    @property
    def keras_stated(self) -> bool:
        """Whether the Keras major is given (configured or declared, itself or through its
        TensorFlow) or the project's code shows it, not the facts' default: a hazard of one
        major only is an error only then (asked after `keras_major_of_file`)."""
        if self.given.get("keras") == UNDECIDED:
            root = self.given.get(PROJECT_KEY, "")
            return bool(root) and project_evidence(root) is not None
        if self.given.get("keras") == CODE_OR_FACTS:
            return self._package_shows_keras_2() or "tensorflow" in self.given
        return "keras" in self.given or "tensorflow" in self.given

    def _package_shows_keras_2(self) -> bool:
        """Whether the code of the package of a file outside any declaring project shows
        Keras 2 (the scan's answer is recorded as an undecided project's is)."""
        root = self.given.get(PROJECT_KEY, "")
        if not root:
            return False
        found = project_evidence(root)
        answer = (root, evidence_key(root))
        if answer not in self.evidence_read:
            self.evidence_read.append(answer)
        return found is not None and found.major == 2
