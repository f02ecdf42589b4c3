"""Names in code cells link to their API entries inside the highlighted code
(trtdocs.api.codelinks), resolved as the drift guard reads the cells (trtdocs.api.uses)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sitebuild import REPO, copy_fixture, log, sphinx_build

from trtdocs.api import codelinks
from trtdocs.api import model as apimodel
from trtdocs.api.external import ExternalIndex
from trtdocs.api.links import load_links
from trtdocs.api.index import ApiIndex
from trtdocs.api.uses import cell_uses

ENV = {"TRTDOCS_REPO": str(REPO)}


def links_file():
    """docs/data/api-links.toml, as the build reads it."""
    return load_links(REPO / "docs" / "data" / "api-links.toml", ExternalIndex(apimodel.load().search_paths))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture site, built strictly (-W -n); its HTML folder."""
    root = copy_fixture("codelinks-site", tmp_path_factory.mktemp("codelinks"))
    result = sphinx_build(root, root / "_build", env=ENV)
    assert result.returncode == 0, log(result)[-6000:]
    return root / "_build" / "html"


@pytest.fixture(scope="module")
def cells(site: Path) -> list:
    page = BeautifulSoup((site / "notebooks" / "save-and-export.html").read_text(encoding="utf-8"), "html.parser")
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
        ("torch_tensorrt.executorch.export", "../api.html#torch_tensorrt.executorch.export"),  # one link
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
            assert a["class"] == ["reference", "internal" if internal else "external", codelinks.LINK_CLASS]
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
    # a name links as a whole or not at all: torch_tensorrt.Input's module part is no link of its own
    assert [s.parent.name for s in first.find_all(string="Input")] == ["span"]
    assert first.find(string="Input").find_parent("a").get_text() == "torch_tensorrt.Input"
    assert "program" not in linked and "trt_module" not in linked  # an instance, an unknown value
    assert "executorch.version.__version__" in fourth.get_text() and not fourth.find_all("a")


def test_code_text_is_unchanged(site):
    """The links add markup only: the code reads (and copies) as written."""
    page = BeautifulSoup((site / "notebooks" / "save-and-export.html").read_text(encoding="utf-8"), "html.parser")
    texts = [pre.get_text() for pre in page.select("div.cell_input div.highlight pre")]
    assert texts[2] == 'program = rt.load("model.pte")\nprint(program, program.run)\n'


def test_uses_come_from_the_drift_resolution():
    index = ApiIndex.load()
    cells = ["import torch_tensorrt_executorch_runtime as trt_runtime\n",
             "prog = trt_runtime.runtime.load('x')\nprog.run(trt_runtime)\n"]
    got = [[(u.line, cells[i].split("\n")[u.line - 1][u.start:u.end], u.path, u.instance) for u in uses]
           for i, uses in enumerate(cell_uses(cells, index))]
    runtime = "torch_tensorrt_executorch_runtime"
    assert got[0] == [(1, runtime, runtime, False)]
    assert (1, "trt_runtime.runtime.load", f"{runtime}.runtime.load", False) in got[1]
    assert (2, "prog.run", f"{runtime}.runtime.Program.run", False) in got[1]
    assert (2, "prog", f"{runtime}.runtime.Program", True) in got[1]
    assert (2, "trt_runtime", runtime, False) in got[1]


def test_misaligned_spans_leave_the_markup_alone():
    pre = '<span></span><span class="n">torch_tensorrt</span><span class="o">.</span><span class="n">save</span>\n'
    text = "torch_tensorrt.save\n"
    whole = codelinks.link_tokens(pre, text, [(0, 19, "torch_tensorrt.save", "api.html#torch_tensorrt.save")])
    assert whole.startswith('<span></span><a class="reference internal') and whole.endswith("</span></a>\n")
    # a span that cuts a token, or highlighted text that is not the block's: unchanged
    assert codelinks.link_tokens(pre, text, [(0, 5, "x", "#x")]) == pre
    assert codelinks.link_tokens(pre, "other\n", [(0, 19, "x", "#x")]) == pre
