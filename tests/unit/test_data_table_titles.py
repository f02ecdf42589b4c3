"""A version-note column's title does not say what its notes say. Each note
opens with the release ("In 2.14", "In 2.15, not released", "Nightly builds
only"), and a phone shows a table as cards of "title / cell": a column titled
"Since" reads "Since / In 2.14" (reader pass on save-and-export)."""

from __future__ import annotations

from collections.abc import Mapping

from trtdocs.datatables import TABLES, Column, TableSpec, notes

# Words that, opening a title, say "when" again in front of a note's "In 2.14".
WHEN_WORDS = frozenset({"since", "in", "added", "introduced", "new"})


def doubled_titles(tables: Mapping[str, TableSpec]) -> list[str]:
    """``table: title`` of each version-note column whose title opens with a when-word."""
    return [
        f"{name}: {col.title}"
        for name, spec in tables.items()
        for col in spec.columns
        if col.feature and col.title.split()[0].lower() in WHEN_WORDS
    ]


def test_no_version_note_column_repeats_its_notes() -> None:
    assert doubled_titles(TABLES) == []


def test_a_planted_since_column_is_caught() -> None:
    planted = TableSpec(
        "options",
        (Column("Option", lambda e: str(e["name"]), 30), notes("Since", "feature", 16)),
    )
    assert doubled_titles({"planted": planted}) == ["planted: Since"]
