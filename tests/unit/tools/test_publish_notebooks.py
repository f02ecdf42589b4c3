"""tools/publish_notebooks.py and the docs workflow's notebooks job: the notebooks land
at the paths the pages link to (trtdocs.colab.published_path), on the branch
the setting names, pushed by the one job that may write to the repository."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml

from paths import ROOT, TOOLS
from scripts import load
from trtdocs.features.validate import load as load_features
from trtdocs import colab

publish = load("publish_notebooks", TOOLS)
DOCS = ["notebooks/install", "notebooks/run-cpp", "docs/building"]
TARGET = colab.Target.parse("someone/guide@notebooks")


def _site(tmp_path: Path, docs: list[str] = DOCS) -> Path:
    site = tmp_path / "html"
    site.mkdir(parents=True)
    entries = {}
    for doc in docs:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"print({doc!r})")])
        (site / doc).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, site / f"{doc}.ipynb")
        entries[doc] = {"status": "executed"}
    (site / "provenance.json").write_text(json.dumps({"notebooks": entries}))
    return site


def test_layout_puts_each_download_at_its_published_path(tmp_path: Path) -> None:
    site = _site(tmp_path)
    written = publish.layout(site, tmp_path / "out", ROOT / "docs" / "features.toml")
    documented = load_features(ROOT / "docs" / "features.toml").documented
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in written) == sorted(
        colab.published_path(documented, d) for d in DOCS
    )
    for doc in DOCS:
        out = tmp_path / "out" / colab.published_path(documented, doc)
        assert out.read_bytes() == (site / f"{doc}.ipynb").read_bytes()


def test_layout_refuses_a_site_without_a_download(tmp_path: Path) -> None:
    site = _site(tmp_path)
    (site / "notebooks" / "install.ipynb").unlink()
    with pytest.raises(FileNotFoundError, match="no download of notebooks/install"):
        publish.layout(site, tmp_path / "out", ROOT / "docs" / "features.toml")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def test_push_keeps_each_releases_folder_and_replaces_its_own(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    _git("init", "-q", "--bare", str(remote))
    first = tmp_path / "first"
    publish.layout(_site(tmp_path / "a"), first, ROOT / "docs" / "features.toml", "2.14")
    assert publish.push(first, TARGET, remote=str(remote)) is True
    assert publish.push(first, TARGET, remote=str(remote)) is False  # nothing new
    second = tmp_path / "second"
    publish.layout(_site(tmp_path / "b", DOCS[:1]), second, ROOT / "docs" / "features.toml", "2.15")
    assert publish.push(second, TARGET, remote=str(remote), message="next") is True
    files = _git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", "notebooks").split()
    assert sorted(files) == sorted(
        ["README.md", *(colab.published_path("2.14", d) for d in DOCS)]
        + [colab.published_path("2.15", DOCS[0])]
    )
    log = _git("--git-dir", str(remote), "log", "--format=%s", "notebooks").split("\n")
    assert log[:2] == ["next", "Publish the notebooks"]


def test_the_target_is_the_repository_the_token_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(colab.ENV, "someone/guide@notebooks")
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/guide")
    assert publish.target_from_environment() == TARGET
    monkeypatch.setenv("GITHUB_REPOSITORY", "fork/guide")
    with pytest.raises(SystemExit, match="writes fork/guide only"):
        publish.target_from_environment()
    monkeypatch.delenv(colab.ENV)
    with pytest.raises(SystemExit, match="is not set"):
        publish.target_from_environment()


def test_the_token_reaches_git_in_its_environment_only() -> None:
    env = publish.git_environment("secret-token")
    assert env["GIT_CONFIG_KEY_0"] == "http.https://github.com/.extraheader"
    assert env["GIT_CONFIG_VALUE_0"].startswith("AUTHORIZATION: basic ")
    assert "secret-token" not in env["GIT_CONFIG_VALUE_0"]  # base64, as actions/checkout sends it


# -- the workflow ----------------------------------------------------------------------------

DOCS_YML = ROOT / ".github" / "workflows" / "docs.yml"
VAR = "${{ vars.TRTDOCS_PUBLISHED_NOTEBOOKS }}"


def publish_problems(docs: dict[str, Any]) -> list[str]:
    """What keeps docs.yml from publishing what the pages link to; [] when nothing."""
    problems: list[str] = []
    site, job = docs["jobs"]["site"], docs["jobs"].get("notebooks")
    if job is None:
        return ["no notebooks job"]
    build = next(s for s in site["steps"] if "make html" in s.get("run", ""))
    if build.get("env", {}).get(colab.ENV) != VAR:
        problems.append(f"site: the build does not read {colab.ENV} from the repository variable")
    laid = [s for s in site["steps"] if "publish_notebooks.py layout" in s.get("run", "")]
    uploads = [s for s in site["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    if len(laid) != 1 or len(uploads) != 1:
        return problems + ["site: no one layout step and one upload of it"]
    out = laid[0]["run"].split()[-1]
    if uploads[0]["with"]["path"].rstrip("/") != out.rstrip("/"):
        problems.append("site: the upload is not the layout")
    if job.get("needs") != "site" or "refs/heads/main" not in job.get("if", ""):
        problems.append("notebooks: does not run after the site job, on main only")
    if job.get("permissions") != {"contents": "write"}:
        problems.append(f"notebooks: permissions {job.get('permissions')} are not contents: write")
    downloads = [s for s in job["steps"] if s.get("uses", "").startswith("actions/download-")]
    if [d["with"].get("name") for d in downloads] != [uploads[0]["with"]["name"]]:
        problems.append("notebooks: does not download the site job's layout")
    pushes = [s for s in job["steps"] if "publish_notebooks.py push" in s.get("run", "")]
    if len(pushes) != 1 or pushes[0].get("env", {}).get(colab.ENV) != VAR:
        problems.append(f"notebooks: the push does not read {colab.ENV} as the build does")
    elif downloads and downloads[0]["with"]["path"].rstrip("/") not in pushes[0]["run"]:
        problems.append("notebooks: the push is not of what it downloaded")
    writers = [
        name
        for name, other in docs["jobs"].items()
        if name != "notebooks" and other.get("permissions", {}).get("contents") == "write"
    ]
    if writers:
        problems.append(f"{writers}: write the repository's contents")
    return problems


def test_the_workflow_publishes_what_the_pages_link_to() -> None:
    assert publish_problems(yaml.safe_load(DOCS_YML.read_text())) == []


def test_the_publish_check_catches_planted_breaks() -> None:
    def planted(change) -> list[str]:
        docs = copy.deepcopy(yaml.safe_load(DOCS_YML.read_text()))
        change(docs["jobs"])
        return publish_problems(docs)

    def step(jobs: dict[str, Any], job: str, needle: str) -> dict[str, Any]:
        return next(s for s in jobs[job]["steps"] if needle in s.get("run", s.get("uses", "")))

    assert planted(lambda j: j["notebooks"]["permissions"].update(actions="write")) == [
        "notebooks: permissions {'contents': 'write', 'actions': 'write'} are not contents: write"
    ]
    assert planted(lambda j: j["site"].update(permissions={"contents": "write"})) == [
        "['site']: write the repository's contents"
    ]
    assert planted(lambda j: j["notebooks"].update({"if": "always()"})) == [
        "notebooks: does not run after the site job, on main only"
    ]
    assert planted(lambda j: step(j, "site", "make html").pop("env")) == [
        f"site: the build does not read {colab.ENV} from the repository variable"
    ]
    assert planted(
        lambda j: step(j, "notebooks", "download-artifact")["with"].update(name="records")
    ) == ["notebooks: does not download the site job's layout"]
    assert planted(lambda j: step(j, "site", "upload-artifact")["with"].update(path="_build/")) == [
        "site: the upload is not the layout"
    ]
