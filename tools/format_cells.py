#!/usr/bin/env python3
"""Format the notebooks' Python code cells with ruff at the pages' code column (88).

    python tools/format_cells.py --check     # exit 1 and name each cell ruff would change
    python tools/format_cells.py             # rewrite those cells in place
    python tools/format_cells.py notebooks/kv-cache.md

Both modes also name every code line longer than 88 columns in any code block
of the site's pages (``index.md``, ``docs/``, ``notebooks/``; Python, shell, C++
and the rest alike), which a formatter cannot always fix (a long string, a
``%%bash`` cell, a C++ block): shorten those by hand. Either finding exits 1.

jupytext reads each MyST notebook (the cells Jupyter sees); myst-nb's source map
gives each code cell's first line, so a rewrite replaces only the cell's body
lines and leaves the rest of the file byte for byte. All cells go to one
``ruff format --isolated --line-length 88`` run, each as a one-cell ``.ipynb`` so
that IPython's line magics (``%pip``, ``!cmd``) parse.

A cell is Python unless it opens with a cell magic whose body is another
language: ``%%bash``, ``%%sh``, ``%%script``, ``%%html``, ``%%javascript``,
``%%writefile`` of a file that is not ``.py``. Those are skipped and listed
(``--list``); a cell magic this script does not know is an error, not a skip.
Needs the docs venv (jupytext, myst-nb, ruff) and the extension's page reader
(``trtdocs.pages.blocks``, the fenced blocks the guards read).
"""

from __future__ import annotations

import argparse
import difflib
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jupytext
from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from trtdocs.pages.blocks import CODE_DIRECTIVES, iter_blocks, page_paths  # noqa: E402 -- below the sys.path line

COLUMNS = 88  # the pages' code column (the site's code block fits it at 1280 px)
# Cell magics whose body is not Python: the cell is not formatted.
OTHER_LANGUAGE = {"bash", "sh", "script", "html", "javascript", "js", "latex", "markdown", "svg"}
# Cell magics whose body is Python (ruff formats such cells as Python).
PYTHON_BODY = {"time", "timeit", "capture", "prun", "python", "python3"}


@dataclass(frozen=True)
class Cell:
    path: Path  # the notebook
    number: int  # 1-based among the notebook's code cells
    line: int  # the line of the cell's opening fence, 1-based
    source: str
    skipped: str = ""  # why the cell is not Python ("" when it is)

    def where(self) -> str:
        rel = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{rel}:{self.line}: code cell {self.number}"


class CellError(ValueError):
    """A cell this script cannot classify or put back; the message names it."""


def language_skip(source: str) -> str:
    """Why a cell is not formatted as Python, or "" when it is."""
    first = source.lstrip("\n").split("\n", 1)[0].strip()
    if not first.startswith("%%"):
        return ""
    magic, *args = first[2:].split()
    if magic in PYTHON_BODY:
        return ""
    if magic in OTHER_LANGUAGE:
        return f"%%{magic}: not Python"
    if magic == "writefile":
        target = [a for a in args if not a.startswith("-")]
        if target and target[-1].endswith(".py"):
            return ""
        return f"%%writefile {target[-1] if target else '?'}: not a Python file"
    raise CellError(f"the cell magic %%{magic} is unknown to tools/format_cells.py")


def code_cells(path: Path) -> list[Cell]:
    """The notebook's code cells, as jupytext reads them, with their lines."""
    text = path.read_text(encoding="utf-8")
    cells = [c for c in jupytext.read(path).cells if c.cell_type == "code"]
    site = read_myst_markdown_notebook(text, add_source_map=True)
    lines = [
        line
        for cell, line in zip(site.cells, site.metadata["source_map"], strict=True)
        if cell.cell_type == "code"
    ]
    if len(lines) != len(cells):
        raise CellError(f"{path}: jupytext reads {len(cells)} code cells, myst-nb {len(lines)}")
    out = []
    for number, (cell, line) in enumerate(zip(cells, lines, strict=True), start=1):
        try:
            skipped = language_skip(cell.source)
        except CellError as exc:
            raise CellError(f"{path}:{line}: code cell {number}: {exc}") from None
        out.append(Cell(path, number, line, cell.source, skipped))
    return out


def _ruff(sources: list[str]) -> list[str]:
    """``sources`` as ruff formats them, in one run (a one-cell notebook each)."""
    with tempfile.TemporaryDirectory() as tmp:
        files = [Path(tmp) / f"cell{i}.ipynb" for i in range(len(sources))]
        for file, source in zip(files, sources, strict=True):
            nb = {
                "cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                           "outputs": [], "source": source}],
                "metadata": {"language_info": {"name": "python"}},
                "nbformat": 4, "nbformat_minor": 5,
            }  # fmt: skip
            file.write_text(json.dumps(nb), encoding="utf-8")
        command = [sys.executable, "-m", "ruff", "format", "--isolated"]
        command += ["--line-length", str(COLUMNS), "--quiet", *map(str, files)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise CellError(f"ruff format failed: {done.stderr.strip() or done.stdout.strip()}")
        return [
            "".join(json.loads(f.read_text(encoding="utf-8"))["cells"][0]["source"]) for f in files
        ]


def _split_magic(source: str) -> tuple[str, str]:
    """(the cell magic line with its newline, or "", the Python body)."""
    if source.startswith("%%"):
        magic, _, body = source.partition("\n")
        return magic + "\n", body
    return "", source


def formatted(cells: list[Cell]) -> dict[Cell, str]:
    """Each Python cell that ruff would change, with its formatted source. A cell
    magic's line stays as it is and its body is formatted (ruff alone leaves a
    ``%%writefile x.py`` cell untouched)."""
    python = [c for c in cells if not c.skipped]
    parts = [_split_magic(c.source) for c in python]
    done = _ruff([body for _, body in parts]) if python else []
    news = [magic + body for (magic, _), body in zip(parts, done, strict=True)]
    return {c: new for c, new in zip(python, news, strict=True) if new != c.source}


def problems(changes: dict[Cell, str]) -> list[str]:
    """One message a cell: where it is, then the diff ruff would apply."""
    out = []
    for cell, new in changes.items():
        diff = difflib.unified_diff(
            cell.source.splitlines(), new.splitlines(), "as written", "ruff format", lineterm=""
        )
        out.append(
            f"{cell.where()}: not as `ruff format --line-length {COLUMNS}` writes it "
            f"(run python tools/format_cells.py):\n" + "\n".join(diff)
        )
    return out


def rewrite(path: Path, changes: dict[Cell, str]) -> None:
    """Replace the body lines of each changed cell of ``path``; nothing else moves."""
    lines = path.read_text(encoding="utf-8").split("\n")
    # bottom-up, so that earlier cells' line numbers hold
    for cell, new in sorted(changes.items(), key=lambda kv: -kv[0].line):
        old = cell.source.split("\n")
        close = next(
            (i for i in range(cell.line, len(lines)) if lines[i].strip().startswith("```")), None
        )
        if close is None or lines[close - len(old) : close] != old:
            raise CellError(f"{cell.where()}: its body is not the lines before its closing fence")
        lines[close - len(old) : close] = new.split("\n")
    path.write_text("\n".join(lines), encoding="utf-8")


def site_pages() -> list[Path]:
    """The pages the site shows: the guards' pages less the READMEs (conf.py
    excludes ``**/README.md``)."""
    return [p for p in page_paths(ROOT) if p.name != "README.md"]


def long_lines(path: Path) -> list[str]:
    """One message per code line of ``path`` wider than :data:`COLUMNS`: every
    fenced code block, code cell and code-block directive, in any language."""
    out = []
    for block in iter_blocks(path):
        if block.kind != "fence" and block.kind not in CODE_DIRECTIVES:
            continue
        for n, line in enumerate(block.lines):
            width = len(line.expandtabs())
            if width > COLUMNS:
                rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                kind = block.kind + (f" {block.language}" if block.language else "")
                out.append(
                    f"{rel}:{block.first_line + n}: a code line of {width} columns "
                    f"(at most {COLUMNS}) in a {kind} block: {line.strip()[:60]}"
                )
    return out


def notebooks(args: list[str]) -> list[Path]:
    """The notebooks named, or every MyST notebook under notebooks/."""
    if args:
        return [Path(a).resolve() for a in args]
    return sorted(
        p
        for p in (ROOT / "notebooks").glob("*.md")
        if is_myst_markdown_notebook(p.read_text(encoding="utf-8"))
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="MyST notebooks (default: notebooks/*.md)")
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 on a cell to format"
    )
    parser.add_argument("--list", action="store_true", help="also list the cells skipped")
    args = parser.parse_args(argv)
    found = 0
    for path in notebooks(args.paths):
        cells = code_cells(path)
        if args.list:
            for cell in cells:
                if cell.skipped:
                    print(f"{cell.where()}: skipped ({cell.skipped})")
        changes = formatted(cells)
        if args.check:
            found += len(changes)
            for message in problems(changes):
                print(message)
        elif changes:
            rewrite(path, changes)
            print(f"{path.relative_to(ROOT)}: {len(changes)} cells formatted")
    # after the rewrite: what is still too long, ruff could not wrap
    for path in [Path(a).resolve() for a in args.paths] or site_pages():
        for message in long_lines(path):
            print(message)
            found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
