"""Names and keyword arguments the notebooks use, checked against the installed
packages' sources with griffe (nothing is imported: ``import torch_tensorrt``
fails without TensorRT's libraries).

For each code cell, in notebook order (cells share one namespace), imports
and simple assignments bind local names to dotted paths in :data:`PACKAGES`;
every attribute chain and call rooted at such a name is checked:

* the object exists (``missing-name``);
* each keyword argument is a parameter of its signature, unless the signature
  takes ``**kwargs`` (``unknown-keyword``); for the functions of
  :data:`KWARGS_FROM_SOURCE` the keyword may also be one of the names the
  function's source pops from ``kwargs`` (extracted with :mod:`ast`).

A cell gated by a requirement the installed packages do not meet (such as
``feature:cuda-graphs`` whose first release is newer, or ``torch_tensorrt>=2.15``)
may use names the installed release lacks: its findings become notes.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from pathlib import Path
from types import MappingProxyType

import griffe
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from .. import apimodel
from ..apimodel import PACKAGES
from ..frontmatter import front_matter_problem
from ..requirements import RequirementError
from . import Violation
from .blocks import iter_blocks
# Functions whose **kwargs are not open: a keyword must be a parameter or a name the
# source pops from kwargs (2.14's save() raises TypeError on any other with the
# executorch format).
KWARGS_FROM_SOURCE = frozenset({"torch_tensorrt._compile.save"})
RULES: Mapping[str, str] = MappingProxyType({
    "missing-name": "a name used from a checked package exists in its installed version",
    "unknown-keyword": "a keyword argument is accepted by the installed signature",
    "parse": "the cell is valid Python (IPython magics aside)",
})
FEATURE_PREFIX = "feature:"

# Resolves a feature id to the first torch_tensorrt requirement that has it.
FeatureResolver = Callable[[str], Requirement]


@dataclasses.dataclass(frozen=True, slots=True)
class Finding:
    """One API problem; ``gated`` findings are notes, not errors."""

    violation: Violation  # where and what
    gated: bool  # the cell requires a newer release than the installed one


class _Unknown(Exception):
    """The object lies outside what griffe loaded (torch, stdlib): not checkable."""


class _Missing(Exception):
    """The installed package lacks the name."""


@dataclasses.dataclass
class ApiIndex:
    """The statically loaded packages and what is known about their signatures."""

    modules: Mapping[str, griffe.Module]  # import name -> griffe module tree
    versions: Mapping[str, str]  # import name -> version of the distribution on the search path
    search_paths: list[str]  # site-packages folders griffe reads
    _extra: dict[str, griffe.Module] = dataclasses.field(default_factory=dict)  # namespace subpackages

    @classmethod
    def load(cls, search_paths: Iterable[Path] | None = None) -> ApiIndex:
        """The index over :func:`trtdocs.apimodel.load`'s model, the one the API
        reference renders."""
        model = apimodel.load(search_paths)
        return cls(model.modules, model.versions, list(model.search_paths))

    def lookup(self, path: str) -> griffe.Object:
        """The object at ``path``; raises _Missing or _Unknown."""
        root, *parts = path.split(".")
        obj: griffe.Object | griffe.Alias = self.modules[root]
        for i, part in enumerate(parts):
            obj = _target(obj)
            if part in obj.members:
                obj = obj.members[part]
            elif obj.is_class:
                try:
                    obj = self._inherited(obj, part)
                except _Missing:
                    raise _Missing(".".join([root, *parts[:i + 1]])) from None
            elif obj.is_module and (sub := self._load_namespace_child(obj, part)) is not None:
                obj = sub  # a folder without __init__.py, which griffe does not walk into
            elif not (obj.is_module or obj.is_class):
                raise _Unknown(path)  # members of an attribute's or a property's value: types not followed
            else:
                raise _Missing(".".join([root, *parts[:i + 1]]))
        return _target(obj)

    def _inherited(self, cls: griffe.Object, name: str, depth: int = 0) -> griffe.Object:
        """``name`` from a base class, resolved through :meth:`lookup` (griffe leaves
        bases in folders without ``__init__.py`` unresolved)."""
        if name in cls.members:
            return cls.members[name]
        unknown = depth > 10
        for base in cls.bases:
            path = getattr(base, "canonical_path", None)
            if not path or path.split(".")[0] not in self.modules:
                unknown = True  # torch, typing, object: not loaded
                continue
            try:
                base_cls = self.lookup(path)
                if base_cls.is_class:
                    return self._inherited(base_cls, name, depth + 1)
            except _Missing:
                continue
            except _Unknown:
                unknown = True
        if unknown:
            raise _Unknown(f"{cls.path}.{name}")
        raise _Missing(f"{cls.path}.{name}")

    def _load_namespace_child(self, module: griffe.Object, name: str) -> griffe.Object | None:
        """A submodule griffe did not walk into: a folder without ``__init__.py``, or a
        module file inside one. Visited from its source, never imported."""
        key = f"{module.path}.{name}"
        if key in self._extra:
            return self._extra[key]
        files = module.filepath if isinstance(module.filepath, list) else [module.filepath]
        for f in files:
            folder = f if f.is_dir() else f.parent if f.name == "__init__.py" else None
            if folder is None:
                continue
            if (folder / name).is_dir() and not (folder / name / "__init__.py").exists():
                sub = griffe.Module(name, filepath=[folder / name], parent=module)
            elif (folder / f"{name}.py").is_file():
                py = folder / f"{name}.py"
                sub = griffe.visit(name, py, py.read_text(encoding="utf-8"), parent=module)
            else:
                continue
            self._extra[key] = sub
            return sub
        return None

    @cached_property
    def popped_kwargs(self) -> Mapping[str, frozenset[str]]:
        """Names each function of KWARGS_FROM_SOURCE pops from its **kwargs."""
        return MappingProxyType({p: kwargs_popped(self.lookup(p)) for p in KWARGS_FROM_SOURCE})

    def accepted_keywords(self, obj: griffe.Object) -> frozenset[str] | None:
        """Keyword names a call accepts, or None when any keyword is accepted."""
        if obj.is_class:
            try:
                obj = _target(self._inherited(obj, "__init__"))
            except (_Missing, _Unknown):
                return None
        if not obj.is_function:
            return None
        params = obj.parameters
        names = frozenset(p.name for p in params if p.kind in (
            griffe.ParameterKind.positional_or_keyword, griffe.ParameterKind.keyword_only))
        if any(p.kind is griffe.ParameterKind.var_keyword for p in params):
            if obj.path not in KWARGS_FROM_SOURCE:
                return None
            names |= self.popped_kwargs[obj.path]
        return names - {"self", "cls"}

    def return_path(self, obj: griffe.Object) -> str | None:
        """Dotted path of a function's return class, when it is in a checked package."""
        if not obj.is_function or obj.returns is None:
            return None
        ret = obj.returns
        if isinstance(ret, griffe.ExprSubscript) and getattr(ret.left, "canonical_path", "") in (
                "typing.Optional", "Optional"):
            ret = ret.slice  # Optional[X] -> X
        elif isinstance(ret, griffe.ExprBinOp) and str(ret.right) == "None":
            ret = ret.left  # X | None -> X
        path = getattr(ret, "canonical_path", None)
        if isinstance(ret, str):  # quoted forward reference: resolve in its scope
            try:
                path = obj.parent.resolve(ret.strip("'\""))
            except Exception:  # noqa: BLE001 -- unresolvable names are external
                return None
        if path and path.split(".")[0] in self.modules:
            return path
        return None


def _target(obj: griffe.Object | griffe.Alias) -> griffe.Object:
    if obj.is_alias:
        try:
            return obj.final_target
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            raise _Unknown(obj.target_path) from None
    return obj


def _resolvable(base: object) -> bool:
    path = getattr(base, "canonical_path", str(base))
    return path.split(".")[0] in PACKAGES


def kwargs_popped(func: griffe.Object) -> frozenset[str]:
    """String literals ``kwargs.pop("name", ...)`` in a function's source (read with ast)."""
    return frozenset(apimodel.popped_options(func))


# -- notebooks -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Cell:
    """One code cell of a text notebook."""

    number: int  # 1-based among code cells
    first_line: int  # 1-based page line of its first source line
    source: str  # as jupytext reads it
    requires: tuple[str, ...]  # page requires + the cell's :requires:


def read_cells(path: Path) -> list[Cell]:
    """Code cells, read with jupytext; line numbers from the page's fences."""
    import jupytext

    nb = jupytext.read(path)
    page_requires = _as_tuple(nb.metadata.get("requires"))
    code = [c for c in nb.cells if c.cell_type == "code"]
    fences = [b for b in iter_blocks(path) if b.kind == "code-cell"]
    if len(code) != len(fences):
        raise ValueError(f"{path}: jupytext reads {len(code)} code cells, the page has {len(fences)} fences")
    return [Cell(i, fence.first_line, c.source, page_requires + _as_tuple(c.metadata.get("requires")))
            for i, (c, fence) in enumerate(zip(code, fences), 1)]


def _as_tuple(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(str(v) for v in value)


def gated_newer(requires: Iterable[str], index: ApiIndex, features: FeatureResolver | None) -> bool:
    """True when a requirement asks for a newer checked package than the installed one."""
    for item in requires:
        if item.startswith(FEATURE_PREFIX):
            if features is None:
                continue
            req = features(item[len(FEATURE_PREFIX):])
        else:
            try:
                req = Requirement(item)
            except InvalidRequirement:
                continue  # a capability (cuda, tensorrt)
        name = next((n for n, d in PACKAGES.items() if canonicalize_name(d) == canonicalize_name(req.name)), None)
        if name is None or name not in index.versions:
            continue
        if not req.specifier.contains(Version(index.versions[name]), prereleases=True):
            return True
    return False


class _CellChecker(ast.NodeVisitor):
    def __init__(self, index: ApiIndex, bindings: dict[str, str], report: Callable[[int, str, str], None]) -> None:
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
        except (_Missing, _Unknown):
            return
        accepted = self.index.accepted_keywords(obj)
        if accepted is None:
            return
        for kw in node.keywords:
            if kw.arg is not None and kw.arg not in accepted:
                self.report(kw.value.lineno, "unknown-keyword",
                            f"{path}() has no keyword {kw.arg!r} in installed {self._version(path)} "
                            f"(accepts: {', '.join(sorted(accepted))})")

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
                return self.index.return_path(self.index.lookup(base))
            except (_Missing, _Unknown):
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
        except _Unknown:
            return True
        except _Missing as missing:
            self.report(line, "missing-name", f"{missing.args[0]} does not exist in installed "
                                              f"{self._version(path)}")
            return False
        return True

    def _version(self, path: str) -> str:
        root = path.split(".")[0]
        return f"{root} {self.index.versions.get(root, '(version unknown)')}"


def parse_cell(source: str) -> ast.Module | None:
    """A code cell's tree; None for a cell magic (``%%writefile``: its body is the
    magic's input, not Python). IPython magics and shell lines read as ``pass``
    (lines and the other lines' columns stay where they are). Raises SyntaxError."""
    if source.lstrip().startswith("%%"):
        return None
    return ast.parse(re.sub(r"(?m)^(\s*)[%!].*$", r"\1pass", source))


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


class _UseRecorder(_CellChecker):
    """The checker's resolution, recording each resolved name with its place."""

    def __init__(self, index: ApiIndex, bindings: dict[str, str], instances: set[str], lines: list[str]) -> None:
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
        if self.lines[line - 1][start:start + len(text)] == text:
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
                self._add_written(alias.lineno, alias.col_offset, alias.name, f"{module}.{alias.name}")

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
            self._add(node.lineno, start, start + len(node.id), path, instance=node.id in self.instances)
        elif isinstance(node, ast.Attribute):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            end = self._col(node.end_lineno, node.end_col_offset)
            if isinstance(root, ast.Name) and root.lineno == node.end_lineno:
                self._add(node.end_lineno, self._col(root.lineno, root.col_offset), end, path)
            elif self.lines[node.end_lineno - 1][end - len(node.attr):end] == node.attr:
                self._add(node.end_lineno, end - len(node.attr), end, path)
        return path


def cell_uses(sources: Iterable[str], index: ApiIndex) -> list[list[Use]]:
    """For each code cell, in notebook order (cells share one namespace, as in
    :func:`check_notebook`), the names it uses that resolve into the checked
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
        recorder = _UseRecorder(index, bindings, instances, re.split(r"\r\n|\r|\n", source))  # ast's lines
        for stmt in tree.body:
            recorder.visit(stmt)
        out.append(sorted(recorder.uses.values(), key=lambda u: (u.line, u.start, -u.end)))
    return out


def check_notebook(path: Path, index: ApiIndex, *, root: Path | None = None,
                   features: FeatureResolver | None = None) -> list[Finding]:
    rel = str(path.relative_to(root)) if root else str(path)
    findings: list[Finding] = []
    bindings: dict[str, str] = {}
    text = path.read_text(encoding="utf-8")
    if (bad := front_matter_problem(text)) is not None:
        return [Finding(Violation(rel, bad[0], "front-matter", bad[1]), False)]
    for cell in read_cells(path):
        try:
            gated = gated_newer(cell.requires, index, features)
        except RequirementError as exc:  # an unknown feature id, say: checked as ungated
            findings.append(Finding(Violation(rel, cell.first_line, "requires", str(exc), cell.number), False))
            gated = False

        def report(line: int, rule: str, message: str, cell: Cell = cell, gated: bool = gated) -> None:
            findings.append(Finding(Violation(rel, cell.first_line + line - 1, rule, message, cell.number), gated))

        try:
            tree = parse_cell(cell.source)
        except SyntaxError as exc:
            report(exc.lineno or 1, "parse", f"not valid Python: {exc.msg}")
            continue
        if tree is None:
            continue
        checker = _CellChecker(index, bindings, report)
        for stmt in tree.body:
            checker.visit(stmt)
    return findings


def check_notebooks(paths: Iterable[Path], index: ApiIndex, *, root: Path | None = None,
                    features: FeatureResolver | None = None) -> list[Finding]:
    out: list[Finding] = []
    for path in paths:
        if path.read_text(encoding="utf-8").lstrip().startswith("---") and "jupytext" in path.read_text(encoding="utf-8")[:400]:
            out += check_notebook(path, index, root=root, features=features)
    return out
