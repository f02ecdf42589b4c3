"""tools/cxx_headers.py: the real headers of the C++ guard's stubs, laid out as
include folders from a repository at a commit (fetched, or from a clone at hand)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from paths import TOOLS
from scripts import load

cxx_headers = load("cxx_headers", TOOLS)


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, str]:
    """A repository 'owner+name' with two headers under inc/, and its commit."""
    repo = tmp_path / "remotes" / "owner+name"
    (repo / "inc" / "sub").mkdir(parents=True)
    (repo / "inc" / "sub" / "a.h").write_text("#pragma once\nint a();\n")
    (repo / "inc" / "b.h").write_text("#pragma once\n")
    (repo / "other.txt").write_text("not a header\n")
    _git("init", "-q", cwd=repo)
    _git("add", ".", cwd=repo)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "headers", cwd=repo)
    return repo, _git("rev-parse", "HEAD", cwd=repo)


def _source(commit: str) -> dict[str, object]:
    return {
        "repo": "owner/name",
        "commit": commit,
        "ref": "main",
        "path": "inc",
        "into": "lib/inc",
        "stubs": [],
    }


def test_a_repository_is_fetched_at_its_commit_and_laid_out_under_into(
    upstream, tmp_path: Path
) -> None:
    repo, commit = upstream
    url = f"file://{tmp_path / 'remotes'}/{{owner}}+{{name}}"
    folder = cxx_headers.lay_out(_source(commit), tmp_path / "out", url)
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    assert files == [cxx_headers.STAMP, "lib/inc/b.h", "lib/inc/sub/a.h"]
    assert (folder / "lib/inc/sub/a.h").read_text() == "#pragma once\nint a();\n"
    # laid out once: a second run reads the stamp and fetches nothing (the remote is gone)
    (repo / ".git").rename(repo / "gone")
    assert cxx_headers.lay_out(_source(commit), tmp_path / "out", url) == folder


def test_a_clone_at_hand_is_read_without_fetching(upstream, tmp_path: Path) -> None:
    repo, commit = upstream
    folder = cxx_headers.lay_out(
        _source(commit), tmp_path / "out", "file:///nowhere/{repo}", {"owner/name": repo}
    )
    assert (folder / "lib/inc/b.h").is_file() and not (tmp_path / "out" / "git").exists()


def test_a_commit_the_remote_lacks_fails(upstream, tmp_path: Path) -> None:
    _, commit = upstream
    url = f"file://{tmp_path / 'remotes'}/{{owner}}+{{name}}"
    with pytest.raises(subprocess.CalledProcessError):
        cxx_headers.lay_out(_source("0" * 40), tmp_path / "out", url)
