"""A code cell's text as Python: what the API guard, the code links and the
files guard read. Pure: the standard library only."""

from __future__ import annotations

import ast
import re

_IPYTHON_LINE = re.compile(r"(?m)^(\s*)[%!].*$")


def parse_cell(source: str) -> ast.Module | None:
    """A code cell's tree; None for a cell magic (``%%writefile``: its body is the
    magic's input, not Python). IPython magics and shell lines read as ``pass``
    (lines and the other lines' columns stay where they are). Raises SyntaxError."""
    if source.lstrip().startswith("%%"):
        return None
    return ast.parse(_IPYTHON_LINE.sub(r"\1pass", source))
