"""The save() options table (docs/data/save-options.toml) against the installed
save() (trtdocs.drift.options): it matches, and planted drift is reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from paths import ROOT
from trtdocs.api.index import ApiIndex
from trtdocs.drift import options
from trtdocs.features.validate import load as load_features


@pytest.fixture(scope="module")
def index() -> ApiIndex:
    return ApiIndex.load()


def _check(path: Path, index: ApiIndex) -> list[str]:
    table = load_features(ROOT / "docs" / "features.toml")
    return [
        str(v)
        for v in options.check(path, index, lambda f: table.has(table.feature(f), table.documented))
    ]


def test_save_options_table_matches_the_installed_save(index: ApiIndex) -> None:
    assert _check(ROOT / "docs" / "data" / "save-options.toml", index) == []


def test_save_options_drift_is_reported(index: ApiIndex, tmp_path: Path) -> None:
    text = (ROOT / "docs" / "data" / "save-options.toml").read_text()
    wrong = tmp_path / "save-options.toml"
    wrong.write_text(
        text.replace(
            'name = "generate_etrecord"\ndefault = "False"',
            'name = "generate_etrecord"\ndefault = "True"',
        ).replace(
            'name = "zero_copy_kv"\ndefault = "False"\nfeature = "zero-copy-kv"',
            'name = "zero_copy_kv"\ndefault = "False"\nfeature = "lowering-kwargs"',
        )
    )
    found = _check(wrong, index)
    assert any("'generate_etrecord': default True in the table, False" in f for f in found), found
    assert any("'zero_copy_kv': the installed" in f for f in found), found
    dropped = tmp_path / "dropped.toml"
    start = text.index('[[options]]\nname = "partitioners"')
    dropped.write_text(text[:start] + text[text.index("[[options]]", start + 1) :])
    assert any("takes 'partitioners'" in f for f in _check(dropped, index))
