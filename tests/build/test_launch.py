"""The launch row and the Colab notebook on the launch fixture (tests/roots/test-launch,
the real site's configuration), built in this process: every notebook page links to
its published notebook where ``trtdocs_published_notebooks`` is set and none where it
is not; the link's path is the one tools/publish_notebooks.py writes; the download
opens with the setup cell, its notes say where each cell runs, and it runs here end to
end (the setup cell, outside Colab, doing nothing)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest

from paths import ROOT, ROOTS, TOOLS
from reader_run import SKIP_TAG, execute, outputs
from scripts import load
from sites import REAL_TABLE, Built, build
from trtdocs.features.validate import load as load_features
from trtdocs import colab
from trtdocs.notebooks import launch, setupcell

TARGET = "someone/guide@notebooks"
CPU_ONLY = {"trtdocs_disable": "cuda"}  # the GPU cells are skipped on any machine
PAGES = ["notebooks/cpu", "notebooks/gpu"]
RELEASE = load_features(REAL_TABLE).documented


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Built:
    result = build(
        ROOTS / "test-launch",
        tmp_path_factory.mktemp("launch") / "_build",
        features=None,
        trtdocs_published_notebooks=TARGET,
        **CPU_ONLY,
    )
    assert result.returncode == 0, result.log
    return result


def test_every_notebook_page_has_the_row_after_its_banner(published: Built) -> None:
    target = colab.Target.parse(TARGET)
    for doc in PAGES:
        page = published.html(doc)
        (row,) = page.select(f"p.{launch.CLASS}")
        assert "trtdocs-status" in row.find_previous_sibling()["class"], doc
        links = row.find_all("a")
        assert [a.get_text() for a in links] == [launch.OPEN, launch.SOURCE]
        path = colab.published_path(RELEASE, doc)
        assert [a["href"] for a in links] == [target.colab_url(path), target.github_url(path)]
        assert all(a.get("title") for a in links)  # a tooltip that says where each goes
        assert "no-search" in row["class"]
    assert published.html("index").select(f"p.{launch.CLASS}") == []  # not a notebook page


def test_the_link_opens_the_path_the_workflow_publishes(published: Built, tmp_path: Path) -> None:
    """tools/publish_notebooks.py lays the site out and pushes it (to a local repository
    here): each page's Colab link names a file of the pushed branch, the page's download."""
    tool = load("publish_notebooks", TOOLS)
    tool.layout(published.outdir, tmp_path / "published", ROOT / "docs" / "features.toml")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    target = colab.Target.parse(TARGET)
    assert tool.push(tmp_path / "published", target, remote=str(remote))
    prefix = f"/github/{target.repository}/blob/{target.branch}/"
    for doc in PAGES:
        href = published.html(doc).select_one(f"a.{launch.CLASS}-colab")["href"]
        path = urlsplit(href).path.removeprefix(prefix)
        shown = subprocess.run(
            ["git", "--git-dir", str(remote), "show", f"{target.branch}:{path}"],
            capture_output=True,
            check=True,
        ).stdout
        assert shown == (published.outdir / f"{doc}.ipynb").read_bytes(), doc


def test_the_download_starts_with_the_setup_cell_and_says_where_cells_run(
    published: Built,
) -> None:
    nb = nbformat.read(published.outdir / "notebooks" / "gpu.ipynb", as_version=4)
    assert setupcell.is_setup(nb.cells[0])
    assert "google.colab" in nb.cells[0].source and "nvidia-smi" in nb.cells[0].source
    notes = [c.source for c in nb.cells if c.source.startswith("> **Not executed")]
    assert [n.rsplit(". ", 1)[-1] for n in notes] == [
        "It runs on a GPU runtime such as Google Colab's, which this notebook's first cell "
        "sets up.",
        "It runs where the cell whose result it reads runs.",
        "It needs a newer release than the one this notebook's first cell installs in Google "
        "Colab.",
    ]
    cpu = nbformat.read(published.outdir / "notebooks" / "cpu.ipynb", as_version=4)
    assert setupcell.is_setup(cpu.cells[0]) and "nvidia-smi" not in cpu.cells[0].source


def test_the_download_runs_here_end_to_end(published: Built, tmp_path: Path) -> None:
    """Outside Colab the setup cell runs and does nothing; the page's cells give the
    page's outputs, the cells the build skipped skipped."""
    site = nbformat.read(published.outdir / "notebooks" / "gpu.ipynb", as_version=4)
    ran = nbformat.read(published.outdir / "notebooks" / "gpu.ipynb", as_version=4)
    skipped = {2, 3, 4}  # the GPU cell, the one that reads it, the newer release's
    code = [c for c in setupcell.page_cells(ran) if c.cell_type == "code"]
    for number, cell in enumerate(code, start=1):
        cell.outputs, cell.execution_count = [], None
        if number in skipped:
            cell.metadata.setdefault("tags", []).append(SKIP_TAG)
    execute(ran, tmp_path, timeout=120)
    assert ran.cells[0].execution_count is not None and ran.cells[0].outputs == []
    built = [c for c in setupcell.page_cells(site) if c.cell_type == "code"]
    for number, (mine, theirs) in enumerate(zip(code, built, strict=True), start=1):
        assert (mine.execution_count is None) == (number in skipped), number
        assert outputs(mine) == outputs(theirs), number


def test_the_rows_words_are_not_prose(published: Built) -> None:
    spec = importlib.util.spec_from_file_location("prose_words", TOOLS / "prose_words.py")
    assert spec and spec.loader
    words = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(words)
    for doc in PAGES:
        html = (published.outdir / f"{doc}.html").read_text(encoding="utf-8")
        without = published.html(doc)
        without.select_one(f"p.{launch.CLASS}").decompose()
        assert words.page_words(html) == words.page_words(str(without)), doc


def test_unset_no_page_has_the_row_and_the_build_says_so_once(tmp_path: Path) -> None:
    result = build(ROOTS / "test-launch", tmp_path / "_build", features=None, **CPU_ONLY)
    assert result.returncode == 0, result.log
    for doc in PAGES:
        assert result.html(doc).select(f".{launch.CLASS}") == [], doc
        assert "colab.research.google.com" not in result.html(doc).decode()
    assert result.log.count(launch.UNSET) == 1, result.log
    # the download still sets Colab up: a reader may open it there by hand
    nb = nbformat.read(result.outdir / "notebooks" / "cpu.ipynb", as_version=4)
    assert setupcell.is_setup(nb.cells[0])


def test_a_value_that_is_not_owner_repo_branch_stops_the_build(tmp_path: Path) -> None:
    result = build(
        ROOTS / "test-launch",
        tmp_path / "_build",
        features=None,
        env={colab.ENV: "someone/guide"},
        **CPU_ONLY,
    )
    assert result.returncode == 2
    assert "trtdocs_published_notebooks = 'someone/guide'" in result.log
    assert "is not OWNER/REPO@BRANCH" in result.log
