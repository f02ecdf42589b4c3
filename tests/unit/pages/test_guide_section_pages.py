"""Static checks of the "Start here" and "The guide" pages (overview, install,
export-pte, cuda-backend, save-and-export, run-python, run-cpp)."""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

from paths import ROOT

PAGES = (
    "overview",
    "install",
    "export-pte",
    "cuda-backend",
    "save-and-export",
    "run-python",
    "run-cpp",
)
FENCE = re.compile(r"^(`{3,}|:{3,})")
# A Torch-TensorRT release number in prose (ExecuTorch 1.x and CUDA 13.x do not match).
TRT_VERSION = re.compile(r"\b2\.1\d\b")
# Code that needs TensorRT or a GPU to run.
NEEDS_TRT = re.compile(
    r"^\s*(import "
    r"torch_tensorrt\s*$|torch_tensorrt\.(compile|save|load|dynamo|executorch)\b)|\.cuda\(\)",
    re.MULTILINE,
)


def prose_lines(path: Path):
    """(line number, text) of every line outside fenced blocks and front matter."""
    lines = path.read_text().splitlines()
    fence = None
    start = lines.index("---", 1) + 1 if lines and lines[0] == "---" else 0
    for number, line in enumerate(lines[start:], start + 1):
        match = FENCE.match(line.strip())
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None:
            yield number, line


@pytest.mark.parametrize("page", PAGES)
def test_no_release_number_in_prose(page: str) -> None:
    path = ROOT / "notebooks" / f"{page}.md"
    bad = [
        f"{path.name}:{n}: {line.strip()}"
        for n, line in prose_lines(path)
        if TRT_VERSION.search(line) and not line.lstrip().startswith("|")
    ]
    assert not bad, (
        "release numbers belong in feature notes, install commands or the release table:\n"
        + "\n".join(bad)
    )


@pytest.mark.parametrize("page", PAGES)
def test_trt_cells_are_gated(page: str) -> None:
    path = ROOT / "notebooks" / f"{page}.md"
    notebook = jupytext.read(path)
    page_needs = set(notebook.metadata.get("requires", []))
    ungated = []
    for index, cell in enumerate(c for c in notebook.cells if c.cell_type == "code"):
        needs = page_needs | set(cell.metadata.get("requires", []))
        if NEEDS_TRT.search(cell.source) and not {"cuda", "tensorrt"} <= needs:
            ungated.append(f"{path.name}: code cell {index + 1}: {cell.source.splitlines()[0]}")
    assert not ungated, (
        "cells that use TensorRT or a GPU need ':requires: [cuda, tensorrt]':\n"
        + "\n".join(ungated)
    )


def test_save_option_table_comes_from_the_data_file() -> None:
    # The table is rendered from docs/data/save-options.toml and checked against the
    # installed save() by the drift guard (tests/unit/drift/test_drift_options.py).
    page = (ROOT / "notebooks" / "save-and-export.md").read_text()
    assert "```{data-table} save-options\n```" in page
    assert not re.search(r"^\| `\w+` \|", page, flags=re.MULTILINE), (
        "a hand-written option table is back"
    )


def test_index_lists_the_guide_in_reading_order() -> None:
    index = (ROOT / "index.md").read_text()
    listed = re.findall(r"^notebooks/([\w-]+)$", index, flags=re.MULTILINE)
    assert [p for p in listed if p in PAGES] == list(PAGES)
