"""Where the tests find things: the repository and its parts, said once."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository
EXT = ROOT / "docs" / "_ext"  # the site's extension (trtdocs)
FIXTURES = ROOT / "tests" / "fixtures"  # pages and tables the pure tests read
ROOTS = ROOT / "tests" / "roots"  # the fixture sites, test-<name> (sphinx.testing's layout)
BENCHMARKS = ROOT / "benchmarks"
TOOLS = ROOT / "tools"
# The tiers, tests/<tier>/, in the order a session runs them (pyproject.toml's testpaths):
# unit (pure: make check), make (the Makefile, the
# harness), build (fixture sites), site (the real site).
TIERS = ("unit", "make", "build", "site")


def tracked_files() -> list[Path]:
    """The files git tracks in the repository."""
    out = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True
    )
    return [ROOT / p for p in out.stdout.decode().split("\0") if p]


def text_of(path: Path) -> str | None:
    """A tracked file's text; None for a binary, a submodule or a file gone from the tree."""
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        return None
