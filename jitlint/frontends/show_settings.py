"""`--show-settings PATH`: what one file is linted with, and where each part came from: the
config file (and the files it `extend`s), the selectors of each layer, the rules enabled,
the per-file ignores that match it, the fix settings and the framework versions."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from jitlint.config import Settings
from jitlint.profiles import Profiles
from jitlint.selection import Layer
from jitlint.system.reading import real_path


def settings_report(profiles: Profiles, path: Path) -> dict[str, Any]:
    """The resolved settings of `path` (a file, or a directory: those of a file in it)."""
    is_dir = path.is_dir()
    profile = profiles.for_directory(path) if is_dir else profiles.for_file(path)
    settings = profile.settings
    probe = path / "__file__.py" if is_dir else path
    enabled = profile.rule_sets.codes_for(probe)
    versions = profiles.versions.for_directory(
        Path(os.path.abspath(path if is_dir else path.parent)), settings
    )
    unsafe = profiles.overrides.unsafe_fixes
    assumed = profiles.overrides.assume_traced
    return {
        "path": str(path),
        "config": str(settings.config_path) if settings.config_path else None,
        "extends": [str(s.config_path) for s in _bases(settings)],
        "root": str(settings.root),
        "selection": [
            {"from": source, **_layer(layer)} for source, layer in _layers(settings, profiles)
        ],
        "enabled": sorted(enabled),
        "per_file_ignores": _per_file_ignores(settings, profiles, probe),
        "unsafe_fixes": settings.unsafe_fixes if unsafe is None else unsafe,
        "fixable": sorted(profile.fixable),
        "rule_options": settings.rule_options,
        "assume_traced": settings.assume_traced if assumed is None else assumed,
        "framework_versions": {name: found.to_json() for name, found in versions.items()},
    }


def render(report: dict[str, Any], as_json: bool) -> str:
    if as_json:
        return json.dumps(report, indent=2) + "\n"
    lines = [
        f"Settings for {report['path']}",
        f"config: {report['config'] or '(none: the defaults)'}",
    ]
    lines += [f"  extends: {base}" for base in report["extends"]]
    lines.append(f"root: {report['root']}")
    lines.append("selection (applied in order):")
    for layer in report["selection"]:
        parts = [f"{key}={','.join(value)}" for key, value in layer.items() if key != "from"]
        lines.append(f"  {layer['from']}: {' '.join(parts) or '(nothing)'}")
    lines.append(f"enabled: {', '.join(report['enabled']) or '(none)'}")
    lines.append("per-file ignores:")
    for entry in report["per_file_ignores"]:
        state = "applies" if entry["applies"] else "does not apply"
        codes = ",".join(entry["codes"])
        where = entry["relative_to"]
        lines.append(f"  {entry['pattern']} = {codes} (relative to {where}; {state})")
    if not report["per_file_ignores"]:
        lines.append("  (none)")
    lines.append(f"unsafe-fixes: {str(report['unsafe_fixes']).lower()}")
    lines.append(f"fixable: {', '.join(report['fixable'])}")
    for code, options in report["rule_options"].items():
        lines.append(f"options of {code}: {json.dumps(options, sort_keys=True)}")
    assumed = report["assume_traced"]
    lines.append(f"assume-traced: {', '.join(assumed) if assumed else '(contracts only)'}")
    lines.append("framework versions:")
    for name, found in report["framework_versions"].items():
        lines.append(f"  {name}: {found['version']} ({_origin(found)})")
    return "\n".join(lines) + "\n"


def _origin(found: dict[str, Any]) -> str:
    source = found["source"]
    if source == "tensorflow" and found["file"] is not None:  # from an upper bound alone
        return f"tf.keras of every TensorFlow allowed: {found['file']}, {found['detail']}"
    if source == "tensorflow":
        return f"tf.keras of TensorFlow {found['detail']}"
    if source == "undecided":
        declared = f"{found['detail']} allows TensorFlows with Keras 2 and with Keras 3; " * bool(
            found["detail"]
        )
        return (
            f"the project {found['file']} does not decide it: {declared}findings that need "
            "Keras 3 are not reported; set `keras-version` to decide"
        )
    if source == "legacy-keras":
        return f"tf-keras, as {found['detail']} in {found['file']} asks"
    if source == "code":
        major = found["version"]
        return (
            f"the project's code runs only on Keras {major}: {found['detail']}, in {found['file']}"
        )
    if source == "facts":
        return "the version jitlint's facts were generated for"
    return f"{source}: {found['file']}, {found['detail']}"


def _bases(settings: Settings) -> list[Settings]:
    chain = []
    base = settings.base
    while base is not None:
        chain.append(base)
        base = base.base
    return chain


def _layers(settings: Settings, profiles: Profiles) -> list[tuple[str, Layer]]:
    files = [*reversed(_bases(settings)), settings]
    layers = settings.selection_layers()  # the same order: the outermost file first
    pairs = zip(files, layers, strict=True)
    named = [(str(s.config_path or "defaults"), layer) for s, layer in pairs]
    return [*named, ("command line", profiles.overrides.layer)]


def _layer(layer: Layer) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if layer.select is not None:
        out["select"] = list(layer.select)
    if layer.extend_select:
        out["extend-select"] = list(layer.extend_select)
    if layer.ignore:
        out["ignore"] = list(layer.ignore)
    return out


def _per_file_ignores(settings: Settings, profiles: Profiles, path: Path) -> list[dict[str, Any]]:
    import pathspec

    groups = [(base, table, str(base)) for base, table in settings.per_file_ignore_groups()]
    # The command line's patterns are relative to the working directory.
    cli = profiles.overrides
    if cli.per_file_ignores:
        groups.append((cli.cwd, cli.per_file_ignores, f"{cli.cwd} (command line)"))
    absolute = Path(real_path(path))
    out = []
    for base, table, source in groups:
        for pattern, codes in table.items():
            try:
                relative = absolute.relative_to(Path(real_path(base))).as_posix()
            except ValueError:
                relative = path.as_posix()
            spec = pathspec.GitIgnoreSpec.from_lines([pattern])
            applies = spec.match_file(relative)
            out.append(
                {"pattern": pattern, "codes": codes, "relative_to": source, "applies": applies}
            )
    return out
