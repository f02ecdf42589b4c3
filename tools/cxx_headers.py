#!/usr/bin/env python3
"""Compile every C++ block of the guide against the real headers its stubs stand for.

The C++ drift guard compiles the blocks against declaration stubs where no
package carries a header (``docs/_ext/trtdocs/drift/stubs``). This script takes
the real files instead: for each repository of ``stubs/SOURCES.toml`` it fetches
the named commit (``git fetch --depth 1``), lays the repository's ``path`` out
under ``into`` in an include folder of its own, and runs the C++ guard over the
guide's pages with those folders as ``TRTDOCS_CXX_INCLUDE`` and no stub
(``TRTDOCS_CXX_STUBS=0``). It prints what each block compiled against and every
violation, and exits 1 on any. The GPU job runs it (.github/workflows/gpu-shards.yml):

    python tools/cxx_headers.py --out _build/cxx-headers
    python tools/cxx_headers.py --url 'file:///mirrors/{owner}+{name}'   # other remotes
    python tools/cxx_headers.py --local pytorch/executorch=../executorch  # a clone at hand

Each repository's folder keeps a stamp of its commit, so a second run fetches nothing.
Needs git, g++ and the docs venv (ExecuTorch's C++ package, CUDA's headers).
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXTENSIONS = ROOT / "docs" / "_ext"  # trtdocs: the stubs' sources and the C++ guard
GITHUB = "https://github.com/{repo}.git"
STAMP = ".commit"


def _git(*args: str, cwd: Path) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True).stdout


def _archive(source: Mapping[str, Any], out: Path, url: str, local: Mapping[str, Path]) -> bytes:
    """A tar of the repository's ``path`` at its commit: from a local clone when
    ``local`` names one, else fetched (depth 1, blobs on demand) from ``url``."""
    if source["repo"] in local:
        return _git(
            "archive", "--format=tar", source["commit"], source["path"], cwd=local[source["repo"]]
        )
    clone = out / "git" / str(source["repo"]).replace("/", "+")
    owner, name = str(source["repo"]).split("/")
    if not (clone / ".git").is_dir():
        clone.mkdir(parents=True, exist_ok=True)
        _git("init", "-q", cwd=clone)
        _git(
            "remote",
            "add",
            "origin",
            url.format(repo=source["repo"], owner=owner, name=name),
            cwd=clone,
        )
    # a local upload-pack (file://) serves a filtered fetch only when told it may
    allow = ("-c", "uploadpack.allowFilter=true", "-c", "uploadpack.allowAnySHA1InWant=true")
    _git(
        *allow,
        "fetch",
        "-q",
        "--depth",
        "1",
        "--filter=blob:none",
        "origin",
        source["commit"],
        cwd=clone,
    )
    return _git(*allow, "archive", "--format=tar", source["commit"], source["path"], cwd=clone)


def lay_out(
    source: Mapping[str, Any], out: Path, url: str = GITHUB, local: Mapping[str, Path] | None = None
) -> Path:
    """The include folder of one repository of SOURCES.toml: its ``path`` at its
    commit under ``into`` (made once; a stamp names the commit)."""
    include = out / "include" / str(source["repo"]).replace("/", "+")
    if (include / STAMP).is_file() and (include / STAMP).read_text(encoding="utf-8") == source[
        "commit"
    ]:
        return include
    archive = _archive(source, out, url, local or {})
    shutil.rmtree(include, ignore_errors=True)
    include.mkdir(parents=True)
    prefix = PurePosixPath(source["path"])
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            extracted = tar.extractfile(member) if member.isfile() else None
            if extracted is None:
                continue
            target = include / source["into"] / PurePosixPath(member.name).relative_to(prefix)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(extracted.read())
    (include / STAMP).write_text(source["commit"], encoding="utf-8")
    return include


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "cxx-headers")
    parser.add_argument(
        "--url",
        default=GITHUB,
        help="where a repository is fetched from ({repo}: owner/name; {owner}, {name})",
    )
    parser.add_argument(
        "--local",
        action="append",
        default=[],
        metavar="OWNER/NAME=GITDIR",
        help="take this repository from a local clone (git archive), not from --url",
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the project whose pages are checked"
    )
    args = parser.parse_args(argv)
    local = {repo: Path(folder) for repo, _, folder in (item.partition("=") for item in args.local)}
    if str(EXTENSIONS) not in sys.path:
        sys.path.insert(0, str(EXTENSIONS))
    from trtdocs.drift import captions, cpp, headers

    folders = [lay_out(source, args.out, args.url, local) for source in headers.sources()]
    for source, folder in zip(headers.sources(), folders, strict=True):
        print(
            f"real headers: {source['repo']}@{source['commit'][:10]} ({source['ref']}) "
            f"{source['path']} -> {folder}"
        )
    result = cpp.check_pages(args.root, extra_include=folders, stubs=False)
    for done in result.blocks:
        print(f"{done.path}:{done.fence_line}: {captions.compiled_text(done)}")
    for item in result.listed:
        print(f"{item.path}:{item.line}: not compiled: {item.reason}")
    for violation in result.violations:
        print(violation)
    print(
        f"cxx_headers: {result.compiled} C++ block(s) compiled against the real headers, "
        f"{len(result.listed)} listed, {len(result.violations)} problem(s)",
        file=sys.stderr,
    )
    return 1 if result.violations or not result.compiled else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
