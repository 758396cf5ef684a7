"""What a project's code says about the Keras major it targets, when its declarations do not.

A project (a directory that declares requirements) whose declarations leave the Keras major
open (`tensorflow>=2.6`, or nothing about TensorFlow or Keras) is *undecided*: jitlint
reports no finding that needs Keras 3 semantics there, unless its code shows which Keras it
runs. The code is read lazily, the first time a TensorFlow rule asks for the major, and once
per project root and process.

The spellings, checked against Keras 3.15.1 and tf-keras 2.21.0 (the Keras 2 of
`TF_USE_LEGACY_KERAS`; its public API is `tf_keras/api/_v2/keras`):

| spelling                                   | Keras 3 | tf-keras / Keras 2 | says  |
|--------------------------------------------|---------|--------------------|-------|
| `keras.ops`, `from keras import ops`       | yes     | no                 | 3     |
| `keras.config` (`set_floatx`, ...)         | yes     | no                 | 3     |
| `keras.random` (`SeedGenerator`, ...)      | yes     | no                 | 3     |
| `keras.tree`, `keras.dtype_policies`       | yes     | no                 | 3     |
| `keras.src.ops`/`trainers`/`random`/`tree` | yes     | no (`src/` has none)| 3    |
| `keras_core` (Keras 3's preview package)   | -       | -                  | 3     |
| `keras.src` alone                          | yes     | yes (2.13 on)      | none  |
| `keras.saving.register_keras_serializable` | yes     | yes (2.13 on)      | none  |
| `keras.export`                             | yes     | yes                | none  |
| `self.add_metric(`, `self.add_update(`     | raises / gone | yes          | 2     |
| `compile(experimental_run_tf_function=`    | TypeError | yes              | 2     |
| `TF_USE_LEGACY_KERAS` set true in code     | -       | chosen at run time | 2     |
| `tensorflow.python.keras` (TF's old copy)  | -       | `tf.keras` to TF 2.5 | 2   |

Keras 2 evidence wins over Keras 3 evidence (precision first: Keras 3 findings are the ones
held back). `tensorflow.python.keras` is the Keras 2 that TensorFlow carried inside itself,
`tf.keras` itself up to TF 2.5; TF 2.21 still ships it, but its classes are not Keras 3's (a
`KerasTensor` imported from it is never the one a Keras 3 model makes), so code that imports
from it was written for Keras 2.

A file outside any declaring project (no requirements anywhere above it) is linted for the
facts' Keras, unless its code shows Keras 2 (framework_versions.py): the code read then is its
package's (the topmost directory of the chain of `__init__.py` folders above it, all of it) or,
for a module in no package, the `*.py` files of its own directory (`directory_scope`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from jitlint.python.guards import DEFAULT_MAX_FILE_SIZE
from jitlint.system.reading import TooLarge, Unreadable, read_regular_file

# The patterns are text, compiled by `re` (and kept in its cache) when code is first scanned:
# most runs scan none.
# Keras 2 APIs that Keras 3 removed (observed on Keras 3.15.1: `Layer.add_metric` raises
# NotImplementedError, `Layer.add_update` is gone, `compile` rejects
# `experimental_run_tf_function` with a TypeError): code that calls them runs only on Keras 2.
KERAS_2_ONLY_CODE = (
    rb"\bself\.add_(?:metric|update)\(|\bexperimental_run_tf_function\s*="
    rb"|\b(?:from|import)[ \t]+tensorflow\.python\.keras\b"
)
# The project's code choosing tf-keras at run time: `TF_USE_LEGACY_KERAS` set to a value
# TensorFlow reads as true ("1", "true", "True") by item assignment, `setdefault` or `putenv`
# (a read such as `environ.get("TF_USE_LEGACY_KERAS", "1")` or a `== "1"` test is not a setting).
LEGACY_KERAS_IN_CODE = (
    rb"""(?:\[\s*(['"])TF_USE_LEGACY_KERAS\1\s*\]\s*=(?!=)"""
    rb"""|\b(?:setdefault|putenv)\(\s*(['"])TF_USE_LEGACY_KERAS\2\s*,)"""
    rb"""\s*(['"])(?:1|true|True)\3"""
)
# Modules only Keras 3 has (the table above); `tf.keras.ops` matches too (TF 2.16 on).
_KERAS_3_MODULES = r"ops|config|random|tree|dtype_policies"
KERAS_3_ONLY_CODE = (
    rf"\bkeras_core\b|\bkeras\.(?:{_KERAS_3_MODULES})\b|\bkeras\.src\.(?:ops|trainers|random|tree)\b"
    rf"|\bfrom[ \t]+keras[ \t]+import[ \t]+\(?[^\n]*\b(?:{_KERAS_3_MODULES})\b"
)
# Text each pattern's every match contains: a file without it is passed over with a fast
# substring search instead of the patterns' scan (a scan reads a whole project's files).
_KERAS_2_WORDS = (b"self.add_", b"experimental_run_tf_function", b"tensorflow.python.keras")
_SCAN_FILES = 3000  # a bound on the scan: past it, nothing is concluded
_SKIPPED_DIRECTORIES = frozenset({"node_modules", "site-packages", "__pycache__", "venv"})


@dataclass(frozen=True)
class Evidence:
    """Code of the project that runs on one Keras major only: the major, the first file
    (in sorted order) that shows it, and the code as written."""

    major: int
    file: Path
    detail: str

    def key(self) -> str:
        """What a cached result that read this evidence was linted for."""
        return f"{self.major}:{self.file}"


def keras_2_code(text: bytes) -> str | None:
    """The Keras-2-only code of one file, described; None when it has none."""
    if b"TF_USE_LEGACY_KERAS" in text:
        setting = re.search(LEGACY_KERAS_IN_CODE, text)
        if setting is not None:
            return f"`{setting.group().decode()}`, which makes `tf.keras` tf-keras (Keras 2)"
    if not any(word in text for word in _KERAS_2_WORDS):
        return None
    for match in re.finditer(KERAS_2_ONLY_CODE, text):
        spelled = match.group().decode().rstrip("(=").strip()
        method = spelled.removeprefix("self.")
        if method != spelled and f"def {method}(".encode() in text:
            continue  # the class defines that method itself: not Keras'
        if spelled.startswith(("from", "import")):
            return f"`{spelled}`, TensorFlow's own Keras 2"
        return f"`{spelled}`, which Keras 3 removed"
    return None


def keras_3_code(text: str) -> str | None:
    """The Keras-3-only code of one file, as written; None when it has none."""
    if "keras" not in text:
        return None
    match = re.search(KERAS_3_ONLY_CODE, text)
    if match is None:
        return None
    return f"`{match.group().strip()}`, which only Keras 3 has"


# A scope naming one directory's own `*.py` files, not its subfolders: `<dir>/*.py`.
_DIRECTORY_ONLY = "*.py"


def directory_scope(directory: Path) -> str:
    """The scope of the `*.py` files directly in `directory` (for `project_evidence`)."""
    return str(directory / _DIRECTORY_ONLY)


def scan_project(root: Path) -> Evidence | None:
    """The Keras major the `*.py` files under `root` show (only those directly in it when
    `root` is a `directory_scope`): Keras 2 evidence in any file wins, else the first Keras 3
    evidence; None when there is neither, or when the tree has more files than the scan
    reads."""
    count = 0
    keras_3: Evidence | None = None
    only_here = root.name == _DIRECTORY_ONLY
    for folder, folders, files in os.walk(root.parent if only_here else root):
        folders[:] = (
            []
            if only_here
            else sorted(
                f for f in folders if not f.startswith(".") and f not in _SKIPPED_DIRECTORIES
            )
        )
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            count += 1
            if count > _SCAN_FILES:
                return None
            path = Path(folder) / name
            try:
                text = read_regular_file(str(path), DEFAULT_MAX_FILE_SIZE)
            except (Unreadable, TooLarge):
                continue
            found = keras_2_code(text)
            if found is not None:
                return Evidence(2, path, found)
            if keras_3 is None and b"keras" in text:  # decoded only where it may match
                found = keras_3_code(text.decode("utf-8", "replace"))
                if found is not None:
                    keras_3 = Evidence(3, path, found)
    return keras_3


_SCANNED: dict[str, Evidence | None] = {}


def project_evidence(root: str) -> Evidence | None:
    """`scan_project`, once per root and process (the front end's and each worker's)."""
    if root not in _SCANNED:
        _SCANNED[root] = scan_project(Path(root))
    return _SCANNED[root]


def forget_evidence() -> None:
    """Scan again from now on: a long-lived process (the editor server, `--watch`) starts
    each run with the code as it is then."""
    _SCANNED.clear()


def evidence_key(root: str) -> str:
    """The answer a lint that read the evidence of `root` got, as the cache keeps it."""
    found = project_evidence(root)
    return found.key() if found is not None else "undecided"
