"""Gating, provenance and records on the gating fixture root (tests/roots/test-gating),
built in this process: cells that cannot run here are marked and do not run,
records stand in for executions and go stale, the features table re-gates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from paths import ROOTS
from sites import REAL_TABLE, build, copy_root

# Forces the `cuda` requirement unmet on any machine, a GPU one included.
CPU_ONLY = {"trtdocs_disable": "cuda"}


def _html(out: Path, doc: str) -> BeautifulSoup:
    return BeautifulSoup((out / "html" / f"{doc}.html").read_text(), "html.parser")


@pytest.fixture(scope="module")
def gated_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("gated")
    site = copy_root("gating", tmp)
    (site / "notebooks" / "recordable.md").unlink()
    result = build(site, tmp / "_build", **CPU_ONLY)
    assert result.returncode == 0, result.log
    return site, tmp / "_build"


def test_gated_cell_is_marked_and_does_not_run(gated_build: tuple[Path, Path]) -> None:
    site, out = gated_build
    ran = out / "run"  # where the notebooks run
    assert (ran / "first-cell-ran.txt").is_file()  # the folder is where a cell that ran writes
    assert not (ran / "gated-cell-ran.txt").exists()
    assert not (ran / "dependent-cell-ran.txt").exists()
    assert not list(site.rglob("*-ran.txt"))  # nothing is written into the source tree
    page = _html(out, "notebooks/gated")
    marks = page.select(".trtdocs-not-executed:not(.trtdocs-text-block)")
    assert len(marks) == 2
    assert "disabled for this build" in marks[0].get_text()
    assert "reads device_value, which the cell at line 23 defines" in marks[1].get_text()
    assert marks[1].select_one("code").get_text() == "device_value"
    text = page.get_text()
    assert "first cell ran 42" in text
    assert "independent cell ran 38" in text
    assert "dependent 81" not in text
    banner = page.select_one(".trtdocs-status")
    assert banner is not None and "Partly executed in this build" in banner.get_text()
    assert "2 of 4 code cells did not run here" in banner.get_text()
    # the shell and CMake blocks outside the cells are counted
    assert (
        "Shown as text, not run in this build: 1 shell block and 1 CMake block. 1 of them is "
        "marked with what it needs, as a cell that did not run is."
    ) in banner.get_text()
    assert "The build checks" not in banner.get_text()  # this root has no drift guards


def test_a_block_shown_as_text_that_needs_a_gpu_carries_a_cells_mark(
    gated_build: tuple[Path, Path],
) -> None:
    """`{code-block}` with `:requires:`: the mark a cell gets, right above the block,
    with the probe's reason and what the build checked of it (no guard runs here)."""
    _, out = gated_build
    page = _html(out, "notebooks/gated")
    (mark,) = page.select("details.trtdocs-not-executed.trtdocs-text-block")
    assert mark.find("summary").get_text(strip=True) == (
        "Shown as text; no build runs it. Running it needs a CUDA GPU."
    )
    folded = [p.get_text(" ", strip=True) for p in mark.find_all("p")]
    assert folded == [
        "needs a CUDA GPU: disabled for this build (TRTDOCS_DISABLE)",
        "The drift guards did not run in this build, so nothing in it was checked.",
    ]
    block = mark.find_next_sibling()
    assert "highlight-bash" in block["class"] and block.get_text().strip() == "nvidia-smi"
    # the CMake block, without :requires:, has no mark
    assert page.select_one("div.highlight-cmake").find_previous_sibling().name != "details"


def test_an_unknown_requirement_on_a_block_fails_at_its_line(tmp_path: Path) -> None:
    site = copy_root("gating", tmp_path)
    (site / "notebooks" / "recordable.md").unlink()
    page = site / "notebooks" / "gated.md"
    page.write_text(
        page.read_text().replace(":requires: [cuda]\nnvidia", ":requires: [gpu]\nnvidia")
    )
    result = build(site, tmp_path / "_build", strict=False, **CPU_ONLY)
    assert result.returncode != 0
    assert "gated.md:40: ERROR: :requires: unknown requirement 'gpu'" in result.log, result.log


def test_provenance_json_describes_each_notebook(gated_build: tuple[Path, Path]) -> None:
    _, out = gated_build
    data = json.loads((out / "html" / "provenance.json").read_text())
    entry = data["notebooks"]["notebooks/gated"]
    assert entry["status"] == "partly executed"
    assert entry["code_cells"] == 4
    assert [c["cell"] for c in entry["cells_not_executed"]] == [2, 3]
    assert entry["duration_s"] > 0
    assert entry["environment"] == data["environment"]
    assert entry["environment"]["versions"]["executorch"] == "1.4.1"
    assert "executed_at" in entry


def test_published_html_has_no_doctrees_or_reports(gated_build: tuple[Path, Path]) -> None:
    _, out = gated_build
    published = {p.name for p in (out / "html").rglob("*")}
    assert "environment.pickle" not in published
    assert not any(name.endswith((".doctree", ".err.log")) for name in published)
    assert not (out / "html" / "reports").exists()


def test_failing_cell_fails_the_build_and_names_the_notebook(tmp_path: Path) -> None:
    site = copy_root("gating", tmp_path)
    for nb in ("gated.md", "recordable.md"):
        (site / "notebooks" / nb).unlink()
    (site / "notebooks" / "broken.md").write_text(
        (ROOTS / "test-gating" / "notebooks" / "gated.md").read_text().split("---\n\n", 1)[0]
        + "---\n\n# Broken\n\n```{code-cell} ipython3\nvalue = 1\nraise ValueError('planted "
        "failure')\n```\n"
    )
    result = build(site, tmp_path / "_build")
    assert result.returncode != 0
    text = result.log
    assert "notebooks/broken.md" in text
    assert "raise ValueError('planted failure')" in text  # the cell's source
    assert "ValueError: planted failure" in text  # its traceback


def test_unknown_requirement_names_file_and_line(tmp_path: Path) -> None:
    site = copy_root("gating", tmp_path)
    (site / "notebooks" / "recordable.md").unlink()
    gated = site / "notebooks" / "gated.md"
    gated.write_text(gated.read_text().replace(":requires: [cuda]", ":requires: [quantum-gpu]"))
    result = build(site, tmp_path / "_build")
    assert result.returncode != 0
    assert "notebooks/gated.md:23: ERROR: unknown requirement 'quantum-gpu'" in result.log
    assert (tmp_path / "_build" / "run" / "first-cell-ran.txt").is_file()
    assert not (tmp_path / "_build" / "run" / "gated-cell-ran.txt").exists()  # fails closed


def test_require_all_fails_when_a_cell_did_not_run(tmp_path: Path) -> None:
    """On a build that reads the pages, and on one that re-reads nothing."""
    site = copy_root("gating", tmp_path)
    (site / "notebooks" / "recordable.md").unlink()
    strict = {**CPU_ONLY, "trtdocs_require_all": True}
    for settings in (strict, CPU_ONLY, strict):
        result = build(site, tmp_path / "_build", **settings)
        if settings is CPU_ONLY:
            assert result.returncode == 0, result.log
        else:
            assert result.returncode != 0
            assert "REQUIRE_ALL: partly executed" in result.log


def test_record_renders_when_execution_is_not_possible_and_goes_stale(tmp_path: Path) -> None:
    site = copy_root("gating", tmp_path)
    (site / "notebooks" / "gated.md").unlink()
    nb = site / "notebooks" / "recordable.md"
    record = site / "notebooks" / "_recorded" / "notebooks__recordable.ipynb"
    unmet = {"trtdocs_disable": "executorch>=1.4"}

    # 0. A machine that cannot execute it, before any record exists: marks.
    result = build(site, tmp_path / "b2", **unmet)
    assert result.returncode == 0, result.log
    assert _html(tmp_path / "b2", "notebooks/recordable").select(".trtdocs-not-executed")

    # 1. A machine that can records it, here after a cache hit (only prose changed).
    assert build(site, tmp_path / "b1").returncode == 0
    nb.write_text(nb.read_text().replace("# Recordable", "# Recordable notebook"))
    result = build(site, tmp_path / "b1", trtdocs_record=True)
    assert result.returncode == 0, result.log
    saved = json.loads(record.read_text())
    assert saved["metadata"]["trtdocs_record"]["provenance"]["status"] == "executed"
    assert "recorded value 42" in json.dumps(saved["cells"])

    # 2. The machine that cannot: its next build shows the record's outputs, under its provenance.
    result = build(site, tmp_path / "b2", **unmet)
    assert result.returncode == 0, result.log
    page = _html(tmp_path / "b2", "notebooks/recordable")
    assert "recorded value 42" in page.get_text()
    assert not page.select(".trtdocs-not-executed")
    banner = page.select_one(".trtdocs-status").get_text()
    assert (
        "Outputs recorded on another machine" in banner and "notebooks__recordable.ipynb" in banner
    )
    entry = json.loads((tmp_path / "b2" / "html" / "provenance.json").read_text())["notebooks"][
        "notebooks/recordable"
    ]
    assert entry["status"] == "recorded"

    # 3. The source changes: the record is stale; an error in CI, a warning elsewhere.
    nb.write_text(nb.read_text().replace("6 * 7", "6 * 8"))
    result = build(site, tmp_path / "b3", env={"CI": "true"}, strict=False, **unmet)
    assert result.returncode != 0
    assert "stale record" in result.log and "notebooks/recordable.md" in result.log
    result = build(site, tmp_path / "b4", strict=False, **unmet)
    assert result.returncode == 0, result.log
    assert "WARNING: stale record" in result.log
    page = _html(tmp_path / "b4", "notebooks/recordable")
    assert page.select(".trtdocs-not-executed") and "recorded value 42" not in page.get_text()
    # ... and CI fails on it in an incremental build that re-reads nothing, too.
    result = build(site, tmp_path / "b4", env={"CI": "true"}, strict=False, **unmet)
    assert result.returncode != 0 and "stale record" in result.log


def test_editing_the_features_table_regates_on_the_next_build(tmp_path: Path) -> None:
    site = copy_root("gating", tmp_path)
    for nb in ("gated.md", "recordable.md"):
        (site / "notebooks" / nb).unlink()
    table = site / "features.toml"
    table.write_text(REAL_TABLE.read_text())
    (site / "notebooks" / "feature.md").write_text(
        (ROOTS / "test-gating" / "notebooks" / "recordable.md")
        .read_text()
        .replace('requires: ["executorch>=1.4"]', 'requires: ["feature:pte-save"]')
    )
    result = build(site, tmp_path / "_build", features=table)
    assert result.returncode == 0, result.log
    assert "recorded value 42" in _html(tmp_path / "_build", "notebooks/feature").get_text()
    text = table.read_text()
    start = text.index('id = "pte-save"')
    # the feature moves to 2.15: its since, and its 2.14 cell with it
    moved = text[start:].replace('since = "2.14"', 'since = "2.15"', 1)
    moved = moved.replace('"2.14" = { state = "yes"', '"2.14" = { state = "no"', 1)
    table.write_text(text[:start] + moved)
    result = build(site, tmp_path / "_build", features=table)
    assert result.returncode == 0, result.log
    page = _html(tmp_path / "_build", "notebooks/feature")
    assert "recorded value 42" not in page.get_text()
    assert (
        "needs Torch-TensorRT 2.15 or newer" in page.select_one(".trtdocs-not-executed").get_text()
    )


def test_a_run_source_names_a_page_with_a_gated_cell(tmp_path: Path) -> None:
    """A "yes" may rest on a page of this guide ({ run = "<page>" }): the page must
    have a cell gated on the feature, the cell the GPU build runs."""
    site = copy_root("gating", tmp_path)
    for nb in ("gated.md", "recordable.md"):
        (site / "notebooks" / nb).unlink()
    (site / "notebooks" / "feature.md").write_text(
        (ROOTS / "test-gating" / "notebooks" / "recordable.md")
        .read_text()
        .replace('requires: ["executorch>=1.4"]', 'requires: ["feature:pte-save"]')
    )
    text = REAL_TABLE.read_text()
    cell = '"2.14" = { state = "yes", sources = ['
    assert text.index(cell) < text.index('id = "save-keeps-compiled-graph"')  # pte-save's own cell
    table = site / "features.toml"
    table.write_text(
        text.replace(cell, cell + '{ run = "notebooks/feature", shows = "saves one" }, ', 1)
    )
    result = build(site, tmp_path / "_build", features=table)
    assert result.returncode == 0, result.log
    # planted: the run source names a page with no cell gated on the feature, then no page at all
    for page, problem in (
        ("index", "has no cell gated on feature:pte-save"),
        ("notebooks/gone", "names no page"),
    ):
        table.write_text(text.replace(cell, cell + f'{{ run = "{page}" }}, ', 1))
        result = build(site, tmp_path / "_build", features=table)
        assert result.returncode != 0
        assert f"feature 'pte-save', release 2.14: run source '{page}' {problem}" in result.log, (
            result.log
        )


def test_an_included_cell_says_where_it_ran(tmp_path: Path) -> None:
    """The landing page's quick start is an {include-cell}: under it, the cell's own page
    and what that page's mark or status says of it, never a claim of its own."""
    site = copy_root("gating", tmp_path)
    (site / "notebooks" / "recordable.md").unlink()
    conf = site / "conf.py"
    conf.write_text(
        conf.read_text().replace('"trtdocs.notebooks",', '"trtdocs.notebooks", "trtdocs.output",')
    )
    notebook = site / "notebooks" / "gated.md"
    notebook.write_text(
        notebook.read_text()
        .replace(
            "```{code-cell} ipython3\nfrom pathlib",
            "```{code-cell} ipython3\n:tags: [first]\nfrom pathlib",
            1,
        )
        .replace(
            ':requires: [cuda]\nPath("gated', ':requires: [cuda]\n:tags: [gated]\nPath("gated', 1
        )
    )
    index = site / "index.md"
    index.write_text(
        index.read_text()
        + "\n```{include-cell} notebooks/gated.md\n:tag: first\n```\n"
        + "\n```{include-cell} notebooks/gated.md\n:tag: gated\n```\n"
    )
    result = build(site, tmp_path / "_build", **CPU_ONLY)
    assert result.returncode == 0, result.log
    page = _html(tmp_path / "_build", "index")
    lines = [p.get_text("") for p in page.select("p.trtdocs-included-from")]
    assert len(lines) == 2, lines
    status = _html(tmp_path / "_build", "notebooks/gated").select_one(".trtdocs-status summary")
    # the cell that ran: its page's status line, said of the one cell (the page ran in
    # part; this cell ran); the one that did not: its mark's line
    summary = status.get_text("")
    assert summary.startswith("Partly executed in this build · "), summary
    assert lines[0] == f"A cell of Gated cells: e{summary[len('Partly e') :]}.", lines[0]
    assert lines[0].startswith("A cell of Gated cells: executed in this build · ")
    assert lines[1] == "A cell of Gated cells. Not run in this build: needs a CUDA GPU.", lines[1]
    assert page.select_one("p.trtdocs-included-from a")["href"] == "notebooks/gated.html"
