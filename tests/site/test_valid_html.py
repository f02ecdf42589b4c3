"""Every built page is valid HTML as a conforming HTML5 parser reads it
(tests/html_check.py): no parse error, no id on two elements, no <dl> out of
its groups. A failure names the page, the line where the parser has one, and
the element. What the theme alone causes is listed in docs/building.md."""

from __future__ import annotations

from pathlib import Path

from html_check import problems
from reader_site import pages


def test_every_page_is_valid_html(built_site: Path) -> None:
    checked = pages(built_site)
    assert checked, f"no pages in {built_site}"
    found = [
        str(p)
        for page in checked
        for p in problems(page.read_bytes(), str(page.relative_to(built_site)))
    ]
    assert not found, f"{len(found)} problems in the HTML of {len(checked)} pages:\n" + "\n".join(
        found
    )
