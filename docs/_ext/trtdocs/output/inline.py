"""Short text with `code` spans (the features table's notes, a mark's
reasons) as docutils inline nodes."""

from __future__ import annotations

from docutils import nodes


def inline(text: str) -> list[nodes.Node]:
    """Text with `code` spans as literal nodes (kept out of smart quotes)."""
    out: list[nodes.Node] = []
    for i, part in enumerate(text.split("`")):
        if part:
            out.append(nodes.literal(part, part) if i % 2 else nodes.Text(part))
    return out
