"""The features fixture root (tests/roots/test-features), built in this process
on its own table: the notes are generated from the table and follow the
documented release; bad ids and unreferenced features fail with the file and line."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from paths import ROOTS
from sites import Built, copy_root
from sites import build as build_site
from trtdocs.features.validate import load
from trtdocs.vocab import STATES, STATUSES

FIXTURE = ROOTS / "test-features"


def build(src: Path, out: Path, **settings: object) -> Built:
    """A strict build of ``src`` on its own features table; HTML in ``out/html``."""
    return build_site(src, out, features=None, fresh=True, **settings)


def notes(page: Path) -> dict[str, list[str]]:
    """Admonition titles of feature notes, and inline role texts, in order."""
    text = page.read_text(encoding="utf-8")

    def strip(s: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", s)).strip()

    titles = re.findall(
        r'trtdocs-version-note[^"]*">\s*<p class="admonition-title">(.*?)</p>', text, re.S
    )
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
    # what the documented release has everywhere gets no note, whatever its cell shows (the
    # guide is about that release; "coded" is in code with no run, which the matrix says);
    # every other note says one of three states, from the table, and a platform limit
    assert both["2.14"]["titles"] == [
        "In 2.15, not released",
        "Nightly builds only",
        "Linux x86-64 only",
        "In 2.15, not released",
    ]
    assert both["2.15"]["titles"] == ["Nightly builds only", "Linux x86-64 only"]
    # the same words the table's model gives, for the features of page.md in order
    for documented, settings in (("2.14", None), ("2.15", "2.15")):
        table = load(FIXTURE / "features.toml", settings)
        said = [
            table.note_text(table.feature(fid))
            for fid in ("old", "next", "future", "runner", "coded", "described")
        ]
        assert both[documented]["titles"] == [s for s in said if s]
        states = {STATUSES[r.status].state.format(release=r.key) for r in table.releases.values()}
        assert all(t.split("; ")[0] in states | {"Linux x86-64 only"} for t in said if t)
    # "runner" is Linux x86-64 in every release, narrower than either release; an inline
    # note says the same words as the titled one, in parentheses
    for documented in ("2.14", "2.15"):
        assert both[documented]["inline"] == [f"({title})" for title in both[documented]["titles"]]
    # Nothing typed by hand survives a switch: no note keeps the other release's words.
    assert not any("2.15" in t for t in both["2.15"]["titles"] + both["2.15"]["inline"])


def test_notes_link_to_the_matrix_row(tmp_path: Path) -> None:
    proc = build(FIXTURE, tmp_path / "out")
    assert proc.returncode == 0, proc.log
    page = (tmp_path / "out" / "html" / "page.html").read_text(encoding="utf-8")
    for fid in ("next", "future", "runner"):
        assert f'href="support-matrix.html#feature-{fid}"' in page
    assert 'href="support-matrix.html#feature-old"' not in page  # 2.14 has it everywhere: no note
    matrix = (tmp_path / "out" / "html" / "support-matrix.html").read_text(encoding="utf-8")
    assert 'id="feature-internal"' in matrix
    assert "internal to the delegate" in matrix
    words = html.unescape(re.sub(r"<[^>]+>", "", matrix))
    assert (
        'pip install --pre "torch_tensorrt[executorch]" --index-url '
        "https://download.pytorch.org/whl/nightly/cu132" in words
    )


def copy_fixture(tmp_path: Path) -> Path:
    return copy_root("features", tmp_path)


def test_unknown_id_fails_with_file_and_line(tmp_path: Path) -> None:
    src = copy_fixture(tmp_path)
    (src / "page.md").write_text(
        (src / "page.md").read_text()
        + "\n```{feature-note} no-such-feature\n```\n\nAlso {feature}`typo`.\n"
        + "\nWith {release}`2.14`.\n"
    )
    proc = build(src, tmp_path / "out")
    assert proc.returncode != 0
    lines = (src / "page.md").read_text().splitlines()
    directive_line = lines.index("```{feature-note} no-such-feature") + 1
    role_line = next(i for i, text in enumerate(lines, 1) if "{feature}`typo`" in text)
    assert re.search(
        rf"page\.md:{directive_line}: ERROR: unknown feature 'no-such-feature'", proc.log
    ), proc.log
    assert re.search(rf"page\.md:{role_line}: ERROR: unknown feature 'typo'", proc.log), proc.log
    release_line = next(i for i, text in enumerate(lines, 1) if "{release}`2.14`" in text)
    assert re.search(
        rf"page\.md:{release_line}: ERROR: {{release}} takes `documented`", proc.log
    ), proc.log


def test_unreferenced_feature_fails_the_strict_build(tmp_path: Path) -> None:
    src = copy_fixture(tmp_path)
    page = (src / "page.md").read_text().replace("```{feature-note} next\n```\n", "")
    (src / "page.md").write_text(page.replace("{feature}`next`, ", ""))
    proc = build(src, tmp_path / "out")
    assert proc.returncode != 0
    line = next(
        i
        for i, text in enumerate((src / "features.toml").read_text().splitlines(), 1)
        if text == 'id = "next"'
    )
    assert re.search(
        rf"features\.toml:{line}: WARNING: feature 'next' is referenced by no page", proc.log
    ), proc.log


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
    cells = re.findall(
        r'<abbr class="trtdocs-cell trtdocs-cell-([\w-]+)" title="([^"]*)"><span '
        r'class="trtdocs-cell-mark">([^<]*)</span><span class="trtdocs-cell-word">([^<]*)</span>',
        matrix,
    )
    # eight features x three releases, in row order; "internal" (the fifth) is yes, unknown, broken;
    # "coded" (the seventh) in code, described, broken; "described" no, described, in code
    assert len(cells) == 24
    run = "Source: pytorch/TensorRT test tests/test_fixture.py at 0123abc"
    assert cells[12:15] == [
        ("yes", run, "\u2713", " yes"),
        ("unknown", "No source shows it", "?", " unknown"),
        ("broken", "Source: pytorch/TensorRT#1", "!", " broken"),
    ]
    assert cells[18:21] == [
        (
            "in-code",
            "Source: torch-tensorrt 2.14.0 wheel, torch_tensorrt/_compile.py",
            "\u25cb",
            " in code",
        ),
        ("described", "Source: pytorch/TensorRT#2", "\u270e", " described"),
        ("broken", "Source: pytorch/TensorRT#3", "!", " broken"),
    ]
    assert [c[0] for c in cells[21:24]] == ["no", "described", "in-code"]
    assert {c[0] for c in cells} == {"yes", "in-code", "described", "broken", "no", "unknown"}
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", "", matrix)).split())
    # the legend states what each state needs, from the one vocabulary (Sphinx curls the quotes)
    for state in STATES.values():
        assert f"{state.mark} {state.word}: {state.needs}." in words.replace("\u2019", "'")
    # the list under the matrix gives every cell's sources, each a link to what it cites
    assert "Nightly: broken. pytorch/TensorRT#1" in words
    assert "2.15: unknown. Known: pytorch/TensorRT#2: a fixture note" in words
    assert (
        "2.14 (documented): in code, no engine run. torch-tensorrt 2.14.0 wheel, "
        "torch_tensorrt/_compile.py" in words
    )
    assert (
        '<a class="reference external" href="https://github.com/pytorch/TensorRT/pull/2">' in matrix
    )
    assert (
        '<a class="reference external" href="https://github.com/pytorch/TensorRT/blob/0123abc/tests/test_fixture.py">'
        in matrix
    )
    assert (
        '<abbr class="trtdocs-cell trtdocs-cell-unknown" title="Known: pytorch/TensorRT#2: a '
        'fixture note">' in matrix
    )
    # no feature id is shown to readers (the entries' ids are anchors only)
    assert (
        ">internal<" not in matrix
        and "<code" not in matrix.split("trtdocs-feature-list", 1)[1].split("</dt>", 1)[0]
    )
    # a release that is not on PyPI prints no pins
    assert "unknown: not released, so no published metadata states them" in words
    assert re.search(
        r'<abbr title="From torch-tensorrt 2\.14\.0 metadata, Requires-Dist">'
        r"PyTorch &gt;=2\.14\.0,&lt;2\.15\.0</abbr>",
        matrix,
    ), matrix


def _text(page: Path) -> str:
    body = page.read_text(encoding="utf-8").split('role="main"', 1)[-1]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", body)).split())


def test_inline_notes_fit_their_sentence(tmp_path: Path) -> None:
    proc = build(FIXTURE, tmp_path / "out")
    assert proc.returncode == 0, proc.log
    text = _text(tmp_path / "out" / "html" / "prose.html")
    # a note with nothing to say goes, with the parentheses the prose opened for it
    assert "The export keeps it." in text
    # ... and with its separator; a run of equal notes says it once
    assert "Both exist (Linux x86-64 only) and so on." in text
    assert "Both need (Nightly builds only)." in text
    # parentheses in inline code do not count; closed ones do not either
    assert "A call (see f(x)) then (Nightly builds only)." in text
    # prose names a release from the table, never typed: {feature-release}
    assert "Exported by 2.14, kept by 2.15, shared by nightly builds." in text
    assert "The pages describe 2.14." in text  # {release}`documented`: the table's
    assert "((" not in text and "))" not in text.replace("f(x))", "") and "()" not in text


def test_changed_behaviour_is_a_note_like_the_others(tmp_path: Path) -> None:
    proc = build(FIXTURE, tmp_path / "out")
    assert proc.returncode == 0, proc.log
    page = (tmp_path / "out" / "html" / "prose.html").read_text(encoding="utf-8")
    # one style of note: the box every version note has
    block = re.search(
        r'<div class="trtdocs-version-note note admonition"[^>]*>\s*<p class="admonition-title">'
        r"In 2\.15, not released</p>\s*<p>(.*?)</p>",
        page,
        re.S,
    )
    assert block, page
    assert html.unescape(re.sub(r"<[^>]+>", "", block.group(1))) == (
        "Changed default. The default keeps the graph. See the support matrix."
    )
    assert "versionchanged" not in page and "versionmodified" not in page
    assert "Saving keeps the graph (In 2.15, not released)." in _text(
        tmp_path / "out" / "html" / "prose.html"
    )
