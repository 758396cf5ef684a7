"""A static argument built by a conditional (`a if c else {}`, `opts or {}`) whose value on one
side comes from another file: the side the text shows JAX cannot hash fails the call on its
path, whatever the other file's side is (model/jax/static_args/hashable.py `_one_side`)."""

from __future__ import annotations

import pytest
from test_project import check, where, write

CONFIG = """\
class Config(dict):
    def to_dict(self):
        return dict(self)


def frozen_defaults():
    return (("depth", 2),)
"""

TRAIN = """\
import functools

import jax

from pkg.config import Config, frozen_defaults


@functools.partial(jax.jit, static_argnums=(1, 2))
def create_model(key, shape, model_kwargs):
    return key


def main(config: Config, key, opts):
    model_kwargs = {value}
    return create_model(key, (1, 2), model_kwargs)
"""


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # One side a dict, the other another file's call: the dict's path fails.
        ('config.to_dict() if "model_kwargs" in config else {}', [15]),
        ("frozen_defaults() if opts else []", [15]),
        ("opts or {}", [15]),
        # Both sides hashable, or the unhashable side is another file's (unknown) call.
        ("frozen_defaults() if opts else ()", []),
        ('config.to_dict() if "model_kwargs" in config else ()', []),
        ("opts or frozen_defaults()", []),
        # `and` gives its right side only when the left is truthy: left alone.
        ("opts and {}", []),
    ],
)
def test_one_side_of_a_conditional_is_unhashable(tmp_path, value, expected):
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": CONFIG,
            "pkg/train.py": TRAIN.format(value=value),
        },
    )
    status, found, err = check(root)
    assert where(found) == [("pkg/train.py", line, "JIT110") for line in expected], err
    assert status == (1 if expected else 0), err


def test_the_message_names_the_path_and_no_fix_changes_the_other_side(tmp_path):
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": CONFIG,
            "pkg/train.py": TRAIN.format(value="frozen_defaults() if opts else [1]"),
        },
    )
    _, found, err = check(root)
    assert len(found) == 1, err
    message = str(found[0]["message"])
    assert "`model_kwargs`, a list when `opts` is false" in message
    # `tuple(model_kwargs)` would also turn the other side's value into a tuple.
    assert found[0].get("fix") is None
