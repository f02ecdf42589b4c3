"""`make lab` opens the .md notebooks in JupyterLab as notebooks (jupytext's
default viewer, written into the venv's settings)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import jupytext

from paths import ROOT


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
    opts = (
        f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token} "
        "--ServerApp.port_retries=0"
    )
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"), BROWSER="true")
    # VENV: this test's own venv, so that make never creates one.
    proc = subprocess.Popen(
        ["make", "-s", "lab", f"VENV={sys.prefix}", f"LAB_OPTS={opts}"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
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
        viewers = (
            settings.get("composite", {}).get("defaultViewers")
            or settings["schema"]["properties"]["defaultViewers"]["default"]
        )
        assert (
            viewers.get("markdown") == "Jupytext Notebook"
            and viewers.get("myst") == "Jupytext Notebook"
        ), viewers
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
