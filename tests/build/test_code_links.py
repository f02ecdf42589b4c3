"""Names in code cells link to their API entries inside the highlighted code
(trtdocs.api.codelinks), resolved as the drift guard reads the cells (trtdocs.api.uses);
the resolution and the linking on their own: tests/unit/api/test_code_uses.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from paths import ROOT
from sites import build, copy_root
from trtdocs.api import codelinks
from trtdocs.api import model as apimodel
from trtdocs.api.external import ExternalIndex
from trtdocs.api.links import load_links


def links_file():
    """docs/data/api-links.toml, as the build reads it."""
    return load_links(
        ROOT / "docs" / "data" / "api-links.toml", ExternalIndex(apimodel.load().search_paths)
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture site, built strictly (-W -n); its HTML folder."""
    root = copy_root("codelinks", tmp_path_factory.mktemp("codelinks"))
    result = build(root, root / "_build")
    assert result.returncode == 0, result.log[-6000:]
    return result.outdir


@pytest.fixture(scope="module")
def cells(site: Path) -> list:
    page = BeautifulSoup(
        (site / "notebooks" / "save-and-export.html").read_text(encoding="utf-8"), "html.parser"
    )
    return page.select("div.cell_input div.highlight pre")


def _links(pre) -> list[tuple[str, str]]:
    return [(a.get_text(), a["href"]) for a in pre.find_all("a")]


def test_names_link_to_their_entries(site, cells):
    api = BeautifulSoup((site / "api.html").read_text(encoding="utf-8"), "html.parser")
    first, second, third, fourth = cells  # the remove-cell cell is not shown
    torch_docs = links_file().upstream["torch"].docs
    assert _links(first) == [
        ("torch", f"{torch_docs}torch.html#module-torch"),  # import torch: PyTorch's documentation
        ("torch_tensorrt", "../api.html#module-torch_tensorrt"),  # import torch_tensorrt
        ("torch_tensorrt.executorch", "../api.html#module-torch_tensorrt.executorch"),
        ("export", "../api.html#torch_tensorrt.executorch.export"),  # from ... import export
        ("torch_tensorrt.Input", "../api.html#torch_tensorrt.Input"),  # one link, not two
        ("torch_tensorrt.save", "../api.html#torch_tensorrt.save"),
    ]
    assert _links(second) == [
        ("export", "../api.html#torch_tensorrt.executorch.export"),  # the imported name, used
        (
            "torch_tensorrt.executorch.export",
            "../api.html#torch_tensorrt.executorch.export",
        ),  # one link
        ("torch.ones", f"{torch_docs}generated/torch.ones.html#torch.ones"),
    ]
    # `rt` is bound by a removed cell; `program` is load()'s result: alone it stays text
    assert _links(third) == [
        ("rt.load", "../api.html#torch_tensorrt_executorch_runtime.runtime.load"),
        ("program.run", "../api.html#torch_tensorrt_executorch_runtime.runtime.Program.run"),
    ]
    assert _links(fourth) == []  # executorch.version: listed under [unlinked], with its reason
    for pre in cells:
        for a in pre.find_all("a"):
            internal = not a["href"].startswith("https://")
            assert a["class"] == [
                "reference",
                "internal" if internal else "external",
                codelinks.LINK_CLASS,
            ]
            if internal:
                assert api.find(id=a["href"].split("#")[1]) is not None  # the entry's anchor exists
            # the highlighting is kept: the link wraps whole Pygments tokens
            assert a.find_all("span") and all(s.parent is a for s in a.find_all("span"))
            assert a.get_text() == "".join(s.get_text() for s in a.find_all("span"))


def test_names_without_a_link_stay_text(cells):
    first, second, third, fourth = cells
    text = first.get_text()
    assert "torch_tensorrt.Input((1, 3))" in text and "import torch\n" in text
    linked = [a.get_text() for pre in cells for a in pre.find_all("a")]
    # a name links as a whole or not at all:
    # torch_tensorrt.Input's module part is no link of its own
    assert [s.parent.name for s in first.find_all(string="Input")] == ["span"]
    assert first.find(string="Input").find_parent("a").get_text() == "torch_tensorrt.Input"
    assert "program" not in linked and "trt_module" not in linked  # an instance, an unknown value
    assert "executorch.version.__version__" in fourth.get_text() and not fourth.find_all("a")


def test_code_text_is_unchanged(site):
    """The links add markup only: the code reads (and copies) as written."""
    page = BeautifulSoup(
        (site / "notebooks" / "save-and-export.html").read_text(encoding="utf-8"), "html.parser"
    )
    texts = [pre.get_text() for pre in page.select("div.cell_input div.highlight pre")]
    assert texts[2] == 'program = rt.load("model.pte")\nprint(program, program.run)\n'
