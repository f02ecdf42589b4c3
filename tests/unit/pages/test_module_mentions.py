"""Every tracked file names only modules of the extension that exist: a path
``docs/_ext/trtdocs/...`` is a file or folder there, and a dotted
``trtdocs.x.y`` is a module (or a name a module defines at its top level), so
that a module moved or renamed leaves no stale pointer in the pages, the
registers, the comments or the tests."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from paths import EXT, ROOT, text_of, tracked_files

PATH = re.compile(r"docs/_ext/trtdocs(?:/[\w.<>{}*-]+)*")
DOTTED = re.compile(r"(?<![\w./-])trtdocs(?:\.[A-Za-z_]\w*)+")
# Dotted names that start with trtdocs and are no module, and what they are.
NOT_MODULES: Mapping[str, str] = {
    "trtdocs.css": "the site's stylesheet, docs/_static/trtdocs.css",
    "trtdocs.cache_key": "a notebook metadata key (notebooks/cachekey.py)",
    "trtdocs.nbclient": "the name of a logger (notebooks/execute.py)",
}
# Files that may name modules that do not exist, and why; the test fails once one no longer does.
EXEMPT: Mapping[str, str] = {
    "tests/unit/test_house.py": "its planted packages are named trtdocs",
    "tests/unit/pages/test_module_mentions.py": "its cases name missing modules on purpose",
}


@functools.cache
def top_names(module: Path) -> frozenset[str]:
    """The names a module defines or imports at its top level (under ``if`` too)."""
    out: set[str] = set()
    todo = list(ast.parse(module.read_text(encoding="utf-8")).body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.If, ast.Try)):
            todo += node.body
    return frozenset(out)


def module_file(ext: Path, dotted: str) -> Path | None:
    where = ext.joinpath(*dotted.split("."))
    for candidate in (where.with_suffix(".py"), where / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def stale(text: str, ext: Path = EXT) -> list[tuple[int, str]]:
    """(line, mention) for each module path or dotted name in ``text`` that names
    nothing under ``ext`` (the folder holding the trtdocs package)."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for m in PATH.finditer(line):
            mention = m.group(0).rstrip(".")
            if (
                not any(c in mention for c in "<>{}*")
                and not (ext.parent.parent / mention).exists()
            ):
                found.append((number, mention))
        for m in DOTTED.finditer(line):
            mention = m.group(0)
            if mention in NOT_MODULES:
                continue
            parts = mention.split(".")
            depth = next(
                (k for k in range(len(parts), 0, -1) if module_file(ext, ".".join(parts[:k]))),
                0,
            )
            module = module_file(ext, ".".join(parts[:depth])) if depth else None
            if module is None or (depth < len(parts) and parts[depth] not in top_names(module)):
                found.append((number, mention))
    return found


def test_the_rule_reads_the_repository() -> None:
    assert module_file(EXT, "trtdocs.pages.blocks") is not None
    assert "iter_blocks" in top_names(module_file(EXT, "trtdocs.pages.blocks"))


@pytest.mark.parametrize(
    "text, found",
    [
        ("see docs/_ext/trtdocs/notebooks/marks.py and trtdocs.notebooks.marks.place", []),
        (
            "docs/_ext/trtdocs/drift/<guard>.py, `trtdocs.css` and the folder docs/_ext/trtdocs/.",
            [],
        ),
        # planted: a module that moved, a package path that is gone, a function that is not there
        (
            "reads drift/blocks.py (docs/_ext/trtdocs/drift/blocks.py)",
            ["docs/_ext/trtdocs/drift/blocks.py"],
        ),
        ("the installed sources (trtdocs.apimodel)", ["trtdocs.apimodel"]),
        (
            "trtdocs.notebooks.jobs.execution_folder names it",
            ["trtdocs.notebooks.jobs.execution_folder"],
        ),
    ],
)
def test_stale_mentions(text: str, found: list[str]) -> None:
    assert [m for _, m in stale(text)] == found


def test_no_tracked_file_names_a_module_that_does_not_exist() -> None:
    bad, exempt_stale = [], set()
    for path in tracked_files():
        rel = path.relative_to(ROOT).as_posix()
        text = text_of(path)
        if text is None:
            continue
        found = [f"{rel}:{line}: {m}" for line, m in stale(text)]
        if rel in EXEMPT:
            exempt_stale |= {rel} if found else set()
        else:
            bad += found
    assert not bad, "modules that do not exist:\n" + "\n".join(bad)
    fixed = sorted(set(EXEMPT) - exempt_stale)
    assert not fixed, f"{fixed} name no missing module now: take them out of EXEMPT"
