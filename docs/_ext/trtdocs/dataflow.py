"""Which names each code cell defines and reads, so that cells depending on a
cell that did not run are not run either."""

from __future__ import annotations

import ast
import builtins
import dataclasses

from IPython.core.inputtransformer2 import TransformerManager

_BUILTINS = frozenset(dir(builtins))
_TRANSFORMER = TransformerManager()


@dataclasses.dataclass(frozen=True, slots=True)
class CellNames:
    defines: frozenset[str]  # top-level names bound by the cell
    reads: frozenset[str]  # names read before the cell binds them


def cell_names(source: str) -> CellNames | None:
    """Names of one cell, or None when the cell is not valid Python.

    IPython syntax (magics, ``!cmd``) is translated first, as the kernel does.
    """
    try:
        tree = ast.parse(_TRANSFORMER.transform_cell(source))
    except SyntaxError:
        return None
    defines: set[str] = set()
    reads: set[str] = set()
    for statement in tree.body:
        loaded, stored = _names(statement)
        reads |= loaded - defines - _BUILTINS
        defines |= stored
    return CellNames(frozenset(defines), frozenset(reads))


def _names(statement: ast.stmt) -> tuple[set[str], set[str]]:
    loaded: set[str] = set()
    stored: set[str] = set()
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        stored.add(statement.name)
    elif isinstance(statement, (ast.Import, ast.ImportFrom)):
        for alias in statement.names:
            stored.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(statement):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loaded.add(node.id)
            elif _is_top_level_target(statement, node):
                stored.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            loaded.add(node.target.id)  # x += 1 reads x
    return loaded, stored


def _is_top_level_target(statement: ast.stmt, name: ast.Name) -> bool:
    """A Store outside any function or class body binds a module-level name."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        return False
    for node in ast.walk(statement):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                             ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            if any(child is name for child in ast.walk(node)):
                return False
    return True
