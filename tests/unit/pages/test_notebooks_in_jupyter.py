"""The notebooks as Jupyter reads them, checked without running them: jupytext
reads the cells myst-nb reads, and no cell imports the site's package or reads
a file of this repository (what would fail on a reader's machine). The run of
the downloads, compared with the site, is tests/site/test_notebooks_run.py;
its comparison of outputs is checked here on planted outputs."""

from __future__ import annotations

import ast
from pathlib import Path

import jupytext
import nbformat
import pytest
from myst_nb.core.read import read_myst_markdown_notebook

from paths import ROOT
from reader_run import normalise, notebook_sources, outputs

NOTEBOOKS = notebook_sources()
IDS = [str(p.relative_to(ROOT).with_suffix("")) for p in NOTEBOOKS]


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 3, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_jupytext_reads_what_sphinx_reads(path: Path) -> None:
    """MyST-only syntax shows up here: Jupyter would see other cells than the site."""
    text = path.read_text()
    site = read_myst_markdown_notebook(text)
    jupyter = jupytext.read(path)
    assert jupyter.metadata.get("kernelspec") == site.metadata.get("kernelspec")
    assert [c.cell_type for c in jupyter.cells] == [c.cell_type for c in site.cells], (
        f"{path.name}: jupytext splits the cells differently from myst-nb"
    )
    for number, (j, s) in enumerate(zip(jupyter.cells, site.cells, strict=True), start=1):
        assert j.source == s.source, f"{path.name} cell {number}: jupytext reads another source"
        if j.cell_type == "code":
            assert dict(j.metadata) == dict(s.metadata), (
                f"{path.name} cell {number}: options differ: {j.metadata} != {s.metadata}"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_cell_imports_the_site_or_reads_the_repository(path: Path) -> None:
    """Caught before any build: what would fail on a reader's machine."""
    code = [c for c in jupytext.read(path).cells if c.cell_type == "code"]
    for number, cell in enumerate(code, start=1):
        if cell.source.lstrip().startswith("%%"):
            continue  # a cell magic (%%writefile main.cpp): its body is not Python
        source = "\n".join(
            line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!"))
        )
        for node in ast.walk(ast.parse(source)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n.split(".")[0] == "trtdocs" for n in names), (
                f"{path.name} cell {number}: imports the site's own package"
            )
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not node.value.startswith("..") and "docs/data" not in node.value, (
                    f"{path.name} cell {number}: reads {node.value!r}, a file of this repository"
                )


def test_glog_prefix_is_masked_but_not_the_message() -> None:
    first = "W1203 06:08:37.131000 15943 torch/utils/_pytree.py:630] <enum 'KernelPreference'> ..."
    second = "W1204 17:00:01.000002 3671 torch/utils/_pytree.py:630] <enum 'KernelPreference'> ..."
    assert normalise(first) == normalise(second)
    assert normalise(first) != normalise(first.replace("KernelPreference", "Other"))


def test_a_right_aligned_duration_is_masked_with_its_padding() -> None:
    # the performance page pads its figures: 2.50 ms and 12.50 ms differ in width
    first = "  16,777,216 bytes out, copied     2.50 ms\n"
    second = "  16,777,216 bytes out, copied    12.50 ms\n"
    assert normalise(first) == normalise(second)
    assert normalise(first) != normalise(first.replace("copied", "shared"))


def _cell(*outs: nbformat.NotebookNode) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = list(outs)
    return cell


def test_outputs_differ_on_text_and_agree_on_what_varies() -> None:
    """The comparison of a run with the site: streams joined, times and addresses masked."""
    site = _cell(
        nbformat.v4.new_output("stream", name="stdout", text="took 1.5 s at 0x7f00aa\n"),
        nbformat.v4.new_output("stream", name="stdout", text="shape (1, 8)\n"),
    )
    run = _cell(
        nbformat.v4.new_output(
            "stream", name="stdout", text="took 2.25 s at 0x7f11bb\nshape (1, 8)\n"
        )
    )
    planted = _cell(
        nbformat.v4.new_output(
            "stream", name="stdout", text="took 2.25 s at 0x7f11bb\nshape (1, 9)\n"
        )
    )
    assert outputs(run) == outputs(site)
    assert outputs(planted) != outputs(site)
    error = _cell(nbformat.v4.new_output("error", ename="ValueError", evalue="bad", traceback=[]))
    assert outputs(error) != outputs(_cell())
