"""Install commands resolved by the real resolver against PyPI (needs the network):
a planted command that only a resolution catches, and a command of the real pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from paths import ROOT
from trtdocs.drift import installs, resolve, resolved
from trtdocs.features.validate import load as load_features
from trtdocs.pages.commands import find_commands

REAL_TABLE = ROOT / "docs" / "features.toml"

pytestmark = pytest.mark.network


@pytest.fixture(scope="module")
def table():
    return load_features(REAL_TABLE)


@pytest.fixture(scope="module")
def cache() -> Path:
    # the build's own cache: the resolver's wheel, and the day's resolutions of the pages'
    # commands (a build or test earlier today resolved them; the first of the day resolves)
    return ROOT / "_build" / "trtdocs" / "resolve"


def test_planted_unpinned_executorch_resolves_outside_the_pins(tmp_path: Path, table, cache: Path):
    # The static guard passes it: executorch named without a version, no -U. PyPI's newest
    # executorch is not the 2.14 release's ==1.4.1, and only the resolution says so.
    page = tmp_path / "notebooks" / "page.md"
    page.parent.mkdir()
    page.write_text("# P\n\n```bash\npip install --no-deps executorch\n```\n")
    (cmd,), _ = find_commands(page, tmp_path)
    assert installs.check_command(cmd, table) == []
    violations, claims, _ = resolved.check_pages(tmp_path, table, [page], cache, fresh=True)
    assert claims[0].status == resolve.RESOLVED, claims
    assert [(v.line, v.rule) for v in violations] == [(4, "resolved-pins")], violations
    assert "outside release 2.14's pin executorch ==1.4.1" in violations[0].message


def test_run_cpp_torch_command_resolves_inside_the_pins(table, cache: Path):
    shown = [
        s
        for s in resolved.page_commands(ROOT / "notebooks" / "run-cpp.md", ROOT, table)
        if "torch" in {r.name for r in s.command.requirements}
    ]
    assert shown, "run-cpp.md no longer installs torch: pick another page command"
    found = resolved.resolution(shown[0], cache)
    assert found.status == resolve.RESOLVED, found
    violations, text = resolved.check(shown[0], found, table)
    assert violations == [] and "inside release 2.14's pins" in text, text
    assert found.resolver == f"pip {resolve.RESOLVER}" and found.seconds > 0
