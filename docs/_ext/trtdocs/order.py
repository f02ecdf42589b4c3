"""The site's pages in reading order: the root document's toctree, depth
first, as the sidebar lists them (hidden toctrees included). The "Used in"
lists and ``llms.txt`` follow it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.environment import BuildEnvironment


def reading_order(env: BuildEnvironment) -> list[str]:
    """Every page the root toctree reaches, in reading order (the root first)."""
    out: list[str] = []
    seen: set[str] = set()

    def visit(doc: str) -> None:
        if doc in seen:
            return
        seen.add(doc)
        out.append(doc)
        for child in env.toctree_includes.get(doc, ()):
            visit(child)

    visit(env.config.root_doc)
    return out


def rank(env: BuildEnvironment) -> dict[str, int]:
    """Page -> its place in :func:`reading_order`; pages outside it after, by name."""
    order = reading_order(env)
    rest = sorted(set(env.all_docs) - set(order))
    return {doc: i for i, doc in enumerate([*order, *rest])}
