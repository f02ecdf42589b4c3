"""Names in code cells link to their API entries inside the highlighted code
(trtdocs.api.codelinks), resolved as the drift guard reads the cells (trtdocs.api.uses);
the resolution and the linking on their own: tests/unit/api/test_code_uses.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sites import build, copy_root

from trtdocs.api import codelinks


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture site, built strictly (-W -n); its HTML folder."""
    root = copy_root("codelinks", tmp_path_factory.mktemp("codelinks"))
    result = build(root, root / "_build")
    assert result.returncode == 0, result.log[-6000:]
    return result.outdir


@pytest.fixture(scope="module")
def cells(site: Path) -> list:
    page = BeautifulSoup((site / "notebooks" / "save-and-export.html").read_text(encoding="utf-8"), "html.parser")
    return page.select("div.cell_input div.highlight pre")


def _links(pre) -> list[tuple[str, str]]:
    return [(a.get_text(), a["href"]) for a in pre.find_all("a")]


def test_names_link_to_their_entries(site, cells):
    api = BeautifulSoup((site / "api.html").read_text(encoding="utf-8"), "html.parser")
    first, second, third = cells  # the remove-cell cell is not shown
    assert _links(first) == [
        ("torch_tensorrt", "../api.html#module-torch_tensorrt"),  # import torch_tensorrt
        ("torch_tensorrt.executorch", "../api.html#module-torch_tensorrt.executorch"),
        ("export", "../api.html#torch_tensorrt.executorch.export"),  # from ... import export
        ("torch_tensorrt.save", "../api.html#torch_tensorrt.save"),
    ]
    assert _links(second) == [
        ("export", "../api.html#torch_tensorrt.executorch.export"),  # the imported name, used
        ("torch_tensorrt.executorch.export", "../api.html#torch_tensorrt.executorch.export"),  # one link
    ]
    # `rt` is bound by a removed cell; `program` is load()'s result: alone it stays text
    assert _links(third) == [
        ("rt.load", "../api.html#torch_tensorrt_executorch_runtime.runtime.load"),
        ("program.run", "../api.html#torch_tensorrt_executorch_runtime.runtime.Program.run"),
    ]
    for pre in cells:
        for a in pre.find_all("a"):
            assert a["class"] == ["reference", "internal", codelinks.LINK_CLASS]
            assert api.find(id=a["href"].split("#")[1]) is not None  # the entry's anchor exists
            # the highlighting is kept: the link wraps whole Pygments tokens
            assert a.find_all("span") and all(s.parent is a for s in a.find_all("span"))
            assert a.get_text() == "".join(s.get_text() for s in a.find_all("span"))


def test_undocumented_names_stay_text(cells):
    first, second, third = cells
    text = first.get_text()
    assert "torch_tensorrt.Input((1, 3))" in text and "import torch\n" in text
    linked = [a.get_text() for pre in cells for a in pre.find_all("a")]
    assert "torch" not in linked and "Input" not in linked  # not documented (torch, torch_tensorrt.Input)
    # torch_tensorrt.Input links as a whole or not at all: its module part stays text too
    assert first.find(string="Input").parent.parent is first
    assert [s.parent.name for s in first.find_all(string="torch_tensorrt")].count("a") == 0
    assert "program" not in linked and "torch.ones" not in linked


def test_code_text_is_unchanged(site):
    """The links add markup only: the code reads (and copies) as written."""
    page = BeautifulSoup((site / "notebooks" / "save-and-export.html").read_text(encoding="utf-8"), "html.parser")
    texts = [pre.get_text() for pre in page.select("div.cell_input div.highlight pre")]
    assert texts[2] == 'program = rt.load("model.pte")\nprint(program, program.run)\n'
