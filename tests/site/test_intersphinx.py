"""Another project links to the guide through intersphinx: every section of every guide page
has a label in objects.inv, a downstream Sphinx build resolves a ``:ref:`` to each of them to
the section's own address, and the inventory names the release it documents."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sphinx.util.inventory import InventoryFile

from sites import REAL_TABLE, build
from trtdocs.features.validate import load

pytestmark = pytest.mark.build


def _inventory(site: Path) -> dict[str, dict[str, object]]:
    with (site / "objects.inv").open("rb") as f:
        return InventoryFile.load(f, "", lambda base, uri: uri)


def _uri(item: object) -> str:
    return item.uri  # type: ignore[attr-defined]  # its class is private to Sphinx


def _sections(site: Path) -> dict[str, set[str]]:
    """'notebooks/x.html#first-id' -> every id that addresses that section of a guide page."""
    found = {}
    for page in sorted((site / "notebooks").glob("*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for section in soup.select("article section[id]"):
            ids = {section["id"]} | {
                span["id"] for span in section.find_all("span", id=True, recursive=False)
            }
            found[f"notebooks/{page.name}#{section['id']}"] = ids
    return found


def test_inventory_names_the_documented_release(built_site: Path) -> None:
    documented = load(REAL_TABLE).documented_release.key
    header = (built_site / "objects.inv").read_bytes().split(b"\n", 3)[:3]
    assert header[2].decode() == f"# Version: {documented}", header


def test_every_guide_section_has_a_label(built_site: Path) -> None:
    labels = _inventory(built_site).get("std:label", {})
    targets = {_uri(item) for item in labels.values()}
    sections = _sections(built_site)
    assert len(sections) > 40, sorted(sections)
    missing = [
        where
        for where, ids in sections.items()
        if not {f"{where.split('#')[0]}#{i}" for i in ids} & targets
    ]
    assert not missing, f"{len(missing)} of {len(sections)} sections have no label: {missing}"


def test_a_downstream_build_links_every_section(built_site: Path, tmp_path: Path) -> None:
    labels = {
        name: _uri(item)
        for name, item in _inventory(built_site).get("std:label", {}).items()
        if _uri(item).startswith("notebooks/")
    }
    # the sections' page/anchor labels, and the pages' own targets (each error message's among them)
    assert any("/" in name for name in labels) and any(n.startswith("error-") for n in labels)
    src = tmp_path / "src"
    src.mkdir()
    inventory = str((built_site / "objects.inv").resolve())
    (src / "conf.py").write_text(
        "extensions = ['sphinx.ext.intersphinx']\n"
        f"intersphinx_mapping = {{'trt': ('https://guide.invalid/', {inventory!r})}}\n",
        encoding="utf-8",
    )
    refs = "\n".join(f"* :ref:`trt:{name}`" for name in sorted(labels))
    (src / "index.rst").write_text(f"Links\n=====\n\n{refs}\n", encoding="utf-8")
    result = build(src, tmp_path / "_build", features=None, fresh=True)
    assert result.returncode == 0, result.log
    soup = BeautifulSoup((result.outdir / "index.html").read_text(encoding="utf-8"), "html.parser")
    hrefs = sorted(a["href"] for a in soup.select("li a.reference.external"))
    assert hrefs == sorted(f"https://guide.invalid/{uri}" for uri in labels.values())
