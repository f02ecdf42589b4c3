"""A notebook's kernel gets the variables its job names (the C++ package's folder,
cxxsdk.kernel_env), passed to that kernel alone: the build's own environment is
left as it was."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat

from trtdocs.notebooks.execute import Job, run_one

PROBE = "TRTDOCS_KERNEL_PROBE"


def _probe(tmp_path: Path, env: dict[str, str]) -> str:
    cell = (
        "import os, pathlib\n"
        f"pathlib.Path('probe.txt').write_text(os.environ.get({PROBE!r}, 'unset'))"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    job = Job("probe", tmp_path / "probe.md", nb, timeout=120, allow_errors=False, env=env)
    outcome = run_one(job, run, tmp_path / "cache")
    assert outcome.error is None, outcome.error
    return (run / "probe.txt").read_text(encoding="utf-8")


def test_the_kernel_gets_the_jobs_variables_and_the_build_does_not(tmp_path: Path) -> None:
    assert PROBE not in os.environ
    assert _probe(tmp_path, {PROBE: "given"}) == "given"
    assert PROBE not in os.environ
    # planted: a job that names nothing; its kernel has only the build's environment
    assert _probe(tmp_path, {}) == "unset"
