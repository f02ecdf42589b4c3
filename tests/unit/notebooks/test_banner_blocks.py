"""The banner's count of blocks shown as text: shell, C++ and CMake blocks
outside the code cells, which no build runs, and what the guards check of them."""

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
    tabs = nodes.container(classes=["sd-tab-set"])  # one command for pip and for uv: one block
    tabs += nodes.container("", _block("bash"), classes=["sd-tab-item"])
    tabs += nodes.container("", _block("bash"), classes=["sd-tab-item"])
    page += tabs
    note = nodes.note()
    note += _block("cmake")  # inside an admonition: still text
    page += note
    page += _block("cpp")
    page += _block("python")
    page += _block("myst-ansi")  # an output: not a kind the banner counts
    assert text_blocks(page) == {"shell": 3, "Python": 1, "C++": 1, "CMake": 1}


def test_the_sentence_names_each_kind_and_what_the_guards_check() -> None:
    assert (
        text_blocks_text({"shell": 3, "C++": 1}, checked=False)
        == "Shown as text, not run in this build: 3 shell blocks and 1 C++ block."
    )
    with_checks = text_blocks_text({"shell": 1, "C++": 2, "CMake": 1}, checked=True)
    assert with_checks.startswith(
        "Shown as text, not run in this build: 1 shell block, 2 C++ blocks and 1 CMake block. The "
        "build checks "
    )
    assert (
        " It compiles each C++ block and says under it against which headers" in with_checks
        and with_checks.endswith(" It parses each CMake block.")
    )
    assert "compiles" not in text_blocks_text(
        {"shell": 1}, checked=True
    )  # only the kinds the page has
    # the API guard reads Python shown as text (drift/api.py): its names and keywords
    assert text_blocks_text({"Python": 1}, checked=True) == (
        "Shown as text, not run in this build: 1 Python block. The build checks the names and "
        "keywords each Python block uses from Torch-TensorRT and ExecuTorch against the installed "
        "packages."
    )


def test_the_sentence_counts_the_marked_blocks() -> None:
    assert text_blocks_text({"shell": 3, "C++": 1}, checked=False, marked=2) == (
        "Shown as text, not run in this build: 3 shell blocks and 1 C++ block. 2 of them are "
        "marked with what they need, as a cell that did not run is."
    )
    assert text_blocks_text({"shell": 3}, checked=False, marked=1).endswith(
        " 1 of them is marked with what it needs, as a cell that did not run is."
    )
    assert text_blocks_text({"shell": 1}, checked=False, marked=1).endswith(
        " It is marked with what it needs, as a cell that did not run is."
    )
    assert text_blocks_text({"C++": 3}, checked=False, marked=3).endswith(
        " Each is marked with what it needs, as a cell that did not run is."
    )


def test_a_page_with_only_cells_says_nothing() -> None:
    page = nodes.section()
    cell = nodes.container(classes=["cell"])
    cell += _block("bash")
    page += cell
    assert text_blocks(page) == {}
    assert text_blocks_text({}, checked=True) is None
