"""Which names each code cell defines and reads, so that cells depending on a
cell that did not run are not run either.

Scopes come from the standard library's :mod:`symtable`, statement by
statement, so a name the cell binds before reading it is not a dependency,
and a function body's free names are.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import symtable

from IPython.core.inputtransformer2 import TransformerManager

# Names the kernel provides: builtins, and what IPython adds to the namespace.
_PROVIDED = frozenset(dir(builtins)) | {"get_ipython", "display", "In", "Out", "exit", "quit"}
_TRANSFORMER = TransformerManager()


@dataclasses.dataclass(frozen=True, slots=True)
class CellNames:
    defines: frozenset[str]  # top-level names bound by the cell
    reads: frozenset[str]  # names read before the cell binds them


def python_source(source: str) -> str:
    """A cell's source as the kernel runs it: IPython syntax translated to Python."""
    return _TRANSFORMER.transform_cell(source)


def cell_names(source: str) -> CellNames | None:
    """Names of one cell, or None when the cell is not valid Python.

    IPython syntax (magics, ``!cmd``) is translated first, as the kernel does.
    """
    try:
        tree = ast.parse(python_source(source))
    except SyntaxError:
        return None
    defines: set[str] = set()
    reads: set[str] = set()
    for statement in tree.body:
        loaded, stored = _statement_names(statement)
        reads |= loaded - defines - _PROVIDED
        defines |= stored
    return CellNames(frozenset(defines), frozenset(reads))


def _statement_names(statement: ast.stmt) -> tuple[set[str], set[str]]:
    table = symtable.symtable(ast.unparse(statement), "<cell>", "exec")
    loaded: set[str] = set()
    stored: set[str] = set()
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        loaded.add(statement.target.id)  # x += 1 reads x; symtable marks it assigned only
    for symbol in table.get_symbols():
        if symbol.is_referenced():
            loaded.add(symbol.get_name())
        if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace():
            stored.add(symbol.get_name())
    pending = list(table.get_children())
    while pending:  # nested scopes read module names they do not bind
        scope = pending.pop()
        loaded.update(
            s.get_name() for s in scope.get_symbols() if s.is_global() and s.is_referenced()
        )
        pending.extend(scope.get_children())
    return loaded, stored
