"""Guard marks live on MyST comment lines above a block, never inside code (drift/marks.py)."""

from __future__ import annotations

import paths
from paths import ROOT
from trtdocs.drift import marks
from trtdocs.pages.blocks import page_paths

FIXTURES = paths.FIXTURES / "drift-marks"


def test_planted_marks_fail():
    got = [(v.line, v.rule) for v in marks.check_page(FIXTURES / "bad.md", "bad.md")]
    assert got == [
        (6, "mark-in-code"),  # "// drift: fragment" in a C++ block
        (13, "mark-in-code"),  # "# drift: export-only" in a code cell
        (19, "mark-detached"),  # a blank line between the mark and its fence
        (27, "mark-unknown"),
    ]  # "executorch-1.4"


def test_marks_where_the_guards_read_them_pass():
    # stacked marks, a mark inside a note above a nested block, a code-block directive,
    # and a MyST comment that is not a mark
    assert marks.check_page(FIXTURES / "good.md", "good.md") == []


def test_no_page_of_the_guide_has_a_mark_in_code():
    found = marks.check_pages(ROOT, page_paths(ROOT))
    assert found == [], "\n".join(map(str, found))
