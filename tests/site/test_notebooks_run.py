"""The notebooks as a reader runs them, compared with the site.

One run per session (:mod:`reader_run`): every downloaded ``.ipynb`` this
machine runs, outputs cleared, all in one empty folder outside the repository
(pages that hand files on in reading order), with nothing on ``PYTHONPATH``,
skipping the cells the build skipped. Each page's outputs must be the site's. The run stands for
Jupyter too: the download holds the cells jupytext reads from the ``.md``
(checked here, and jupytext's reading against myst-nb's in
tests/unit/pages/test_notebooks_in_jupyter.py), and the build's gating, applied
outside Sphinx to what jupytext reads, skips the same cells.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jupytext
import nbformat
import pytest

from paths import ROOT
from reader_run import (
    RUNS_HERE,
    ReaderRun,
    execute,
    notebook_sources,
    outputs,
    provenance,
    reading_docs,
)
from reader_site import notebook_docs
from trtdocs.features.validate import load as load_features
from trtdocs.notebooks import gating, setupcell
from trtdocs.notebooks import plan as gating_plan
from trtdocs.notebooks.environment import Environment

DOCS = [str(p.relative_to(ROOT).with_suffix("")) for p in notebook_sources()]


def _entry(built_site: Path, doc: str) -> dict:
    entry = provenance(built_site)["notebooks"][doc]
    if entry["status"] not in RUNS_HERE:
        why = entry.get("reason") or (
            "nothing to run" if entry["status"] == "no code cells" else "a record"
        )
        pytest.skip(f"{doc}: {entry['status']} on this machine ({why})")
    return entry


def test_every_notebook_page_has_a_download(built_site: Path) -> None:
    assert sorted(DOCS) == notebook_docs(built_site)
    for doc in DOCS:
        assert (built_site / f"{doc}.ipynb").is_file(), f"{doc}: the site offers no .ipynb"


@pytest.mark.parametrize("doc", DOCS)
def test_the_download_holds_what_jupyter_reads(built_site: Path, doc: str) -> None:
    """The download's code cells are the ones jupytext reads from the .md: running
    the download is running the notebook in Jupyter."""
    download = nbformat.read(built_site / f"{doc}.ipynb", as_version=4)
    jupyter = jupytext.read(ROOT / f"{doc}.md")
    assert setupcell.is_setup(download.cells[0]), f"{doc}: no Colab setup cell first"
    assert [c.source for c in setupcell.page_cells(download) if c.cell_type == "code"] == [
        c.source for c in jupyter.cells if c.cell_type == "code"
    ], f"{doc}: the download's code differs"


@pytest.mark.parametrize("doc", DOCS)
def test_gating_outside_sphinx_skips_what_the_build_skipped(built_site: Path, doc: str) -> None:
    """The build's gating applied to what jupytext reads: same machine probe, same
    features table, same skip-execution tags."""
    entry = _entry(built_site, doc)
    built_skips = {s["cell"] for s in entry["cells_not_executed"]}
    probe = Environment.from_json(
        json.loads((built_site.parent / "trtdocs" / "environment.json").read_text())
    )
    table = load_features(ROOT / "docs" / "features.toml")
    context = gating_plan.BuildContext(
        environment=probe,
        features=table.requirement,
        disabled=frozenset(
            filter(None, (s.strip() for s in os.environ.get("TRTDOCS_DISABLE", "").split(",")))
        ),
        record_dir=ROOT / "notebooks" / "_recorded",
        import_roots=(ROOT / "notebooks",),
        srcdir=ROOT,
    )
    plan = gating.gate(jupytext.read(ROOT / f"{doc}.md"), context, doc)
    assert {s.number for s in plan.skipped} == built_skips, (
        f"{doc}: gating outside Sphinx skips {[s.number for s in plan.skipped]}, the build skipped "
        f"{sorted(built_skips)}"
    )


@pytest.mark.parametrize("doc", DOCS)
def test_the_download_runs_as_a_reader_runs_it(
    built_site: Path, reader_run: ReaderRun, doc: str
) -> None:
    entry = _entry(built_site, doc)
    assert not reader_run.folder.is_relative_to(ROOT)
    skipped = {s["cell"] for s in entry["cells_not_executed"]}
    ran = reader_run.notebook(doc)
    site = nbformat.read(built_site / f"{doc}.ipynb", as_version=4)
    # Colab's setup cell ran first and, outside Colab, did nothing
    setup = ran.cells[0]
    assert setupcell.is_setup(setup) and setup.execution_count is not None, doc
    assert setup.outputs == [], f"{doc}: the setup cell did something outside Colab"
    ours = [c for c in setupcell.page_cells(ran) if c.cell_type == "code"]
    theirs = [c for c in setupcell.page_cells(site) if c.cell_type == "code"]
    assert len(ours) == len(theirs) == entry["code_cells"]
    for number, (mine, built) in enumerate(zip(ours, theirs, strict=True), start=1):
        assert (number in skipped) == (mine.execution_count is None), f"{doc} cell {number}"
        assert outputs(mine) == outputs(built), (
            f"{doc} cell {number}: run from the download, in reading order, its outputs differ "
            "from the site's"
        )


def test_the_run_is_in_reading_order_in_one_folder(built_site: Path, reader_run: ReaderRun) -> None:
    """Page after page as the landing page's table of contents lists them, and
    the one folder holds what they wrote (programs/ among it)."""
    from trtdocs.drift.programs import reading_order

    toc = [p.relative_to(ROOT).with_suffix("").as_posix() for p in reading_order(ROOT)]
    assert reader_run.order == [d for d in toc if d in reading_docs(built_site)]
    for doc in reader_run.order:
        reader_run.done[doc].exception()  # wait for the whole run
    assert (reader_run.folder / "programs").is_dir(), sorted(
        p.name for p in reader_run.folder.iterdir()
    )


def test_a_kernel_of_the_run_does_not_see_the_site_package(tmp_path: Path) -> None:
    """The run can fail: a notebook that imports the site's package does not run in
    the kernel it starts (nothing on PYTHONPATH), though this process imports it."""
    import trtdocs  # noqa: F401 -- this process can import it

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import trtdocs")])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    with pytest.raises(Exception, match="ModuleNotFoundError"):
        execute(nb, tmp_path, timeout=120)
