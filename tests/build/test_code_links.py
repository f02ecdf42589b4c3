"""Names in code cells and static Python blocks link to their API entries inside the
highlighted code (trtdocs.api.codelinks), resolved as the drift guard reads the cells
(trtdocs.api.uses); the resolution and the linking on their own:
tests/unit/api/test_code_uses.py. tools/code_links.py reads the built fixture and reports
each package call that has no link, with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from paths import ROOT, TOOLS
from scripts import load
from sites import build, copy_root
from trtdocs.api import codelinks
from trtdocs.api import model as apimodel
from trtdocs.api.external import ExternalIndex
from trtdocs.api.links import load_links

code_links = load("code_links", TOOLS)


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


# -- returned objects, load(format=...), static blocks --------------------------------


def _page(site: Path, name: str) -> BeautifulSoup:
    return BeautifulSoup((site / name).read_text(encoding="utf-8"), "html.parser")


def _blocks(page: BeautifulSoup) -> list:
    return page.select("div.highlight pre")


def test_methods_of_returned_objects_link_by_their_public_names(site):
    """to_edge_transform_and_lower() returns a class that executorch defines in a private
    module (exir.program._program); its methods link to the entries of the name
    executorch.exir exports it as."""
    cell = _blocks(_page(site, "notebooks/returned.html"))[0]
    links = _links(cell)
    assert (
        "edge.to_executorch",
        "../api.html#executorch.exir.EdgeProgramManager.to_executorch",
    ) in (links)
    assert (
        "write_to_file",
        "../api.html#executorch.exir.ExecutorchProgramManager.write_to_file",
    ) in (links)
    assert not any("_program" in href for _, href in links)


def test_load_with_the_executorch_format_returns_a_program(site):
    """api.toml's [[returns]]: load(..., format="executorch") returns runtime.Program, so
    program.forward links; without the format, load() returns Any and forward stays text."""
    blocks = _blocks(_page(site, "notebooks/returned.html"))
    static, mystery = blocks[1], blocks[2]
    forward = "../api.html#torch_tensorrt_executorch_runtime.runtime.Program.forward"
    assert ("program.forward", forward) in _links(static)
    assert [text for text, _ in _links(mystery)] == ["torch_tensorrt.load"]


def test_static_blocks_link_in_reading_order(site):
    """A static block on a notebook page reads the names its cells bound before it
    (torch_tensorrt); a page that is no notebook links its static blocks alone."""
    static = _blocks(_page(site, "notebooks/returned.html"))[1]
    assert not static.find_parent("div", class_="cell")
    assert ("torch_tensorrt.load", "../api.html#torch_tensorrt.load") in _links(static)
    landing = _blocks(_page(site, "index.html"))[0]
    assert _links(landing) == [
        ("torch_tensorrt", "api.html#module-torch_tensorrt"),
        ("torch_tensorrt.load", "api.html#torch_tensorrt.load"),
        ("program.forward", "api.html#torch_tensorrt_executorch_runtime.runtime.Program.forward"),
    ]
    assert landing.get_text().startswith("import torch_tensorrt\n")  # the code reads as written


def test_used_in_lists_the_pages_of_the_new_links(site):
    """Back-references follow the links: a returned object's method, a static block's call."""
    api = _page(site, "api.html")

    def used_in(name: str) -> list[str]:
        entry = api.find(id=name).find_parent("dl")
        rubric = entry.find("p", class_="trtdocs-used-in") or entry.find(class_="trtdocs-used-in")
        assert rubric is not None, name
        items = entry.find("ul", class_="trtdocs-used-in")
        return [a["href"].split("#")[0] for a in items.find_all("a")]

    assert used_in("executorch.exir.EdgeProgramManager.to_executorch") == [
        "notebooks/returned.html"
    ]
    assert used_in("torch_tensorrt_executorch_runtime.runtime.Program.forward") == [
        "index.html",
        "notebooks/returned.html",
    ]


def test_the_tool_reports_every_unlinked_call_with_its_reason(site):
    """tools/code_links.py over the built fixture: the planted call on load()'s result
    without the format (Any) is reported, not skipped; every other package call links."""
    calls = code_links.site_calls(site)
    unlinked = [(c.page, c.block, c.line, c.callee) for c in calls if not c.linked]
    assert unlinked == [("notebooks/returned.html", 3, 2, "mystery.forward")]
    reason = next(c.reason for c in calls if not c.linked)
    assert "torch_tensorrt.load" in reason and "`Any`" in reason
    linked = {(c.page, c.callee) for c in calls if c.linked}
    assert {
        ("index.html", "program.forward"),
        ("notebooks/returned.html", "edge.to_executorch"),
        ("notebooks/returned.html", "edge.to_executorch(...).write_to_file"),
        ("notebooks/returned.html", "program.forward"),
    } <= linked
    text = code_links.report(calls)
    assert "notebooks/returned.html: 6 of 7 package calls linked" in text
    assert "block 3, line 2: mystery.forward(): " in text
