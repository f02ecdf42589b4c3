"""Every downloaded notebook runs on its own, as a reader runs it: the
``.ipynb`` the site offers is executed with nbclient in an empty folder
outside the repository, with no ``docs/_ext`` (nor anything else) on
``PYTHONPATH``, skipping the cells the build skipped; its outputs must be the
site's."""

from __future__ import annotations

import ast
import os
import tempfile
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT
from reader_site import notebook_docs, provenance
from test_reader_jupyter import NOTEBOOKS, _outputs

SKIP_TAG = "skip-execution"  # nbclient's skip_cells_with_tag, as the build tags them
DOCS = [str(p.relative_to(ROOT).with_suffix("")) for p in NOTEBOOKS]


def test_every_notebook_page_has_a_download(built_site: Path) -> None:
    assert sorted(DOCS) == notebook_docs(built_site)
    for doc in DOCS:
        assert (built_site / f"{doc}.ipynb").is_file(), f"{doc}: the site offers no .ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=DOCS)
def test_no_cell_imports_the_site_or_reads_the_repository(path: Path) -> None:
    """Caught before any build: what would fail on a reader's machine."""
    code = [c for c in jupytext.read(path).cells if c.cell_type == "code"]
    for number, cell in enumerate(code, start=1):
        if cell.source.lstrip().startswith("%%"):
            continue  # a cell magic (%%writefile main.cpp): its body is not Python
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] == "trtdocs" for n in names), \
                f"{path.name} cell {number}: imports the site's own package"
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not node.value.startswith("..") and "docs/data" not in node.value, \
                    f"{path.name} cell {number}: reads {node.value!r}, a file of this repository"


def as_downloaded(built_site: Path, doc: str, skipped: set[int]) -> nbformat.NotebookNode:
    """The download, outputs cleared, with the build's skipped cells tagged."""
    nb = nbformat.read(built_site / f"{doc}.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for number, cell in enumerate(code, start=1):
        cell.outputs, cell.execution_count = [], None
        tags = cell.metadata.setdefault("tags", [])
        assert SKIP_TAG not in tags, f"{doc} cell {number}: the download keeps the build's skip tag"
        if number in skipped:
            tags.append(SKIP_TAG)
    return nb


@pytest.mark.build
@pytest.mark.parametrize("doc", DOCS)
def test_downloaded_notebook_runs_outside_the_repository(doc: str, built_site: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    entry = provenance(built_site)["notebooks"][doc]
    if entry["status"] == "not executed":
        pytest.skip(f"{doc}: no cell runs on this machine ({entry['reason']})")
    if entry["status"] == "recorded":
        pytest.skip(f"{doc}: shows outputs recorded elsewhere; it does not run on this machine")
    skipped = {s["cell"] for s in entry["cells_not_executed"]}
    nb = as_downloaded(built_site, doc, skipped)

    # The kernel sees what a reader's kernel sees: no project path, and a
    # working folder that holds nothing.
    monkeypatch.delenv("PYTHONPATH", raising=False)
    with tempfile.TemporaryDirectory(prefix="reader-") as work:
        workdir = Path(work).resolve()
        assert not workdir.is_relative_to(ROOT)
        monkeypatch.chdir(workdir)
        NotebookClient(nb, timeout=600, kernel_name="python3", skip_cells_with_tag=SKIP_TAG,
                       resources={"metadata": {"path": str(workdir)}}).execute()

    site = nbformat.read(built_site / f"{doc}.ipynb", as_version=4)
    ours = [c for c in nb.cells if c.cell_type == "code"]
    theirs = [c for c in site.cells if c.cell_type == "code"]
    assert len(ours) == len(theirs) == entry["code_cells"]
    for number, (mine, built) in enumerate(zip(ours, theirs), start=1):
        assert (number in skipped) == (mine.execution_count is None), f"{doc} cell {number}"
        assert _outputs(mine) == _outputs(built), \
            f"{doc} cell {number}: run from the download, its outputs differ from the site's"


def test_environment_of_the_test_kernel_is_clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The check above can fail: a notebook that imports the site's package
    does not run in the kernel it starts."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import trtdocs")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.chdir(tmp_path)
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(Exception, match="ModuleNotFoundError"):
        client.execute()
    assert os.environ.get("PYTHONPATH") is None
