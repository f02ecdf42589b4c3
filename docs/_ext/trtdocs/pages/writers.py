"""Functions a page defines that write a path they are given.

A page that wraps its task in a function::

    def save_decoder(decoder, example, path):
        torch_tensorrt.save(compiled, str(path), output_format="executorch")

writes the file a later call names: ``save_decoder(model, x, pte_path)`` writes
``pte_path``. :func:`writer` reads one function definition: a parameter is written
when the function passes it (bare, or through ``str``, ``Path`` or ``fspath``) to a
call of ``write_calls``, or opens it to write. Pure: the ``ast`` only.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Collection

# Calls that pass a path on unchanged, so the path they wrap is what is written.
WRAPPERS = frozenset({"str", "Path", "PurePath", "fspath"})


def called_name(func: ast.AST | None) -> str:
    """The last part of a called name: ``save`` for ``torch_tensorrt.save``."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


@dataclasses.dataclass(frozen=True, slots=True)
class Writer:
    """The parameters one function writes: by position and by keyword."""

    positions: frozenset[int]
    names: frozenset[str]

    def written(self, call: ast.Call) -> list[ast.expr]:
        """The arguments of ``call`` (a call of this function) that it writes."""
        return [a for i, a in enumerate(call.args) if i in self.positions] + [
            k.value for k in call.keywords if k.arg in self.names
        ]


def _parameter(node: ast.expr, parameters: Collection[str]) -> str | None:
    while isinstance(node, ast.Call) and called_name(node.func) in WRAPPERS and node.args:
        node = node.args[0]
    return node.id if isinstance(node, ast.Name) and node.id in parameters else None


def _opens_to_write(call: ast.Call) -> bool:
    mode = (
        call.args[1]
        if len(call.args) > 1
        else next((k.value for k in call.keywords if k.arg == "mode"), None)
    )
    return isinstance(mode, ast.Constant) and any(c in str(mode.value) for c in "wax")


def writer(
    func: ast.FunctionDef | ast.AsyncFunctionDef, write_calls: Collection[str]
) -> Writer | None:
    """What ``func`` writes of its parameters; None when it writes none of them."""
    positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    parameters = {*positional, *(a.arg for a in func.args.kwonlyargs)}
    written: set[str] = set()
    for node in ast.walk(func):
        if not isinstance(node, ast.Call):
            continue
        called = called_name(node.func)
        if called in write_calls:
            args = [*node.args, *(k.value for k in node.keywords)]
        elif called == "open" and node.args and _opens_to_write(node):
            args = [node.args[0]]
        else:
            continue
        written |= {name for a in args if (name := _parameter(a, parameters))}
    if not written:
        return None
    return Writer(
        frozenset(i for i, name in enumerate(positional) if name in written), frozenset(written)
    )
