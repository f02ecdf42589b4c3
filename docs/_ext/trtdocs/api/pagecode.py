"""A page's Python code as the code links (:mod:`.codelinks`) and the names
check (:mod:`.backrefs`) read it: its code cells (myst-nb's; hidden ones too,
which bind names) and its static Python blocks (a ```` ```python ```` fence, a
``{code-block} python``, a cell that ``{include-cell}`` shows), in reading
order, sharing one namespace as a notebook's cells do.

The reference's own entries (upstream docstrings' examples) are not the
guide's code and are left out.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx import addnodes

LANGUAGES = frozenset({"ipython3", "ipython", "python", "python3", "py"})
CELL_SOURCE = "cell_code_source"  # myst-nb's container of a code cell's source


def _container(block: nodes.Node) -> nodes.container | None:
    """The myst-nb cell container a block sits in, if any."""
    parent = block.parent
    while parent is not None:
        if isinstance(parent, nodes.container) and parent.get("nb_element"):
            return parent
        parent = parent.parent
    return None


def is_cell(block: nodes.literal_block) -> bool:
    """Whether ``block`` is a code cell's source (not a static block)."""
    container = _container(block)
    return container is not None and container.get("nb_element") == CELL_SOURCE


def cell_blocks(doctree: nodes.document) -> list[nodes.literal_block]:
    """The shown code cells' source blocks, in page order (myst-nb's containers)."""
    return [
        block
        for container in doctree.findall(nodes.container)
        if container.get("nb_element") == CELL_SOURCE
        for block in container.findall(nodes.literal_block)
    ]


def code_blocks(doctree: nodes.document) -> list[nodes.literal_block]:
    """The page's shown code: every code cell's source block (any language: a cell
    magic's too) and every static Python block, in page order; never a cell's
    output, nor a block inside an API entry."""
    out = []
    for block in doctree.findall(nodes.literal_block):
        container = _container(block)
        if container is not None:
            if container.get("nb_element") == CELL_SOURCE:
                out.append(block)
        elif block.get("language") in LANGUAGES and not any(
            isinstance(p, addnodes.desc) for p in _ancestors(block)
        ):
            out.append(block)
    return out


def _ancestors(node: nodes.Node) -> list[nodes.Node]:
    out = []
    parent = node.parent
    while parent is not None:
        out.append(parent)
        parent = parent.parent
    return out


def _lines(text: str) -> str:
    """Text with each line stripped (a fence inside a list item is indented)."""
    return "\n".join(line.strip() for line in text.strip().splitlines())


def page_code(path: Path, blocks: list[nodes.literal_block]) -> tuple[list[str], list[int | None]]:
    """Every piece of the page's code in reading order, and for each the index of
    its block in ``blocks`` (:func:`code_blocks`) or None (a hidden cell). A
    notebook's order comes from its text (jupytext): a code cell where it stands, a
    static block where its markdown cell holds it. A page that is no notebook, or
    whose text does not match what it shows, reads its shown blocks in page order."""
    shown = [b.astext() for b in blocks]
    cells = [is_cell(b) for b in blocks]
    in_order: list[int | None] = list(range(len(shown)))
    fallback = (list(shown), in_order)
    if not any(cells):
        return fallback
    import jupytext

    try:
        notebook = jupytext.read(path)
    except Exception:  # noqa: BLE001 -- not a text notebook: the shown blocks are all there is
        return fallback
    sources: list[str] = []
    index: list[int | None] = []
    k = 0
    for cell in notebook.cells:
        if cell.cell_type == "code":
            if k < len(shown) and cells[k] and shown[k].strip() == cell.source.strip():
                sources.append(shown[k])
                index.append(k)
                k += 1
            else:
                sources.append(cell.source)
                index.append(None)
        elif cell.cell_type == "markdown":
            text = _lines(cell.source)
            while k < len(shown) and not cells[k] and _lines(shown[k]) in text:
                sources.append(shown[k])
                index.append(k)
                k += 1
    return (sources, index) if k == len(shown) else fallback
