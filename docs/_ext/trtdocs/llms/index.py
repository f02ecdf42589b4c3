"""``llms.txt`` and ``llms-full.txt`` (the format of https://llmstxt.org):
the guide in reading order, one line per page, each linking to the page's
Markdown twin; and every twin in that order, in one file.

With the site's base URL (``html_baseurl``) every link of both files is
absolute, so that a tool that fetches them (llms-txt's ``llms_txt2ctx``) finds
each document; without one, relative to the site's root. A twin's own links
are relative to its folder: in ``llms-full.txt`` they are rewritten
(:func:`rebase`) to work from there, a bare ``#fragment`` as a link to the twin
it was in. The maintainers' pages go under ``## Optional``, the section a tool
may leave out. Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token

LLMS_TXT = "llms.txt"
LLMS_FULL_TXT = "llms-full.txt"
OPTIONAL = "Optional"  # llmstxt.org: the section a tool may skip for a shorter context
_PARSER = MarkdownIt("commonmark").enable("table")
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
    url: str  # its twin, relative to the site's root or absolute (the base URL's)
    twin: str  # the twin's text


def description(twin: str) -> str:
    """The first sentence of a twin's first paragraph of prose (after its title;
    the status banner and notes are quotes, and are passed over)."""
    tokens = _PARSER.parse(twin)
    for i, token in enumerate(tokens):
        if token.type == "paragraph_open" and token.level == 0 and i + 1 < len(tokens):
            text = _plain(tokens[i + 1].children or [])
            if text:
                return _first_sentence(text)
    return ""


def _plain(children: list) -> str:
    """Inline Markdown as one line: link texts, code spans kept in backticks; no HTML
    (an anchor's ``<a id>``)."""
    out = []
    for child in children:
        if child.type == "text":
            out.append(child.content)
        elif child.type == "code_inline":
            out.append(f"`{child.content}`")
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return " ".join("".join(out).split())


def _first_sentence(text: str) -> str:
    """Up to its first full stop; a paragraph that introduces code (ends in ":")
    ends in a full stop instead."""
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence[:-1] + "." if sentence.endswith(":") else sentence


def _line(page: Page) -> str:
    text = description(page.twin)
    return f"- [{page.title}]({page.url})" + (f": {text}" if text else "")


def llms_txt(title: str, summary: str, pages: Sequence[Page], base: str = "") -> str:
    """``llms.txt``: the title, the summary, then each toctree caption's pages."""
    lines = [
        f"# {title}",
        "",
        f"> {summary}",
        "",
        ABOUT.format(full=f"[{LLMS_FULL_TXT}]({base}{LLMS_FULL_TXT})"),
    ]
    section = None
    for page in pages:
        if page.section != section:
            section = page.section
            lines += ["", f"## {section}", ""]
        lines.append(_line(page))
    return "\n".join(lines) + "\n"


def llms_full_txt(title: str, summary: str, pages: Sequence[Page], base: str = "") -> str:
    """``llms-full.txt``: the title and summary, then every twin, each after its
    address, its links rewritten to work from the site's root (:func:`rebase`)."""
    parts = [f"# {title}\n\n> {summary}\n"]
    for page in pages:
        twin = rebase(page.twin, page.url.removeprefix(base), base)
        parts.append(f"<!-- {page.url} -->\n\n{twin.strip()}\n")
    return "\n---\n\n".join(parts)


def _rooted(href: str, name: str, base: str) -> str:
    """A link of the twin ``name`` (relative to the site's root), from the root."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith("/"):
        return href  # out of the site, or from the host's root
    path = (
        posixpath.normpath(posixpath.join(posixpath.dirname(name), parts.path))
        if parts.path
        else name  # a bare #fragment: the twin it was in
    )
    return base + path + (f"#{parts.fragment}" if parts.fragment else "")


def _addresses(children: Sequence[Token]) -> set[str]:
    found = set()
    for child in children:
        if child.type == "link_open":
            found.add(str(child.attrs.get("href", "")))
        elif child.type == "image":
            found.add(str(child.attrs.get("src", "")))
        if child.children:
            found |= _addresses(child.children)
    return found


def rebase(twin: str, name: str, base: str = "") -> str:
    """``twin`` (the twin ``name``, relative to the site's root) with each link and
    image relative to the site's root, or absolute with ``base``. Read with
    markdown-it, so that code blocks and code spans keep their text."""
    lines = twin.split("\n")
    for token in _PARSER.parse(twin):
        if token.type != "inline" or token.map is None:
            continue
        for href in _addresses(token.children or []):
            new = _rooted(href, name, base)
            if new == href:
                continue
            pattern = re.compile(r"(\]\(\s*<?)" + re.escape(href) + r"(?=>?[\s)])")
            for i in range(*token.map):
                lines[i] = pattern.sub(r"\g<1>" + new.replace("\\", r"\\"), lines[i])
    return "\n".join(lines)
