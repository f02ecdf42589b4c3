"""The rules on what a reader reads (tests/unit/pages/test_prose_rules.py checks
the rules and the features table's text; tests/site/test_static_pages.py the
built pages).

Prose states behaviour as it is: no time words ("yet", "no longer", ...),
no research-process language ("the evidence behind this guide", "PR 4927
reports", ...), no doubled parentheses. Prose is the text of each page's main
content without code: code blocks, inline code, cell outputs, scripts and math
are not prose.
"""

from __future__ import annotations

import re
from pathlib import Path

from bs4 import BeautifulSoup

# Words that date a sentence: what is true today reads wrong tomorrow.
TIME_WORDS: tuple[str, ...] = (
    "yet",
    "later",
    "no longer",
    "arrive with",
    "arrives with",
    "already",
)
# How the guide was researched is not what the reader needs: state the behaviour, link the source.
RESEARCH_LANGUAGE: tuple[str, ...] = (
    r"the evidence behind",
    r"is not established",
    r"not been established",
    r"(?:PR|pull request|issue|commit)\s*#?\s*\d+\s+(?:reports|says|claims|states)",
    r"#\d+\s+(?:reports|says|claims|states)",
    r"\bunverified\b",
    r"\bwe (?:found|checked|verified)\b",
)
# Not prose: code, program output, machinery.
NOT_PROSE = ("pre", "code", "kbd", "samp", "script", "style", "math", "svg")
NOT_PROSE_CLASSES = ("highlight", "cell_output", "output", "math")

_TIME = re.compile(
    r"\b(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in TIME_WORDS) + r")\b", re.I
)
_RESEARCH = re.compile("|".join(RESEARCH_LANGUAGE), re.I)
_DOUBLED = re.compile(r"\(\s*\(|\)\s*\)")


def prose_blocks(page: Path) -> list[str]:
    """The prose of a page's main content, one string per block (paragraph,
    list item, table cell, heading), whitespace collapsed."""
    soup = BeautifulSoup(
        page.read_text(encoding="utf-8"), "html.parser"
    )  # not the shared cache: it is cut
    main = soup.find("article", attrs={"role": "main"}) or soup.body or soup
    for tag in main.find_all(NOT_PROSE):
        tag.decompose()
    for cls in NOT_PROSE_CLASSES:
        for tag in main.find_all(class_=cls):
            tag.decompose()
    # The API reference quotes the installed wheels'
    # signatures (code) and docstrings (upstream's words).
    for tag in main.select("dl.py > dt, dl.py > dd"):
        tag.decompose()
    for tag in main.find_all("a", class_="headerlink"):
        tag.decompose()
    blocks = []
    for tag in main.find_all(
        ["p", "li", "td", "th", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "caption"]
    ):
        if tag.find(["p", "li", "td"]):  # the inner blocks carry the text
            continue
        text = " ".join(tag.get_text(" ").split())
        text = re.sub(r"\(\s+", "(", re.sub(r"\s+([).,;:])", r"\1", text))
        if text:
            blocks.append(text)
    return blocks


def violations(blocks: list[str]) -> list[str]:
    found = []
    for text in blocks:
        for rule, pattern in (
            ("time word", _TIME),
            ("research language", _RESEARCH),
            ("doubled parentheses", _DOUBLED),
        ):
            for m in pattern.finditer(text):
                start = max(0, m.start() - 50)
                found.append(f"{rule} {m.group(0)!r}: ...{text[start : m.end() + 30]}...")
    return found
