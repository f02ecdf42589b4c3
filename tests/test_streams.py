"""Stream outputs: pieces joined as Jupyter joins them, on a synthetic doctree,
on a fixture notebook that writes in pieces, and on every page of the site."""

from __future__ import annotations

import textwrap
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document
from sitebuild import copy_fixture, log, sphinx_build
from trtdocs.output.lognoise import quiet
from trtdocs.output.streams import JoinStreamPieces, terminal_text

from reader_site import notebook_docs, provenance

# -- the terminal's rules -------------------------------------------------------


@pytest.mark.parametrize(("raw", "shown"), [
    ("plain\ntext\n", "plain\ntext\n"),
    ("10%\r50%\r100%\n", "100%\n"),
    ("abcdef\rXY\n", "XYcdef\n"),
    ("ab\bc\n", "ac\n"),
    ("line\r\nnext", "line\nnext"),
    ("    \n", "    \n"),
])
def test_terminal_text(raw: str, shown: str) -> None:
    assert terminal_text(raw) == shown


# -- the transform on a doctree -------------------------------------------------


def _piece(text: str, kind: str) -> nodes.literal_block:
    return nodes.literal_block(text, text, classes=["output", kind])


def _outputs(*children: nodes.Node) -> nodes.document:
    document = new_document("<test>", get_default_settings(Parser))
    container = nodes.container(nb_element="cell_code_output", classes=["cell_output"])
    container.extend(children)
    document.append(container)
    return document


def _apply(document: nodes.document) -> list[tuple[str, str]]:
    JoinStreamPieces(document).apply()
    return [(child.__class__.__name__ if not isinstance(child, nodes.literal_block) else child["classes"][-1],
             child.astext()) for child in document[0].children]


def test_pieces_of_one_stream_become_one_block() -> None:
    doc = _outputs(*(_piece(t, "stderr") for t in ("[", "method.cpp", ":", "85", "] ", "Backend missing.", "\n")))
    assert _apply(doc) == [("stderr", "[method.cpp:85] Backend missing.\n")]


def test_interleaved_streams_join_per_stream_stdout_first() -> None:
    doc = _outputs(_piece("[log", "stderr"), _piece("out 1\n", "stream"), _piece("]\n", "stderr"),
                   _piece("out 2\n", "stream"))
    assert _apply(doc) == [("stream", "out 1\nout 2\n"), ("stderr", "[log]\n")]


def test_a_rich_output_ends_the_run() -> None:
    doc = _outputs(_piece("before ", "stream"), _piece("the table\n", "stream"),
                   nodes.container("", nodes.paragraph(text="table"), nb_element="mime_bundle"),
                   _piece("after\n", "stream"))
    assert _apply(doc) == [("stream", "before the table\n"), ("container", "table"), ("stream", "after\n")]


def test_other_literal_blocks_are_left_alone() -> None:
    source = nodes.literal_block("x = 1", "x = 1", classes=["cell_input"])
    doc = _outputs(source)
    JoinStreamPieces(doc).apply()
    assert doc[0].children == [source]


# -- a notebook that writes in pieces, built --------------------------------------

PIECES = textwrap.dedent("""\
    ---
    jupytext:
      text_representation:
        format_name: myst
    kernelspec:
      name: python3
      display_name: Python 3
    ---

    # Pieces

    ```{code-cell} ipython3
    import sys
    import time

    for piece in ["[", "log.cpp", ":", "85", "] ", "backend not registered", "\\n"]:
        sys.stderr.write(piece)
        sys.stderr.flush()
        time.sleep(0.05)
    for piece in ["progress 10%", "\\r", "progress 100%", "\\n", "table:\\n", "    \\n"]:
        sys.stdout.write(piece)
        sys.stdout.flush()
        time.sleep(0.05)
    ```
    """)


@pytest.mark.build
def test_pieces_written_by_a_cell_show_as_one_line(tmp_path: Path) -> None:
    site = copy_fixture("foundation-site", tmp_path)
    for old in (site / "notebooks").glob("*.md"):
        old.unlink()
    (site / "notebooks" / "pieces.md").write_text(PIECES)
    result = sphinx_build(site, tmp_path / "_build")
    assert result.returncode == 0, log(result)

    page = BeautifulSoup((tmp_path / "_build" / "html" / "notebooks" / "pieces.html").read_text(), "html.parser")
    stderr = page.select("div.output.stderr")
    stdout = page.select("div.output.stream")
    assert len(stderr) == 1 and len(stdout) == 1, page.select_one("div.cell_output")
    assert stderr[0].get_text().strip("\n") == "[log.cpp:85] backend not registered"
    assert stdout[0].get_text().strip("\n") == "progress 100%\ntable:\n    "

    # The download keeps the pieces as the kernel sent them; Jupyter joins them itself.
    nb = nbformat.read(tmp_path / "_build" / "html" / "notebooks" / "pieces.ipynb", as_version=4)
    sent = [o.text for o in nb.cells[-1].outputs if o.output_type == "stream" and o.name == "stderr"]
    assert "".join(sent) == "[log.cpp:85] backend not registered\n"


@pytest.mark.build
def test_merge_streams_on_is_refused_with_the_file(tmp_path: Path) -> None:
    site = copy_fixture("foundation-site", tmp_path)
    with (site / "conf.py").open("a") as conf:
        conf.write("\nnb_merge_streams = True\n")
    result = sphinx_build(site, tmp_path / "_build")
    assert result.returncode != 0
    assert f"{site / 'conf.py'}: nb_merge_streams = True" in log(result)


# -- every page of the site ---------------------------------------------------------

KINDS = {"stdout": "stream", "stderr": "stderr"}  # nbformat stream name -> myst-nb's class


def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line]


@pytest.mark.build
def test_site_shows_each_cells_streams_whole(built_site: Path) -> None:
    """What each code cell wrote, as its page shows it: the same lines as the
    cell's outputs in the page's .ipynb, joined as Jupyter joins them."""
    checked = 0
    for doc in notebook_docs(built_site):
        if provenance(built_site)["notebooks"][doc]["status"] == "not executed":
            continue
        nb = nbformat.read(built_site / f"{doc}.ipynb", as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code" and "remove-cell" not in c.metadata.get("tags", [])]
        page = BeautifulSoup((built_site / f"{doc}.html").read_text(), "html.parser")
        shown = page.select("div.cell")
        assert len(shown) == len(code), f"{doc}: {len(shown)} cells on the page, {len(code)} in its notebook"
        for number, (cell, html) in enumerate(zip(code, shown), start=1):
            tags = set(cell.metadata.get("tags", []))
            for name, css in KINDS.items():
                if tags & {"remove-output", f"remove-{name}"}:
                    continue
                wrote = "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == name)
                seen = "\n".join(b.get_text() for b in html.select(f"div.output.{css}"))
                # the page leaves out ExecuTorch's cpuinfo lines (trtdocs.lognoise), the download keeps them
                expected = terminal_text(wrote)
                expected = quiet(expected) if name == "stderr" else expected
                assert _lines(seen) == _lines(expected), f"{doc} cell {number}: {name} differs"
                checked += bool(wrote)
    assert checked > 10, f"only {checked} stream outputs on the whole site"
