"""Links in Markdown as a tool follows them: the twins (``page.html.md``),
``llms.txt`` and ``llms-full.txt``, read with markdown-it and the heading
anchors of mdit-py-plugins (GitHub's slugs: MyST's and most readers'). A link
works when its file is there and its ``#fragment`` is a heading's slug or an
``<a id>`` of that file. tests/unit/pages/test_mdlinks.py checks the checker
on planted files."""

from __future__ import annotations

import dataclasses
import posixpath
import re
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin

PARSER = MarkdownIt("commonmark").enable("table").use(anchors_plugin, min_level=1, max_level=6)
_IDS = re.compile(r"""\bid=["']([^"']+)["']""")
_TEXT_FILES = (".md", ".txt")


@dataclasses.dataclass(frozen=True)
class Link:
    source: Path  # the file the link is in
    href: str

    @property
    def fragment(self) -> str:
        return unquote(urlsplit(self.href).fragment)


def _walk(tokens: list[Token]):
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def links(text: str) -> list[str]:
    """Each link's and image's address, in order."""
    out = []
    for token in _walk(PARSER.parse(text)):
        if token.type == "link_open":
            out.append(str(token.attrs.get("href", "")))
        elif token.type == "image":
            out.append(str(token.attrs.get("src", "")))
    return out


def anchors(text: str) -> set[str]:
    """The fragments a Markdown file answers to: heading slugs and ``<a id>``."""
    found = set()
    for token in _walk(PARSER.parse(text)):
        if token.type == "heading_open" and token.attrs.get("id"):
            found.add(str(token.attrs["id"]))
        elif token.type in ("html_inline", "html_block"):
            found.update(_IDS.findall(token.content))
    return found


@cache
def _anchors_of(path: Path) -> frozenset[str]:
    return frozenset(anchors(path.read_text(encoding="utf-8")))


def target(root: Path, source: Path, href: str, base: str = "") -> Path | None:
    """The file a link of ``source`` names in the site at ``root`` (served at
    ``base``); None for a link out of the site."""
    parts = urlsplit(href)
    if base and href.startswith(base):
        path = posixpath.normpath(unquote(urlsplit(href[len(base) :]).path) or ".")
        return root / path
    if parts.scheme or parts.netloc or href.startswith("/"):
        return None
    if not parts.path:
        return source
    folder = posixpath.dirname(source.relative_to(root).as_posix())
    return root / posixpath.normpath(posixpath.join(folder, unquote(parts.path)))


@dataclasses.dataclass
class Report:
    """What the links of some files do: each one that works, each that does not, and why."""

    working: list[Link] = dataclasses.field(default_factory=list)
    broken: list[tuple[Link, str]] = dataclasses.field(default_factory=list)
    outside: int = 0  # links out of the site, not followed

    @property
    def fragments(self) -> tuple[int, int]:
        """(fragment links that land, fragment links)."""
        bad = sum(1 for link, _ in self.broken if link.fragment)
        good = sum(1 for link in self.working if link.fragment)
        return good, good + bad


def check(root: Path, files: list[Path], base: str = "") -> Report:
    report = Report()
    for source in files:
        for href in links(source.read_text(encoding="utf-8")):
            link = Link(source, href)
            path = target(root, source, href, base)
            if path is None:
                report.outside += 1
            elif not path.is_file():
                report.broken.append((link, f"no file {path.relative_to(root)}"))
            elif (
                link.fragment
                and path.name.endswith(_TEXT_FILES)
                and link.fragment not in _anchors_of(path)
            ):
                report.broken.append((link, f"no anchor #{link.fragment} in {path.name}"))
            else:
                report.working.append(link)
    return report
