"""The evidence register (drift/evidence.py): every claim's source written down, and kept
in step with the page's text."""

from __future__ import annotations

import pytest

import paths
from paths import ROOT
from trtdocs.drift import claims, evidence

FIXTURES = paths.FIXTURES / "drift-evidence"


def test_a_page_whose_claims_and_steps_all_have_entries_passes():
    result = evidence.check(FIXTURES / "good", require=False)
    assert result.violations == ()
    # with require=False a page without an evidence file is listed, not failed
    assert result.without_evidence == ("notebooks/bare.md",)


def test_a_missing_file_is_a_violation():
    result = evidence.check(FIXTURES / "good")
    assert [(v.path, v.rule) for v in result.violations] == [
        ("notebooks/bare.md", "evidence-missing")
    ]
    assert result.without_evidence == ()


def test_planted_bad_entries_and_pages_fail_with_file_and_line():
    got = sorted((v.path, v.line, v.rule) for v in evidence.check(FIXTURES / "bad").violations)
    assert got == [
        ("docs/evidence/broken.toml", 2, "evidence-toml"),  # an unclosed string
        ("docs/evidence/ghost.toml", 1, "evidence-page"),  # notebooks/ghost.md does not exist
        ("docs/evidence/page.toml", 1, "evidence-stale"),  # the page now says 1.4.2
        ("docs/evidence/page.toml", 5, "evidence-keys"),  # unknown key "checked"
        ("docs/evidence/page.toml", 10, "evidence-duplicate"),
        ("docs/evidence/page.toml", 14, "evidence-keys"),  # no source
        ("notebooks/page.md", 15, "evidence-coverage"),  # the changed sentence
        (
            "notebooks/page.md",
            18,
            "evidence-coverage",
        ),  # its entry has no source, so it does not count
        ("notebooks/page.md", 23, "evidence-coverage"),  # a table row naming a platform
        ("notebooks/page.md", 27, "evidence-coverage"),  # a sentence inside a note
        ("notebooks/page.md", 35, "evidence-steps"),  # a shell step
        ("notebooks/page.md", 49, "evidence-steps"),  # a cell that writes a CMake file
    ]


def test_claim_like_units():
    units = claims.prose_units(
        (FIXTURES / "good" / "notebooks" / "page.md").read_text(encoding="utf-8")
    )
    found = [(u.line, u.claim()) for u in units if u.claim()]
    assert found == [(15, "1.4.1"), (15, "copies"), (18, "not"), (23, "Linux"), (27, "refuses")]
    # a sentence across a line break is one unit, whitespace-normalised
    assert "Loading a program copies nothing." in [u.text for u in units]
    plain = {u.text for u in units if not u.claim()}
    assert {
        "This sentence states nothing checkable.",
        "A plain list item.",
        "| A plain row | yes |",
    } <= plain


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Torch-TensorRT 2.14 pins ExecuTorch 1.4.1.", "2.14"),
        ("Save it as model.pte next to the runner.", None),  # a file name is not a version
        ("The extra is a range.", None),
        ("On Windows, PyPI has CPU builds.", "Windows"),
        ("A non-default option.", None),  # a word inside a hyphenated word does not count
    ],
)
def test_claim_patterns(text, word):
    assert claims.Unit(1, text).claim() == word


def test_the_real_evidence_files():
    # every guide page has its evidence file, and every file holds its page
    result = evidence.check(ROOT)
    assert result.violations == (), "\n".join(map(str, result.violations))
    measured = evidence.measure(ROOT)
    claims, units = sum(c for c, _ in measured.values()), sum(u for _, u in measured.values())
    # the vocabulary picks neither nothing nor everything on the real pages
    assert 0.2 * units < claims < 0.8 * units, (claims, units)
    assert result.without_evidence == ()
