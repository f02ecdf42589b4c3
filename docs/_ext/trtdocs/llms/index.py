"""``llms.txt`` and ``llms-full.txt`` (the format of https://llmstxt.org):
the guide in reading order, one line per page, each linking to the page's
Markdown twin; and every twin in that order, in one file. Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from markdown_it import MarkdownIt

LLMS_TXT = "llms.txt"
LLMS_FULL_TXT = "llms-full.txt"
ABOUT = (
    "Each link is a page's Markdown twin: the page as the site shows it, with the outputs of "
    "the build that executed its code, the mark and reason on each cell that did not run, the "
    "version notes, and the line that says where the outputs came from. {full} holds every "
    "twin in this order."
)


@dataclasses.dataclass(frozen=True, slots=True)
class Page:
    """One line of ``llms.txt``."""

    section: str  # the caption of the toctree it is listed in
    title: str
    url: str  # its twin, relative to the site's root or absolute
    twin: str  # the twin's text


def description(twin: str) -> str:
    """The first sentence of a twin's first paragraph of prose (after its title;
    the status banner and notes are quotes, and are passed over)."""
    tokens = MarkdownIt("commonmark").parse(twin)
    for i, token in enumerate(tokens):
        if token.type == "paragraph_open" and token.level == 0 and i + 1 < len(tokens):
            text = _plain(tokens[i + 1].children or [])
            if text:
                return _first_sentence(text)
    return ""


def _plain(children: list) -> str:
    """Inline Markdown as one line: link texts, code spans kept in backticks."""
    out = []
    for child in children:
        if child.type in ("text", "html_inline"):
            out.append(child.content)
        elif child.type == "code_inline":
            out.append(f"`{child.content}`")
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return " ".join("".join(out).split())


def _first_sentence(text: str) -> str:
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    return match.group(1) if match else text


def _line(page: Page) -> str:
    text = description(page.twin)
    return f"- [{page.title}]({page.url})" + (f": {text}" if text else "")


def llms_txt(title: str, summary: str, pages: Sequence[Page]) -> str:
    """``llms.txt``: the title, the summary, then each toctree caption's pages."""
    lines = [
        f"# {title}",
        "",
        f"> {summary}",
        "",
        ABOUT.format(full=f"[{LLMS_FULL_TXT}]({LLMS_FULL_TXT})"),
    ]
    section = None
    for page in pages:
        if page.section != section:
            section = page.section
            lines += ["", f"## {section}", ""]
        lines.append(_line(page))
    return "\n".join(lines) + "\n"


def llms_full_txt(title: str, summary: str, pages: Sequence[Page]) -> str:
    """``llms-full.txt``: the title and summary, then every twin, each after its address."""
    parts = [f"# {title}\n\n> {summary}\n"]
    for page in pages:
        parts.append(f"<!-- {page.url} -->\n\n{page.twin.strip()}\n")
    return "\n---\n\n".join(parts)
