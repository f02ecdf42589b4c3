"""ruff (lint and format) and mypy find nothing in the Python here, each configured in
pyproject.toml; and every ``noqa`` or ``type: ignore`` that remains says why on its line."""

from __future__ import annotations

from pathlib import Path

from static import checked_files, ruff, unexplained


def test_ruff_finds_nothing() -> None:
    result = ruff("check", "--no-fix", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_changes_nothing() -> None:
    result = ruff("format", "--check", ".")
    assert result.returncode == 0, f"{result.stdout}{result.stderr}run `ruff format` on these files"


def test_mypy_finds_nothing(mypy_report: tuple[int, str]) -> None:
    returncode, out = mypy_report
    assert returncode == 0, out


def test_every_suppression_says_why() -> None:
    files = checked_files()
    assert len(files) > 100, files  # ruff listed the repository's files
    found = unexplained(files)
    assert not found, "say why on the line, after the codes:\n" + "\n".join(found)


def test_a_planted_bare_suppression_is_found(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import os  # noqa: F401\n"
        "import re  # noqa: F401 -- its flags are read by name\n"
        "x: int = ''  # type: ignore[assignment]\n"
        "y: int = ''  # type: ignore[assignment]  # a fixture's placeholder\n"
        "z = '# noqa: E501'  # a string that only looks like one\n"
        "w = 1  # noqa\n",
        encoding="utf-8",
    )
    assert unexplained([planted]) == [
        f"{planted}:1: # noqa: F401",
        f"{planted}:3: # type: ignore[assignment]",
        f"{planted}:6: # noqa",
    ]
