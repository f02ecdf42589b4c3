"""The notebooks' Python code cells are as ``ruff format --line-length 88`` writes
them (tools/format_cells.py), so the code column of a page at 1280 px holds them
without scrolling. Cells in another language (``%%bash``, ``%%writefile`` of a
C++ or CMake file) are not formatted; a cell magic the tool does not know is an
error. Whatever the language, no code line of a site page is wider than 88
columns (a long string, a shell command, a C++ line: no formatter wraps those).
Each rule is shown on a planted notebook."""

from __future__ import annotations

from pathlib import Path

import pytest

from paths import TOOLS
from scripts import load

format_cells = load("format_cells", TOOLS)
NOTEBOOKS = format_cells.notebooks([])
PAGES = format_cells.site_pages()

HEAD = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Planted

Some text.
"""
LONG = (
    "result = compute_something(first_argument, second_argument, third_argument, fourth_argument)"
)


def planted(tmp_path: Path, *cells: str) -> Path:
    body = "".join(f"\n```{{code-cell}} ipython3\n{c}\n```\n\nBetween.\n" for c in cells)
    path = tmp_path / "planted.md"
    path.write_text(HEAD + body, encoding="utf-8")
    return path


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 10, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_python_cells_are_formatted_at_88_columns(path: Path) -> None:
    problems = format_cells.problems(format_cells.formatted(format_cells.code_cells(path)))
    assert not problems, "\n\n".join(problems)


def test_a_planted_long_line_is_named_with_its_notebook_and_cell(tmp_path: Path) -> None:
    path = planted(tmp_path, "x = 1", f":tags: [remove-stderr]\n{LONG}")
    cells = format_cells.code_cells(path)
    assert [(c.number, c.line) for c in cells] == [(1, 16), (2, 22)]
    (message,) = format_cells.problems(format_cells.formatted(cells))
    assert message.startswith(f"{path}:22: code cell 2: not as `ruff format --line-length 88`")
    assert f"-{LONG}" in message  # the diff shows what ruff changes


def test_ipython_line_magics_are_formatted_around(tmp_path: Path) -> None:
    path = planted(tmp_path, f"%pip install torch\n!ls\n{LONG}")
    (new,) = format_cells.formatted(format_cells.code_cells(path)).values()
    assert new.startswith("%pip install torch\n!ls\nresult = compute_something(\n")


@pytest.mark.parametrize(
    "magic, skipped",
    [
        ("%%bash", "%%bash: not Python"),
        ("%%writefile main.cpp", "%%writefile main.cpp: not a Python file"),
        ("%%writefile -a CMakeLists.txt", "%%writefile CMakeLists.txt: not a Python file"),
        ("%%writefile helper.py", ""),
        ("%%time", ""),
    ],
)
def test_cells_in_another_language_are_skipped(tmp_path: Path, magic: str, skipped: str) -> None:
    path = planted(tmp_path, f"{magic}\n{LONG}")
    (cell,) = format_cells.code_cells(path)
    assert cell.skipped == skipped
    assert bool(format_cells.formatted([cell])) == (not skipped)


def test_an_unknown_cell_magic_is_an_error_naming_the_cell(tmp_path: Path) -> None:
    path = planted(tmp_path, "x = 1", "%%madeup\nwhatever")
    with pytest.raises(format_cells.CellError, match=r"planted.md:22: code cell 2: .*%%madeup"):
        format_cells.code_cells(path)


def test_the_rewrite_changes_only_the_cell_bodies(tmp_path: Path) -> None:
    path = planted(tmp_path, "x = 1", f"%%bash\n{LONG}", f":tags: [hide-input]\n{LONG}")
    before = path.read_text(encoding="utf-8")
    format_cells.rewrite(path, format_cells.formatted(format_cells.code_cells(path)))
    after = path.read_text(encoding="utf-8")
    wrapped = format_cells.formatted([format_cells.Cell(path, 3, 0, LONG)])
    assert after == before.replace(
        f"hide-input]\n{LONG}", f"hide-input]\n{next(iter(wrapped.values()))}"
    )
    assert f"%%bash\n{LONG}" in after  # the shell cell keeps its long line
    assert not format_cells.formatted(format_cells.code_cells(path))


@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_no_code_line_is_wider_than_88_columns(path: Path) -> None:
    assert not format_cells.long_lines(path), "\n".join(format_cells.long_lines(path))


def test_the_site_pages_are_the_pages_conf_py_builds() -> None:
    names = {p.relative_to(format_cells.ROOT).as_posix() for p in PAGES}
    assert {"index.md", "notebooks/performance.md", "docs/building.md"} <= names
    assert not [n for n in names if n.endswith("README.md") or "_recorded" in n]


def test_a_planted_long_line_in_any_language_is_named(tmp_path: Path) -> None:
    # 93 columns, as ruff writes it: it cannot wrap a string
    string = 'print(\n    "' + "x" * 86 + '",\n    1,\n)'
    path = planted(tmp_path, "x = 1", string, f"%%bash\necho {'y' * 90}")
    with path.open("a", encoding="utf-8") as page:
        page.write("\n```{code-block} cpp\n:requires: [cuda]\nint " + "z" * 90 + ";\n```\n")
        page.write("\n```console\n$ make html\n```\n")
    assert not format_cells.formatted(format_cells.code_cells(path))  # ruff is content
    messages = format_cells.long_lines(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    assert [lines[int(m.split(":")[1]) - 1][:8] for m in messages] == [
        '    "xxx',
        "echo yyy",
        "int zzzz",
    ]
    assert [m.split(": a code line")[0] for m in messages] == [
        f"{path}:24",
        f"{path}:33",
        f"{path}:40",
    ], messages
    assert "93 columns (at most 88) in a code-cell ipython3 block" in messages[0]
    assert "in a code-block cpp block: int zzz" in messages[2]
    assert format_cells.main(["--check", str(path)]) == 1


def test_the_check_passes_a_page_that_fits(tmp_path: Path, capsys) -> None:
    path = planted(tmp_path, "x = 1", "%%bash\necho fits")
    assert format_cells.main(["--check", str(path)]) == 0
    assert capsys.readouterr().out == ""
