"""Every test file sits in a tier folder (tests/paths.py's TIERS, pyproject's
testpaths): a test file elsewhere under tests/ would never be collected."""

from __future__ import annotations

import tomllib
from pathlib import Path

from paths import ROOT, TIERS

TESTS = ROOT / "tests"


def stray_test_files(tests: Path) -> list[str]:
    """Test files pytest would not collect: outside every tier folder."""
    return sorted(
        p.relative_to(tests).as_posix()
        for p in tests.rglob("test_*.py")
        if p.relative_to(tests).parts[0] not in TIERS
    )


def test_testpaths_are_the_tiers_in_order() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert config["testpaths"] == [f"tests/{tier}" for tier in TIERS]


def test_every_test_file_is_in_a_tier() -> None:
    assert not stray_test_files(TESTS), (
        "test files outside tests/{"
        + ",".join(TIERS)
        + "} are never collected: move them into a tier"
    )


def test_a_planted_stray_file_is_found(tmp_path: Path) -> None:
    (tmp_path / "unit").mkdir()
    (tmp_path / "unit" / "test_ok.py").write_text("")
    (tmp_path / "test_reader_guide.py").write_text("")
    (tmp_path / "roots" / "test-x").mkdir(parents=True)
    (tmp_path / "roots" / "test-x" / "test_in_a_root.py").write_text("")
    assert stray_test_files(tmp_path) == ["roots/test-x/test_in_a_root.py", "test_reader_guide.py"]


def shared_basenames(tests: Path) -> list[str]:
    """Test files whose names another tier's file has: pytest imports test modules by
    their basename (no packages), so the second one stops the whole session's collection."""
    seen: dict[str, list[str]] = {}
    for path in sorted(tests.rglob("test_*.py")):
        seen.setdefault(path.name, []).append(path.relative_to(tests).as_posix())
    return [" and ".join(paths) for paths in seen.values() if len(paths) > 1]


def test_every_test_file_has_its_own_name() -> None:
    assert not shared_basenames(TESTS), shared_basenames(TESTS)


def test_a_planted_shared_name_is_found(tmp_path: Path) -> None:
    for tier in ("unit", "build"):
        (tmp_path / tier).mkdir()
        (tmp_path / tier / "test_same.py").write_text("")
    assert shared_basenames(tmp_path) == ["build/test_same.py and unit/test_same.py"]
