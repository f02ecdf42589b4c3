"""Checks on the guide's pages (overview, install, export-pte, cuda-backend,
save-and-export, run-python, run-cpp) that do not need a build."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("overview", "install", "export-pte", "cuda-backend", "save-and-export", "run-python", "run-cpp")
FENCE = re.compile(r"^(`{3,}|:{3,})")
# A Torch-TensorRT release number in prose (ExecuTorch 1.x and CUDA 13.x do not match).
TRT_VERSION = re.compile(r"\b2\.1\d\b")
# Code that needs TensorRT or a GPU to run.
NEEDS_TRT = re.compile(r"^\s*(import torch_tensorrt\s*$|torch_tensorrt\.(compile|save|load|dynamo|executorch)\b)|\.cuda\(\)",
                       re.MULTILINE)


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
    bad = [f"{path.name}:{n}: {line.strip()}" for n, line in prose_lines(path)
           if TRT_VERSION.search(line) and not line.lstrip().startswith("|")]
    assert not bad, "release numbers belong in feature notes, install commands or the release table:\n" + "\n".join(bad)


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
    assert not ungated, "cells that use TensorRT or a GPU need ':requires: [cuda, tensorrt]':\n" + "\n".join(ungated)


def test_save_option_table_matches_installed_source() -> None:
    spec = importlib.util.find_spec("torch_tensorrt")
    assert spec is not None and spec.submodule_search_locations, "torch_tensorrt is not installed"
    source = Path(spec.submodule_search_locations[0]) / "_compile.py"
    save = next(n for n in ast.parse(source.read_text()).body
                if isinstance(n, ast.FunctionDef) and n.name == "save")
    popped = {
        node.args[0].value: ast.unparse(node.args[1])
        for node in ast.walk(save)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr == "pop" and getattr(node.func.value, "id", None) == "kwargs"
    }
    page = ROOT / "notebooks" / "save-and-export.md"
    rows = re.findall(r"^\| `(\w+)` \| `([^`]*)` \| ([^|]+) \|", page.read_text(), flags=re.MULTILINE)
    documented = {name: default for name, default, since in rows if since.strip() == "documented release"}
    later = {name for name, _, since in rows if since.strip() != "documented release"}
    assert documented == popped, f"{page.name}: option table {documented} != {source}: {popped}"
    assert not later & set(popped), f"{page.name}: marked as later but in {source}: {later & set(popped)}"
    assert all(re.fullmatch(r"\{feature\}`[\w-]+`", since.strip()) for name, _, since in rows if name in later), \
        f"{page.name}: a later option's 'Since' must be a feature role"


def test_index_lists_the_guide_in_reading_order() -> None:
    index = (ROOT / "index.md").read_text()
    listed = re.findall(r"^notebooks/([\w-]+)$", index, flags=re.MULTILINE)
    assert [p for p in listed if p in PAGES] == list(PAGES)
