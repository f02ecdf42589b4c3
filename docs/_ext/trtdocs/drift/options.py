"""The ``save()`` options table (``docs/data/save-options.toml``) against the
installed ``torch_tensorrt``: ``save()`` takes its ExecuTorch options out of
``**kwargs``, so griffe finds the function and :mod:`ast` reads its
``kwargs.pop(name, default)`` calls (nothing is imported).

An option whose feature the documented release has must be popped by the
installed ``save()``, with the table's default; one whose feature is newer
must not be.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import griffe

from .. import tomlfile
from ..api.index import ApiIndex
from ..api.model import defined_in
from ..pages import Violation

SAVE = "torch_tensorrt._compile.save"
RULE = "save-options"


def popped_defaults(index: ApiIndex, path: str = SAVE) -> dict[str, str]:
    """``{name: default as source}`` for each ``kwargs.pop("name", default)`` in ``path``."""
    func = index.lookup(path)
    if not isinstance(func, griffe.Function):
        raise ValueError(f"{path}: a {func.kind.value} in the installed package, not a function")
    tree = ast.parse(defined_in(func).read_text(encoding="utf-8"))
    node = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef) and n.name == func.name and n.lineno == func.lineno
    )
    kw = node.args.kwarg.arg if node.args.kwarg else "kwargs"
    return {
        c.args[0].value: ast.unparse(c.args[1]) if len(c.args) > 1 else "(required)"
        for c in ast.walk(node)
        if isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and c.func.attr == "pop"
        and isinstance(c.func.value, ast.Name)
        and c.func.value.id == kw
        and c.args
        and isinstance(c.args[0], ast.Constant)
        and isinstance(c.args[0].value, str)
    }


def check(
    table_path: Path,
    index: ApiIndex,
    documented_has: Callable[[str], bool],
    *,
    where: str | None = None,
) -> list[Violation]:
    """Violations of the table at ``table_path`` (reported as ``where``);
    ``documented_has(feature_id)`` says whether the documented release has a feature."""
    text = table_path.read_text(encoding="utf-8")
    entries = tomlfile.parse(text, table_path)["options"]
    starts = [
        n for n, line in enumerate(text.splitlines(), start=1) if line.strip() == "[[options]]"
    ]
    popped = popped_defaults(index)
    where = where or str(table_path)
    found: list[Violation] = []
    for line, entry in zip(starts, entries, strict=True):
        name, default, feature = entry["name"], entry["default"], entry["feature"]
        if documented_has(feature):
            if name not in popped:
                found.append(
                    Violation(
                        where,
                        line,
                        RULE,
                        f"{name!r}: the installed {SAVE} does not take it out of **kwargs",
                    )
                )
            elif popped[name] != default:
                found.append(
                    Violation(
                        where,
                        line,
                        RULE,
                        f"{name!r}: default {default} in the "
                        f"table, {popped[name]} in the installed {SAVE}",
                    )
                )
        elif name in popped:
            found.append(
                Violation(
                    where,
                    line,
                    RULE,
                    f"{name!r}: its feature {feature!r} is newer "
                    f"than the documented release, but the installed {SAVE} takes it",
                )
            )
    for name in sorted(set(popped) - {e["name"] for e in entries}):
        found.append(
            Violation(
                where,
                1,
                RULE,
                f"the installed {SAVE} takes {name!r} out of **kwargs; the table lacks it",
            )
        )
    return found
