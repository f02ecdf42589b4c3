"""Stream outputs: pieces joined as Jupyter joins them, on a synthetic doctree
(a notebook that writes in pieces, built: tests/build/test_stream_outputs.py;
every page of the site: tests/site/test_static_pages.py)."""

from __future__ import annotations

import pytest
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from trtdocs.output.streams import JoinStreamPieces, terminal_text

# -- the terminal's rules -------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain\ntext\n", "plain\ntext\n"),
        ("10%\r50%\r100%\n", "100%\n"),
        ("abcdef\rXY\n", "XYcdef\n"),
        ("ab\bc\n", "ac\n"),
        ("line\r\nnext", "line\nnext"),
        ("    \n", "    \n"),
    ],
)
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
    return [
        (
            child.__class__.__name__
            if not isinstance(child, nodes.literal_block)
            else child["classes"][-1],
            child.astext(),
        )
        for child in document[0].children
    ]


def test_pieces_of_one_stream_become_one_block() -> None:
    doc = _outputs(
        *(
            _piece(t, "stderr")
            for t in ("[", "method.cpp", ":", "85", "] ", "Backend missing.", "\n")
        )
    )
    assert _apply(doc) == [("stderr", "[method.cpp:85] Backend missing.\n")]


def test_interleaved_streams_join_per_stream_stdout_first() -> None:
    doc = _outputs(
        _piece("[log", "stderr"),
        _piece("out 1\n", "stream"),
        _piece("]\n", "stderr"),
        _piece("out 2\n", "stream"),
    )
    assert _apply(doc) == [("stream", "out 1\nout 2\n"), ("stderr", "[log]\n")]


def test_a_rich_output_ends_the_run() -> None:
    doc = _outputs(
        _piece("before ", "stream"),
        _piece("the table\n", "stream"),
        nodes.container("", nodes.paragraph(text="table"), nb_element="mime_bundle"),
        _piece("after\n", "stream"),
    )
    assert _apply(doc) == [
        ("stream", "before the table\n"),
        ("container", "table"),
        ("stream", "after\n"),
    ]


def test_other_literal_blocks_are_left_alone() -> None:
    source = nodes.literal_block("x = 1", "x = 1", classes=["cell_input"])
    doc = _outputs(source)
    JoinStreamPieces(doc).apply()
    assert doc[0].children == [source]
