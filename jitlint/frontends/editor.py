"""What the editor server knows, without any LSP types: the settings of each file (from the
configuration nearest to it), the calls other files on disk make into it (the project pass,
as `jitlint PATHS` finds them), and the findings and fixes of one buffer's text.

The project pass reads the files as they are on disk, so an unsaved buffer is linted with
the calls the saved files make into it; its own unsaved calls reach other files once it is
saved (`refresh`). Results are cached in `.jitlint_cache/` as on the command line.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jitlint.config import ConfigResolver, Settings
from jitlint.diagnostics import Diagnostic
from jitlint.engine.linter import lint_text
from jitlint.fixes.engine import fix_text
from jitlint.model.project.records import Received
from jitlint.notebook import is_notebook

if TYPE_CHECKING:
    from jitlint.engine.discovery import FileFinder
    from jitlint.frontends.profiles import Profiles

# A workspace with more files than this is linted one file at a time (the project pass over
# a whole home directory opened by mistake would keep the server busy for minutes).
MAX_PROJECT_FILES = 3000


@dataclass(frozen=True)
class FileSetup:
    """How one file is linted: its settings, enabled codes, fixable codes and display path."""

    settings: Settings
    codes: frozenset[str]
    fixable: frozenset[str]
    display: str
    root: Path  # the project the file belongs to (its config's directory, or the workspace)
    excluded: bool = False  # by the configuration's exclude patterns or .gitignore
    # The config's rule options with the file's framework versions (frontends/profiles.py).
    rule_options: Mapping[str, Any] = field(default_factory=dict)


class EditorState:
    """Thread-safe: the server lints in worker threads."""

    def __init__(self, workspace_roots: list[Path] | None = None, jobs: int | None = None):
        self.workspace_roots = [root.resolve() for root in workspace_roots or []]
        self.jobs = jobs
        self._lock = threading.RLock()
        self._refreshing = threading.Lock()  # one project pass at a time
        self._profiles: Profiles | None = None  # each file's nearest config, as the CLI
        # root -> the calls each file (by display path) receives; absent: not computed yet.
        self._projects: dict[Path, dict[str, tuple[Received, ...]]] = {}

    # ---- configuration ------------------------------------------------------------------
    def setup(self, path: Path | None) -> FileSetup:
        """Raises ConfigError or selection.UnknownSelector for a bad configuration."""
        from jitlint.engine.runner import display_path

        directory = (path.parent if path is not None else Path.cwd()).resolve()
        with self._lock:
            profiles = self._get_profiles()
            profile = profiles.for_directory(directory)
            settings = profile.settings
            name = path if path is not None else Path("untitled.py")
            codes = profile.rule_sets.codes_for(name)
            rule_options = profiles.rule_options(name, settings)
            excluded = path is not None and _finder(profiles, settings.root).is_excluded(
                path, False
            )
        root = settings.root if settings.config_path is not None else self._workspace_of(directory)
        display = display_path(path) if path is not None else "untitled.py"
        return FileSetup(settings, codes, profile.fixable, display, root, excluded, rule_options)

    def _get_profiles(self) -> Profiles:
        from jitlint.frontends.profiles import Overrides, Profiles

        if self._profiles is None:
            self._profiles = Profiles(ConfigResolver(), Overrides())
        return self._profiles

    def _workspace_of(self, directory: Path) -> Path:
        containing = [r for r in self.workspace_roots if r == directory or r in directory.parents]
        return max(containing, key=lambda r: len(r.parts)) if containing else directory

    def forget_settings(self) -> None:
        """A configuration file changed: read them again, and redo the project passes."""
        with self._lock:
            self._profiles = None
            self._projects.clear()

    # ---- the project pass ---------------------------------------------------------------
    def knows_project(self, setup: FileSetup) -> bool:
        with self._lock:
            return setup.root in self._projects

    def ensure_project(self, setup: FileSetup) -> None:
        """Run the project pass for the file's root unless it has run (or is running)."""
        with self._refreshing:
            if not self.knows_project(setup):
                self._refresh(setup)

    def refresh(self, setup: FileSetup) -> None:
        """Run the project pass over the files on disk under the file's project root."""
        with self._refreshing:
            self._refresh(setup)

    def _refresh(self, setup: FileSetup) -> None:
        from jitlint.engine.runner import project_inbound

        with self._lock:
            profiles = self._get_profiles()
            files = _finder(profiles, setup.root).find([setup.root]).files
            # Each file with its own nearest config's selection and limits, as the CLI.
            tasks = [profiles.task(f) for f in files] if len(files) <= MAX_PROJECT_FILES else []
        inbound: dict[str, tuple[Received, ...]] = {}
        if tasks:
            inbound = project_inbound(tasks, self.jobs, setup.root, cache_root=setup.root)
        with self._lock:
            self._projects[setup.root] = inbound

    def inbound(self, setup: FileSetup) -> tuple[Received, ...] | None:
        with self._lock:
            return self._projects.get(setup.root, {}).get(setup.display) or None

    # ---- one buffer ---------------------------------------------------------------------
    def lint(self, setup: FileSetup, text: str) -> list[Diagnostic]:
        """The buffer's findings; none for a notebook opened as JSON text (its positions are
        in cells, which a text editor of the JSON does not show)."""
        if is_notebook(setup.display) or setup.excluded:
            return []
        result = lint_text(
            text, setup.display, setup.codes, setup.rule_options, inbound=self.inbound(setup)
        )
        return result.diagnostics

    def fix_all(self, setup: FileSetup, text: str) -> str:
        """The buffer with every fix `jitlint --fix` would apply (unsafe ones only when the
        configuration sets `unsafe-fixes`); the text itself if none applies."""
        if is_notebook(setup.display) or setup.excluded:
            return text
        outcome = fix_text(
            text,
            setup.display,
            setup.codes,
            setup.rule_options,
            unsafe=setup.settings.unsafe_fixes,
            fixable=setup.fixable,
            inbound=self.inbound(setup),
        )
        return outcome.source


def _finder(profiles: Profiles, root: Path) -> FileFinder:
    from jitlint.engine.discovery import FileFinder

    return FileFinder(profiles.exclusion_for, root)


def rule_docs(code: str) -> str | None:
    """The rule's page (markdown), as `jitlint --explain CODE` prints it."""
    from jitlint import catalogue
    from jitlint.rules import all_rules

    rule = all_rules().get(code)
    return catalogue.render_page(rule) if rule is not None else None
