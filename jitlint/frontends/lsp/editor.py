"""What the editor server knows, without any LSP types: the settings of each file (from the
configuration nearest to it), the calls other files on disk make into it (the project pass,
as `jitlint PATHS` finds them), and the findings and fixes of one buffer's text.

The project pass reads the files as they are on disk, so an unsaved buffer is linted with
the calls the saved files make into it; its own unsaved calls reach other files once it is
saved (`refresh`). Results are cached in `.jitlint_cache/` as on the command line.

A buffer is held to its configuration's limits as a file is on the command line: over
`max-file-size` (its UTF-8 bytes) it is one JIT001 finding, unparsed; its lint and its
fixes run under `max-file-seconds` and `max-file-memory` (enforced in the main thread).
The configuration files that govern each file are stat'ed on every `setup`: one changed
on disk (a `git checkout`, not only a save in the editor) is read again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jitlint.config import ConfigResolver, Settings
from jitlint.diagnostics import Diagnostic
from jitlint.engine.fixloop.passes import fix_text
from jitlint.engine.linter import lint_text
from jitlint.engine.runner import collector_paused
from jitlint.model.jax.crossfile.records import Received
from jitlint.notebook import is_notebook
from jitlint.python.guards import size_problem
from jitlint.selection import Layer
from jitlint.system.budget import OverBudget, budget

if TYPE_CHECKING:
    from jitlint.profiles import Profiles
    from jitlint.system.discovery import FileFinder

# A workspace with more files than this is linted one file at a time (the project pass over
# a whole home directory opened by mistake would keep the server busy for minutes).
MAX_PROJECT_FILES = 3000
CONFIG_NAMES = ("jitlint.toml", "pyproject.toml")  # what config._config_in looks for


PREFERENCES = ("editorFirst", "filesystemFirst", "editorOnly")


@dataclass(frozen=True)
class EditorSettings:
    """What the editor's own settings say (ruff's names): `select` and `ignore` layered over
    the configuration as the command line's are, `unsafe-fixes`, and which wins:
    `editorFirst` (the editor's, over any configuration file), `filesystemFirst` (a
    configuration file, where one governs the file; else the editor's) or `editorOnly`
    (configuration files are not read)."""

    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    unsafe_fixes: bool | None = None
    preference: str = "editorFirst"

    @classmethod
    def from_client(cls, raw: Any) -> tuple[EditorSettings, list[str]]:
        """From `initializationOptions` or `workspace/didChangeConfiguration`'s settings,
        in any of the shapes editors send (`{"settings": {...}}`, `{"jitlint": {...}}`, the
        table itself; `lint.select` as ruff nests it); and the problems found, each a
        setting that was ignored."""
        problems: list[str] = []
        table = raw if isinstance(raw, dict) else {}
        for key in ("settings", "jitlint"):
            if isinstance(table.get(key), dict):
                table = table[key]
        if isinstance(table.get("lint"), dict):
            table = {**table, **table["lint"]}

        def codes(key: str) -> list[str] | None:
            value = table.get(key)
            if value is None:
                return None
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return value
            problems.append(f"`{key}` must be a list of codes; ignored")
            return None

        unsafe = table.get("unsafeFixes", table.get("unsafe-fixes"))
        if unsafe is not None and not isinstance(unsafe, bool):
            problems.append("`unsafe-fixes` must be true or false; ignored")
            unsafe = None
        preference = table.get("configurationPreference", "editorFirst")
        if preference not in PREFERENCES:
            problems.append(
                f"`configurationPreference` must be one of {', '.join(PREFERENCES)}; "
                f"got {preference!r}, using editorFirst"
            )
            preference = "editorFirst"
        return cls(codes("select"), codes("ignore") or [], unsafe, preference), problems


@dataclass(frozen=True)
class FileSetup:
    """How one file is linted: its settings, enabled codes, fixable codes and display path."""

    settings: Settings
    codes: frozenset[str]
    fixable: frozenset[str]
    display: str
    root: Path  # the project the file belongs to (its config's directory, or the workspace)
    excluded: bool = False  # by the configuration's exclude patterns or .gitignore
    unsafe_fixes: bool = False  # the configuration's, or the editor's setting
    # The config's rule options with the file's framework versions (jitlint/profiles.py).
    rule_options: Mapping[str, Any] = field(default_factory=dict)


class EditorState:
    """Thread-safe: the server lints buffers in its main thread and runs project passes in
    another."""

    def __init__(
        self,
        workspace_roots: list[Path] | None = None,
        jobs: int | None = None,
        editor_settings: EditorSettings | None = None,
    ):
        self.workspace_roots = [root.resolve() for root in workspace_roots or []]
        self.jobs = jobs
        self.editor_settings = editor_settings or EditorSettings()
        self._lock = threading.RLock()
        self._refreshing = threading.Lock()  # one project pass at a time
        self._profiles: Profiles | None = None  # each file's nearest config, as the CLI
        self._plain: Profiles | None = None  # the same without the editor's settings
        # root -> the calls each file (by display path) receives; absent: not computed yet.
        self._projects: dict[Path, dict[str, tuple[Received, ...]]] = {}
        # Every config file consulted (present or not) -> its stamp when it was.
        self._stamps: dict[Path, tuple[int, int, int] | None] = {}
        self.generation = 0  # counts the times the configuration was read again

    # ---- configuration ------------------------------------------------------------------
    def setup(self, path: Path | None) -> FileSetup:
        """Raises ConfigError or selection.UnknownSelector for a bad configuration."""
        from jitlint.engine.runner import display_path

        directory = (path.parent if path is not None else Path.cwd()).resolve()
        with self._lock:
            if any(_stamp(p) != known for p, known in self._stamps.items()):
                self.forget_settings()
            for folder in (directory, *directory.parents):
                for name in CONFIG_NAMES:
                    self._stamps.setdefault(folder / name, _stamp(folder / name))
            profiles = self._profiles_for(directory)
            profile = profiles.for_directory(directory)
            settings = profile.settings
            unsafe = profiles.overrides.unsafe_fixes
            unsafe = settings.unsafe_fixes if unsafe is None else unsafe
            extended = settings.base
            while extended is not None:  # the files named by `extend`
                if extended.config_path is not None:
                    self._stamps.setdefault(extended.config_path, _stamp(extended.config_path))
                extended = extended.base
            name = path if path is not None else Path("untitled.py")
            codes = profile.rule_sets.codes_for(name)
            rule_options = profiles.rule_options(name, settings)
            excluded = path is not None and _finder(profiles, settings.root).is_excluded(
                path, False
            )
        root = settings.root if settings.config_path is not None else self._workspace_of(directory)
        display = display_path(path) if path is not None else "untitled.py"
        return FileSetup(
            settings, codes, profile.fixable, display, root, excluded, unsafe, rule_options
        )

    def _get_profiles(self) -> Profiles:
        """Profiles with the editor's settings over each configuration."""
        from jitlint.profiles import Overrides, Profiles

        if self._profiles is None:
            editor = self.editor_settings
            resolver = (
                _DefaultsOnly(self.workspace_roots)
                if editor.preference == "editorOnly"
                else ConfigResolver()
            )
            layer = Layer(editor.select, [], list(editor.ignore))
            self._profiles = Profiles(resolver, Overrides(layer, unsafe_fixes=editor.unsafe_fixes))
            self._plain = Profiles(resolver, Overrides())
        return self._profiles

    def _profiles_for(self, directory: Path) -> Profiles:
        """`filesystemFirst`: a file a configuration governs ignores the editor's settings."""
        profiles = self._get_profiles()
        if self.editor_settings.preference != "filesystemFirst" or self._plain is None:
            return profiles
        if self._plain.for_directory(directory).settings.config_path is None:
            return profiles
        return self._plain

    def configure(self, editor_settings: EditorSettings) -> None:
        """The editor's settings changed: every file's settings are made again."""
        with self._lock:
            self.editor_settings = editor_settings
            self.forget_settings()

    def _workspace_of(self, directory: Path) -> Path:
        containing = [r for r in self.workspace_roots if r == directory or r in directory.parents]
        return max(containing, key=lambda r: len(r.parts)) if containing else directory

    def forget_settings(self) -> None:
        """A configuration file changed: read them again, and redo the project passes."""
        with self._lock:
            self._profiles = self._plain = None
            self._projects.clear()
            self._stamps.clear()
            self.generation += 1

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
            tasks = (
                [self._profiles_for(f.parent).task(f) for f in files]
                if len(files) <= MAX_PROJECT_FILES
                else []
            )
        inbound: dict[str, tuple[Received, ...]] = {}
        if tasks:
            inbound = project_inbound(tasks, self.jobs, setup.root, cache_root=setup.root)
        with self._lock:
            self._projects[setup.root] = inbound

    def inbound(self, setup: FileSetup) -> tuple[Received, ...] | None:
        with self._lock:
            return self._projects.get(setup.root, {}).get(setup.display) or None

    # ---- one buffer ---------------------------------------------------------------------
    def lint(
        self, setup: FileSetup, text: str, cancelled: Callable[[], bool] | None = None
    ) -> list[Diagnostic]:
        """The buffer's findings; none for a notebook opened as JSON text (its positions are
        in cells, which a text editor of the JSON does not show). Over a limit: JIT001.
        Raises budget.Cancelled once `cancelled()` is true."""
        if is_notebook(setup.display) or setup.excluded:
            return []
        settings = setup.settings
        problem = size_problem(len(text.encode("utf-8", "surrogatepass")), settings.max_file_size)
        if problem is not None:
            return _jit001(setup, problem)
        try:
            limits = budget(settings.max_file_seconds, settings.max_file_memory, cancelled)
            with limits, collector_paused():
                result = lint_text(
                    text,
                    setup.display,
                    setup.codes,
                    setup.rule_options,
                    inbound=self.inbound(setup),
                )
        except OverBudget as exc:
            return _jit001(setup, str(exc))
        return result.diagnostics

    def fix_all(self, setup: FileSetup, text: str) -> str:
        """The buffer with every fix `jitlint --fix` would apply (unsafe ones only when the
        configuration sets `unsafe-fixes`); the text itself if none applies."""
        settings = setup.settings
        if is_notebook(setup.display) or setup.excluded:
            return text
        if size_problem(len(text.encode("utf-8", "surrogatepass")), settings.max_file_size):
            return text
        try:
            with budget(settings.max_file_seconds, settings.max_file_memory):
                outcome = fix_text(
                    text,
                    setup.display,
                    setup.codes,
                    setup.rule_options,
                    unsafe=setup.unsafe_fixes,
                    fixable=setup.fixable,
                    inbound=self.inbound(setup),
                )
        except OverBudget:
            return text
        return outcome.source


class _DefaultsOnly(ConfigResolver):
    """`editorOnly`: no configuration file is read; every file has the defaults, rooted at
    the workspace."""

    def __init__(self, roots: list[Path]) -> None:
        super().__init__(cwd=roots[0] if roots else None)
        self._defaults = Settings(root=self.cwd)

    def for_directory(self, directory: Path) -> Settings:
        return self._defaults


def _jit001(setup: FileSetup, message: str) -> list[Diagnostic]:
    if "JIT001" not in setup.codes:
        return []
    return [Diagnostic("JIT001", "parse-error", message, setup.display, 1, 1, 1, 2)]


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def noqa_line(text: str, line: int, code: str) -> tuple[int, str, str] | None:
    """Where `--add-noqa` would put (or extend) the `# noqa` for `code` at `line`: (the
    1-based line it changes, that line's text before and after, without its ending); None
    if the text cannot be tokenized."""
    import tokenize

    from jitlint.frontends.noqa import with_noqa
    from jitlint.notebook.document import lines_of

    try:
        changed, count = with_noqa(text, {line: {code}})
    except (tokenize.TokenError, SyntaxError):
        return None
    before, after = lines_of(text), lines_of(changed)
    if not count or len(before) != len(after):
        return None
    for number, (old, new) in enumerate(zip(before, after, strict=True), start=1):
        if old != new:
            return number, old.rstrip("\r\n"), new.rstrip("\r\n")
    return None


def _finder(profiles: Profiles, root: Path) -> FileFinder:
    from jitlint.system.discovery import FileFinder

    return FileFinder(profiles.exclusion_for, root)


def rule_docs(code: str) -> str | None:
    """The rule's page (markdown), as `jitlint --explain CODE` prints it."""
    from jitlint import catalogue
    from jitlint.rules import all_rules

    rule = all_rules().get(code)
    return catalogue.render_page(rule) if rule is not None else None
