"""The notebooks as Jupyter sees them: read by jupytext (not myst-nb), executed
by nbclient outside Sphinx with the build's gating, and compared with the
outputs the site build published; and `make lab` opening them as notebooks."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import jupytext
import nbformat
import pytest
from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook

from conftest import ROOT
from reader_site import provenance
from trtdocs.features.validate import load as load_features
from trtdocs.notebooks import gating, plan as gating_plan
from trtdocs.notebooks.environment import Environment

NOTEBOOKS = sorted(p for d in ("notebooks", "docs") for p in (ROOT / d).rglob("*.md")
                   if "_" not in p.relative_to(ROOT).parts[1][:1] and is_myst_markdown_notebook(p.read_text()))
IDS = [str(p.relative_to(ROOT).with_suffix("")) for p in NOTEBOOKS]
# What varies between two runs of the same code on the same machine.
VOLATILE = [
    # the site shows installed files from site-packages (trtdocs.buildpaths); a kernel prints the full path
    (re.compile(r"(?:/[^\s/:'\"]+)+/site-packages(?=/)"), "site-packages"),
    (re.compile(r"0x[0-9a-fA-F]{4,}"), "0x<addr>"),
    (re.compile(r"(/tmp|/var/folders)/[^\s'\"]+"), "<tmp>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?"), "<timestamp>"),
    (re.compile(r"\b\d\d:\d\d:\d\d\.\d{6}\b"), "<clock>"),  # ExecuTorch's log lines: time since start
    # torch's glog-style warnings (W1203 <clock> 15943 torch/utils/_pytree.py:...): month, day and process id
    (re.compile(r"\b([IWEF])\d{4} <clock> \d+\b"), r"\1<date> <clock> <pid>"),
    (re.compile(r"\b\d+(\.\d+)?(e-?\d+)?\s?(ms|µs|us|ns|s|sec|seconds)\b"), "<duration>"),
]


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 3, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_jupytext_reads_what_sphinx_reads(path: Path) -> None:
    """MyST-only syntax shows up here: Jupyter would see other cells than the site."""
    text = path.read_text()
    site = read_myst_markdown_notebook(text)
    jupyter = jupytext.read(path)
    assert jupyter.metadata.get("kernelspec") == site.metadata.get("kernelspec")
    assert [c.cell_type for c in jupyter.cells] == [c.cell_type for c in site.cells], \
        f"{path.name}: jupytext splits the cells differently from myst-nb"
    for number, (j, s) in enumerate(zip(jupyter.cells, site.cells), start=1):
        assert j.source == s.source, f"{path.name} cell {number}: jupytext reads another source"
        if j.cell_type == "code":
            assert dict(j.metadata) == dict(s.metadata), f"{path.name} cell {number}: options differ: {j.metadata} != {s.metadata}"


def _normalise(text: str) -> str:
    for pattern, repl in VOLATILE:
        text = pattern.sub(repl, text)
    return text


def test_glog_prefix_is_masked_but_not_the_message() -> None:
    first = "W1203 06:08:37.131000 15943 torch/utils/_pytree.py:630] <enum 'KernelPreference'> ..."
    second = "W1204 17:00:01.000002 3671 torch/utils/_pytree.py:630] <enum 'KernelPreference'> ..."
    assert _normalise(first) == _normalise(second)
    assert _normalise(first) != _normalise(first.replace("KernelPreference", "Other"))


def _outputs(cell: nbformat.NotebookNode) -> dict[str, object]:
    """A cell's outputs, streams merged (as the site renders them), volatile parts masked."""
    streams: dict[str, str] = {}
    rich: list[dict[str, str]] = []
    errors: list[str] = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            streams[out.name] = streams.get(out.name, "") + out.text
        elif out.output_type in ("execute_result", "display_data"):
            rich.append({mime: _normalise(v if isinstance(v, str) else "".join(v)) if mime.startswith("text/") else "<binary>"
                         for mime, v in out.data.items()})
        elif out.output_type == "error":
            errors.append(f"{out.ename}: {_normalise(out.evalue)}")
    return {"streams": {k: _normalise(v) for k, v in sorted(streams.items())}, "rich": rich, "errors": errors}


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_runs_in_jupyter_like_on_the_site(path: Path, built_site: Path, monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    doc = str(path.relative_to(ROOT).with_suffix(""))
    entry = provenance(built_site)["notebooks"][doc]
    if entry["status"] == "not executed":
        pytest.skip(f"{doc}: no cell runs on this machine ({entry['reason']})")
    if entry["status"] == "recorded":
        pytest.skip(f"{doc}: shows outputs recorded elsewhere; it does not run on this machine")
    built_skips = {s["cell"] for s in entry["cells_not_executed"]}

    nb = jupytext.read(path)
    # The build's gating, applied to what jupytext read: same machine probe,
    # same features table, same skip-execution tags.
    probe = Environment.from_json(json.loads((built_site.parent / "trtdocs" / "environment.json").read_text()))
    table = load_features(ROOT / "docs" / "features.toml")
    context = gating_plan.BuildContext(
        environment=probe, features=table.requirement,
        disabled=frozenset(filter(None, (s.strip() for s in os.environ.get("TRTDOCS_DISABLE", "").split(",")))),
        record_dir=ROOT / "notebooks" / "_recorded",
        import_roots=(ROOT / "notebooks",), srcdir=ROOT)
    plan = gating.gate(nb, context, doc)
    assert {s.number for s in plan.skipped} == built_skips, \
        f"{doc}: gating outside Sphinx skips {[s.number for s in plan.skipped]}, the build skipped {sorted(built_skips)}"

    from nbclient import NotebookClient

    # The kernel sees what it sees under `make lab` and the build: not the guide's extension.
    monkeypatch.delenv("PYTHONPATH", raising=False)
    # In a fresh folder, as the build runs it (nb_execution_in_temp): a notebook writes the files a later
    # page reads (programs/) and run-cpp its CMake project relative to where it runs, and a second run in
    # the same folder would print "Overwriting main.cpp" where the site shows "Writing main.cpp".
    NotebookClient(nb, timeout=600, kernel_name="python3", skip_cells_with_tag=gating_plan.SKIP_TAG,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()

    site = nbformat.read(built_site / f"{doc}.ipynb", as_version=4)
    ours = [c for c in nb.cells if c.cell_type == "code"]
    theirs = [c for c in site.cells if c.cell_type == "code"]
    assert len(ours) == len(theirs)
    for number, (mine, built) in enumerate(zip(ours, theirs), start=1):
        assert _outputs(mine) == _outputs(built), f"{doc} cell {number}: Jupyter's outputs differ from the site's"
        assert (number in built_skips) == (mine.execution_count is None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def test_make_lab_opens_md_notebooks_as_notebooks(tmp_path: Path) -> None:
    port, token = _free_port(), "reader-test"
    opts = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token} --ServerApp.port_retries=0"
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"), BROWSER="true")
    # VENV: this test's own venv, so that make never creates one.
    proc = subprocess.Popen(["make", "-s", "lab", f"VENV={sys.prefix}", f"LAB_OPTS={opts}"], cwd=ROOT, env=env,
                            start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                _get(f"{base}/api/status", token)
                break
            except OSError:
                assert proc.poll() is None, f"make lab exited:\n{proc.stdout.read()}"
                assert time.monotonic() < deadline, "JupyterLab did not start in 120 s"
                time.sleep(1)
        model = _get(f"{base}/api/contents/notebooks/export-on-cpu.md?type=notebook", token)
        assert model["type"] == "notebook"
        cells = model["content"]["cells"]
        expected = jupytext.read(ROOT / "notebooks" / "export-on-cpu.md").cells
        assert [c["cell_type"] for c in cells] == [c.cell_type for c in expected]
        settings = _get(f"{base}/lab/api/settings/@jupyterlab/docmanager-extension:plugin", token)
        # the override is the setting's default; a user setting would win over it
        viewers = settings.get("composite", {}).get("defaultViewers") or \
            settings["schema"]["properties"]["defaultViewers"]["default"]
        assert viewers.get("markdown") == "Jupytext Notebook" and viewers.get("myst") == "Jupytext Notebook", viewers
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
