"""The recording plugin's own parts, without a framework: what it keeps of objects, the
file it writes, the line it ends the test run with, and the import hook."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys

from jitlint.pytest_plugin import Recorder, after_import, encode


class Box:
    """Picklable: defined at module level of an importable module."""

    def __init__(self, value):
        self.value = value


def test_objects_are_pickled_beside_the_record_file_and_unused_pickles_go(tmp_path):
    record = tmp_path / ".jitlint" / "verify-specs.json"
    recorder = Recorder(record)
    kept = recorder.keep(Box(3))
    file = kept["__pickle__"]["file"]
    assert file.startswith("instances/") and kept["__pickle__"]["class"].endswith(":Box")
    assert (record.parent / file).is_file()
    # The same state is one file; a lambda cannot be pickled and says why.
    assert recorder.keep(Box(3)) == kept
    unkept = recorder.keep(lambda: 1)
    assert unkept["why"].startswith("not picklable")
    # A method's instance is recorded once per distinct argument specs.
    recorder._add("m:Model.apply", (1.0,), {}, lambda: recorder.keep(Box(4)))
    recorder._add("m:Model.apply", (1.0,), {}, lambda: recorder.keep(Box(5)))
    (case,) = recorder.calls["m:Model.apply"]
    assert case["args"] == [1.0] and "__pickle__" in case["self"]
    stale = record.parent / "instances" / "0123.pkl"
    stale.write_bytes(b"left by an older run")
    recorder.save()
    saved = json.loads(record.read_text())["calls"]
    assert saved["m:Model.apply"][0]["self"] == case["self"]
    assert not stale.exists()  # no case refers to it any more
    assert (record.parent / case["self"]["__pickle__"]["file"]).is_file()
    assert recorder.summary(tmp_path) == (
        "jitlint: recorded 1 call(s) of 1 function(s) (2 object(s) pickled in instances/; "
        "1 instance(s) or argument(s) not kept (see the file)) in .jitlint/verify-specs.json, "
        "for `jitlint verify`"
    )


def test_a_run_that_recorded_nothing_says_so(tmp_path):
    recorder = Recorder(tmp_path / "specs.json")
    recorder.save()
    assert not (tmp_path / "specs.json").exists()
    assert recorder.summary(tmp_path) == (
        "jitlint: recorded no calls (no jitted function or Keras layer of this project ran); "
        "specs.json was not written"
    )


def test_unknown_dimensions_and_unpicklable_values_are_encoded():
    class Shaped:
        shape = (None, 3)
        dtype = "float32"

    assert encode(Shaped()) == {
        "__spec__": {"shape": [None, 3], "dtype": "float32", "framework": "jax"}
    }
    assert encode(Box(1))["__repr__"].startswith("<")
    assert encode({"a": (1, [2.0])}) == {"__dict__": [["a", {"__tuple__": [1, [2.0]]}]]}


def test_a_lookup_without_import_does_not_spend_the_import_hook(tmp_path, monkeypatch):
    """TensorFlow probes for keras with importlib.util.find_spec before importing it."""
    (tmp_path / "probed_module.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []
    hook = after_import("probed_module", lambda module: seen.append(module.VALUE))
    try:
        assert importlib.util.find_spec("probed_module") is not None
        assert seen == []
        importlib.import_module("probed_module")
        assert seen == [1]
        assert hook not in sys.meta_path
    finally:
        sys.modules.pop("probed_module", None)
        if hook in sys.meta_path:
            sys.meta_path.remove(hook)
