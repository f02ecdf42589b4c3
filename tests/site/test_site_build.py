"""Checks on the strict build of the real site."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from paths import ROOT
from sitebuild import SiteBuild, failure_report
from trtdocs.notebooks.setupcell import page_cells

NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").glob("*.md"))


def _docname(path: Path) -> str:
    return path.relative_to(ROOT).with_suffix("").as_posix()


def test_every_notebook_is_in_provenance(built_site: Path) -> None:
    data = json.loads((built_site / "provenance.json").read_text())
    assert sorted(data["notebooks"]) == sorted(_docname(p) for p in NOTEBOOKS)
    for doc, entry in data["notebooks"].items():
        assert entry["status"] in {
            "executed",
            "partly executed",
            "recorded",
            "not executed",
            "no code cells",
        }, doc
        if entry["status"] == "no code cells":
            # nothing ran: no run of another page (the cache matches any page with none)
            assert (
                entry["code_cells"] == 0
                and "executed_at" not in entry
                and "duration_s" not in entry
            ), doc
        elif entry["status"] != "executed":
            assert entry["reason"] or entry["status"] == "recorded", doc


def test_cpu_pages_execute_here(built_site: Path) -> None:
    data = json.loads((built_site / "provenance.json").read_text())["notebooks"]
    for doc in ("notebooks/check-environment", "notebooks/export-on-cpu"):
        assert data[doc]["status"] == "executed"
        assert data[doc]["duration_s"] > 0


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_docname)
def test_page_has_one_status_banner(built_site: Path, path: Path) -> None:
    page = BeautifulSoup((built_site / f"{_docname(path)}.html").read_text(), "html.parser")
    banners = page.select(".trtdocs-status")
    assert len(banners) == 1
    assert banners[0].find_previous("h1") is not None  # below the title


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_docname)
def test_skipped_cells_have_no_outputs_and_run_cells_ran(built_site: Path, path: Path) -> None:
    """No output stands under a cell that did not run in this build; the
    page's notebook (outputs as rendered) shows it."""
    data = json.loads((built_site / "provenance.json").read_text())["notebooks"][_docname(path)]
    shown = nbformat.read(built_site / f"{_docname(path)}.ipynb", as_version=4)
    code = [c for c in page_cells(shown) if c.cell_type == "code"]
    assert len(code) == data["code_cells"]
    skipped = {c["cell"] for c in data["cells_not_executed"]}
    for number, cell in enumerate(code, start=1):
        if number in skipped:
            assert cell.outputs == [] and cell.execution_count is None, number
        elif data["status"] in ("executed", "partly executed", "recorded"):
            assert cell.execution_count is not None, number


def test_tensorrt_cells_are_marked_where_tensorrt_is_missing(built_site: Path) -> None:
    env = json.loads((built_site / "provenance.json").read_text())["environment"]
    if env["torch_tensorrt_imports"] and env["cuda_available"]:
        pytest.skip("this machine runs the TensorRT cells")
    page = BeautifulSoup((built_site / "notebooks/export-pte.html").read_text(), "html.parser")
    marks = page.select(".trtdocs-not-executed")
    assert marks
    assert env["torch_tensorrt_error"] in marks[0].get_text() or not env["cuda_available"]


def test_no_build_internals_are_published(built_site: Path) -> None:
    names = {p.name for p in built_site.rglob("*")}
    assert "environment.pickle" not in names and ".doctrees" not in names
    assert not (built_site / "reports").exists()
    assert not any(n.endswith(".doctree") for n in names)


def test_the_site_builds_strictly(site_build: SiteBuild) -> None:
    """The one test that shows a failed build of the site; the tests that need
    the site skip, pointing here (tests/conftest.py)."""
    site_build.reported = True
    if site_build.returncode != 0:
        pytest.fail(failure_report(site_build), pytrace=False)
    assert (site_build.html / "index.html").is_file()
