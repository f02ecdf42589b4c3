"""The prose rules (tests/prose.py) on planted text, and on the features table's
notes and titles, which every page renders: a failure there names the entry.
The built pages: tests/site/test_static_pages.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from paths import ROOT
from prose import prose_blocks, violations
from trtdocs.features.validate import load as load_features
from trtdocs.features.words import plain


@pytest.mark.parametrize(
    "text, rules",
    [
        ("It does not do that yet.", ["time word"]),
        ("The default no longer re-exports.", ["time word"]),
        ("Options arrive with\n2.15.", ["time word"]),
        (
            "PR 4927 reports a failure; the evidence behind this guide is thin.",
            ["research language"] * 2,
        ),
        ("It is not established for 2.15.", ["research language"]),
        ("Saved ((New in 2.14)).", ["doubled parentheses"] * 2),
        ("Export (see the matrix) and run it. The Inspector reports timings.", []),
        ("The layer runs later-stage passes? No: it runs the passes in order.", ["time word"]),
    ],
)
def test_rules(text: str, rules: list[str]) -> None:
    assert [v.split(" '")[0] for v in violations([text])] == rules


def test_prose_excludes_code_and_outputs(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(
        '<article role="main"><p>Run <code>f((x))</code> now.</p>'
        '<div class="highlight"><pre>print("not yet")</pre></div>'
        '<div class="cell_output"><p>already done</p></div>'
        '<ul><li><p>A (<a href="#">New in 2.14</a>) note.</p></li></ul></article>'
    )
    assert prose_blocks(page) == ["Run now.", "A (New in 2.14) note."]


def test_features_table_text_follows_the_rules() -> None:
    table = load_features(ROOT / "docs" / "features.toml")
    bad = []
    for f in table.features:
        texts = [("title", f.title), ("note", f.note), ("table_only", f.table_only)]
        texts += [(f"cells.{k}.evidence", c.evidence) for k, c in f.cells.items()]
        for field, text in texts:
            bad += [
                f"{table.path}: features {f.id!r}.{field}: {v}" for v in violations([plain(text)])
            ]
    assert not bad, "\n".join(bad)
