"""The imported bases of each file's top-level classes, read from its text, for the project
pass's first round (engine/project.py): a subclass asks the module of its base what the
base's framework is (`Cls.__framework__`, model/jax/crossfile/class_facts.py), and that
module's lint is what answers. Linting the base's module first and handing the subclass the
answers to the questions it will likely ask spares it a second lint when the guess is right;
a wrong guess costs only that second lint (the project pass checks what each lint read)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping

from jitlint.model.domain import plugins
from jitlint.model.jax.crossfile.class_facts import MODULE_KEY
from jitlint.model.project.files import ProjectFiles, module_file

# `from .base import (A, B as C)` and `import pkg.mod as m`, at the start of a line (a
# module-level import; one inside a function binds nothing the class statement sees).
_FROM = re.compile(rb"^from[ \t]+([.\w]+)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)", re.M)
_IMPORT = re.compile(rb"^import[ \t]+([^\n#;]+)", re.M)
# `class Name(bases):` or `class Name[T](bases):`, bases up to the first `)` not in brackets
# is too much for a pattern: the bases' text is cut by `_bases`.
_CLASS = re.compile(rb"^class[ \t]+\w+[ \t]*(?:\[[^\]]*\])?[ \t]*\(", re.M)
# The next top-level statement (a line that starts with neither a space nor a comment), and
# a `def` inside the class before it.
_TOP_LEVEL = re.compile(rb"^[^ \t\r\n#)\]}]", re.M)
_METHOD = re.compile(rb"^[ \t]+(?:async[ \t]+)?def[ \t]", re.M)
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def framework_questions(source: bytes) -> list[str]:
    """The `Cls.__framework__` names, spelled as the file's imports spell them, that its
    top-level classes that define a method would ask about for their imported bases;
    sorted, once each."""
    bound = _imported_names(source)
    if not bound:
        return []
    found: set[str] = set()
    for match in _CLASS.finditer(source):
        # A class that defines no method asks nothing (`class_facts.class_imports`); an
        # answer it did not ask for is one more record its lint may read.
        end = _TOP_LEVEL.search(source, match.end())
        if not _METHOD.search(source, match.end(), end.start() if end else len(source)):
            continue
        for base in _bases(source, match.end()):
            head, dot, rest = base.partition(".")
            qualname = bound.get(head)
            if qualname is not None and (qualname.startswith(".") or "." in qualname + dot):
                found.add(qualname + dot + rest + MODULE_KEY)
    return sorted(found)


def base_modules(
    project: ProjectFiles, path: str, questions: list[str], text: Callable[[str], bytes]
) -> set[str]:
    """The files of the run whose modules `questions` (`framework_questions`) name, of
    those that import a framework whose classes have methods traced by contract (the
    only ones whose answer can make the subclass trace more): `text(path)`, a file's
    source."""
    found = set()
    for question in questions:
        module = question[: -len(MODULE_KEY)].rpartition(".")[0]
        if module and module.strip("."):
            target = module_file(project, path, module)
        else:
            target = module_file(project, path, module or ".")
        if target is not None and target != path and _frameworks().search(text(target)):
            found.add(target)
    return found


@functools.cache
def _frameworks() -> re.Pattern[bytes]:
    """An import of a framework whose classes have methods traced by contract."""
    words = {
        word.encode()
        for plugin in plugins.plugins()
        if plugin.contract is not None
        for word in plugin.packages
    }
    alternatives = b"|".join(re.escape(word) for word in sorted(words))
    return re.compile(rb"^[ \t]*(?:import|from)[ \t]+(?:" + alternatives + rb")\b", re.M)


def _imported_names(source: bytes) -> dict[str, str]:
    """Name -> what it is bound to by the module-level imports (`from .base import A as B`:
    B -> `.base.A`; `import pkg.mod as m`: m -> `pkg.mod`; `import pkg.mod`: pkg -> `pkg`)."""
    bound: dict[str, str] = {}
    for match in _FROM.finditer(source):
        module = match.group(1).decode("utf-8", "replace")
        joiner = "" if module.endswith(".") else "."
        for name, alias in _names(match.group(2)):
            bound[alias] = module + joiner + name
    for match in _IMPORT.finditer(source):
        for name, alias in _names(match.group(1)):
            if alias != name:
                bound[alias] = name
            else:
                head = name.partition(".")[0]
                bound[head] = head
    return bound


def _names(text: bytes) -> list[tuple[str, str]]:
    out = []
    for part in text.decode("utf-8", "replace").strip().strip("()").split(","):
        name, _, alias = part.strip().rstrip("\\").strip().partition(" as ")
        name, alias = name.strip(), alias.strip() or name.strip()
        if _DOTTED.fullmatch(name) and alias.isidentifier():
            out.append((name, alias))
    return out


def _bases(source: bytes, start: int) -> list[str]:
    """The dotted names of the bases listed from `start` (after the class's `(`): keywords
    (`metaclass=`) and anything but a dotted name, or one subscripted, are left out."""
    depth, at, parts, part = 0, start, [], bytearray()
    while at < len(source):
        char = source[at : at + 1]
        at += 1
        if char in b"([{":
            depth += 1
        elif char in b")]}":
            if depth == 0:
                break
            depth -= 1
        elif char == b"," and depth == 0:
            parts.append(bytes(part))
            part = bytearray()
            continue
        part += char
    parts.append(bytes(part))
    out = []
    for raw in parts:
        text = raw.decode("utf-8", "replace").strip()
        text = text.split("[", 1)[0].strip()
        if _DOTTED.fullmatch(text):
            out.append(text)
    return out


def reversed_for_bases(
    imports: Mapping[str, set[str]], bases: Mapping[str, set[str]]
) -> dict[str, set[str]]:
    """`imports` with each file's edges to its bases' modules turned round: the base's
    module goes first, so its answer is there at the subclass's first lint."""
    out = {path: set(found) for path, found in imports.items()}
    for path, modules in bases.items():
        for module in modules:
            if module in out:
                out[path].discard(module)
                out[module].add(path)
    return out
