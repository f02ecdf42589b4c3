"""The drift guards in a Sphinx build: a violation is a warning with file and line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from trtdocs.drift.__main__ import main

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.build
def test_build_warns_with_file_and_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(FIXTURES / "drift-sphinx"),
         str(tmp_path / "html")], capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert "drift-sphinx/index.md:4: WARNING: [nightly-pre] this command uses a nightly channel" in proc.stderr
    # the report is cached: an unchanged rebuild warns the same without running the guards
    cache = tmp_path / "trtdocs" / "drift.json"
    assert cache.is_file()
    again = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(FIXTURES / "drift-sphinx"),
         str(tmp_path / "html")], capture_output=True, text=True, check=False)
    assert "index.md:4: WARNING: [nightly-pre]" in again.stderr


def test_cli_exit_status(capsys):
    assert main(["installs", "--root", str(FIXTURES / "drift-sphinx"),
                 "--table", str(Path(__file__).parents[1] / "docs" / "features.toml")]) == 1
    assert "index.md:4: [nightly-pre]" in capsys.readouterr().out
