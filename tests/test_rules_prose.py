"""Rules on what a reader reads, checked on the built site.

Prose states behaviour as it is: no time words ("yet", "no longer", ...),
no research-process language ("the evidence behind this guide", "PR 4927
reports", ...), no doubled parentheses, no version note said twice in a row.
Prose is the text of each page's main content without code: code blocks,
inline code, cell outputs, scripts and math are not prose. The features
table's notes and titles, which every page renders, are checked at the
source as well, where a failure names the entry.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from reader_site import pages

from trtdocs.features import model as F
from trtdocs.features.words import plain
from trtdocs.features.validate import load as load_features

ROOT = Path(__file__).resolve().parents[1]

# Words that date a sentence: what is true today reads wrong tomorrow.
TIME_WORDS: tuple[str, ...] = ("yet", "later", "no longer", "arrive with", "arrives with", "already")
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

_TIME = re.compile(r"\b(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in TIME_WORDS) + r")\b", re.I)
_RESEARCH = re.compile("|".join(RESEARCH_LANGUAGE), re.I)
_DOUBLED = re.compile(r"\(\s*\(|\)\s*\)")


def prose_blocks(page: Path) -> list[str]:
    """The prose of a page's main content, one string per block (paragraph,
    list item, table cell, heading), whitespace collapsed."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")  # not the shared cache: it is cut
    main = soup.find("article", attrs={"role": "main"}) or soup.body or soup
    for tag in main.find_all(NOT_PROSE):
        tag.decompose()
    for cls in NOT_PROSE_CLASSES:
        for tag in main.find_all(class_=cls):
            tag.decompose()
    # The API reference quotes the installed wheels' signatures (code) and docstrings (upstream's words).
    for tag in main.select("dl.py > dt, dl.py > dd"):
        tag.decompose()
    for tag in main.find_all("a", class_="headerlink"):
        tag.decompose()
    blocks = []
    for tag in main.find_all(["p", "li", "td", "th", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "caption"]):
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
        for rule, pattern in (("time word", _TIME), ("research language", _RESEARCH),
                              ("doubled parentheses", _DOUBLED)):
            for m in pattern.finditer(text):
                start = max(0, m.start() - 50)
                found.append(f"{rule} {m.group(0)!r}: ...{text[start:m.end() + 30]}...")
    return found


@pytest.mark.parametrize("text, rules", [
    ("It does not do that yet.", ["time word"]),
    ("The default no longer re-exports.", ["time word"]),
    ("Options arrive with\n2.15.", ["time word"]),
    ("PR 4927 reports a failure; the evidence behind this guide is thin.", ["research language"] * 2),
    ("It is not established for 2.15.", ["research language"]),
    ("Saved ((New in 2.14)).", ["doubled parentheses"] * 2),
    ("Export (see the matrix) and run it. The Inspector reports timings.", []),
    ("The layer runs later-stage passes? No: it runs the passes in order.", ["time word"]),
])
def test_rules(text: str, rules: list[str]) -> None:
    assert [v.split(" '")[0] for v in violations([text])] == rules


def test_prose_excludes_code_and_outputs(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text('<article role="main"><p>Run <code>f((x))</code> now.</p>'
                    '<div class="highlight"><pre>print("not yet")</pre></div>'
                    '<div class="cell_output"><p>already done</p></div>'
                    '<ul><li><p>A (<a href="#">New in 2.14</a>) note.</p></li></ul></article>')
    assert prose_blocks(page) == ["Run now.", "A (New in 2.14) note."]


def test_built_prose_follows_the_rules(built_site: Path) -> None:
    bad = [f"{page.relative_to(built_site)}: {v}" for page in pages(built_site)
           for v in violations(prose_blocks(page))]
    assert not bad, "\n".join(bad)


def test_built_notes_are_not_said_twice_in_a_row(built_site: Path) -> None:
    repeated = []
    for page in pages(built_site):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for note in soup.find_all("span", class_="trtdocs-feature"):
            between = note.next_sibling
            following = between.next_sibling if between is not None else None
            if (isinstance(between, str) and between.strip() in {",", ";", "and", "or", ", and", ", or"}
                    and getattr(following, "name", None) == "span"
                    and "trtdocs-feature" in following.get("class", ())
                    and following.get_text(strip=True) == note.get_text(strip=True)):
                repeated.append(f"{page.relative_to(built_site)}: {note.get_text(strip=True)!r} twice")
    assert not repeated, "\n".join(repeated)


def test_features_table_text_follows_the_rules() -> None:
    table = load_features(ROOT / "docs" / "features.toml")
    bad = []
    for f in table.features:
        texts = [("title", f.title), ("note", f.note), ("table_only", f.table_only)]
        texts += [(f"cells.{k}.evidence", c.evidence) for k, c in f.cells.items()]
        for field, text in texts:
            bad += [f"{table.path}: features {f.id!r}.{field}: {v}" for v in violations([plain(text)])]
    assert not bad, "\n".join(bad)
