"""The features fixture root (tests/roots/test-features), built in this process
on its own table: the notes are generated from the table and follow the
documented release; bad ids and unreferenced features fail with the file and line."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from paths import ROOTS
from sites import Built
from sites import build as build_site
from sites import copy_root

FIXTURE = ROOTS / "test-features"


def build(src: Path, out: Path, **settings: object) -> Built:
    """A strict build of ``src`` on its own features table; HTML in ``out/html``."""
    return build_site(src, out, features=None, fresh=True, **settings)


def notes(page: Path) -> dict[str, list[str]]:
    """Admonition titles of feature notes, and inline role texts, in order."""
    text = page.read_text(encoding="utf-8")
    strip = lambda s: html.unescape(re.sub(r"<[^>]+>", "", s)).strip()  # noqa: E731
    titles = re.findall(r'trtdocs-feature-note[^"]*">\s*<p class="admonition-title">(.*?)</p>', text, re.S)
    inline = re.findall(r'<span class="trtdocs-feature">(.*?</a>\))</span>', text, re.S)
    return {"titles": [strip(t) for t in titles], "inline": [strip(i) for i in inline]}


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, list[str]]]:
    out = tmp_path_factory.mktemp("features-build")
    result = {}
    for documented, settings in (("2.14", {}), ("2.15", {"trtdocs_documented_release": "2.15"})):
        proc = build(FIXTURE, out / documented, **settings)
        assert proc.returncode == 0, proc.log
        result[documented] = notes(proc.outdir / "page.html")
    return result


def test_notes_follow_the_documented_release(both: dict[str, dict[str, list[str]]]) -> None:
    assert both["2.14"]["titles"] == [
        "New in 2.14",
        "Needs Torch-TensorRT 2.15 or newer",
        "Needs a build newer than 2.14, such as a nightly",
        "New in 2.14",
    ]
    assert both["2.15"]["titles"] == [
        "Since 2.14",
        "New in 2.15",
        "Needs a build newer than 2.15, such as a nightly",
        "Since 2.14",
    ]
    # "old" works everywhere 2.15 runs, so the 2.14 note says where it is limited;
    # "runner" is Linux x86-64 in every release, narrower than either release.
    assert both["2.14"]["inline"] == [
        "(New in 2.14; Linux only in 2.14)",
        "(Needs Torch-TensorRT 2.15 or newer)",
        "(Needs a build newer than 2.14, such as a nightly)",
        "(New in 2.14; Linux x86-64 only in 2.14)",
    ]
    assert both["2.15"]["inline"] == [
        "(Since 2.14)",
        "(New in 2.15)",
        "(Needs a build newer than 2.15, such as a nightly)",
        "(Since 2.14; Linux x86-64 only in 2.15)",
    ]
    # Nothing typed by hand survives a switch: no note keeps the other release's words.
    assert not any("2.14, such" in t or "New in 2.14" in t for t in both["2.15"]["titles"])


def test_notes_link_to_the_matrix_row(tmp_path: Path) -> None:
    proc = build(FIXTURE, tmp_path / "out")
    assert proc.returncode == 0, proc.log
    page = (tmp_path / "out" / "html" / "page.html").read_text(encoding="utf-8")
    for fid in ("old", "next", "future", "runner"):
        assert f'href="support-matrix.html#feature-{fid}"' in page
    matrix = (tmp_path / "out" / "html" / "support-matrix.html").read_text(encoding="utf-8")
    assert 'id="feature-internal"' in matrix
    assert "internal to the delegate" in matrix
    words = html.unescape(re.sub(r"<[^>]+>", "", matrix))
    assert 'pip install --pre "torch_tensorrt[executorch]" --index-url ' \
           "https://download.pytorch.org/whl/nightly/cu132" in words


def copy_fixture(tmp_path: Path) -> Path:
    return copy_root("features", tmp_path)


def test_unknown_id_fails_with_file_and_line(tmp_path: Path) -> None:
    src = copy_fixture(tmp_path)
    (src / "page.md").write_text(
        (src / "page.md").read_text() + "\n```{feature-note} no-such-feature\n```\n\nAlso {feature}`typo`.\n")
    proc = build(src, tmp_path / "out")
    assert proc.returncode != 0
    lines = (src / "page.md").read_text().splitlines()
    directive_line = lines.index("```{feature-note} no-such-feature") + 1
    role_line = next(i for i, l in enumerate(lines, 1) if "{feature}`typo`" in l)
    assert re.search(rf"page\.md:{directive_line}: ERROR: unknown feature 'no-such-feature'", proc.log), proc.log
    assert re.search(rf"page\.md:{role_line}: ERROR: unknown feature 'typo'", proc.log), proc.log


def test_unreferenced_feature_fails_the_strict_build(tmp_path: Path) -> None:
    src = copy_fixture(tmp_path)
    page = (src / "page.md").read_text().replace("```{feature-note} next\n```\n", "")
    (src / "page.md").write_text(page.replace("{feature}`next`, ", ""))
    proc = build(src, tmp_path / "out")
    assert proc.returncode != 0
    line = next(i for i, l in enumerate((src / "features.toml").read_text().splitlines(), 1)
                if l == 'id = "next"')
    assert re.search(rf"features\.toml:{line}: WARNING: feature 'next' is referenced by no page", proc.log), \
        proc.log


def test_table_only_feature_must_not_be_referenced(tmp_path: Path) -> None:
    src = copy_fixture(tmp_path)
    (src / "page.md").write_text((src / "page.md").read_text() + "\nSee {feature}`internal`.\n")
    proc = build(src, tmp_path / "out")
    assert proc.returncode != 0
    assert "feature 'internal' is marked table_only but page reference it" in proc.log, proc.log


def test_invalid_table_stops_the_build_naming_file_and_entry(tmp_path: Path) -> None:
    src = copy_fixture(tmp_path)
    toml = (src / "features.toml").read_text().replace('since = "2.15"', 'since = "2.16"')
    (src / "features.toml").write_text(toml)
    proc = build(src, tmp_path / "out")
    assert proc.returncode != 0
    assert "features.toml: features[1] 'next'.since: unknown release '2.16'" in proc.log, proc.log


def test_matrix_cells_show_state_and_source(tmp_path: Path) -> None:
    proc = build(FIXTURE, tmp_path / "out")
    assert proc.returncode == 0, proc.log
    matrix = (tmp_path / "out" / "html" / "support-matrix.html").read_text(encoding="utf-8")
    cells = re.findall(r'<abbr class="trtdocs-cell trtdocs-cell-(\w+)" title="([^"]*)">([^<]*)</abbr>', matrix)
    # six features x three releases, in row order; "internal" (the fifth) is yes, unconfirmed, broken
    assert len(cells) == 18
    assert cells[12:15] == [("yes", "Source: fixture", "yes"), ("unconfirmed", "No source shows it", "unconfirmed"),
                          ("broken", "Source: fixture", "broken")]
    words = html.unescape(re.sub(r"<[^>]+>", "", matrix))
    # the list under the matrix spells out every cell's source
    assert "Nightly: broken. Source: fixture." in words
    assert "2.15: unconfirmed. Known: a fixture note." in words
    assert '<abbr class="trtdocs-cell trtdocs-cell-unconfirmed" title="Known: a fixture note">unconfirmed</abbr>' \
        in matrix
    # a release that is not on PyPI prints no pins
    assert "unknown: not released, so no published metadata states them" in words
    assert re.search(r'<abbr title="From torch-tensorrt 2\.14\.0 metadata, Requires-Dist">'
                     r"PyTorch &gt;=2\.14\.0,&lt;2\.15\.0</abbr>", matrix), matrix


def _text(page: Path) -> str:
    body = page.read_text(encoding="utf-8").split('role="main"', 1)[-1]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", body)).split())


def test_inline_notes_fit_their_sentence(tmp_path: Path) -> None:
    proc = build(FIXTURE, tmp_path / "out")
    assert proc.returncode == 0, proc.log
    text = _text(tmp_path / "out" / "html" / "prose.html")
    # inside the prose's own parentheses the note brings none
    assert "The export keeps it (New in 2.14; Linux only in 2.14)." in text
    # a run of equal notes says it once; different notes both stay
    assert ("Both exist (New in 2.14; Linux only in 2.14, New in 2.14; Linux x86-64 only in 2.14) "
            "and so on (New in 2.14; Linux only in 2.14).") in text
    assert "Both need (Needs a build newer than 2.14, such as a nightly)." in text
    # parentheses in inline code do not count; closed ones do not either
    assert "A call (see f(x)) then (Needs a build newer than 2.14, such as a nightly)." in text
    assert "((" not in text and "))" not in text.replace("f(x))", "")


def test_changed_behaviour_reads_like_versionchanged(tmp_path: Path) -> None:
    proc = build(FIXTURE, tmp_path / "out")
    assert proc.returncode == 0, proc.log
    page = (tmp_path / "out" / "html" / "prose.html").read_text(encoding="utf-8")
    # Sphinx's versionchanged markup, which the theme styles
    block = re.search(r'<div class="trtdocs-feature-note versionchanged">\s*<p><span class="versionmodified changed">'
                      r"Changed in 2\.15: </span>(.*?)</p>", page, re.S)
    assert block, page
    assert html.unescape(re.sub(r"<[^>]+>", "", block.group(1))) == (
        "Changed default. The default keeps the graph. See the support matrix.")
    assert "Saving keeps the graph (Changed in 2.15)." in _text(tmp_path / "out" / "html" / "prose.html")
    assert "Needs Torch-TensorRT 2.15" not in block.group(0)
