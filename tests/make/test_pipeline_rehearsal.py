"""The GPU pipeline rehearsed on a CPU, through the commands its workflows run.

No GPU runs the workflows here, so this is their proof: the fixture site
(tests/roots/test-pipeline) is planned by the plan job's command
(gpu-shards.yml), each shard is recorded by the execute job's ``make record``
command with the job's environment, in a fresh checkout, and the records it
uploads are gathered as docs.yml's site job downloads them, into a fresh
checkout whose ``make html`` step builds the site. Every command is read from
the workflow files, so the two cannot drift.

The CPU stands in for the GPU machines: the fixture's pages need
``executorch>=1.4``, which this venv has; the site job's machine is told it
lacks it (``TRTDOCS_DISABLE``), as the real one lacks a GPU. One page also has
a cell that needs a newer Torch-TensorRT release than the installed one (a
``feature:`` of the features table), and a cell that reads its result: the
shard that holds it passes its strict run and records the page with both
marked. Not rehearsed: creating the venv and installing the GPU stack (this
venv is used), and the deploy job.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml
from bs4 import BeautifulSoup

import records
from paths import EXT, ROOT, TOOLS
from sites import ENV_SETTINGS, REAL_TABLE, copy_root
from trtdocs.features.validate import load as load_features
from trtdocs.notebooks import recorded
from trtdocs.notebooks.environment import probe

WORKFLOWS = ROOT / ".github" / "workflows"
CHANNEL = "release"  # docs.yml's gpu job
SHARDS = 2  # the repository variable GPU_SHARDS may set any count
GPU_STAND_IN = "executorch>=1.4"  # what the fixture's pages need, and the site job's machine lacks
NEWER = "feature:multi-profile"  # beta's cell that the installed release lacks
EXPRESSION = re.compile(r"\$\{\{\s*(inputs|matrix)\.(\w+)\s*\}\}")


def _job(workflow: str, job: str) -> dict[str, Any]:
    return yaml.safe_load((WORKFLOWS / workflow).read_text())["jobs"][job]


def _step(job: Mapping[str, Any], where: str, match: str) -> dict[str, Any]:
    """The one step whose ``run`` starts with ``match`` (where="run") or that uses ``match``."""
    found = [s for s in job["steps"] if str(s.get(where, "")).startswith(match)]
    assert len(found) == 1, f"expected one step with {where} {match!r}, found {len(found)}"
    return found[0]


def _expand(text: str, values: Mapping[str, Mapping[str, Any]]) -> str:
    """A workflow's ``${{ inputs.x }}`` and ``${{ matrix.x }}`` with this run's values."""
    out = EXPRESSION.sub(lambda m: str(values[m.group(1)][m.group(2)]), str(text))
    assert "${{" not in out, f"an expression this rehearsal does not evaluate: {out}"
    return out


def _words(run: str) -> list[str]:
    (line,) = [ln for ln in run.strip().splitlines() if ln.strip()]
    return shlex.split(line)


def _environment(extra: Mapping[str, str]) -> dict[str, str]:
    """This machine's environment, none of the build's settings but ``extra``; CI as on a runner."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ENV_SETTINGS and k not in ("NOTEBOOKS", "RECORD_OUT", "PYTEST_ADDOPTS")
    }
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXT), env.get("PYTHONPATH")]))
    return {**env, "CI": "true", **extra}


def _checkout(tmp: Path, name: str) -> Path:
    """A fresh runner's checkout of the fixture: the site and the features table."""
    site = copy_root("pipeline", tmp / name)
    (site / "docs").mkdir()
    shutil.copy(REAL_TABLE, site / "docs" / "features.toml")
    return site


def _make(checkout: Path, run: str, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """A step's ``make`` command in ``checkout`` (its source and build folders), with this venv."""
    words = _words(run)
    assert words[0] == "make", run
    return subprocess.run(
        [
            "make",
            "-s",
            "-C",
            str(ROOT),
            *words[1:],
            f"SOURCEDIR={checkout}",
            f"BUILDDIR={checkout / '_build'}",
            f"VENV={sys.prefix}",
            "DOT=/bin/true",
        ],
        capture_output=True,
        text=True,
        env=_environment(env),
        timeout=900,
    )


def _plan(tmp: Path) -> list[dict[str, Any]]:
    """The plan job's command, on a checkout of the fixture site (``--root``): its matrix."""
    step = _step(_job("gpu-shards.yml", "plan"), "id", "plan")
    output = tmp / "github_output"
    env = {"SHARDS": str(SHARDS), "GITHUB_OUTPUT": str(output)}  # the step's env, and the runner's
    words = [env[w[1:]] if w.startswith("$") else w for w in _words(step["run"])]
    assert words[:2] == ["python", "tools/shard.py"], step["run"]
    root = _checkout(tmp, "plan")
    result = subprocess.run(
        [sys.executable, str(TOOLS / "shard.py"), *words[2:], "--root", str(root)],
        capture_output=True,
        text=True,
        env=_environment({}),
    )
    assert result.returncode == 0, result.stderr
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return json.loads(outputs["matrix"])["include"]


def _shard(
    tmp: Path, entry: Mapping[str, Any]
) -> tuple[subprocess.CompletedProcess[str], dict[str, Path]]:
    """One execute job: its environment, its record step, what its upload steps take."""
    job = _job("gpu-shards.yml", "execute")
    values = {"inputs": {"channel": CHANNEL}, "matrix": entry}
    checkout = _checkout(tmp, f"shard-{entry['shard']}")
    env = {k: _expand(v, values) for k, v in job["env"].items()}
    result = _make(checkout, _step(job, "run", "make record")["run"], env)
    uploads = {}
    for step in job["steps"]:
        if str(step.get("uses", "")).startswith("actions/upload-artifact@"):
            uploads[_expand(step["with"]["name"], values)] = checkout / step["with"]["path"]
    return result, uploads


def _site(
    tmp: Path, name: str, artifacts: Mapping[str, Path], plant: Any = None
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """docs.yml's site job: the records downloaded into a fresh checkout, its build step."""
    job = _job("docs.yml", "site")
    checkout = _checkout(tmp, name)
    download = _step(job, "uses", "actions/download-artifact@")["with"]
    assert download["merge-multiple"] is True
    target = checkout / download["path"]
    target.mkdir(parents=True)
    for artifact, folder in artifacts.items():
        if fnmatch.fnmatchcase(artifact, download["pattern"]) and folder.is_dir():
            for path in folder.iterdir():
                shutil.copy(path, target / path.name)
    _verify_and_copy(job, checkout, tmp / f"{name}-gh")
    if plant is not None:
        plant(checkout)
    build = _step(job, "run", "make html")["run"]
    return _make(checkout, build, {"TRTDOCS_DISABLE": GPU_STAND_IN}), checkout


def _verify_and_copy(job: Mapping[str, Any], checkout: Path, bin_dir: Path) -> None:
    """The site job's verify step, its script run as written. GitHub's attestation
    service cannot be reached here: a stand-in ``gh`` logs each call and succeeds,
    so the test checks which records the step verifies, with what, and the copy."""
    [step] = [s for s in job["steps"] if "gh attestation verify" in str(s.get("run", ""))]
    bin_dir.mkdir()
    log = bin_dir / "calls"
    gh = bin_dir / "gh"
    gh.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {shlex.quote(str(log))}\n')
    gh.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "GH_TOKEN": "token",
        "REPO": "owner/repo",
    }
    result = subprocess.run(
        ["bash", "-e", "-c", step["run"]], cwd=checkout, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    downloaded = sorted(p.name for p in (checkout / "_build" / "records").glob("*.ipynb"))
    calls = log.read_text().splitlines() if log.exists() else []
    assert [c.split()[2].rsplit("/", 1)[-1] for c in calls] == downloaded
    assert all(
        "--repo owner/repo --signer-workflow owner/repo/.github/workflows/gpu-shards.yml" in c
        for c in calls
    )
    copied = sorted(p.name for p in (checkout / "notebooks" / "_recorded").glob("*.ipynb"))
    assert set(downloaded) <= set(copied)


@pytest.fixture(scope="module")
def installed() -> str:
    """This venv's torch_tensorrt, as the gating's probe reports it."""
    version = probe().versions["torch_tensorrt"]
    assert version is not None, (
        "the venv has no torch_tensorrt (requirements-trt-nodeps.txt installs it)"
    )
    return version


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("rehearsal")
    matrix = _plan(tmp)
    artifacts: dict[str, Path] = {}
    shards = {}
    for entry in matrix:
        result, uploads = _shard(tmp, entry)
        shards[entry["shard"]] = result
        artifacts.update(uploads)
    return {"tmp": tmp, "matrix": matrix, "shards": shards, "artifacts": artifacts}


def test_the_installed_release_lacks_the_newer_cell_s_feature(installed: str) -> None:
    """The rehearsal's premise: this venv's torch_tensorrt is below what beta's newer cell needs."""
    needed = load_features(REAL_TABLE).requirement(NEWER.removeprefix("feature:"))
    assert not needed.specifier.contains(installed, prereleases=True), (
        f"torch_tensorrt {installed} meets {needed}: give beta's cell a feature the installed "
        "release lacks"
    )


def test_every_page_is_planned_once(pipeline: dict[str, Any]) -> None:
    pages = sorted(
        f"notebooks/{p.stem}" for p in (ROOT / "tests/roots/test-pipeline/notebooks").glob("*.md")
    )
    placed = [doc for entry in pipeline["matrix"] for doc in entry["notebooks"].split()]
    assert sorted(placed) == pages and len(pipeline["matrix"]) == SHARDS


def test_every_shard_passes_its_strict_run_and_uploads_its_records(
    pipeline: dict[str, Any],
) -> None:
    for shard, result in pipeline["shards"].items():
        assert result.returncode == 0, f"shard {shard}:\n{result.stdout}\n{result.stderr}"
    made = {
        p.name
        for name, folder in pipeline["artifacts"].items()
        if name.startswith("records-") and folder.is_dir()
        for p in folder.iterdir()
    }
    # plain needs nothing: the site job executes it
    assert made == {"notebooks__alpha.ipynb", "notebooks__beta.ipynb", "notebooks__gamma.ipynb"}
    (beta_shard,) = [
        e["shard"] for e in pipeline["matrix"] if "notebooks/beta" in e["notebooks"].split()
    ]
    log = pipeline["shards"][beta_shard].stdout
    assert (
        "REQUIRE_ALL: notebooks/beta: 2 of 3 code cells need a newer release than the installed one"
        in log
    )


def test_the_record_lists_the_cells_its_release_lacked(
    pipeline: dict[str, Any], installed: str
) -> None:
    (folder,) = [
        f
        for name, f in pipeline["artifacts"].items()
        if name.startswith("records-") and (f / "notebooks__beta.ipynb").is_file()
    ]
    record = recorded.load(folder / "notebooks__beta.ipynb")
    assert record is not None and record.provenance["status"] == "partly executed"
    assert [(n, needs) for n, needs, _ in record.skipped] == [(2, (NEWER,)), (3, ())]
    assert record.skipped[0][2].endswith(f"torch_tensorrt {installed} is installed")
    outputs = [c.outputs for c in record.notebook.cells if c.cell_type == "code"]
    assert "beta 45" in outputs[0][0]["text"] and outputs[1:] == [[], []]


def test_the_site_job_builds_from_the_records(pipeline: dict[str, Any]) -> None:
    result, checkout = _site(pipeline["tmp"], "site", pipeline["artifacts"])
    assert result.returncode == 0, result.stdout + result.stderr
    html = checkout / "_build" / "html"
    entries = json.loads((html / "provenance.json").read_text())["notebooks"]
    assert {doc: e["status"] for doc, e in entries.items()} == {
        "notebooks/alpha": "recorded",
        "notebooks/beta": "recorded",
        "notebooks/gamma": "recorded",
        "notebooks/plain": "executed",
    }
    assert [c["cell"] for c in entries["notebooks/beta"]["cells_not_executed"]] == [2, 3]
    page = BeautifulSoup((html / "notebooks" / "beta.html").read_text(), "html.parser")
    marks = [
        m.find("summary").get_text(" ", strip=True) for m in page.select(".trtdocs-not-executed")
    ]
    assert len(marks) == 2 and all(
        m.startswith("Not run where these outputs were recorded: ") for m in marks
    )
    assert marks[1].endswith("it uses a result of a cell above that did not run.")
    banner = page.select_one(".trtdocs-status").get_text(" ", strip=True)
    assert (
        "2 of 3 code cells did not run there, because that machine's release lacks what they need"
        in banner
    )
    download = nbformat.read(html / "notebooks" / "beta.ipynb", as_version=4)
    notes = [
        c.source
        for c in download.cells
        if c.source.startswith("> **Not executed where these outputs")
    ]
    assert len(notes) == 2


def _edit_gamma(checkout: Path) -> None:
    """A code cell changed after its shard recorded it."""
    page = checkout / "notebooks" / "gamma.md"
    page.write_text(page.read_text().replace('print("gamma reads"', 'print("gamma read"'))


def _older_release(checkout: Path) -> None:
    """beta's record made on a runner with an older torch_tensorrt than the documented release's."""
    records.made_with(
        checkout / "notebooks" / "_recorded" / "notebooks__beta.ipynb", torch_tensorrt="2.13.0"
    )


@pytest.mark.parametrize(
    ("plant", "error"),
    [
        (
            _edit_gamma,
            "notebooks/gamma.md:1: ERROR: stale record notebooks/_recorded/notebooks__gamma.ipynb: "
            "made from source",
        ),
        (
            _older_release,
            "notebooks/beta.md:1: ERROR: stale record notebooks/_recorded/notebooks__beta.ipynb: "
            "made with torch_tensorrt 2.13.0, outside the documented release's ==",
        ),
    ],
)
def test_a_stale_record_fails_the_site_job(
    pipeline: dict[str, Any], plant: Any, error: str
) -> None:
    result, checkout = _site(
        pipeline["tmp"], f"site-{plant.__name__}", pipeline["artifacts"], plant
    )
    assert result.returncode != 0
    log = result.stdout + result.stderr
    assert error in log, log
    assert "the build FAILED" in log and not (checkout / "_build" / "html").exists()
