"""``python -m trtdocs.drift``: the guards on their own, exit status 1 on a violation."""

from __future__ import annotations

from paths import ROOT, ROOTS
from trtdocs.drift.__main__ import main


def test_cli_exit_status(capsys):
    assert (
        main(
            [
                "installs",
                "--root",
                str(ROOTS / "test-drift-install"),
                "--table",
                str(ROOT / "docs" / "features.toml"),
            ]
        )
        == 1
    )
    assert "index.md:4: [nightly-pre]" in capsys.readouterr().out
