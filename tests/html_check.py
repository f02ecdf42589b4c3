"""Whether a page is valid HTML as a conforming HTML5 parser reads it
(tests/unit/pages/test_html_check.py checks the checker on planted pages;
tests/site/test_valid_html.py runs it on every built page).

html5lib implements the WHATWG parsing algorithm. Its strict mode
(``HTMLParser(strict=True)``) stops at the first parse error; the checker
reads the same errors from the parser's ``errors`` list, so that a page's
report holds all of them with their lines. On the tree it built, the
checker also finds what the parser accepts and the content models forbid:

* an id that two elements carry (a link to it has two targets);
* a ``<dl>`` whose ``<dd>`` has no ``<dt>`` before it, or whose last ``<dt>``
  has no ``<dd>`` after it (Sphinx's one-parameter-a-line signatures wrote such
  a list).

A block (a ``<div>``, a ``<pre>``) inside a ``<p>`` is a parse error: the
parser ends the paragraph at the block, and the ``</p>`` after it has no
``<p>`` to close.

What the theme alone causes, and the parser does not see (ARIA attributes),
is listed in docs/building.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Final
from xml.etree.ElementTree import Element

import html5lib
from html5lib.constants import E as ERROR_TEXT

XHTML: Final = "{http://www.w3.org/1999/xhtml}"


@dataclasses.dataclass(frozen=True)
class Problem:
    """One finding: the page, where (``line`` 0 when the tree has no position),
    the element, and what is wrong."""

    page: str
    line: int
    element: str
    message: str

    def __str__(self) -> str:
        where = f"{self.page}:{self.line}" if self.line else self.page
        return f"{where}: {self.element}: {self.message}"


def problems(html: bytes | str, page: str) -> list[Problem]:
    """Every parse error, duplicate id and ungrouped ``<dt>``/``<dd>`` of ``html``
    (the page's bytes: the parser reads its declared encoding)."""
    parser = html5lib.HTMLParser(strict=False, namespaceHTMLElements=True)
    tree = parser.parse(html)
    out = [_parse_error(page, pos, code, data) for pos, code, data in parser.errors]
    out += _duplicate_ids(tree, page)
    out += _ungrouped_terms(tree, page)
    return out


def _parse_error(page: str, pos: tuple[int, int], code: str, data: dict | None) -> Problem:
    data = data or {}
    text = ERROR_TEXT.get(code, code)
    try:
        text = text % data
    except (KeyError, TypeError, ValueError):
        pass
    name = data.get("name") or data.get("originalName")
    element = f"<{name}>" if name else "the document"
    return Problem(page, pos[0], element, f"parse error {code!r}: {text}")


def describe(el: Element) -> str:
    """The element as a reader finds it in the page: its tag, id and classes."""
    attrs = "".join(f' {k}="{el.get(k)}"' for k in ("id", "class") if el.get(k))
    return f"<{_tag(el)}{attrs}>"


def _tag(el: Element) -> str:
    return el.tag.removeprefix(XHTML) if isinstance(el.tag, str) else str(el.tag)


def _elements(tree: Element) -> Iterator[Element]:
    return (el for el in tree.iter() if isinstance(el.tag, str))


def _duplicate_ids(tree: Element, page: str) -> list[Problem]:
    holders: dict[str, list[Element]] = {}
    for el in _elements(tree):
        if el.get("id") is not None:
            holders.setdefault(el.get("id"), []).append(el)
    return [
        Problem(
            page,
            0,
            " and ".join(describe(el) for el in els),
            f"id {ident!r} is on {len(els)} elements",
        )
        for ident, els in holders.items()
        if len(els) > 1
    ]


def _ungrouped_terms(tree: Element, page: str) -> list[Problem]:
    """A ``<dl>`` (and each ``<div>`` that groups in it) holds groups of ``<dt>``
    then ``<dd>``: it starts with a ``<dt>`` and ends with a ``<dd>``."""
    out = []
    for dl in (el for el in _elements(tree) if _tag(el) == "dl"):
        for group in [dl, *(c for c in dl if _tag(c) == "div")]:
            kids = [c for c in group if _tag(c) in ("dt", "dd")]
            if kids and _tag(kids[0]) == "dd":
                dds = sum(1 for _ in _leading(kids, "dd"))
                out.append(
                    Problem(
                        page, 0, describe(dl), f"starts with {dds} <dd> that no <dt> comes before"
                    )
                )
            if kids and _tag(kids[-1]) == "dt":
                out.append(
                    Problem(
                        page,
                        0,
                        describe(dl),
                        f"ends with {describe(kids[-1])}, which no <dd> follows",
                    )
                )
    return out


def _leading(kids: list[Element], tag: str) -> Iterator[Element]:
    for el in kids:
        if _tag(el) != tag:
            return
        yield el
