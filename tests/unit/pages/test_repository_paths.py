"""The project points only into itself: no tracked file names a path outside
the repository, neither an absolute path of some machine (a home folder, the
workspace a session ran in) nor a relative path that climbs out of the
checkout from where its file sits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paths import ROOT, text_of, tracked_files

# Absolute paths that exist only on one machine. The lookbehind keeps URLs
# ("https://host/work/...") and in-repo suffixes ("docs/home/") out.
MACHINE_PATHS = re.compile(r"(?<![\w.\-/~])/(?:work|root|home/[\w.\-]+|Users/[\w.\-]+)/")
# A run of "../" segments; how far it climbs is checked against the file's depth.
CLIMB = re.compile(r"(?<![\w.\-/])((?:\.\./)+)(?=[\w.\-])")


def outside_paths(rel: Path, text: str) -> list[tuple[int, str]]:
    """(line, path) for each path in ``text`` (of file ``rel``) that leaves the repository."""
    found = []
    depth = len(rel.parent.parts)  # how many "../" stay inside from the file's folder
    for number, line in enumerate(text.splitlines(), start=1):
        found += [(number, m.group(0)) for m in MACHINE_PATHS.finditer(line)]
        found += [
            (number, m.group(1)) for m in CLIMB.finditer(line) if m.group(1).count("../") > depth
        ]
    return found


def test_the_rule_is_not_vacuous() -> None:
    files = tracked_files()
    assert len(files) > 50 and any(p.suffix == ".md" for p in files)


@pytest.mark.parametrize(
    "rel, text, found",
    [
        (Path("docs/features.toml"), "# see /work/shared/reference/facts.md", ["/work/"]),
        (Path("README.md"), "see ../shared/reference/facts.md", ["../"]),
        (Path("docs/x.md"), "[a](../../outside.md) and [b](../index.md)", ["../../"]),
        (Path("Makefile"), "VENV = /root/.cache/x", ["/root/"]),
        (Path("a.py"), 'p = "/home/alice/src"', ["/home/alice/"]),
        (Path("docs/x.md"), "https://github.com/x/work/blob/main/README.md and docs/home/page", []),
        (Path("notebooks/x.md"), "from ../index.md, ./data/x and ~/.cache/trtdocs", []),
    ],
)
def test_outside_paths(rel: Path, text: str, found: list[str]) -> None:
    assert [p for _, p in outside_paths(rel, text)] == found


def test_no_tracked_file_points_outside_the_repository() -> None:
    bad = []
    for path in tracked_files():
        rel = path.relative_to(ROOT)
        if rel == Path(__file__).relative_to(ROOT):
            continue  # its cases name such paths on purpose
        text = text_of(path)
        if text is not None:
            bad += [f"{rel}:{line}: {p}" for line, p in outside_paths(rel, text)]
    assert not bad, "paths outside the repository:\n" + "\n".join(bad)
