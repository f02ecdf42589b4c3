"""The banner's count of blocks shown as text: shell, C++ and CMake blocks
outside the code cells, which no build runs."""

from __future__ import annotations

from docutils import nodes
from trtdocs.notebooks.banner import text_blocks, text_blocks_text


def _block(language: str) -> nodes.literal_block:
    return nodes.literal_block("", "code", language=language)


def test_blocks_outside_cells_are_counted_by_kind() -> None:
    page = nodes.section()
    cell = nodes.container(classes=["cell"])
    cell += nodes.container("", _block("bash"), classes=["cell_input"])  # a %%bash cell: it runs
    page += cell
    page += _block("bash")
    page += _block("console")
    note = nodes.note()
    note += _block("cmake")  # inside an admonition: still text
    page += note
    page += _block("cpp")
    page += _block("python")  # not a kind the banner counts
    counts = text_blocks(page)
    assert counts == {"shell": 2, "C++": 1, "CMake": 1}
    assert text_blocks_text(counts) == \
        "The blocks shown as text, not as cells (2 shell, 1 C++, 1 CMake), did not run in this build."


def test_a_page_with_only_cells_says_nothing() -> None:
    page = nodes.section()
    cell = nodes.container(classes=["cell"])
    cell += _block("bash")
    page += cell
    assert text_blocks(page) == {}
    assert text_blocks_text({}) is None
