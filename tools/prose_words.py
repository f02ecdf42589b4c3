"""Count the reader prose of the built guide pages.

Prose is what a reader reads on a page, taken from the built HTML: paragraphs,
lists, tables and notes. Code (highlighted blocks, code cells), cell outputs,
and the build's status lines (the provenance banner at the top of each notebook
page and its launch row, the one-line mark before each cell that did not run) are
not counted, nor a diagram's second drawing for narrow screens (its first is).
Words are runs of non-space characters.

    python tools/prose_words.py _build/html        # one line a page, and the total
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from bs4 import BeautifulSoup

# The guide's pages, relative to the site root: the landing page and every notebook.
GUIDE_GLOBS: tuple[str, ...] = ("index.html", "notebooks/*.html")
# What is not prose: code, outputs, the build's status lines, heading anchors, the line for tools.
NOT_PROSE: tuple[str, ...] = (
    "div.highlight",
    "pre",
    "div.cell_output",
    "details.trtdocs-status",
    "p.trtdocs-launch",  # "Open in Colab · View source" under the banner
    "details.trtdocs-not-executed",
    "a.trtdocs-diagram-narrow",  # a diagram's second drawing, for narrow screens
    "p.trtdocs-for-tools",  # the line at the foot linking the page's Markdown twin and llms.txt
    "a.headerlink",
    "script",
    "style",
)


def page_words(html: str) -> int:
    """The number of prose words in one built page."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article[role=main]")
    if article is None:
        raise ValueError("no <article role=main>: not a page of this site's theme")
    for selector in NOT_PROSE:
        for node in article.select(selector):
            node.decompose()
    return len(article.get_text(" ").split())


def guide_pages(site: Path, globs: Iterable[str] = GUIDE_GLOBS) -> list[Path]:
    pages = sorted({p for g in globs for p in site.glob(g)})
    if not pages:
        raise FileNotFoundError(
            f"{site}: no built guide pages ({', '.join(globs)}); build the site first"
        )
    return pages


def counts(site: Path) -> dict[str, int]:
    """Prose words of each guide page, keyed by its path relative to the site."""
    return {
        str(p.relative_to(site)): page_words(p.read_text(encoding="utf-8"))
        for p in guide_pages(site)
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, nargs="?", default=Path("_build/html"))
    args = parser.parse_args(argv)
    found = counts(args.site)
    width = max(map(len, found))
    for page, words in sorted(found.items(), key=lambda kv: -kv[1]):
        print(f"{page:<{width}}  {words:>6}")
    print(f"{'total':<{width}}  {sum(found.values()):>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
