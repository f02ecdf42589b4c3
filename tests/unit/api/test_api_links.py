"""docs/data/api-links.toml is checked against the installed packages once per
file text and installed release (api/links.py's ``verified`` markers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paths import ROOT
from trtdocs.api import model
from trtdocs.api.external import ExternalIndex
from trtdocs.api.links import LinksError, load_links

LINKS = ROOT / "docs" / "data" / "api-links.toml"


def _counting(monkeypatch: pytest.MonkeyPatch) -> tuple[ExternalIndex, list[str]]:
    external = ExternalIndex(model.resolve_paths(None))
    asked: list[str] = []
    real = external.lookup
    monkeypatch.setattr(
        external, "lookup", lambda name, depth=0: (asked.append(name), real(name, depth))[1]
    )
    return external, asked


def test_a_verified_file_is_not_looked_up_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verified = tmp_path / "verified"
    external, asked = _counting(monkeypatch)
    first = load_links(LINKS, external, verified=verified)
    assert asked and len(list(verified.iterdir())) == 1  # every name looked up, then marked
    asked.clear()
    again = load_links(LINKS, external, verified=verified)
    assert again == first and asked == []


def test_an_edited_file_is_checked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    verified = tmp_path / "verified"
    external, _ = _counting(monkeypatch)
    load_links(LINKS, external, verified=verified)
    # the same file with a name torch does not have: its own text, so no marker covers it
    planted = tmp_path / "api-links.toml"
    text = LINKS.read_text(encoding="utf-8")
    assert '"torch.nn.Tanh" =' in text
    planted.write_text(
        text.replace('"torch.nn.Tanh" =', '"torch.nn.NoSuchLayer" =', 1), encoding="utf-8"
    )
    with pytest.raises(LinksError, match="NoSuchLayer'?: installed torch \\S+ has no such name"):
        load_links(planted, external, verified=verified)
    assert len(list(verified.iterdir())) == 1  # a failed check leaves no marker
