"""JIT208: Python output and list appends in graph code, spelled as graph ops that run on
every call: `print` -> `tf.print`, an f-string given to `tf.print` split into its pieces,
`items.append(t)` (also `self.items.append(t)`) -> `tf.py_function(items.append, [t], [])`,
a log call that shows tensors -> `tf.py_function(lambda t: log(... t ...), [t], [])`.

The rule decides where a fix is offered (not under XLA, which has no kernel for `tf.print`
or `py_function`) and whether the appended value is a tensor; these build the text.
"""

from __future__ import annotations

import libcst as cst

from jitlint.fixes.node_fix import NodeFix

_PRINT_KEYWORDS = {"sep", "end"}  # the keywords tf.print accepts as print does


def tf_print_fix(call: cst.Call, tf_spelled: str, imports: tuple[str, ...]) -> NodeFix | None:
    """`print(...)` -> `tf.print(...)`, unless the call passes a keyword tf.print does not
    take (`file=`, `flush=`)."""
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if not keywords <= _PRINT_KEYWORDS:
        return None
    return NodeFix(
        "unsafe", "Replace `print` with `tf.print`", ((call.func, f"{tf_spelled}.print"),), imports
    )


def py_function_append_fix(
    call: cst.Call, code: str, value: str, tf_spelled: str, imports: tuple[str, ...]
) -> NodeFix | None:
    """`items.append(t)` -> `tf.py_function(items.append, [t], [])`; `code` is the source of
    `items.append`, `value` that of `t` (a fix is offered only when both fit on one line)."""
    if "\n" in code or "\n" in value:
        return None
    return NodeFix(
        "unsafe",
        f"append on every call with `{tf_spelled}.py_function` (the list gets eager tensors)",
        ((call, f"{tf_spelled}.py_function({code}, [{value}], [])"),),
        imports,
    )


def split_fstring_fix(string: cst.FormattedString, call: cst.Call) -> NodeFix | None:
    """`f"loss = {loss}, step {i}"` -> `"loss =", loss, ", step", i` when the f-string is
    the call's only positional argument and its fields are plain names or attributes (no
    format spec, no conversion, no `=`). tf.print puts a space between its arguments, so
    the spaces at the seams are dropped."""
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) != 1 or positional[0].value is not string or string.prefix != "f":
        return None
    pieces: list[str] = []
    for part in string.parts:
        if type(part) is cst.FormattedStringText:
            text = part.value.strip(" ")
            if text:
                if "\\" in text or "{" in text or "}" in text:
                    return None
                text = text.replace("{{", "{").replace("}}", "}")
                pieces.append(f'"{text}"' if '"' not in text else repr(text))
            continue
        field = part
        if (
            field.format_spec is not None  # type: ignore[attr-defined]
            or field.conversion is not None  # type: ignore[attr-defined]
            or field.equal is not None  # type: ignore[attr-defined]
            or type(field.expression) not in (cst.Name, cst.Attribute)  # type: ignore[attr-defined]
        ):
            return None
        pieces.append(cst.Module(body=[]).code_for_node(field.expression))  # type: ignore[attr-defined]
    return NodeFix(
        "unsafe",
        "Pass the tensors to `tf.print` as arguments",
        ((string, ", ".join(pieces)),),
        (),
    )


def py_function_call_fix(
    call: cst.Call, code: str, tensors: list[str], tf_spelled: str, imports: tuple[str, ...]
) -> NodeFix | None:
    """`log("loss " + str(loss))` -> `tf.py_function(lambda loss: log("loss " + str(loss)),
    [loss], [])`: the call runs on every call of the graph, with the eager tensors (values)
    in place of the symbolic ones; `code` is the call's source, `tensors` the names it
    reads that are tensors."""
    if not tensors or "\n" in code or "\r" in code:
        return None
    names = ", ".join(tensors)
    return NodeFix(
        "unsafe",
        f"run it on every call with `{tf_spelled}.py_function`, with the tensors' values",
        ((call, f"{tf_spelled}.py_function(lambda {names}: {code}, [{names}], [])"),),
        imports,
    )
