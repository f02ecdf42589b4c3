"""CMake blocks of the guide, parsed by ``cmake -P`` inside ``if(FALSE) ... endif()``:
syntax and block nesting are checked, nothing is configured. :mod:`.cpp` finds the
blocks (a fence, or a ``%%writefile CMakeLists.txt`` cell)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..notebooks import cxxsdk
from ..pages import Violation
from ..pages.blocks import Block


def cmake_tool() -> str | None:
    """CMake from this interpreter's scripts folder (PyPI's), else the one on PATH."""
    return shutil.which("cmake", path=cxxsdk.tool_path())


def check_cmake_block(block: Block, rel: str) -> list[Violation]:
    with tempfile.TemporaryDirectory(prefix="drift-cmake-") as tmp:
        script = Path(tmp) / "block.cmake"
        script.write_text("if(FALSE)\n" + block.text + "endif()\n", encoding="utf-8")
        proc = subprocess.run(
            [cmake_tool() or "cmake", "-P", str(script)],
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp,
        )
    if proc.returncode == 0:
        return []
    m = re.search(r"CMake Error at [^:]+:(\d+)[^\n]*:\n(.*?)(?:\n\n|\Z)", proc.stderr, re.S)
    line = block.first_line + max(int(m[1]) - 2, 0) if m else block.first_line
    message = " ".join((m[2] if m else proc.stderr).split())
    return [Violation(rel, line, "cmake-parse", f"cmake -P: {message}")]
