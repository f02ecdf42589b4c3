#!/usr/bin/env python3
"""Which package calls in the built site's code link to the API reference.

    python tools/code_links.py _build/html           # each page: linked of all, each unlinked call
    python tools/code_links.py _build/html --json    # the same, as JSON
    python tools/code_links.py _build/html --strict  # exit status 1 when a call is unlinked

A package call is a call, in a Python code block a reader sees (a code cell, a
``python`` block, a cell the landing page includes), of something that
torch_tensorrt, torch_tensorrt_executorch_runtime or executorch define: a name
imported from them (``torch_tensorrt.save(...)``, ``export(...)``), or an
attribute of a value they return (``edge.to_executorch()``, ``program.forward(x)``).
It is read from the HTML: a page's Python blocks, in order, share one namespace
as a notebook's cells do. What a call returns comes from the installed packages'
model (griffe, as the build reads it): a class of the packages, or a value of
unknown type (``Any``, no annotation), which stays a package value; a call that
returns anything else (a tensor, ``bytes``) leaves the packages. An unpacked
result (``(out,) = program.forward(x)``) is not a package value.

A call is linked when its callee's last name lies inside a link the build made
(``a.trtdocs-api-link``). Each unlinked call comes with its reason: the value
whose type is unknown and why, the name it resolves to and why that has no
entry, or a name with an entry that the page does not link. The API
reference's own pages (``docs/api/``) hold upstream docstrings' examples, which
are not the guide's code, and are not read. Needs the docs venv.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from trtdocs.api.index import Missing, Unknown  # noqa: E402 -- below the sys.path line
from trtdocs.api.names import ENTRY  # noqa: E402 -- below the sys.path line
from trtdocs.api.site import ApiSite  # noqa: E402 -- below the sys.path line
from trtdocs.features.validate import load as load_features  # noqa: E402 -- below sys.path
from trtdocs.pages.cells import parse_cell  # noqa: E402 -- below the sys.path line
from trtdocs.vocab import API_PACKAGES  # noqa: E402 -- below the sys.path line

LANGUAGES = frozenset({"python", "python3", "py", "ipython", "ipython3"})
LINK_CLASS = "trtdocs-api-link"  # trtdocs.api.codelinks.LINK_CLASS
SKIPPED = ("docs/api/", "genindex.html", "search.html", "py-modindex.html", "404.html")


@dataclasses.dataclass(frozen=True, slots=True)
class Block:
    """A Python code block of a page, as the HTML shows it."""

    text: str
    links: tuple[tuple[int, int], ...]  # character spans of the build's links in ``text``
    cell: bool  # a code cell (myst-nb's cell), not a static block


@dataclasses.dataclass(frozen=True, slots=True)
class Call:
    """A package call, linked or not (``reason``: why not)."""

    page: str
    block: int  # 1-based, among the page's Python blocks
    line: int  # 1-based line of the block
    callee: str  # as written, shortened: ``program.forward``, ``to_edge(...).to_executorch``
    linked: bool
    reason: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class Value:
    """A package value a name or an expression holds: its class or function's dotted
    path, or None when the model does not say (``why`` does)."""

    path: str | None
    why: str = ""


def blocks_of(html: str) -> list[Block]:
    """The page's Python code blocks, in page order, with the spans the build linked."""
    soup = BeautifulSoup(html, "html.parser")
    main = soup.select_one("article[role=main]") or soup
    out = []
    for div in main.select("div[class*='highlight-']"):
        classes: list[str] = list(div.get("class") or [])
        if not any(c.startswith("highlight-") and c[10:] in LANGUAGES for c in classes):
            continue
        pre = div.find("pre")
        if not isinstance(pre, Tag):
            continue
        text: list[str] = []
        spans: dict[int, list[int]] = {}
        pos = 0
        for piece in pre.descendants:
            if not isinstance(piece, NavigableString):
                continue
            link = piece.find_parent("a", class_=LINK_CLASS)
            if link is not None and pre in link.parents:
                span = spans.setdefault(id(link), [pos, pos])
                span[1] = pos + len(piece)
            text.append(str(piece))
            pos += len(piece)
        cell = div.find_parent("div", class_="cell") is not None
        out.append(Block("".join(text), tuple((a, b) for a, b in spans.values()), cell))
    return out


def _written(node: ast.expr) -> str:
    """An expression as the report names it: calls' arguments shortened."""
    if isinstance(node, ast.Call):
        return f"{_written(node.func)}(...)"
    if isinstance(node, ast.Attribute):
        return f"{_written(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return ast.unparse(node)


class Reader(ast.NodeVisitor):
    """The package values a page's names hold, and its package calls, block by block."""

    def __init__(self, site: ApiSite) -> None:
        self.site = site
        self.bound: dict[str, Value] = {}
        self.calls: list[tuple[ast.Call, Value]] = []

    # what an expression is

    def value(self, node: ast.expr) -> Value | None:
        if isinstance(node, ast.Name):
            return self.bound.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.value(node.value)
            if base is None:
                return None
            if base.path is None:
                return Value(None, base.why)
            path = f"{base.path}.{node.attr}"
            try:
                self.site.index.lookup(path)
            except Missing:
                return Value(None, f"`{base.path}` has no member `{node.attr}`")
            except Unknown:
                return Value(None, f"the model does not follow `{path}`")
            return Value(path)
        if isinstance(node, ast.Call):
            return self.returned(node)
        return None

    def returned(self, call: ast.Call) -> Value | None:
        """What a call of a package callee returns: a class of the packages, a value of
        unknown type, or None (outside the packages)."""
        callee = self.value(call.func)
        if callee is None:
            return None
        written = _written(call)
        if callee.path is None:
            return Value(None, callee.why)
        try:
            obj = self.site.index.lookup(callee.path)
        except (Missing, Unknown):
            return Value(None, f"the model does not follow `{callee.path}`")
        if obj.is_class:
            return Value(callee.path)
        path = self.site.index.return_path(obj)
        if path is not None:
            return Value(path)
        returns = getattr(obj, "returns", None)
        if returns is None or str(returns) in ("Any", "typing.Any", "'Any'"):
            said = f"returns `{returns}`" if returns is not None else "has no return annotation"
            return Value(None, f"`{written}`: `{callee.path}` {said}")
        return None  # a type outside the packages (a tensor, bytes, None)

    # bindings

    def _bind(self, target: ast.expr, value: Value | None) -> None:
        if isinstance(target, ast.Name):
            if value is None:
                self.bound.pop(target.id, None)
            else:
                self.bound[target.id] = value
            return
        for node in ast.walk(target):  # unpacked, or an attribute or item set: not a package value
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.bound.pop(node.id, None)
        if not isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
            self.visit(target)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            name = alias.asname or root
            path = alias.name if alias.asname else root
            self._bind(ast.Name(name, ast.Store()), Value(path) if root in API_PACKAGES else None)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        ours = node.level == 0 and module.split(".")[0] in API_PACKAGES
        for alias in node.names:
            value = Value(f"{module}.{alias.name}") if ours else None
            self._bind(ast.Name(alias.asname or alias.name, ast.Store()), value)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        value = self.value(node.value)
        for target in node.targets:
            self._bind(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self._bind(node.target, self.value(node.value))

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self._bind(node.target, None)
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self._bind(item.optional_vars, None)  # what __enter__ returns: not followed
        for stmt in node.body:
            self.visit(stmt)

    def _scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        saved = dict(self.bound)
        if not isinstance(node, ast.ClassDef):
            for arg in ast.walk(node.args):
                if isinstance(arg, ast.arg):
                    self.bound.pop(arg.arg, None)
        else:
            for base in node.bases:
                self.visit(base)
        for stmt in node.body:
            self.visit(stmt)
        self.bound = saved
        self.bound.pop(node.name, None)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def visit_Call(self, node: ast.Call) -> None:
        callee = self.value(node.func)
        if callee is not None:
            self.calls.append((node, callee))
        self.generic_visit(node)


def _line_starts(text: str) -> list[int]:
    starts, pos = [0], 0
    for line in text.split("\n")[:-1]:
        pos += len(line) + 1
        starts.append(pos)
    return starts


def _name_span(call: ast.Call, lines: list[str]) -> tuple[int, int, int] | None:
    """(line, start, end) in characters of the callee's last name."""
    func = call.func
    if func.end_lineno is None or func.end_col_offset is None:
        return None
    line = lines[func.end_lineno - 1]
    end = len(line.encode("utf-8")[: func.end_col_offset].decode("utf-8", "replace"))
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if not name or line[end - len(name) : end] != name:
        return None
    return func.end_lineno, end - len(name), end


def _why(site: ApiSite, callee: Value, cell: bool) -> str:
    """Why a call whose callee is ``callee`` has no link."""
    if callee.path is None:
        return f"the model does not say what it is called on: {callee.why}"
    path = callee.path
    resolver = site.resolver
    private = [p for p in path.split(".") if p.startswith("_") and not p.startswith("__")]
    if private:
        return (
            f"resolves to `{path}`, a private path (`{private[0]}`): the build links no "
            "private name"
        )
    if not resolver.checked(path):
        return f"resolves to `{path}`, which the installed release lacks"
    target = resolver.target(path)
    if target is not None and target.kind == ENTRY:
        where = "a static block" if not cell else "a code cell"
        return f"resolves to the entry `{target.name}`, yet the page does not link it ({where})"
    return f"resolves to `{path}`, which the reference does not document"


def page_calls(page: str, html: str, site: ApiSite) -> list[Call]:
    """The package calls of one page, in order."""
    reader = Reader(site)
    out: list[Call] = []
    for number, block in enumerate(blocks_of(html), 1):
        try:
            tree = parse_cell(block.text)
        except SyntaxError:
            tree = None
        if tree is None:
            continue
        reader.calls = []
        for stmt in tree.body:
            reader.visit(stmt)
        lines = block.text.split("\n")
        starts = _line_starts(block.text)
        for call, callee in reader.calls:
            span = _name_span(call, lines)
            if span is None:
                continue
            line, start, end = span
            a, b = starts[line - 1] + start, starts[line - 1] + end
            linked = any(s <= a and b <= e for s, e in block.links)
            reason = "" if linked else _why(site, callee, block.cell)
            out.append(Call(page, number, line, _written(call.func), linked, reason))
    return out


def pages(site_dir: Path) -> Iterator[tuple[str, Path]]:
    """The site's pages, by path relative to the site, in sorted order."""
    for path in sorted(site_dir.rglob("*.html")):
        rel = path.relative_to(site_dir).as_posix()
        if not rel.startswith(SKIPPED) and not rel.startswith("_"):
            yield rel, path


def api_site(repo: Path = ROOT) -> ApiSite:
    """The installed API as the guide's build reads it (this interpreter's site-packages)."""
    data = repo / "docs" / "data"
    return ApiSite(
        (),
        data / "api.toml",
        data / "api-errata.toml",
        load_features(repo / "docs" / "features.toml"),
        data / "api-links.toml",
    )


def site_calls(site_dir: Path, site: ApiSite | None = None) -> list[Call]:
    """Every package call of the built site, page by page."""
    site = site or api_site()
    return [
        call
        for rel, path in pages(site_dir)
        for call in page_calls(rel, path.read_text(encoding="utf-8"), site)
    ]


def report(calls: Sequence[Call]) -> str:
    lines = []
    by_page: dict[str, list[Call]] = {}
    for call in calls:
        by_page.setdefault(call.page, []).append(call)
    for page, found in by_page.items():
        linked = sum(c.linked for c in found)
        lines.append(f"{page}: {linked} of {len(found)} package calls linked")
        lines += [
            f"  block {c.block}, line {c.line}: {c.callee}(): {c.reason}"
            for c in found
            if not c.linked
        ]
    linked = sum(c.linked for c in calls)
    lines.append(f"{linked} of {len(calls)} package calls linked, on {len(by_page)} pages")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the built HTML folder (_build/html)")
    parser.add_argument("--json", action="store_true", help="one JSON object per call")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a call is unlinked")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site}: no index.html (build the site with `make html`)")
    calls = site_calls(args.site)
    if args.json:
        print(json.dumps([dataclasses.asdict(c) for c in calls], indent=1))
    else:
        print(report(calls))
    return 1 if args.strict and not all(c.linked for c in calls) else 0


if __name__ == "__main__":
    sys.exit(main())
