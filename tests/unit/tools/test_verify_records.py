"""tools/verify_records.py: the hand check of records that docs/building.md shows."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import nbformat
import pytest
from myst_nb.core.read import read_myst_markdown_notebook

import records
from paths import TOOLS
from scripts import load
from trtdocs.notebooks import recorded

verify_records = load("verify_records", TOOLS)

PAGE = """---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  name: python3
---
# Page

```{code-cell} python
print("recorded value", 6 * 7)
```
"""


def _site(tmp_path: Path) -> tuple[Path, Path]:
    """A root with one page and the record `make record` writes for it."""
    (tmp_path / "notebooks").mkdir()
    page = tmp_path / "notebooks" / "page.md"
    page.write_text(PAGE)
    source = read_myst_markdown_notebook(PAGE)
    executed = read_myst_markdown_notebook(PAGE)
    cell = next(c for c in executed.cells if c.cell_type == "code")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="recorded value 42\n")]
    cell.execution_count = 1
    path = recorded.record_path(tmp_path / "notebooks" / "_recorded", "notebooks/page")
    provenance = {
        "status": "executed",
        "code_cells": 1,
        "cells_not_executed": [],
        "environment": {"gpu_name": None, "cuda_available": False},
    }
    recorded.write(path, source, executed, provenance)
    return tmp_path, path


def test_a_record_verifies_and_shows_its_file_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, path = _site(tmp_path)
    assert verify_records.main(["--root", str(root)]) == 0
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert capsys.readouterr().out == f"{path}: verified (file sha256:{digest})\n"


@pytest.mark.parametrize(
    ("plant", "why"),
    [
        (
            lambda p: records.edit_output_line(p, "recorded value 42", "recorded value 43"),
            "the outputs of code cell 1 (line 10) differ from those `make record` wrote",
        ),
        (records.strip_outputs, "its 1 code cell that ran holds no outputs"),
        (records.claim_a_gpu, "its provenance (metadata.trtdocs_record.provenance) differs"),
        (records.cut_short, "it is not a notebook"),
    ],
)
def test_each_planted_record_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], plant, why: str
) -> None:
    root, path = _site(tmp_path)
    plant(path)
    assert verify_records.main(["--root", str(root), str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: FAILED: {why}"), err
    assert err.rstrip().endswith("re-record it with `make record NOTEBOOKS=notebooks/page`"), err


def test_a_record_of_no_page_and_a_stale_record_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, path = _site(tmp_path)
    orphan = path.with_name("notebooks__gone.ipynb")
    shutil.copy(path, orphan)
    (root / "notebooks" / "page.md").write_text(PAGE.replace("6 * 7", "6 * 8"))
    assert verify_records.main(["--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"{orphan}: FAILED: record of notebooks/gone, which is not a page" in err
    assert f"{path}: FAILED: stale: made from source" in err
