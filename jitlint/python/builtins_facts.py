"""Facts of the Python language and its standard library that the model and rules ask about:
which calls read the clock, which methods mutate a container or emit a log record, which
builtins compare or truth-test their arguments, the operator an augmented assignment applies,
what `functools.partial` is and which decorators change how a method binds, what a type
annotation says of the parts of a tuple it annotates, and which annotations rule out None.
Framework-neutral: what jax does with them is the model's business.
"""

from __future__ import annotations

import libcst as cst

# Functions of `time` that read a clock.
CLOCKS = frozenset(
    f"time.{n}" for n in ("time", "perf_counter", "monotonic", "process_time", "time_ns")
)
# Methods of the builtin and `collections` containers that add to them in place.
CONTAINER_MUTATORS = frozenset(
    {"append", "extend", "insert", "add", "update", "setdefault", "appendleft"}
)
# Methods of the builtin containers that change them in place: code that calls one changes
# what a function reading the container would see (hoisting fixes, captured values).
MUTATING_METHODS = frozenset(
    {
        *("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"),
        *("update", "setdefault", "popitem", "add", "discard"),
    }
)
# The methods of a list that add to it in place.
LIST_MUTATORS = frozenset({"append", "extend", "insert"})
# Mutable containers, builtin and from `collections`, by their leaf name.
CONTAINER_TYPES = frozenset(
    {"list", "dict", "set", "defaultdict", "OrderedDict", "deque", "Counter"}
)
# The methods of `logging.Logger` (and the `logging` module's functions) that emit a record.
LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}
)
# Calls that end the process, as spelled (`exit(1)`, `sys.exit(1)`).
PROCESS_EXITS = frozenset({"exit", "quit", "sys.exit", "os._exit"})
# The modules whose functions of those names emit a log record: the standard library's, and
# absl's (which forwards to it).
LOG_MODULES = frozenset({"logging", "absl.logging"})
# Builtins that compare their arguments with each other (`max(a, b)` asks `a > b`).
COMPARING_BUILTINS = frozenset({"builtins.max", "builtins.min"})
# Builtins that convert their argument to a Python number (through `__float__`, `__int__` or
# `__index__`, `__complex__`).
NUMBER_CONVERSIONS = frozenset({"builtins.float", "builtins.int", "builtins.complex"})
# Builtins that truth-test or compare the elements of the iterable they are given.
ITERATING_BUILTINS = frozenset({"builtins.any", "builtins.all", "builtins.sorted"})
# Builtins that iterate the iterables they are given and hand back their elements.
ELEMENT_BUILTINS = frozenset(f"builtins.{n}" for n in ("enumerate", "zip", "list", "tuple"))
# `functools.partial(func, /, *args, **keywords)`: the callable with leading arguments and
# keywords bound (its signature: binding.PARTIAL_SIGNATURE).
PARTIAL = frozenset({"functools.partial"})
# Decorators that memoize a function: its body runs once per distinct arguments, and a later
# call with the same arguments returns the stored result without running it.
MEMOIZING = frozenset({"functools.lru_cache", "functools.cache"})
# The decorators that make a method static or a class method.
STATICMETHOD = frozenset({"builtins.staticmethod"})
CLASSMETHOD = frozenset({"builtins.classmethod"})
# What a method decorated with each of these is.
METHOD_KINDS = {
    "builtins.staticmethod": "staticmethod",
    "builtins.classmethod": "classmethod",
    "builtins.property": "property",
    "functools.cached_property": "property",
}
# The binary operator an augmented assignment applies, by its `operator` module name.
AUGMENTED_OPERATORS: dict[type[cst.BaseAugOp], str] = {
    cst.AddAssign: "add",
    cst.SubtractAssign: "sub",
    cst.MultiplyAssign: "mul",
    cst.DivideAssign: "truediv",
    cst.FloorDivideAssign: "floordiv",
    cst.ModuloAssign: "mod",
    cst.PowerAssign: "pow",
    cst.MatrixMultiplyAssign: "matmul",
    cst.LeftShiftAssign: "lshift",
    cst.RightShiftAssign: "rshift",
    cst.BitAndAssign: "and_",
    cst.BitOrAssign: "or_",
    cst.BitXorAssign: "xor",
}
# Single builtins the model and rules ask about by what they do.
PRINT = frozenset({"builtins.print"})  # writes its arguments to stdout
# `setattr(obj, "name", value)` stores its third argument as `obj.name = value` does.
SETATTR = "setattr"
# `warnings.warn(message)`: like a log record, emitted where Python runs it.
WARN = frozenset({"warnings.warn"})
# Builtins that turn their argument into text.
MAKES_TEXT = frozenset({"builtins.str", "builtins.repr", "builtins.format", "builtins.ascii"})
# Tests only text has: `str` and `bytes` methods that answer a question about the text. A call
# of one that completed (whatever it answered) proves its subject is text: no other builtin,
# array or number has the method, so on anything else the call raises before its test is read.
TEXT_TESTS = frozenset(
    {"startswith", "endswith", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit"}
    | {"isidentifier", "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper"}
)
TEXT_TYPES = frozenset({"builtins.str", "builtins.bytes"})
TRUTH_TEST = frozenset({"builtins.bool"})  # `bool(x)` asks `x.__bool__()`
FLOAT_CONVERSION = frozenset({"builtins.float"})
RANGE = frozenset({"builtins.range"})
ENUMERATE = frozenset({"builtins.enumerate"})
# The builtins whose argument is a count (`range(n)`, `int(n - 1)`), not a quantity.
COUNTS = RANGE | {"builtins.int"}
# The exceptions an import of a missing module or name raises, and what catches every one.
IMPORT_ERRORS = frozenset(
    f"builtins.{n}" for n in ("ImportError", "ModuleNotFoundError", "AttributeError", "Exception")
)
_BUILTINS = "builtins."
# Each builtin exception class a handler may name, with its builtin base: `except Exception:`
# catches a TypeError, and `except LookupError:` an IndexError.
_EXCEPTION_BASES = {
    "TypeError": "Exception", "ValueError": "Exception", "AttributeError": "Exception",
    "IndexError": "LookupError", "KeyError": "LookupError", "LookupError": "Exception",
    "ModuleNotFoundError": "ImportError", "ImportError": "Exception",
    "Exception": "BaseException",
}  # fmt: skip
# Annotations naming a container, as spelled (builtins, `typing`, `collections.abc`): a value
# annotated so is a Python container, whatever its elements are.
CONTAINER_ANNOTATIONS = frozenset(
    {
        "dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict",
        "list", "List", "Sequence", "MutableSequence", "tuple", "Tuple", "set", "Set",
        "frozenset", "FrozenSet", "AbstractSet", "Collection", "Iterable",
    }
)  # fmt: skip
_TUPLES = frozenset({"tuple", "Tuple"})


def builtin_name(qualname: str) -> str | None:
    """`"builtins.float"` -> `"float"`, the name a builtin is spelled by; None for others."""
    return qualname.removeprefix(_BUILTINS) if qualname.startswith(_BUILTINS) else None


def builtin_qualname(name: str) -> str:
    """`"zip"` -> `"builtins.zip"`: what a plain name means when nothing shadows it."""
    return _BUILTINS + name


def _leaf(expr: cst.BaseExpression) -> str | None:
    """The last name of `Dict`, `typing.Dict` or `Dict[str, int]`."""
    if type(expr) is cst.Subscript:
        expr = expr.value  # type: ignore[attr-defined]
    if type(expr) is cst.Name:
        return expr.value  # type: ignore[attr-defined]
    if type(expr) is cst.Attribute:
        return expr.attr.value  # type: ignore[attr-defined]
    return None


def container_annotation(annotation: cst.BaseExpression) -> bool:
    """An annotation naming a container: `Dict[str, Tensor]`, `list`, `typing.Sequence[int]`."""
    return _leaf(annotation) in CONTAINER_ANNOTATIONS


def tuple_element_annotation(
    annotation: cst.BaseExpression, index: int, count: int
) -> cst.BaseExpression | None:
    """The annotation of element `index` of a value annotated `annotation` and unpacked into
    `count` names (`a, b, c = inputs`): `Tuple[A, B, C]` gives `B` at 1, `tuple[A, ...]`
    gives `A` at every index; None where the annotation says nothing of it (not a tuple, or
    a tuple of another length)."""
    if type(annotation) is not cst.Subscript or _leaf(annotation) not in _TUPLES:
        return None
    parts = [
        element.slice.value  # type: ignore[attr-defined]
        for element in annotation.slice  # type: ignore[attr-defined]
        if type(element.slice) is cst.Index
    ]
    if len(parts) != len(annotation.slice):  # type: ignore[attr-defined]
        return None
    if len(parts) == 2 and type(parts[1]) is cst.Ellipsis:
        return parts[0]
    if len(parts) != count or any(type(part) is cst.Ellipsis for part in parts):
        return None
    return parts[index]


def exception_catchers(name: str) -> frozenset[str]:
    """The builtin exception classes (qualified) whose handler catches the builtin exception
    `name`: itself and its bases (`TypeError`: TypeError, Exception, BaseException); a class
    the table does not hold gives itself alone."""
    found = []
    current: str | None = name
    while current is not None:
        found.append(builtin_qualname(current))
        current = _EXCEPTION_BASES.get(current)
    return frozenset(found)


# Python's builtin scalar types (their instances are never None), by name.
SCALAR_TYPES = frozenset({"int", "float", "complex", "bool", "str", "bytes"})
# The constants spelled as names, and their values.
LITERAL_NAMES = {"None": None, "True": True, "False": False}


def not_none_annotation(annotation: cst.BaseExpression) -> str | None:
    """The builtin scalar type a plain annotation names (`int`, `builtins.str`): a value so
    declared is never None. None for anything else, `Optional[int]` and `int | None` too."""
    if type(annotation) is cst.Attribute:
        if type(annotation.value) is not cst.Name or annotation.value.value != "builtins":
            return None
        name = annotation.attr.value
    elif type(annotation) is cst.Name:
        name = annotation.value
    else:
        return None
    return name if name in SCALAR_TYPES else None
