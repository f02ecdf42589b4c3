"""One way to change what an output block shows: its text and its raw source together."""

from __future__ import annotations

from docutils import nodes


def set_text(block: nodes.literal_block, text: str) -> None:
    """``block`` shows ``text`` (its children and its ``rawsource``, which Sphinx highlights)."""
    block.rawsource = text
    block.children = []
    block.append(nodes.Text(text))
