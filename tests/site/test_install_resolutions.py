"""Each install command a notebook page shows says, in the page's banner, how pip's
resolver resolved it in this build (trtdocs.drift.resolved): the versions and the
pins, or why it was not resolved."""

from __future__ import annotations

import re
from pathlib import Path

from paths import ROOT
from reader_site import notebook_docs, soup
from trtdocs.drift import resolved
from trtdocs.features.validate import load as load_features

OUTCOME = re.compile(
    r": (resolved to .+, (inside|outside) .+\.|resolved \(\d+ packages, none that a release "
    r"pins\)\.|resolved to .+, the C\+\+ package the build compiles against\.|resolved to .+; "
    r"nightly builds have no pins to check\.|not resolved: .+\.)$"
)


def test_each_install_command_on_a_notebook_page_says_how_it_resolved(built_site: Path) -> None:
    table = load_features(ROOT / "docs" / "features.toml")
    checked = 0
    for doc in notebook_docs(built_site):
        shown = resolved.page_commands(ROOT / f"{doc}.md", ROOT, table)
        # the page's status, in its footer
        banner = soup(built_site / f"{doc}.html").find(class_="trtdocs-status")
        lead = next(
            (
                p
                for p in (banner.find_all("p") if banner is not None else [])
                if p.get_text().startswith("Its install commands")
            ),
            None,
        )
        if not shown:
            assert lead is None, f"{doc}: a banner lists install commands the page does not show"
            continue
        assert lead is not None, (
            f"{doc}: {len(shown)} install commands, and the banner says nothing of them"
        )
        items = [
            " ".join(li.get_text().split()) for li in lead.find_next_sibling("ul").find_all("li")
        ]
        assert [i.split(": ", 1)[0] for i in items] == [s.label for s in shown], (doc, items)
        for item in items:
            assert OUTCOME.search(item), f"{doc}: {item}"
        checked += len(items)
    assert (
        checked >= 11
    )  # install's eight commands (pip and uv, Linux and Windows), run-cpp's three
