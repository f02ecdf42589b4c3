"""Issue 28 (Reading, items 5 and 6): a task page opens with its task. The first code
on the page is the step a reader came for (the call named here), and at most one
section heading stands before it: the explanation, the toy model and the
demonstrations come after. Read from the page's source; each rule is shown on a
planted page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paths import ROOT
from trtdocs.pages.blocks import Block, iter_blocks

# page -> what its first code does (a fragment of that code)
TASKS = {
    "export-pte": "torch_tensorrt.save(",
    "save-and-export": "torch_tensorrt.save(",
    "run-python": "torch_tensorrt.load(",
    "run-cpp": "example_executorch_runner",  # the prebuilt runner, before the source build
    "kv-cache": "torch_tensorrt.save(",  # compile, save and the step loop, before the toy model
}
SECTION = re.compile(r"^##\s")  # a section of the page (its title is "# ")


def first_code(path: Path, text: str | None = None) -> Block | None:
    """The page's first code: a code cell, or a fenced block in a language."""
    return next(
        (
            b
            for b in iter_blocks(path, text)
            if b.kind == "code-cell" or (b.kind in ("fence", "code-block", "code") and b.language)
        ),
        None,
    )


def task_first_problems(path: Path, task: str, text: str | None = None) -> list[str]:
    """Why ``path`` does not open with its task (the code fragment ``task``)."""
    text = path.read_text(encoding="utf-8") if text is None else text
    code = first_code(path, text)
    if code is None:
        return [f"{path.name}: no code at all"]
    where = f"{path.name}:{code.fence_line}"
    problems = []
    if task not in code.text:
        problems.append(f"{where}: the first code is not the task ({task!r}): {code.lines[:1]}")
    sections = [
        f"{n}: {line}"
        for n, line in enumerate(text.splitlines()[: code.fence_line - 1], 1)
        if SECTION.match(line)
    ]
    if len(sections) > 1:
        problems.append(f"{where}: {len(sections)} sections come before the task: {sections}")
    return problems


@pytest.mark.parametrize("page", sorted(TASKS))
def test_each_task_page_opens_with_its_task(page: str) -> None:
    path = ROOT / "notebooks" / f"{page}.md"
    assert task_first_problems(path, TASKS[page]) == []


def _move(text: str, start: str, end: str, before: str) -> str:
    """``text`` with the part from ``start`` up to ``end`` moved in front of ``before``."""
    i = text.index(start)
    j = text.index(end, i) + len(end)
    part, rest = text[i:j], text[:i] + text[j:]
    k = rest.index(before)
    return rest[:k] + part + "\n\n" + rest[k:]


def test_a_toy_model_before_the_task_is_caught(tmp_path: Path) -> None:
    path = ROOT / "notebooks" / "kv-cache.md"
    text = path.read_text(encoding="utf-8")
    toy = "```{code-cell} ipython3\nimport torch\n\nHEADS"
    planted = _move(text, toy, "for p in range(4)]\n```", "A decoder that generates")
    (problem,) = task_first_problems(tmp_path / "kv-cache.md", TASKS["kv-cache"], planted)
    assert "the first code is not the task" in problem and "import torch" in problem


def test_a_task_after_an_explaining_section_is_caught(tmp_path: Path) -> None:
    path = ROOT / "notebooks" / "run-cpp.md"
    text = path.read_text(encoding="utf-8")
    # the table of ExecuTorch builds moved above the prebuilt runner
    planted = _move(text, "## Which ExecuTorch does what", "use one of the other two.", "(prebuilt")
    (problem,) = task_first_problems(tmp_path / "run-cpp.md", TASKS["run-cpp"], planted)
    assert "2 sections come before the task" in problem
    # and the application's main.cpp first: the source build before the prebuilt runner
    main_cpp = "```{code-cell} ipython3\n:tags: [quick-start-cpp]"
    planted = _move(text, main_cpp, "}\n```", "(prebuilt")
    (problem,) = task_first_problems(tmp_path / "run-cpp.md", TASKS["run-cpp"], planted)
    assert "the first code is not the task" in problem and "%%writefile main.cpp" in problem
