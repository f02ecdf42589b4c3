"""``[[returns]]`` of ``docs/data/api.toml``: what a call returns when the
installed annotation does not say (``Any``), for one value of a keyword, each
entry checked against the installed source. Pure: no Sphinx.

An entry names the function (the reference's name), ``when`` (keyword ->
constant), the class it returns (the reference's name) and the evidence::

    [[returns]]
    object = "torch_tensorrt.load"
    when = { format = "executorch" }
    returns = "torch_tensorrt_executorch_runtime.runtime.Program"
    evidence = "..."

The check reads the function's source with ast: under ``if <keyword> == <value>:``
it must ``return`` a call of a function annotated to return that class (or of
the class itself), the callee found through the function's own imports or its
module's names. A release that changes the branch fails the build, naming the
file and the entry. :func:`by_function` gives :class:`.index.CallReturn` for
:class:`.index.ApiIndex`.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

import griffe

from .index import ApiIndex, CallReturn, Missing, Unknown
from .model import defined_in

KEYS = frozenset({"object", "when", "returns", "evidence"})


class ReturnsError(ValueError):
    """A ``[[returns]]`` entry that is malformed or that the installed source does not bear
    out; the message names the file and the entry."""


@dataclasses.dataclass(frozen=True, slots=True)
class Returns:
    """One checked entry."""

    function: str  # the function (``object`` in the file), by the reference's name
    when: tuple[tuple[str, object], ...]  # (keyword, constant value)
    returns: str  # the class, by the reference's name
    evidence: str


def load_returns(
    path: Path, raw: object, index: ApiIndex, documented: Mapping[str, griffe.Object]
) -> tuple[Returns, ...]:
    """The entries of ``raw`` (api.toml's ``returns`` array), each checked against the
    installed source; ``documented``: the reference's names -> objects."""
    if not isinstance(raw, list):
        raise ReturnsError(f"{path}: returns: must be an array of tables ([[returns]])")
    out = []
    for i, item in enumerate(raw):
        entry = f"{path}: returns[{i}]"
        if not isinstance(item, dict) or set(item) != KEYS:
            raise ReturnsError(f"{entry}: needs exactly the keys {sorted(KEYS)}")
        entry += f" ({item['object']})"
        func, cls = documented.get(item["object"]), documented.get(item["returns"])
        if not isinstance(func, griffe.Function):
            raise ReturnsError(f"{entry}: object names no function the reference documents")
        if cls is None or not cls.is_class:
            raise ReturnsError(f"{entry}: returns names no class the reference documents")
        when = item["when"]
        names = {p.name for p in func.parameters}
        if not isinstance(when, dict) or len(when) != 1:
            raise ReturnsError(f"{entry}: when must map one keyword to its value")
        (keyword, value), *_ = when.items()
        if keyword not in names:
            raise ReturnsError(f"{entry}: {item['object']}() has no parameter {keyword!r}")
        if not isinstance(item["evidence"], str) or not item["evidence"].strip():
            raise ReturnsError(f"{entry}: evidence must be a non-empty string")
        found = set(returned_classes(func, keyword, value, index))
        if cls.path not in found:
            said = ", ".join(sorted(found)) or "no class the model knows"
            raise ReturnsError(
                f"{entry}: the installed source of {item['object']} "
                f"({func.relative_package_filepath.as_posix()}:{func.lineno}) returns {said} "
                f"when {keyword}={value!r}, not {item['returns']}: check the release's "
                "source, then update or remove the entry"
            )
        out.append(Returns(item["object"], ((keyword, value),), item["returns"], item["evidence"]))
    return tuple(out)


def by_function(
    entries: tuple[Returns, ...], documented: Mapping[str, griffe.Object]
) -> Mapping[str, tuple[CallReturn, ...]]:
    """The entries by each function's canonical path, for :class:`.index.ApiIndex`."""
    out: dict[str, list[CallReturn]] = {}
    for entry in entries:
        key = documented[entry.function].path
        out.setdefault(key, []).append(CallReturn(entry.when, entry.returns))
    return MappingProxyType({k: tuple(v) for k, v in out.items()})


def returned_classes(
    func: griffe.Function, keyword: str, value: object, index: ApiIndex
) -> Iterator[str]:
    """Canonical paths of the classes ``func`` returns under ``if <keyword> == <value>:``,
    read from its source."""
    source = defined_in(func).read_text(encoding="utf-8")
    node = next(
        (
            n
            for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            and n.name == func.name
            and n.lineno == func.lineno
        ),
        None,
    )
    if node is None:
        return
    local = _local_imports(node)
    for branch in ast.walk(node):
        if not (isinstance(branch, ast.If) and _tests(branch.test, keyword, value)):
            continue
        for ret in (r for stmt in branch.body for r in ast.walk(stmt)):
            if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Call):
                callee = _callee(ret.value.func, local, func)
                if callee is not None:
                    yield from _class_of(callee, index)


def _tests(test: ast.expr, keyword: str, value: object) -> bool:
    """Whether ``test`` is ``<keyword> == <value>``."""
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == keyword
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == value
    )


def _local_imports(node: ast.AST) -> dict[str, str]:
    """Names a function's own ``from ... import`` statements bind -> dotted paths."""
    out = {}
    for stmt in ast.walk(node):
        if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for alias in stmt.names:
                out[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    return out


def _callee(func: ast.expr, local: Mapping[str, str], scope: griffe.Function) -> str | None:
    """The dotted path a called name stands for: a local import, else the module's name."""
    if not isinstance(func, ast.Name):
        return None
    if func.id in local:
        return local[func.id]
    try:
        return scope.parent.resolve(func.id) if scope.parent is not None else None
    except Exception:  # noqa: BLE001 -- griffe raises its own NameResolutionError, or others
        return None


def _class_of(path: str, index: ApiIndex) -> Iterator[str]:
    """The class a call of ``path`` makes: the class itself, or a function's return class."""
    try:
        obj = index.lookup(path)
    except (Missing, Unknown):
        return
    if obj.is_class:
        yield obj.path
        return
    returned = index.return_path(obj)
    if returned is None:
        return
    try:
        yield index.lookup(returned).path
    except (Missing, Unknown):
        return
