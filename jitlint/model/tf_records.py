"""TensorFlow/Keras facts that cross modules: the project view of the TF model.

A file's lint sends these, as `TfRecord`s, to the file that defines the name they target:
- "graph": graph code (a `tf.function`, a Keras layer's `call`, ...) calls a function or
  creates a class of another module: that function (or the class's graph methods) runs in
  the caller's graph context, XLA or not, with or without autograph;
- "loss": a function of another module is given to `compile(loss=...)`: graph code of the
  train step, its first two parameters the targets and predictions;
- "use": a class (or a model-building function) of another module is used where a model is
  compiled (`status` "xla"/"auto"/"switch"/"off"), built without a visible compile ("model"), or
  elsewhere ("plain"): see model/tf/keras.py for what the statuses decide;
- "repeat": a loop calls a function of another module, or a method (`status`) of an
  instance of its class: the function runs more than once (model/tf/repeats.py);
  `per_element` when the call passes the loop's element of a Python collection (one run
  per device, per configuration); `grid` when every loop around the call goes over a
  written-out collection of literals and the call passes its element (`for fft in [True,
  False]:`): each run is for another configuration;
- "import"/"export": a module's dtype facts (`FLOAT = tf.float64`, a class attribute dtype,
  a function returning a dtype, float literal data) sent to the modules importing them; and
  which of its classes are Keras layers, models, losses or metrics (`KERAS_CLASS_FACT`),
  sent only to modules that subclass them (their "import" record's status is `BASE`);
- "eager": eager code (a scope with no graph context) calls a function of another module:
  where graph code calls it too, it is graph code on that path only (may, not must);
- "new": a class of another module is created with these arguments (`status`: `encode_arguments`),
  which reach its `__init__` as a call of the module's own does (its `self` attributes);
- "copy": sent by the project pass, not by a file (engine/orphans.py): the receiving module
  is imported by no file of the run, sits in no distribution, and a module the run imports
  (`site`) defines a class of the same name: a backup copy whose Keras classes are no
  graph roots by contract (model/tf/keras.py);
- "inst": the sender makes instances of a class of another module, `name = Cls(...)`, and
  says where they go (`status`: `INSTANCES_CALLED`, `INSTANCES_HANDED`, `INSTANCES_ESCAPE`);
- "hand": the sender passes such an instance to a function of the class's module
  (`status`: `Cls|position`, the position a digit or the keyword): that module follows
  the parameter (model/domain/instances.py, model/tf/keras.py).

Records are frozen dataclasses of strings, bools and ints: they cross the process pool and
the JSON result cache like the JAX records (model/jax/crossfile/records.py), as `{"tf": [...]}`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

KINDS = (
    "graph",
    "loss",
    "use",
    "repeat",
    "import",
    "export",
    "eager",
    "new",
    "copy",
    "inst",
    "hand",
)
# Kinds that add to what the receiving file's own TensorFlow code means, and do not make it
# TensorFlow code: they open no text gate of its TF rules (engine/linter.py).
PASSIVE_KINDS = frozenset({"eager", "new", "copy", "inst", "hand"})
# "inst" statuses: every instance the sender makes is called in its eager code (and maybe
# handed on), or only handed on; any other status: one goes where the sender cannot follow.
INSTANCES_CALLED, INSTANCES_HANDED, INSTANCES_ESCAPE = "called", "handed", "escape"
COPY_KIND = "copy"
# An "export" fact of a Keras class: `keras:keras3:layer` (its kind and category, keras.py).
KERAS_CLASS_FACT = "keras:"
# ... and of a class whose bases are names of other modules, not known to be Keras classes
# where it is defined: `keras:?.layers.Base,pkg.mixins.Mixin` (as its module spells them).
# The runner follows them (model/project/files.py) and sends the answer, if Keras.
KERAS_BASES_FACT = "keras:?"
# The status of an "import" record whose name the importing module subclasses; and of one
# from a module with no TF model of its own (no TensorFlow or Keras text), which asks only
# whether the name is a Keras class.
BASE, KERAS_BASE_ONLY = "base", "base:keras"


@dataclass(frozen=True, order=True)
class TfRecord:
    """What a file says about a name of another module (no path: the runner adds it)."""

    target: str  # the name as the sender's imports spell it (".helpers.f"); for "export",
    # the sender's own dotted name ("Const.FLOAT")
    line: int
    kind: str
    status: str = ""  # "use": the status; "export": the fact
    xla: bool = False
    auto_xla: bool = False
    autograph: bool = True
    origin: str = ""  # the sender's graph context, for messages
    cell: int = 0
    per_element: bool = False  # "repeat": the loop passes its element (see above)
    grid: bool = False  # "repeat": over a written-out grid of configurations (see above)

    def to_json(self) -> dict[str, Any]:
        data = [self.target, self.line, self.kind, self.status, self.xla, self.auto_xla,
                self.autograph, self.origin, self.cell, self.per_element, self.grid]  # fmt: skip
        return {"tf": data}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TfRecord:
        target, line, kind, status, xla, auto_xla, autograph, origin, cell, *rest = data["tf"]
        return cls(
            str(target), int(line), str(kind), str(status), bool(xla), bool(auto_xla),
            bool(autograph), str(origin), int(cell), bool(rest[0]) if rest else False,
            bool(rest[1]) if len(rest) > 1 else False,
        )  # fmt: skip

    @property
    def place(self) -> str:
        """`12`, `cell 3:12`; "" when the line is not recorded (graph calls)."""
        if not self.line:
            return ""
        return f"cell {self.cell}:{self.line}" if self.cell else str(self.line)


@dataclass(frozen=True, order=True)
class TfInbound:
    """A TfRecord as the receiving file sees it: `function` is its own top-level name (for
    a "fact", the dotted name as the receiver's imports spell it: ".consts.Const.FLOAT")."""

    function: str
    site: str  # "pkg/train.py:12"
    kind: str  # as TfRecord's, or "fact"
    status: str = ""
    xla: bool = False
    auto_xla: bool = False
    autograph: bool = True
    origin: str = ""
    per_element: bool = False
    grid: bool = False

    def rank(self) -> tuple[Any, ...]:
        return (self.function, 0, False, self.site, 0, 2, self)

    def to_json(self) -> dict[str, Any]:
        data = [self.function, self.site, self.kind, self.status, self.xla, self.auto_xla,
                self.autograph, self.origin, self.per_element, self.grid]  # fmt: skip
        return {"tf": data}


# ---- "new": the arguments a class of another module is created with -----------------------
# Each argument as (keyword, fact): the keyword None for a positional one, "*" / "**" for a
# star argument (python/binding.py's STARRED / DOUBLE_STARRED); the fact one of
# "dtype:<name>" (a dtype: `tf.float64`, "float64"), "tensor:<name>" / "tensor" (a tensor,
# of that dtype where it is known), "py" (a Python value that is no dtype) or "?" (unknown).
Argument = tuple[str | None, str]
UNKNOWN_FACT = "?"


def encode_arguments(args: list[Argument]) -> str:
    return json.dumps([[keyword, fact] for keyword, fact in args], separators=(",", ":"))


def decode_arguments(status: str) -> list[Argument] | None:
    """The arguments of a "new" record; None for a malformed one (a cache of another
    version), which then says nothing."""
    try:
        data = json.loads(status)
    except ValueError:
        return None
    if not isinstance(data, list):
        return None
    out: list[Argument] = []
    for item in data:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], str)):
            return None
        keyword, fact = item
        if keyword is not None and not isinstance(keyword, str):
            return None
        out.append((keyword, fact))
    return out


# ---- What a lint read of its TfInbound records ------------------------------------------------
# The project pass lints a file again when what it receives changed; where the change is
# only in records the last lint never read, the result cannot change and the relint is
# skipped (engine/linter.py `may_change`). The TF model reads its records through these.


class ImportedFacts:
    """The "fact" records a module received, name -> fact (a later record of a name wins),
    noting what was asked of them. Only these three questions can be asked: any other
    reading would escape the note."""

    __slots__ = ("_facts", "asked", "asked_any", "prefixes")

    def __init__(self, records: Sequence[TfInbound]) -> None:
        self._facts = {r.function: r.status for r in records if r.kind == "fact"}
        self.asked: set[str] = set()
        self.prefixes: set[str] = set()  # the facts starting so were read
        self.asked_any = False  # whether there is any fact was read

    def get(self, name: str) -> str | None:
        self.asked.add(name)
        return self._facts.get(name)

    def starting(self, prefix: str) -> list[str]:
        """The facts (of any name) that start with `prefix`, in order."""
        self.prefixes.add(prefix)
        return [fact for fact in self._facts.values() if fact.startswith(prefix)]

    def __bool__(self) -> bool:
        self.asked_any = True
        return bool(self._facts)


@dataclass(frozen=True)
class TfReads:
    """What one lint's TF model read of the records it was given: the kinds it read whole,
    and of the "fact" records the names it looked up, the beginnings it read every fact
    of, and whether it asked if there were any; and the names whose "use" records it read
    (where it did not read them whole)."""

    kinds: frozenset[str]
    fact_names: frozenset[str]
    fact_prefixes: frozenset[str]
    any_fact: bool
    use_names: frozenset[str] = frozenset()

    def to_json(self) -> list[Any]:
        names, prefixes = sorted(self.fact_names), sorted(self.fact_prefixes)
        return [sorted(self.kinds), names, prefixes, self.any_fact, sorted(self.use_names)]

    @staticmethod
    def from_json(data: Any) -> TfReads | None:
        """None for anything but what `to_json` writes (read as "unknown")."""
        if not isinstance(data, list) or len(data) != 5 or not isinstance(data[3], bool):
            return None
        lists = [*data[:3], data[4]]
        if not all(isinstance(x, list) and all(isinstance(i, str) for i in x) for x in lists):
            return None
        kinds, names, prefixes, uses = (frozenset(x) for x in lists)
        return TfReads(kinds, names, prefixes, data[3], uses)

    def differ(self, before: Sequence[TfInbound], after: Sequence[TfInbound]) -> bool:
        """Whether these reads could tell the two lists of records apart."""
        whole = self.kinds
        if [r for r in before if r.kind in whole] != [r for r in after if r.kind in whole]:
            return True
        if self.use_names and _uses_of(before, self.use_names) != _uses_of(after, self.use_names):
            return True
        old, new = ImportedFacts(before), ImportedFacts(after)
        if self.any_fact and bool(old) != bool(new):
            return True
        if any(old.starting(p) != new.starting(p) for p in self.fact_prefixes):
            return True
        return any(old.get(name) != new.get(name) for name in self.fact_names)


def use_entry(record: TfInbound) -> tuple[str, str]:
    """What the TF model keeps of a "use" record: its status, and where a model built
    with `jit_compile=True` is (the only status whose message names the place)."""
    return record.status, f", built at {record.site}" if record.status == "xla" else ""


def _uses_of(records: Sequence[TfInbound], names: frozenset[str]) -> list[tuple[str, ...]]:
    """The "use" records of these names as the TF model reads them: (name, status, where)
    in order, each once (a second record saying the same of a name changes nothing: the
    model's tables keep each status and place once, keras.py `class_uses`)."""
    found = {
        (r.function, *use_entry(r)): None
        for r in records
        if r.kind == "use" and r.function in names
    }
    return list(found)
