"""Every part of ``_build`` but the site is a cache: losing one costs time,
never a failed build or a false message (trtdocs.notebooks.kept).

On the rebuild fixture (tests/roots/test-rebuild): a green build, one part of
its build folder removed, a template edited (Sphinx then writes every page
without reading it), a rebuild. The rebuild passes, each download holds the
outputs its page shows, and the log says a page executed only when its cells
ran in that build: each run adds a line to ``ran.log`` in the run folder.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest

from sites import Built, build, copy_root

NOTEBOOKS = ("whole", "partly", "prose")
WITH_CODE = {"whole", "partly"}  # prose has no code cell: it "executes" without writing to ran.log


def _executed(result: Built) -> set[str]:
    """The pages the build says it executed (the line the benchmark reads)."""
    return set(re.findall(r"notebooks/([\w-]+)\.md: Executed notebook in", result.log))


def _ran(builddir: Path) -> list[str]:
    log = builddir / "run" / "ran.log"
    return log.read_text().split() if log.is_file() else []


def _page_outputs(result: Built, doc: str) -> list[str]:
    """Each shown cell output's text, in order."""
    return [
        " ".join(o.get_text().split())
        for o in result.html(f"notebooks/{doc}").select("div.cell_output")
    ]


def _download_outputs(result: Built, doc: str) -> list[str]:
    """Each code cell's outputs in the .ipynb download, as text, for the cells that have any."""
    nb = nbformat.read(result.outdir / "notebooks" / f"{doc}.ipynb", as_version=4)
    texts = []
    for cell in nb.cells:
        if cell.cell_type != "code" or not cell.outputs:
            continue
        parts = [
            o.text if o.output_type == "stream" else o.data.get("text/plain", "")
            for o in cell.outputs
        ]
        texts.append(" ".join("".join(parts).split()))
    return texts


@pytest.fixture(scope="module")
def green(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The fixture site, its build folder after a green build, and a copy of that folder."""
    work = tmp_path_factory.mktemp("rebuild")
    site = copy_root("rebuild", work)
    builddir = work / "_build"
    result = build(site, builddir)
    assert result.returncode == 0, result.log
    assert _executed(result) == set(NOTEBOOKS), result.log
    for doc in WITH_CODE:  # the comparison below has something to compare
        assert _page_outputs(result, doc) and _page_outputs(result, doc) == _download_outputs(
            result, doc
        )
    snapshot = work / "green"
    shutil.copytree(builddir, snapshot, symlinks=True)  # copy2 keeps the times Sphinx compares
    return site, builddir, snapshot


# the part removed -> the pages the rebuild executes (None:
# not decided by the part; the log must match the runs)
PARTS = {
    # a page with no code cells has no outputs in the cache: it is not read again
    ".jupyter_cache": WITH_CODE,
    "jupyter_execute": set(),
    "doctrees": set(),
    "trtdocs": None,  # the machine probe runs again; its digest decides
    "html": set(),
    ".jupyter_cache html": WITH_CODE,
}


@pytest.mark.parametrize("parts", PARTS)
def test_a_removed_part_of_the_build_folder_costs_time_only(
    green: tuple[Path, Path, Path], parts: str
) -> None:
    site, builddir, snapshot = green
    shutil.rmtree(builddir)
    shutil.copytree(snapshot, builddir, symlinks=True)
    for part in parts.split():
        shutil.rmtree(builddir / part)
    template = site / "_templates" / "layout.html"
    template.write_text(template.read_text() + f"{{# edited: {parts} removed #}}\n")
    before = _ran(builddir)
    result = build(site, builddir)
    assert result.returncode == 0, result.log
    ran = _ran(builddir)[len(before) :]
    executed = _executed(result)
    # no message claims an execution that did not happen in this build
    assert sorted(ran) == sorted(executed & WITH_CODE), result.log
    if PARTS[parts] is not None:
        assert executed == PARTS[parts], result.log
    for doc in NOTEBOOKS:
        shown = _page_outputs(result, doc)
        assert shown == _download_outputs(result, doc), (doc, result.log)
        assert bool(shown) == (doc in WITH_CODE), doc
    # nor does a banner: a page whose cells did not run in this build says they ran earlier
    for doc in WITH_CODE:
        title = (
            result.html(f"notebooks/{doc}").select_one(".trtdocs-status summary strong").get_text()
        )
        assert title.endswith("in this build" if doc in ran else "in an earlier build"), (
            doc,
            title,
        )
    # a page with no code cells claims no run (the cache matches any other page with none):
    # it has no status at all
    assert result.html("notebooks/prose").select_one(".trtdocs-status") is None
