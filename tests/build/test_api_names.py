"""Every name the guide's code calls has a home: an entry of the reference, a
page of its project's documentation (docs/data/api-links.toml, checked
against the installed packages), or a recorded reason. Each entry lists the
pages that use it. Expected names come from the notebooks and griffe, not typed
here, except the planted ones."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path

import jupytext
import pytest
from bs4 import BeautifulSoup

from paths import ROOT as REPO
from sites import build, copy_root
from trtdocs.api import model as apimodel
from trtdocs.api.external import ExternalIndex
from trtdocs.api.index import Missing
from trtdocs.api.links import LinksError, load_links
from trtdocs.api.names import ENTRY, UNLINKED, UPSTREAM, CellIndex, Resolver, check, targets
from trtdocs.api.site import ApiSite
from trtdocs.features.validate import load as load_features

LINKS = REPO / "docs" / "data" / "api-links.toml"
ENV = {"TRTDOCS_REPO": str(REPO)}
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.md"))


@pytest.fixture(scope="module")
def site() -> ApiSite:
    """The installed API as the real site's build sees it."""
    return ApiSite(
        (),
        REPO / "docs" / "data" / "api.toml",
        REPO / "docs" / "data" / "api-errata.toml",
        load_features(REPO / "docs" / "features.toml"),
        LINKS,
    )


@pytest.fixture(scope="module")
def external(site: ApiSite) -> ExternalIndex:
    return site.external


HIDDEN = frozenset(
    {"remove-cell", "remove-input"}
)  # myst-nb's tags of cells whose code a page does not show


def _cells(path: Path, shown_only: bool = False) -> list[str]:
    """A notebook's code cells; with ``shown_only``, a hidden cell's source is
    blanked (it still counts as a cell)."""
    cells = [c for c in jupytext.read(path).cells if c.cell_type == "code"]
    return [
        c.source if not (shown_only and HIDDEN & set(c.metadata.get("tags", ()))) else ""
        for c in cells
    ]


# -- the guide's names ---------------------------------------------------------------


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_name_the_guide_calls_has_a_home(site, notebook):
    findings = check(_cells(notebook), site.resolver)
    assert not findings, "\n".join(f"{notebook.name}: {f.message()}" for f in findings)


def test_the_named_calls_have_entries_or_upstream_pages(site):
    """The compile and save path, torch.export, ExecuTorch's lowering and runtime."""
    found = {}
    for notebook in NOTEBOOKS:
        for cell in targets(_cells(notebook), site.resolver):
            for _use, target in cell:
                found[target.name] = target.kind
    for name in (
        "torch_tensorrt.compile",
        "torch_tensorrt.dynamo.compile",
        "torch_tensorrt.Input",
        "torch_tensorrt.save",
        "torch_tensorrt.load",
        "executorch.exir.to_edge_transform_and_lower",
        "executorch.exir.ExecutorchBackendConfig",
        "executorch.exir.passes.MemoryPlanningPass",
        "executorch.backends.xnnpack.partition.xnnpack_partitioner.XnnpackPartitioner",
        "executorch.runtime.Runtime",
        "executorch.runtime.Program",
    ):
        assert found.get(name) == ENTRY, name
    assert (
        found.get("torch.export.export") == UPSTREAM and found.get("torch.export.Dim") == UPSTREAM
    )


def test_a_planted_unlinked_name_fails_the_check(site):
    cells = [
        "import torch\nfrom executorch.exir import to_edge\n",
        "layer = torch.nn.Bilinear(2, 2, 3)\nedge = to_edge(torch.export.export(layer, ()))\n",
    ]
    findings = check(cells, site.resolver)
    assert [(f.cell, f.line, f.name) for f in findings] == [
        (0, 2, "executorch.exir.to_edge"),  # the import
        (1, 1, "torch.nn.Bilinear"),
        (1, 2, "executorch.exir.to_edge"),  # its use
    ]
    assert "code cell 2, line 1: `torch.nn.Bilinear` links nowhere" in findings[1].message()


def test_private_and_missing_names_are_not_held_to_a_home(site):
    cells = [
        "import torch_tensorrt\nimport torch\n",
        "torch_tensorrt._compile.save\ntorch.nn.NoSuchLayer\ntorch_tensorrt.executorch.no_such_function\n",
    ]
    assert check(cells, site.resolver) == []  # private; missing (the drift guard reports those)


def test_every_entry_of_the_links_file_is_used(site):
    """No upstream page or reason outlives the code that needed it."""
    used = {
        target.name
        for notebook in NOTEBOOKS
        for cell in targets(_cells(notebook), site.resolver)
        for _, target in cell
        if target is not None and target.kind in (UPSTREAM, UNLINKED)
    }
    mapped = {n for u in site.links.upstream.values() for n in u.names} | set(site.links.unlinked)
    assert mapped - used == set()


# -- the links file ------------------------------------------------------------------


def test_upstream_names_resolve_in_the_installed_packages_without_importing_them(external):
    torch_names = load_links(LINKS, external).upstream["torch"].names
    for name in torch_names:
        assert external.lookup(name).path  # a griffe object, read from the files
    assert (
        external.lookup("torch.export.Dim").path == "torch.export.dynamic_shapes.Dim"
    )  # through the alias
    assert external.lookup("torch.randn").path.startswith(
        "torch._C._VariableFunctions"
    )  # a stub's wildcard
    with pytest.raises(Missing):
        external.lookup("torch.export.no_such_thing")


def _planted(tmp_path: Path, old: str, new: str) -> Path:
    """The links file with the first match of the pattern ``old`` replaced."""
    text, n = re.subn(old, new, LINKS.read_text(encoding="utf-8"), count=1)
    assert n == 1, old
    path = tmp_path / "api-links.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            r'release = "2\.14"',
            'release = "2.13"',
            r"upstream\.torch\.release: the links are for torch 2\.13, "
            r"the installed torch is 2\.14",
        ),
        (
            r'"torch\.nn\.Tanh" =',
            '"torch.nn.NoSuchLayer" =',
            r"upstream\.torch\.names\.'torch\.nn\.NoSuchLayer': installed torch \S+ has no such "
            r"name",
        ),
        (
            r'"torch\.nn\.Tanh" =',
            '"packaging.version.Version" =',
            r"upstream\.torch\.names\.'packaging\.version\.Version': not a name of torch",
        ),
        (
            r'"torch\.version\.cuda" = ".*"',
            '"torch.version.cuda" = " "',
            r"unlinked\.'torch\.version\.cuda': the reason",
        ),
    ],
)
def test_a_planted_bad_entry_fails_naming_file_and_entry(tmp_path, external, old, new, message):
    path = _planted(tmp_path, old, new)
    with pytest.raises(LinksError, match=re.escape(str(path)) + ": " + message):
        load_links(path, external)


@pytest.mark.upstream
def test_upstream_pages_are_in_the_inventory(external):
    """Each page#anchor of the links file is a location in its project's objects.inv
    for that release (the check the build cannot make: it has no network)."""
    from sphinx.util.inventory import InventoryFile

    for package, upstream in load_links(LINKS, external).upstream.items():
        with urllib.request.urlopen(upstream.docs + upstream.inventory, timeout=60) as response:
            inventory = InventoryFile.loads(response.read(), uri=upstream.docs)
        locations = {
            item.uri.removeprefix(upstream.docs)
            for items in inventory.data.values()
            for item in items.values()
        }
        missing = sorted(
            f"{name}: {page}" for name, page in upstream.names.items() if page not in locations
        )
        assert not missing, (
            f"{package} {upstream.release}: not in {upstream.docs}{upstream.inventory}: {missing}"
        )


# -- in a build ---------------------------------------------------------------------


def _codelinks_site(tmp_path: Path, extra: str) -> Path:
    root = copy_root("codelinks", tmp_path)
    page = root / "notebooks" / "save-and-export.md"
    page.write_text(page.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return root


@pytest.mark.build
def test_a_planted_unlinked_call_fails_the_build(tmp_path):
    root = _codelinks_site(
        tmp_path,
        "\n## Planted\n\n```{code-cell} ipython3\nlayer = torch.nn.Bilinear(2, 2, 3)\n```\n",
    )
    result = build(root, root / "_build", env=ENV)
    assert result.returncode != 0
    assert re.search(
        r"save-and-export\.md:\d+: ERROR: code cell \d+, line 1: `torch\.nn\.Bilinear` links "
        r"nowhere",
        result.log,
    ), result.log[-3000:]


@pytest.mark.build
def test_used_in_lists_the_pages_and_sections_of_a_planted_use(tmp_path):
    root = _codelinks_site(
        tmp_path,
        "\n## Planted use\n\n```{code-cell} ipython3\n"
        'loaded = torch_tensorrt.load("model.pte", format="executorch")\n```\n',
    )
    result = build(root, root / "_build", env=ENV)
    assert result.returncode == 0, result.log[-4000:]
    api = BeautifulSoup(
        (root / "_build" / "html" / "api.html").read_text(encoding="utf-8"), "html.parser"
    )

    def used_in(name: str) -> list[tuple[str, str]]:
        body = api.find(id=name).find_next_sibling("dd")
        rubric = body.find("p", class_="trtdocs-used-in", recursive=False)
        if rubric is None:
            return []
        return [(a.get_text(), a["href"]) for a in rubric.find_next_sibling("ul").find_all("a")]

    assert used_in("torch_tensorrt.load") == [  # in reading order; the planted use in its section
        ("Code links fixture", "index.html#code-links-fixture"),  # a static block
        ("Save and export › Planted use", "notebooks/save-and-export.html#planted-use"),
        ("Returned objects", "notebooks/returned.html#returned-objects"),
    ]
    assert used_in("torch_tensorrt.save") == [
        ("Save and export", "notebooks/save-and-export.html#save-and-export")
    ]
    assert used_in("torch_tensorrt_executorch_runtime.runtime.Program.run") == [
        ("Save and export", "notebooks/save-and-export.html#save-and-export")
    ]
    assert used_in("torch_tensorrt.executorch.get_edge_compile_config") == []  # no cell calls it


@pytest.mark.build
def test_used_in_on_the_real_site_follows_the_notebooks(built_site, site):
    """Each entry lists exactly the pages whose shown cells use it (checked for the
    named entries against the names the notebooks' cells resolve to)."""
    for name, page in [
        ("torch_tensorrt.Input", "docs/api/torch_tensorrt.html"),
        ("executorch.runtime.Runtime.get", "docs/api/executorch.runtime.html"),
        ("executorch.exir.passes.MemoryPlanningPass", "docs/api/executorch.exir.html"),
    ]:
        expected = set()
        for nb in NOTEBOOKS:
            shown = _cells(nb, shown_only=True)
            for source, cell in zip(shown, targets(_cells(nb), site.resolver), strict=True):
                if source and any(t is not None and t.name == name for _, t in cell):
                    expected.add(nb.stem)
        assert expected, name
        html = BeautifulSoup((built_site / page).read_text(encoding="utf-8"), "html.parser")
        body = html.find(id=name).find_next_sibling("dd")
        links = (
            body.find("p", class_="trtdocs-used-in", recursive=False)
            .find_next_sibling("ul")
            .find_all("a")
        )
        assert {a["href"].split("/")[-1].split(".html")[0] for a in links} == expected, name


@pytest.mark.build
def test_the_reference_index_lists_other_projects_names(built_site, site):
    html = BeautifulSoup(
        (built_site / "docs" / "api" / "index.html").read_text(encoding="utf-8"), "html.parser"
    )
    linked = {
        a.get_text(): a["href"]
        for t in html.select("table.trtdocs-api-upstream")
        for a in t.find_all("a")
        if a["href"].startswith("https://")
    }
    assert linked["torch.export.export"] == site.links.url("torch.export.export")
    rows = {
        tr.find("td").get_text(): tr
        for t in html.select("table.trtdocs-api-upstream")
        for tr in t.select("tbody tr")
    }
    assert set(site.links.unlinked) <= set(rows)
    assert site.links.unlinked["torch.version.cuda"] in rows["torch.version.cuda"].get_text()


def test_one_resolution_for_the_guard_and_the_names(site):
    """The names check resolves a cell as the drift guard does (trtdocs.api.uses)."""
    index = CellIndex(lambda: site.index, site.external)
    resolver = Resolver(index, site.documented_name, site.links)
    [[(use, target)]] = targets(
        ["import torch_tensorrt_executorch_runtime as trt_runtime\n"], resolver
    )
    assert use.path == "torch_tensorrt_executorch_runtime" and target.kind == ENTRY
    assert apimodel.load() is site.model
