"""Outputs as a reader sees them: tracebacks trimmed to the reader's frames
(trtdocs.output.tracebacks), ExecuTorch's cpuinfo lines left out
(trtdocs.output.lognoise), build-machine paths shortened
(trtdocs.output.buildpaths), and the one line of a not-executed mark
(trtdocs.notebooks.marks)."""

from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path
from types import SimpleNamespace

from trtdocs.notebooks.banner import running_time
from trtdocs.notebooks.marks import mark_line
from trtdocs.output.buildpaths import replacements, scrub
from trtdocs.output.lognoise import quiet
from trtdocs.output.tracebacks import trim

SITE = sysconfig.get_paths()["purelib"]

TRACEBACK = f"""---------------------------------------------------------------------------
ValueError                                Traceback (most recent call last)
Cell In[5], line 1
----> 1 lower(config)

Cell In[2], line 8, in lower(config)
      6     edge = make()
----> 8     return edge.to_executorch(config)

File {SITE}/executorch/exir/program/_program.py:1702, in \
EdgeProgramManager.to_executorch(self, config)
   1700 def to_executorch(self, config):
-> 1702     return self._run(config)

File {SITE}/executorch/exir/passes/memory.py:40, in check(config)
     38 if bad:
---> 40     raise ValueError("skip options need planning")

File {SITE}/torch/_ops.py:10, in wrapper()
   (...)      9
---> 10     return f()

ValueError: skip options need planning"""


def test_trim_keeps_the_cells_frames_and_the_exception() -> None:
    lines = trim(TRACEBACK).rstrip("\n").splitlines()
    assert lines[-1] == "ValueError: skip options need planning"
    assert "Cell In[5], line 1" in lines and "Cell In[2], line 8, in lower(config)" in lines
    assert "----> 8     return edge.to_executorch(config)" in lines
    assert not [line for line in lines if line.startswith("File ") or "_program.py" in line]
    assert "(3 frames inside executorch and torch not shown)" in lines


def test_trim_leaves_a_traceback_without_library_frames_alone() -> None:
    text = (
        "ZeroDivisionError    Traceback (most recent call last)\nCell In[1], line 1\n----> 1 1 / "
        "0\n\nZeroDivisionError: division by zero\n"
    )
    assert trim(text) == text


def test_trim_names_generated_code() -> None:
    text = (
        "Cell In[4], line 1\n----> 1 f()\n\nFile <eval_with_key>.85:5, in forward(self, x)\n      "
        "5 y = x\n\nAssertionError: Guard failed\n"
    )
    assert "(1 frame inside generated code not shown)" in trim(text)


def test_quiet_drops_only_cpuinfo_lines() -> None:
    text = (
        "[cpuinfo_utils.cpp:71] Reading file /sys/devices/soc0/image_version\n"
        "[method.cpp:85] Backend ExportOnlyBackend is not registered.\n"
        "[cpuinfo_utils.cpp:125] CPU info and manual query on # of cpus dont match.\n"
    )
    assert quiet(text) == "[method.cpp:85] Backend ExportOnlyBackend is not registered.\n"
    assert quiet("no log here\n") == "no log here\n"


def test_build_paths_are_shortened(tmp_path: Path) -> None:
    app = SimpleNamespace(outdir=str(tmp_path / "_build" / "html"), srcdir=str(tmp_path / "src"))
    rules = replacements(app)
    text = (
        f"File {SITE}/torch/_ops.py:10\n{sys.prefix}/bin/python\n{tmp_path}/src/notebooks/a.md\n"
        f"{tmp_path}/_build/jupyter_execute/a.ipynb\n/tmp/ipykernel_4242/3110.py:3\n"
    )
    shown = scrub(text, rules)
    assert shown == (
        "File site-packages/torch/_ops.py:10\n<venv>/bin/python\n./notebooks/a.md\n"
        "_build/jupyter_execute/a.ipynb\n<cell>:3\n"
    )
    assert str(Path.home()) + "/" not in scrub(f"{Path.home()}/.cache/x", rules)


def test_mark_line_in_a_few_words() -> None:
    assert (
        mark_line(["cuda", "tensorrt"], {})
        == "Not run in this build: needs a CUDA GPU with TensorRT."
    )
    assert mark_line(
        ["tensorrt", "cuda", "feature:multi-profile"],
        {"feature:multi-profile": "torch_tensorrt>=2.15 for feature multi-profile"},
    ) == (
        "Not run in this build: needs a CUDA GPU with TensorRT and torch_tensorrt>=2.15 for "
        "feature multi-profile."
    )
    assert mark_line(["cuda"], {}) == "Not run in this build: needs a CUDA GPU."
    assert mark_line([], {}).startswith("Not run in this build: it uses a result of a cell above")


def test_running_time_in_minutes_and_seconds() -> None:
    shown = running_time({"status": "executed", "duration_s": 75.26}).astext()
    assert shown == "Total running time of this notebook: 1 min 15.3 s."
    assert running_time({"status": "not executed", "duration_s": 1.0}) is None
    recorded = running_time(
        {
            "status": "recorded",
            "duration_s": 3.0,
            "environment": {"cuda_available": True, "gpu_name": "NVIDIA H100"},
        }
    ).astext()
    assert re.search(r"0 min 3\.0 s \(recorded on NVIDIA H100\)", recorded), recorded
