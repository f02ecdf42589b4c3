#!/usr/bin/env python3
"""Publish the site's notebook downloads where each page's "Open in Colab" link
points: the branch ``TRTDOCS_PUBLISHED_NOTEBOOKS`` names (``OWNER/REPO@BRANCH``).

    python tools/publish_notebooks.py layout _build/html _build/published
    python3 tools/publish_notebooks.py push _build/published

``layout`` copies each notebook page's executed ``.ipynb`` (the page's
download, listed in the site's ``provenance.json``) to the path the page's link
names, ``<release>/<page>.ipynb`` (``trtdocs.colab.published_path``,
the release the features table documents). It reads the features table, so it
runs with the docs' venv.

``push`` commits that layout to the branch and pushes it: each release folder
of the layout replaces the branch's folder of that release; the other
releases' folders stay, so a published address holds for its release. A
branch that does not exist starts empty. The token comes from ``GH_TOKEN`` and
reaches git as an HTTP header (never in a command line); where
``GITHUB_REPOSITORY`` is set, the target must be that repository, the one the
token can write. ``--remote`` pushes elsewhere (a local repository, for the
tests). It needs only the standard library and git.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from trtdocs.colab import ENV, Target, TargetError, published_path  # noqa: E402 -- after the path

README = """# Notebooks of the deployment guide

Each notebook page of the guide links here: "Open in Colab" opens
`<release>/<page>.ipynb` of this branch. The docs workflow writes this branch on
every deploy (`tools/publish_notebooks.py`); do not edit it by hand.
"""


def layout(site: Path, out: Path, features: Path, release: str | None = None) -> list[Path]:
    """Copy every notebook page's download of ``site`` to its published path under ``out``."""
    from trtdocs.features.validate import load

    key = release or load(features).documented_release.key
    pages = json.loads((site / "provenance.json").read_text(encoding="utf-8"))["notebooks"]
    written = []
    for docname in sorted(pages):
        source = site / f"{docname}.ipynb"
        if not source.is_file():
            raise FileNotFoundError(f"{source}: the site has no download of {docname}")
        dest = out / published_path(key, docname)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
        written.append(dest)
    if not written:
        raise ValueError(f"{site / 'provenance.json'} lists no notebook page")
    return written


def _git(folder: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, env=env
    )
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def git_environment(token: str) -> dict[str, str]:
    """git's environment with the token as an HTTP header for github.com, as
    actions/checkout passes it: in the environment, never on a command line."""
    env = dict(os.environ)
    if token:
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        env.update(
            GIT_CONFIG_COUNT="1",
            GIT_CONFIG_KEY_0="http.https://github.com/.extraheader",
            GIT_CONFIG_VALUE_0=f"AUTHORIZATION: basic {basic}",
        )
    return env


def push(
    published: Path,
    target: Target,
    *,
    remote: str | None = None,
    token: str = "",
    message: str = "Publish the notebooks",
) -> bool:
    """Commit ``published`` (a layout) to ``target``'s branch at ``remote`` and push it;
    False when the branch already holds exactly that."""
    releases = sorted(p for p in published.iterdir() if p.is_dir())
    if not releases:
        raise ValueError(f"{published}: no release folder to publish")
    url = remote or target.remote()
    env = git_environment(token)
    with tempfile.TemporaryDirectory(prefix="trtdocs-publish-") as tmp:
        work = Path(tmp)
        _git(work, "init", "-q")
        ref = f"refs/heads/{target.branch}"
        if _git(work, "ls-remote", "--heads", url, ref, env=env).strip():
            _git(work, "fetch", "-q", "--depth=1", url, ref, env=env)
            _git(work, "checkout", "-q", "FETCH_HEAD")
        else:
            _git(work, "checkout", "-q", "--orphan", target.branch)
        for folder in releases:
            shutil.rmtree(work / folder.name, ignore_errors=True)
            shutil.copytree(folder, work / folder.name)
        (work / "README.md").write_text(README, encoding="utf-8")
        _git(work, "add", "-A")
        if not _git(work, "status", "--porcelain").strip():
            return False
        _git(
            work,
            "-c",
            "user.name=trtdocs publisher",
            "-c",
            "user.email=trtdocs-publisher@users.noreply.github.com",
            "commit",
            "-q",
            "-m",
            message,
        )
        _git(work, "push", "-q", url, f"HEAD:{ref}", env=env)
    return True


def target_from_environment() -> Target:
    try:
        found = Target.of(os.environ.get(ENV, ""))
    except TargetError as exc:
        raise SystemExit(f"{ENV}: {exc}") from None
    if found is None:
        raise SystemExit(f"{ENV} is not set: nowhere to publish the notebooks")
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    if repository and repository.lower() != found.repository.lower():
        raise SystemExit(
            f"{ENV} names {found.repository}, and this workflow's token writes "
            f"{repository} only: publish to a branch of {repository}"
        )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    lay = sub.add_parser("layout", help="copy the site's notebooks to their published paths")
    lay.add_argument("site", type=Path)
    lay.add_argument("out", type=Path)
    lay.add_argument("--features", type=Path, default=ROOT / "docs" / "features.toml")
    lay.add_argument("--release", help="the release folder; default: the table's documented")
    put = sub.add_parser("push", help="commit a layout to the published branch and push it")
    put.add_argument("published", type=Path)
    put.add_argument("--remote", help="push here instead of the target's GitHub repository")
    put.add_argument("--message", default="Publish the notebooks")
    args = parser.parse_args(argv)
    if args.command == "layout":
        written = layout(args.site, args.out, args.features, args.release)
        print(f"{len(written)} notebooks laid out under {args.out}")
        return 0
    target = target_from_environment()
    changed = push(
        args.published,
        target,
        remote=args.remote,
        token=os.environ.get("GH_TOKEN", ""),
        message=args.message,
    )
    print(f"{target}: {'pushed' if changed else 'unchanged, nothing pushed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
