"""No page carries a hand-written Torch-TensorRT version note.

Version notes come from docs/features.toml through {feature-note} and
{feature}. A Torch-TensorRT version number in prose is a defect; install
commands (code blocks and cells), inline code, directives and the release
table are not prose. torch, ExecuTorch, CUDA and Python versions are fine.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paths import ROOT

VERSION = r"v?2\.\d+(?:\.\d+)?(?:\.?(?:dev|rc|a|b)\d*)?"
PRODUCT = r"torch[-_ ]?tensorrt"
OTHER = r"(?:py)?torch|executorch|cuda|python|tensorrt|numpy|sphinx|runtime|wheel|jetpack|driver"
# "Torch-TensorRT 2.14", "torch_tensorrt 2.15.0", "Torch-TensorRT's 2.14 release",
# "torch_tensorrt==2.14"
_NAMED = re.compile(
    rf"\b{PRODUCT}(?:'s)?(?:\s+(?:release|version|v))*\s*(?:==|>=|<=|~=|>|<|\s)\s*{VERSION}\b", re.I
)
# "2.15 or newer", "new in 2.14", "since 2.14" -- counted only in a paragraph
# that names Torch-TensorRT, and not when another package name comes right before.
_BARE = re.compile(
    r"(?:\b(?:new in|added in|since|from|before|after|until|needs|requires|newer than|older "
    r"than|as of|starting "
    rf"with|in)\s+(?P<a>{VERSION})\b)|(?:\b(?P<b>{VERSION})\s+or\s+(?:newer|later|above|higher)\b)",
    re.I,
)
_OTHER_BEFORE = re.compile(rf"\b(?:{OTHER})\s*(?:version\s+)?(?:==|>=)?\s*$", re.I)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})")


def prose_paragraphs(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each prose paragraph: no front matter, fenced
    blocks (code, cells, directives), comments, or release-table rows."""
    lines = text.splitlines()
    i = 0
    if lines and lines[0].strip() == "---":
        i = next((j + 1 for j in range(1, len(lines)) if lines[j].strip() == "---"), len(lines))
    paragraphs: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    fence: str | None = None
    in_release_table = False

    def flush() -> None:
        if current:
            paragraphs.append((start, " ".join(current)))
            current.clear()

    for number, line in enumerate(lines[i:], start=i + 1):
        m = _FENCE.match(line)
        if fence is not None:
            if (
                m
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= len(fence)
                and line.strip() == m.group(1)
            ):
                fence = None
            continue
        if m:
            flush()
            fence = m.group(1)
            continue
        stripped = line.strip()
        if stripped.startswith("|"):
            # a table whose header names releases is the release table
            if not in_release_table and re.search(r"\brelease\b", stripped, re.I) and not current:
                in_release_table = True
            if in_release_table:
                continue
        else:
            in_release_table = False
        if (
            not stripped
            or stripped.startswith("%")
            or stripped.startswith("<!--")
            or line.startswith("    ")
        ):
            flush()
            continue
        if not current:
            start = number
        current.append(re.sub(r"`[^`]*`", "``", stripped))  # inline code is not prose
    flush()
    return paragraphs


def hand_notes(text: str) -> list[tuple[int, str]]:
    """(line, match) for each hand-written Torch-TensorRT version note."""
    found: list[tuple[int, str]] = []
    for line, para in prose_paragraphs(text):
        for m in _NAMED.finditer(para):
            found.append((line, m.group(0)))
        if not re.search(PRODUCT, para, re.I):
            continue
        for m in _BARE.finditer(para):
            if _OTHER_BEFORE.search(para[: m.start("a") if m.group("a") else m.start("b")]):
                continue
            if not any(
                m.start() >= n.start() and m.end() <= n.end() for n in _NAMED.finditer(para)
            ):
                found.append((line, m.group(0)))
    return found


def pages() -> list[Path]:
    files = [
        ROOT / "index.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "notebooks").rglob("*.md")),
    ]
    return [
        p for p in files if "_ext" not in p.parts and "_recorded" not in p.parts and p.is_file()
    ]


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_hand_written_version_note(page: Path) -> None:
    found = hand_notes(page.read_text(encoding="utf-8"))
    assert not found, (
        f"{page.relative_to(ROOT)}: hand-written Torch-TensorRT version note(s) "
        + "; ".join(f"line {line}: {text!r}" for line, text in found)
        + " -- use {feature-note} <id> or {feature}`<id>` from docs/features.toml"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Torch-TensorRT 2.14 exports the module again.",
        "With torch_tensorrt 2.15 the default changes.",
        "This needs torch-tensorrt==2.14.0.",
        "Torch-TensorRT's 2.15 release adds CUDA graphs.",
        "Torch-TensorRT keeps the graph in\n2.15 or newer.",
        "This is new in 2.14 of Torch-TensorRT.",
        "A Torch-TensorRT build since 2.15 refuses it.",
        "---\ntitle: x\n---\n\nTorch-TensorRT release version 2.15 adds it.",
    ],
)
def test_flags_hand_notes(text: str) -> None:
    assert hand_notes(text), text


@pytest.mark.parametrize(
    "text",
    [
        "It needs torch 2.14.1 and ExecuTorch 1.4.1.",
        "Torch-TensorRT runs on PyTorch 2.14 or newer.",
        "Torch-TensorRT needs CUDA 13.2 and Python 3.10 or newer.",
        "Torch-TensorRT uses TensorRT 11.1.",
        "Install it:\n\n```bash\npip install torch-tensorrt==2.14.0\n```\n",
        "Run `pip install torch-tensorrt==2.14.0` first.",
        "```{code-cell} ipython3\n# Torch-TensorRT 2.14 exports again\nx = 1\n```\n",
        "```{feature-note} pte-save\n```\n\nTorch-TensorRT saves it {feature}`pte-save`.",
        "| Release | Torch-TensorRT |\n|---|---|\n| 2.14 | Torch-TensorRT 2.14.0 |\n",
        "PyTorch 2.15 or newer is not needed here.",
    ],
)
def test_leaves_other_versions_alone(text: str) -> None:
    assert hand_notes(text) == [], text
