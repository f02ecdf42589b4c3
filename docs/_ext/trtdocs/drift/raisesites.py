"""The raise and assert statements of installed Python files, read with
:mod:`ast` (nothing is imported): where each one is, in which function, and
whether it starts an error; and the installed file a ``name==version`` and a
path inside site-packages name. :mod:`.raises` checks the failure register
against them. Pure: no Sphinx."""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

MODULE = "<module>"  # the function name of module-level code


@dataclasses.dataclass(frozen=True, slots=True)
class Site:
    """A raise or assert statement of an installed Python file."""

    function: str  # qualified name, MODULE for module code
    line: int
    text: str  # the statement's source
    starts: bool  # it starts an error (not a re-raise of a caught one)


def sites(source: str) -> list[Site]:
    """Every raise and assert of a Python source, with the function it is in."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    found: list[Site] = []

    def segment(node: ast.stmt) -> str:  # ast.get_source_segment splits the source on every call
        end = node.end_lineno or node.lineno
        text = "".join(lines[node.lineno - 1 : end])
        return text[node.col_offset : len(text) - len(lines[end - 1]) + (node.end_col_offset or 0)]

    def visit(node: ast.AST, scope: list[str], caught: frozenset[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, [*scope, child.name], frozenset())
                continue
            inner = (
                caught | {child.name}
                if isinstance(child, ast.ExceptHandler) and child.name
                else caught
            )
            if isinstance(child, (ast.Raise, ast.Assert)):
                exc = child.exc if isinstance(child, ast.Raise) else None
                rethrow = isinstance(child, ast.Raise) and (
                    exc is None or (isinstance(exc, ast.Name) and exc.id in caught)
                )
                found.append(
                    Site(
                        ".".join(scope) or MODULE,
                        child.lineno,
                        segment(child),
                        isinstance(child, ast.Raise) and not rethrow,
                    )
                )
            visit(child, scope, inner)

    visit(tree, [], frozenset())
    return found


def suggest(site: Site) -> str:
    """A fragment for a new entry: the longest piece of a string literal in the statement."""
    pieces = [
        p
        for lit in re.findall(r'"((?:[^"\\\n]|\\.)*)"', site.text)
        for p in re.split(r"\{[^}]*\}", lit)
    ]
    return max(pieces, key=len, default=site.text.splitlines()[0]).strip()[:72]


def installed_dist(
    dist: str, versions: dict[str, tuple[str, metadata.Distribution] | None]
) -> tuple[str, metadata.Distribution] | None:
    name = dist.split("==")[0]
    if name not in versions:
        try:
            found = metadata.distribution(name)
            versions[name] = (found.version, found)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions[name]


def installed_file(
    dist: str, path: str, versions: dict[str, Any]
) -> tuple[Path | None, str | None]:
    """The installed file, or why it cannot be read."""
    if "==" not in dist:
        return None, f"dist {dist!r} must be name==version"
    got = installed_dist(dist, versions)
    if got is None:
        return None, f"{dist.split('==')[0]} is not installed"
    if got[0] != dist.split("==")[1]:
        return (
            None,
            f"the register is for {dist}, {got[0]} is installed: list its raise sites again",
        )
    file = Path(str(got[1].locate_file(path)))
    return (file, None) if file.is_file() else (None, f"{path} is not in the installed {dist}")


def sites_of(file: Path, parsed: dict[Path, list[Site]]) -> list[Site]:
    """The sites of ``file``, parsed once into ``parsed``."""
    if file not in parsed:
        parsed[file] = sites(file.read_text(encoding="utf-8"))
    return parsed[file]


def defines(file: Path, qualname: str) -> bool:
    """Whether ``file`` defines ``qualname`` (a function without a raise is still in scope)."""
    tree = ast.parse(file.read_text(encoding="utf-8"))

    def walk(node: ast.AST, prefix: str) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                yield name
                yield from walk(child, f"{name}.")
            else:
                yield from walk(child, prefix)

    return qualname in set(walk(tree, ""))
