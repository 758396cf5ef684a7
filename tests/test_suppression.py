"""Suppression comments: noqa, jitlint: ignore / file-ignore, logical lines, prefixes."""

from __future__ import annotations

import textwrap

import pytest

from jitlint import lint_source

BAD = "g = jax.jit(lambda x: x, static_argnums=3)"


def lines_of(source: str) -> list[int]:
    source = "import jax\n" + textwrap.dedent(source)
    return [d.line for d in lint_source(source, select=["JIT112"])]


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",
        "# noqa: JIT112",
        "# NOQA:JIT112",
        "# noqa: E501, JIT112",
        "# noqa: JIT1",
        "# jitlint: ignore[JIT112]",
        "# jitlint: ignore[JIT110, JIT112]",
        "# jitlint: ignore",
        "# type: ignore  # noqa: JIT112",
    ],
)
def test_inline_forms_suppress(comment):
    assert lines_of(f"{BAD}  {comment}\n") == []


@pytest.mark.parametrize(
    "comment",
    ["# noqa: JIT110", "# noqa: E501", "# jitlint: ignore[JIT110]"],
)
def test_other_codes_do_not_suppress(comment):
    assert lines_of(f"{BAD}  {comment}\n") == [2]


def test_noqa_without_a_colon_is_bare():
    # flake8 reads a noqa comment followed by text without a colon as a bare one.
    comment = "# no" + "qa JIT110"
    assert lines_of(f"{BAD}  {comment}\n") == []


def test_comment_on_any_line_of_a_multiline_statement():
    source = """\
    g = jax.jit(
        lambda x: x,
        static_argnums=3,
    )  # noqa: JIT112
    """
    assert lines_of(source) == []


def test_comment_in_a_body_does_not_cover_the_header():
    source = """\
    @jax.jit(static_argnames="n")
    def f(x):
        return x  # noqa: JIT112
    """
    assert lines_of(source) == [2]


def test_noqa_inside_a_string_is_not_a_comment():
    source = f"""\
    {BAD}; s = "# noqa: JIT112"
    """
    assert lines_of(source) == [2]


def test_file_ignore_anywhere():
    source = f"""\
    {BAD}
    {BAD}
    # jitlint: file-ignore[JIT112]
    """
    assert lines_of(source) == []


def test_file_ignore_of_another_code():
    assert lines_of(f"{BAD}\n# jitlint: file-ignore[JIT110]\n") == [2]


def test_suppression_in_a_file_tokenize_rejects_falls_back_to_lines():
    # libcst parses this; the tokenizer is only used for comments.
    assert lines_of(f"{BAD}  # noqa: JIT112\n") == []
