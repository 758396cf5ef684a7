"""The per-file context every rule and fix builder queries: the models of one file, built on
first use. The engine makes one per file and keeps `parents` at the walker's stack."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.model.jax.frameworks.contracts import Assumptions
from jitlint.model.library.versions import FrameworkVersions
from jitlint.python.attributes import forget_indexes
from jitlint.python.names import Names

if TYPE_CHECKING:
    from libcst.metadata import CodeRange

    from jitlint.model.domain.captures import Captures
    from jitlint.model.domain.repeats import Repeated
    from jitlint.model.jax.crossfile.records import Received
    from jitlint.model.jax.jit import JitModel
    from jitlint.model.jax.tracing import Tracing
    from jitlint.model.tf.model import TfModel
    from jitlint.model.tf_records import TfInbound


class FileContext:
    """Everything rules share about one file. Analyses are built on first use."""

    def __init__(self, module: cst.Module, path: str, source: str) -> None:
        self.module = module
        self.path = path
        self.source = source
        self.parents: list[cst.CSTNode] = []  # set by the engine to the walker's stack
        # Calls from traced code in, and transformations applied in, other files of the run,
        # by top-level function name (the project pass sets them before the traversal; see
        # model/jax/crossfile/records.py).
        self.inbound: Mapping[str, Sequence[Received]] = {}
        # What other files of the run say about this file's names for the TF model: graph
        # code calling its functions, its Keras classes' uses, dtype facts it imports.
        self.tf_inbound: list[TfInbound] = []
        # Whether the project pass lints this file (the engine sets it): without it, what
        # the file imports from its own project is not in the run.
        self.project_run = False
        # The framework versions the file is linted for (model/library/versions.py); rules
        # whose hazard exists only in some versions read `ctx.versions.keras` and the like.
        self.versions = FrameworkVersions({})
        # `assume-traced`: more entry points the project names (frameworks/contracts.py).
        self.assumptions = Assumptions()

    @cached_property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """Every node's position (libcst's PositionProvider, ~1.9x a parse in time and a
        fifth of the tree's memory): resolved once, shared with the tracing model's."""
        tracing = self.__dict__.get("tracing")
        if tracing is not None and "positions" in tracing.__dict__:
            return tracing.positions
        from libcst.metadata import MetadataWrapper, PositionProvider

        return MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)

    @cached_property
    def names(self) -> Names:
        return Names(self.module)

    @cached_property
    def jit(self) -> JitModel:
        # The analyses are imported on first use: a run without TF rules never loads the TF
        # model (start-up time counts for one-file pre-commit runs).
        from jitlint.model.jax.jit import JitModel

        if not self.inbound:
            return JitModel(self.names)
        from jitlint.model.jax.crossfile.returned import jitted_by_name

        inbound = self.inbound
        return JitModel(self.names, lambda qualname: jitted_by_name(inbound, qualname))

    @cached_property
    def tracing(self) -> Tracing:
        """Which functions JAX traces and which values in them are tracers."""
        from jitlint.model.jax.tracing import Tracing

        return Tracing(
            self.names,
            self.inbound,
            self.assumptions.for_path(self.path),
            self.source,
            one_file=not self.project_run,
        )

    @cached_property
    def repeated(self) -> Repeated:
        """The functions that run repeatedly outside JAX's traces: called in loops, by
        contract, or from those (model/domain/repeats.py; TF's answer is `tf.repeats`)."""
        from jitlint.model.jax.frameworks.repetition import jax_repeated

        return jax_repeated(self.names, self.tracing)

    @cached_property
    def captures(self) -> Captures:
        """What a function object built in repeating code captures, and which of those
        values change per repetition, with their kinds (model/domain/captures.py); the
        arguments jax needs as Python values tell a size from a step count."""
        from jitlint.model.domain.captures import Captures
        from jitlint.model.jax.frameworks.repetition import value_at
        from jitlint.model.jax.static_args.sizes import size_arguments

        names = self.names
        return Captures(
            names,
            value_at(self.tracing),
            self.repeated,
            lambda call, path: size_arguments(names, call, path),
        )

    @cached_property
    def tf(self) -> TfModel:
        """The TensorFlow model: graph and XLA contexts, values, dtypes (model/tf/)."""
        from jitlint.model.tf.model import TfModel

        # The Keras this file targets, or None where the project leaves it undecided: the
        # model then answers every Keras-3-only question "no" (model/tf/keras.py).
        versions = self.versions
        return TfModel(
            self.names,
            self.source,
            self.tf_inbound,
            lambda: versions.keras_major_of_file(self.source),
            lambda: versions.keras_stated,
        )

    def release(self) -> None:
        """Drop the analyses once the file's lint is over, breaking the reference cycles
        they make (the JAX model's traces and closures, the TF model's parts that point back
        at it, a rule's shared model kept here), so that the tree is freed by reference
        counting as the lint returns and the cycle collector never scans it."""
        analyses = self.__dict__
        tracing = analyses.get("tracing")
        if tracing is not None:
            tracing.release()
        tf = analyses.get("tf")
        if tf is not None:
            tf.__dict__.clear()
        analyses.clear()
        forget_indexes()  # the attribute indexes hold classes of this tree

    def import_name(self, qualname: str, alias: str) -> tuple[str, str | None]:
        """How fix code should spell module `qualname`, and the import to add if any.

        `import_name("jax.numpy", "jnp")` gives ("jnp", None) when the module already has
        `import jax.numpy as jnp` (or any alias of it), ("jax.numpy", None) when it only has
        `import jax`, else ("jnp", "import jax.numpy as jnp").
        """
        module_scope = self.names.scope(self.module)
        spelled_from_parent = None
        for name, bindings in module_scope.bindings.items():
            if len(bindings) != 1 or bindings[0].kind != "import":
                continue
            bound = bindings[0].qualname
            if bound == qualname:
                return name, None
            if bound and qualname.startswith(bound + ".") and bound == name:
                spelled_from_parent = qualname
        if spelled_from_parent is not None:
            return spelled_from_parent, None
        if alias in module_scope.bindings:  # taken by something else: use the full name
            head = qualname.split(".")[0]
            return qualname, f"import {head}" if head not in module_scope.bindings else None
        if "." in qualname:
            parent, _, leaf = qualname.rpartition(".")
            statement = (
                f"import {qualname} as {alias}" if leaf != alias else f"from {parent} import {leaf}"
            )
        else:
            statement = (
                f"import {qualname}" if alias == qualname else f"import {qualname} as {alias}"
            )
        return alias, statement

    def path_to(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        """The path from the module to `node`, which must be the node being visited."""
        return [*self.parents, node]
