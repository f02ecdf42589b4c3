"""The site as a host serves it at a base URL (``TRTDOCS_BASEURL``): the reader
fixture root, built with the real configuration."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

from paths import ROOTS
from reader_site import main_content, soup
from sites import build


def test_hosted_site_has_canonical_links_and_a_sitemap(tmp_path: Path) -> None:
    """TRTDOCS_BASEURL: each page's canonical link, sitemap.xml, and a 404 page
    whose links start at the base URL's path."""
    base = "https://docs.example.org/trt-executorch/"
    result = build(
        ROOTS / "test-reader",
        tmp_path / "_build",
        features=None,
        env={"TRTDOCS_BASEURL": base.rstrip("/")},
    )
    assert result.returncode == 0, result.log
    html = result.outdir
    canonical = soup(html / "docs" / "tabs.html").find("link", rel="canonical")
    assert canonical is not None and canonical["href"] == base + "docs/tabs.html"
    locs = {
        el.text
        for el in ElementTree.parse(html / "sitemap.xml").getroot().iter()
        if el.tag.endswith("loc")
    }
    assert {base + "index.html", base + "docs/tabs.html"} <= locs, locs
    hrefs = {a["href"] for a in main_content(html / "404.html").find_all("a", href=True)}
    assert "/trt-executorch/index.html" in hrefs, hrefs
