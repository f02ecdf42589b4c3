"""What notebook code calls: the names of the documented packages each code
cell uses, resolved through its imports, aliases and assignments against the
installed API (:mod:`.index`). Pure: no Sphinx.

One resolution serves the drift guard (:mod:`trtdocs.drift.api`, which reports a
name or keyword the installed release lacks) and the links from highlighted
code to the API reference (:mod:`.codelinks`, through :func:`cell_uses`).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable, Container, Iterable, Mapping
from typing import Protocol

import griffe

from ..pages.cells import parse_cell
from .index import Missing, Unknown


class _Versions(Protocol):
    def get(self, root: str, default: str, /) -> str | None: ...


class NameIndex(Protocol):
    """What a :class:`CellChecker` asks of an index: :class:`.index.ApiIndex` (the
    documented packages) or :class:`.names.CellIndex` (every installed package)."""

    @property
    def modules(self) -> Container[str]: ...
    @property
    def versions(self) -> _Versions: ...
    def lookup(self, path: str) -> griffe.Object: ...
    def accepted_keywords(self, obj: griffe.Object) -> frozenset[str] | None: ...
    def return_path(
        self, obj: griffe.Object, keywords: Mapping[str, object] | None = None
    ) -> str | None: ...


class CellChecker(ast.NodeVisitor):
    """Resolves what a cell's names stand for (imports, aliases, assignments,
    calls' return types) and reports each name or keyword the installed API lacks
    through ``report(line, rule, message)``. Cells of one notebook share ``bindings``."""

    def __init__(
        self, index: NameIndex, bindings: dict[str, str], report: Callable[[int, str, str], None]
    ) -> None:
        self.index, self.bindings, self.report = index, bindings, report

    # bindings

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            if root not in self.index.modules:
                self.bindings.pop(alias.asname or root, None)
                continue
            self._exists(alias.name, node.lineno)
            if alias.asname:
                self.bindings[alias.asname] = alias.name
            else:
                self.bindings[root] = root

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        checked = node.level == 0 and module.split(".")[0] in self.index.modules
        for alias in node.names:
            if alias.name == "*":
                continue
            if not checked:
                self.bindings.pop(alias.asname or alias.name, None)
                continue
            path = f"{module}.{alias.name}"
            self._exists(path, node.lineno)
            self.bindings[alias.asname or alias.name] = path

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        path = self._path(node.value, report=False)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if path is not None:
                    self.bindings[target.id] = path
                else:
                    self.bindings.pop(target.id, None)
            else:
                self.visit(target)

    # uses

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._path(node, report=True)

    def visit_Call(self, node: ast.Call) -> None:
        path = self._path(node.func, report=True)
        for arg in [*node.args, *node.keywords]:
            self.visit(arg)
        if path is None:
            return
        try:
            obj = self.index.lookup(path)
        except (Missing, Unknown):
            return
        accepted = self.index.accepted_keywords(obj)
        if accepted is None:
            return
        for kw in node.keywords:
            if kw.arg is not None and kw.arg not in accepted:
                self.report(
                    kw.value.lineno,
                    "unknown-keyword",
                    f"{path}() has no keyword {kw.arg!r} in installed {self._version(path)} "
                    f"(accepts: {', '.join(sorted(accepted))})",
                )

    def _path(self, node: ast.expr, *, report: bool) -> str | None:
        """Dotted path of an expression rooted at a bound name; reports missing names."""
        if isinstance(node, ast.Name):
            return self.bindings.get(node.id)
        if isinstance(node, ast.Call):
            if report:
                self.visit_Call(node)
            base = self._path(node.func, report=False)
            if base is None:
                return None
            try:
                return self.index.return_path(self.index.lookup(base), constants(node))
            except (Missing, Unknown):
                return None
        if isinstance(node, ast.Attribute):
            base = self._path(node.value, report=report)
            if base is None:
                if report and not isinstance(node.value, (ast.Name, ast.Call, ast.Attribute)):
                    self.visit(node.value)
                return None
            path = f"{base}.{node.attr}"
            if report and not self._exists(path, node.lineno):
                return None
            return path
        if report:
            self.visit(node)
        return None

    def _exists(self, path: str, line: int) -> bool:
        try:
            self.index.lookup(path)
        except Unknown:
            return True
        except Missing as missing:
            self.report(
                line,
                "missing-name",
                f"{missing.args[0]} does not exist in installed {self._version(path)}",
            )
            return False
        return True

    def _version(self, path: str) -> str:
        root = path.split(".")[0]
        return f"{root} {self.index.versions.get(root, '(version unknown)')}"


def constants(call: ast.Call) -> dict[str, object]:
    """A call's keywords whose values are constants (``format="executorch"``)."""
    return {
        kw.arg: kw.value.value
        for kw in call.keywords
        if kw.arg is not None and isinstance(kw.value, ast.Constant)
    }


# -- uses: where a cell names an object, for links from the highlighted code ----------


@dataclasses.dataclass(frozen=True, slots=True)
class Use:
    """A name of a checked package as a cell writes it: a dotted name
    (``torch_tensorrt.executorch.export``, ``trt_runtime.Program``, the module of an
    import) or, after a call or a subscript, the last attribute (``.run`` of
    ``load(...).run``). Columns count characters, not UTF-8 bytes."""

    line: int  # 1-based line of the cell
    start: int  # 0-based column where the written name starts
    end: int  # column just after it
    path: str  # the dotted path it resolves to, through the cell's imports and assignments
    instance: bool = False  # a bare name bound to a call's result (an instance, not the object)


class _UseRecorder(CellChecker):
    """The checker's resolution, recording each resolved name with its place."""

    def __init__(
        self, index: NameIndex, bindings: dict[str, str], instances: set[str], lines: list[str]
    ) -> None:
        super().__init__(index, bindings, lambda line, rule, message: None)
        self.instances, self.lines = instances, lines
        self.uses: dict[tuple[int, int, int], Use] = {}

    def _col(self, line: int, col: int) -> int:
        """A byte offset of ast (UTF-8) as a character offset."""
        return len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))

    def _add(self, line: int, start: int, end: int, path: str, instance: bool = False) -> None:
        self.uses.setdefault((line, start, end), Use(line, start, end, path, instance))

    def _add_written(self, line: int, col: int, text: str, path: str) -> None:
        """``text`` (a dotted name of an import) written at byte column ``col``."""
        start = self._col(line, col)
        if self.lines[line - 1][start : start + len(text)] == text:
            self._add(line, start, start + len(text), path)

    def visit_Import(self, node: ast.Import) -> None:
        super().visit_Import(node)
        for alias in node.names:
            self.instances.discard(alias.asname or alias.name.split(".")[0])
            if alias.name.split(".")[0] in self.index.modules:
                self._add_written(alias.lineno, alias.col_offset, alias.name, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        super().visit_ImportFrom(node)
        module = node.module or ""
        for alias in node.names:
            self.instances.discard(alias.asname or alias.name)
        if node.level or module.split(".")[0] not in self.index.modules:
            return
        line = self.lines[node.lineno - 1]
        start = self._col(node.lineno, node.col_offset)
        if m := re.compile(r"from\s+(?P<module>[\w.]+)").match(line, start):
            if m["module"] == module:
                self._add(node.lineno, m.start("module"), m.end("module"), module)
        for alias in node.names:
            if alias.name != "*":
                self._add_written(
                    alias.lineno, alias.col_offset, alias.name, f"{module}.{alias.name}"
                )

    def visit_Assign(self, node: ast.Assign) -> None:
        super().visit_Assign(node)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if target.id in self.bindings and isinstance(node.value, ast.Call):
                    self.instances.add(target.id)
                else:
                    self.instances.discard(target.id)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._path(node, report=False)

    def _path(self, node: ast.expr, *, report: bool) -> str | None:
        path = super()._path(node, report=report)
        if path is None or node.end_lineno is None or node.end_col_offset is None:
            return path
        if isinstance(node, ast.Name):
            start = self._col(node.lineno, node.col_offset)
            self._add(
                node.lineno, start, start + len(node.id), path, instance=node.id in self.instances
            )
        elif isinstance(node, ast.Attribute):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            end = self._col(node.end_lineno, node.end_col_offset)
            if isinstance(root, ast.Name) and root.lineno == node.end_lineno:
                self._add(node.end_lineno, self._col(root.lineno, root.col_offset), end, path)
            elif self.lines[node.end_lineno - 1][end - len(node.attr) : end] == node.attr:
                self._add(node.end_lineno, end - len(node.attr), end, path)
        return path


def cell_uses(sources: Iterable[str], index: NameIndex) -> list[list[Use]]:
    """For each code cell, in notebook order (cells share one namespace, as in
    :func:`trtdocs.drift.api.check_notebook`), the names it uses that resolve into the checked
    packages, in source order. A cell that is not Python (a cell magic, a syntax
    error) has none."""
    bindings: dict[str, str] = {}
    instances: set[str] = set()
    out: list[list[Use]] = []
    for source in sources:
        try:
            tree = parse_cell(source)
        except SyntaxError:
            tree = None
        if tree is None:
            out.append([])
            continue
        recorder = _UseRecorder(
            index, bindings, instances, re.split(r"\r\n|\r|\n", source)
        )  # ast's lines
        for stmt in tree.body:
            recorder.visit(stmt)
        out.append(sorted(recorder.uses.values(), key=lambda u: (u.line, u.start, -u.end)))
    return out
