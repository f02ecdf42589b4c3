"""This harness's own build of the real site (tests/conftest.py): it keeps CI
and REQUIRE_ALL from the environment, and a failed build fails the session in
one test while the tests that need the site skip."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paths import ROOT
from sitebuild import BUILD_TEST, STRICTNESS, sphinx_build
from sites import REAL_TABLE, copy_root


def test_the_real_site_build_keeps_ci_and_require_all(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    probe = tmp_path / "conf.py"
    probe.write_text(
        "import os\nprint('CI=' + os.environ.get('CI', '-'), 'RA=' + "
        "os.environ.get('REQUIRE_ALL', '-'))\nextensions = []\n"
    )
    (tmp_path / "index.rst").write_text("Probe\n=====\n")
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("REQUIRE_ALL", "1")
    kept = sphinx_build(tmp_path, tmp_path / "k", keep_env=STRICTNESS)
    dropped = sphinx_build(tmp_path, tmp_path / "d")
    assert "CI=true RA=1" in kept.stdout
    assert "CI=- RA=-" in dropped.stdout


def test_a_failed_site_build_fails_make_test_once(tmp_path: Path) -> None:
    """The tests that need the site skip and point at the one test that fails."""
    site = copy_root("gating", tmp_path)
    for nb in (site / "notebooks").glob("*.md"):
        nb.unlink()
    (site / "docs").mkdir()
    shutil.copy(REAL_TABLE, site / "docs" / "features.toml")  # where conf.py's default looks
    (site / "notebooks" / "note.md").write_text(
        "# Note\n\n```{feature-note} no-such-feature\n```\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("TRTDOCS_BUILT_SITE", "PYTEST_ADDOPTS")}
    env["TRTDOCS_SITE_SOURCE"] = str(site)
    tests = ROOT / "tests" / "site" / "test_site_build.py"

    def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-rs",
                str(tests),
                *args,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
        )

    result = pytest_run()
    out = result.stdout
    assert result.returncode == 1, out
    assert re.search(r"\b1 failed\b", out) and re.search(r"\b\d+ skipped\b", out), out
    assert "passed" not in out.splitlines()[-1], out
    assert out.count("unknown feature 'no-such-feature'") == 1, out
    assert f"needs the built site, and its strict build failed: see {BUILD_TEST}" in out
    # Without the build test in the session, the session still fails, once.
    result = pytest_run("-k", "not builds_strictly")
    assert result.returncode == 1, result.stdout
    assert result.stdout.count("unknown feature 'no-such-feature'") == 1, result.stdout
    assert "site build failed" in result.stdout
