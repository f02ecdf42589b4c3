"""Code cells that hold another language's source, shown as what they are.

A ``%%writefile main.cpp`` cell holds C++ that Jupyter writes to a file, and a
``%%bash`` cell holds shell steps. The notebook keeps the magic line (a reader
runs the cell in Jupyter); the site shows the cell as the file it writes, with
the file name as its caption, or as shell steps, and without the magic line,
so that the copy button copies the file's content or the commands only. Each
is highlighted in its own language (myst-nb highlights every code cell as
IPython, which fails on C++ and colours it as Python).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from docutils import nodes

from .rewrite import set_text

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

# File suffix (or name) -> Pygments lexer for the cell that writes such a file.
LANGUAGES = MappingProxyType(
    {
        ".cpp": "cpp",
        ".cc": "cpp",
        ".cxx": "cpp",
        ".h": "cpp",
        ".hpp": "cpp",
        "CMakeLists.txt": "cmake",
        ".cmake": "cmake",
        ".sh": "bash",
        ".py": "python",
        ".json": "json",
        ".toml": "toml",
        ".yaml": "yaml",
        ".txt": "text",
    }
)
NOTEBOOK_LEXERS = frozenset({"ipython3", "ipython", "python"})
WRITEFILE = re.compile(r"^%%writefile\s+(?P<append>-a\s+)?(?P<file>\S+)")
SHELL = re.compile(r"^%%(?P<shell>bash|sh)\s*$")
CELL_SOURCE = "cell_code_source"  # myst-nb's nb_element of a code cell's input
FILE_CLASS = "trtdocs-cell-file"  # the wrapper of a cell shown as the file it writes
SHELL_CLASS = "trtdocs-cell-shell"  # the wrapper of a cell shown as shell steps


def file_language(name: str) -> str:
    path = Path(name)
    return LANGUAGES.get(path.name) or LANGUAGES.get(path.suffix, "text")


def language_of(source: str) -> str | None:
    """The lexer for a cell's source, when it is a ``%%writefile`` of a C++ file."""
    m = WRITEFILE.match(source)
    language = file_language(m["file"]) if m else None
    return language if language == "cpp" else None


def highlight_cell_magics(app: Sphinx | None, doctree: nodes.document) -> None:
    """C++ ``%%writefile`` cells highlighted as C++ (the block keeps its text)."""
    for node in doctree.findall(nodes.literal_block):
        if node.get("language") in NOTEBOOK_LEXERS and (language := language_of(node.astext())):
            node["language"] = language


def caption_of(source: str) -> tuple[list[nodes.Node], str, str] | None:
    """(caption, language, body) of a cell with a file or shell magic; None for other cells."""
    first, _, body = source.partition("\n")
    if (m := WRITEFILE.match(first)) is not None:
        caption: list[nodes.Node] = [nodes.literal(m["file"], m["file"])]
        if m["append"]:
            caption.append(nodes.Text(", continued"))
        return caption, file_language(m["file"]), body
    if SHELL.match(first) is not None:
        return [nodes.Text("Shell")], "bash", body
    return None


def show_cell_magics(app: Sphinx | None, doctree: nodes.document) -> None:
    """Each notebook cell with a file or shell magic shown as its file or steps,
    captioned, without the magic line."""
    taken: set[str] = set()
    for block in list(doctree.findall(nodes.literal_block)):
        if not (
            isinstance(block.parent, nodes.container)
            and block.parent.get("nb_element") == CELL_SOURCE
        ):
            continue
        shown = caption_of(block.astext())
        if shown is None:
            continue
        caption, language, body = shown
        source = block.astext()
        set_text(block, body.rstrip("\n"))
        block["language"] = language
        kind = FILE_CLASS if WRITEFILE.match(source) else SHELL_CLASS
        wrapper = nodes.container("", literal_block=True, classes=["literal-block-wrapper", kind])
        wrapper.source, wrapper.line = block.source, block.line
        # an id (Sphinx numbers and links captioned code by it): the file's name, or "shell"
        base = nodes.make_id(("file-" + caption[0].astext()) if kind == FILE_CLASS else "shell")
        name, n = base, 1
        while name in taken or name in doctree.ids:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        wrapper["ids"].append(name)
        block.replace_self(wrapper)
        wrapper += nodes.caption("", "", *caption)
        wrapper += block


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("doctree-read", highlight_cell_magics)
    app.connect("doctree-read", show_cell_magics)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
