"""Code cells that hold another language's source.

A ``%%writefile main.cpp`` cell holds C++. myst-nb highlights every code cell
with the notebook's lexer (IPython's), which fails on C++ (``?:``, ``!``) and
colours it as Python; such a cell is highlighted as the language of the file
it writes. Other cells keep the notebook's lexer.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from docutils import nodes

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

# File suffix -> Pygments lexer for the cell that writes such a file.
LANGUAGES = MappingProxyType({".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".h": "cpp", ".hpp": "cpp"})
NOTEBOOK_LEXERS = frozenset({"ipython3", "ipython", "python"})
WRITEFILE = re.compile(r"^%%writefile\s+(?:-a\s+)?(?P<file>\S+)")


def language_of(source: str) -> str | None:
    """The lexer for a cell's source, when it is a ``%%writefile`` of a known file type."""
    m = WRITEFILE.match(source)
    return LANGUAGES.get(Path(m["file"]).suffix) if m else None


def highlight_cell_magics(app: Sphinx, doctree: nodes.document) -> None:
    for node in doctree.findall(nodes.literal_block):
        if node.get("language") in NOTEBOOK_LEXERS and (language := language_of(node.astext())):
            node["language"] = language


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("doctree-read", highlight_cell_magics)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
