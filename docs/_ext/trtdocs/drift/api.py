"""The API guard: names and keyword arguments the notebooks use, checked
against the installed packages' sources with griffe (nothing is imported:
``import torch_tensorrt`` fails without TensorRT's libraries).

For each code cell, in notebook order (cells share one namespace), and each
Python block shown as text (its own snippet, after the cells: it starts from the
names the cells bound, as a reader who ran the page would), imports
and simple assignments bind local names to dotted paths of
:data:`trtdocs.vocab.API_PACKAGES` (:class:`trtdocs.api.uses.CellChecker`);
every attribute chain and call rooted at such a name is checked:

* the object exists (``missing-name``);
* each keyword argument is a parameter of its signature, unless the signature
  takes ``**kwargs`` (``unknown-keyword``); for the functions of
  :data:`trtdocs.api.index.KWARGS_FROM_SOURCE` the keyword may also be one of
  the names the function's source pops from ``kwargs`` (extracted with :mod:`ast`).

A cell gated by a requirement the installed packages do not meet (such as
``feature:cuda-graphs`` whose first release is newer, or ``torch_tensorrt>=2.15``)
may use names the installed release lacks: its findings become notes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from ..api.index import ApiIndex
from ..api.uses import CellChecker
from ..notebooks.frontmatter import front_matter_problem
from ..notebooks.requirements import FeatureResolver
from ..pages import Violation
from ..pages.blocks import iter_blocks
from ..pages.cells import parse_cell
from ..vocab import API_PACKAGES, FEATURE_PREFIX, PACKAGES, PYTHON_LANGUAGES, RequirementError

RULES: Mapping[str, str] = MappingProxyType(
    {
        "missing-name": "a name used from a checked package exists in its installed version",
        "unknown-keyword": "a keyword argument is accepted by the installed signature",
        "parse": "the cell is valid Python (IPython magics aside)",
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class Finding:
    """One API problem; ``gated`` findings are notes, not errors."""

    violation: Violation  # where and what
    gated: bool  # the cell requires a newer release than the installed one


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
        raise ValueError(
            f"{path}: jupytext reads {len(code)} code cells, the page has {len(fences)} fences"
        )
    return [
        Cell(i, fence.first_line, c.source, page_requires + _as_tuple(c.metadata.get("requires")))
        for i, (c, fence) in enumerate(zip(code, fences, strict=True), 1)
    ]


def read_text_blocks(path: Path, page_requires: tuple[str, ...]) -> list[Cell]:
    """The Python blocks the page shows as text (``{code-block} python`` and Python
    fences), numbered 0: findings name their line, not a cell."""
    import yaml

    blocks = [
        b for b in iter_blocks(path) if b.kind != "code-cell" and b.language in PYTHON_LANGUAGES
    ]
    return [
        Cell(
            0,
            b.first_line,
            "\n".join(b.lines),
            page_requires
            + _as_tuple(yaml.safe_load(b.options["requires"]) if "requires" in b.options else None),
        )
        for b in blocks
    ]


def _as_tuple(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable):
        return tuple(str(v) for v in value)
    raise TypeError(f"requires: {value!r} is neither a requirement nor a list of them")


def gated_newer(requires: Iterable[str], index: ApiIndex, features: FeatureResolver | None) -> bool:
    """True when a requirement asks for a newer checked package than the installed one."""
    for item in requires:
        if item.startswith(FEATURE_PREFIX):
            if features is None:
                continue
            req = features(item[len(FEATURE_PREFIX) :])
        else:
            try:
                req = Requirement(item)
            except InvalidRequirement:
                continue  # a capability (cuda, tensorrt)
        name = next(
            (
                n
                for n in API_PACKAGES
                if canonicalize_name(PACKAGES[n]) == canonicalize_name(req.name)
            ),
            None,
        )
        if name is None or name not in index.versions:
            continue
        if not req.specifier.contains(Version(index.versions[name]), prereleases=True):
            return True
    return False


def check_notebook(
    path: Path,
    index: ApiIndex,
    *,
    root: Path | None = None,
    features: FeatureResolver | None = None,
) -> list[Finding]:
    rel = str(path.relative_to(root)) if root else str(path)
    findings: list[Finding] = []
    text = path.read_text(encoding="utf-8")
    if (bad := front_matter_problem(text)) is not None:
        return [Finding(Violation(rel, bad[0], "front-matter", bad[1]), False)]
    cells = read_cells(path)
    bindings: dict[str, str] = {}  # the cells share one namespace
    for cell in cells:
        findings += _check_snippet(rel, cell, bindings, index, features)
    for block in read_text_blocks(path, _as_tuple(_front_requires(text))):
        # a text block is its own snippet, starting from what the cells bound
        findings += _check_snippet(rel, block, dict(bindings), index, features)
    return findings


def _check_snippet(
    rel: str,
    cell: Cell,
    bindings: dict[str, str],
    index: ApiIndex,
    features: FeatureResolver | None,
) -> list[Finding]:
    """One cell's or text block's findings; the names it binds go into ``bindings``."""
    findings: list[Finding] = []
    number = cell.number or None  # a text block is named by its line only
    try:
        gated = gated_newer(cell.requires, index, features)
    except RequirementError as exc:  # an unknown feature id, say: checked as ungated
        findings.append(
            Finding(Violation(rel, cell.first_line, "requires", str(exc), number), False)
        )
        gated = False

    def report(line: int, rule: str, message: str) -> None:
        findings.append(
            Finding(Violation(rel, cell.first_line + line - 1, rule, message, number), gated)
        )

    try:
        tree = parse_cell(cell.source)
    except SyntaxError as exc:
        report(exc.lineno or 1, "parse", f"not valid Python: {exc.msg}")
        return findings
    if tree is not None:
        checker = CellChecker(index, bindings, report)
        for stmt in tree.body:
            checker.visit(stmt)
    return findings


def _front_requires(text: str) -> object:
    """The page's front-matter ``requires`` (jupytext's notebook metadata)."""
    import jupytext

    return jupytext.reads(text, fmt="md:myst").metadata.get("requires")


def check_notebooks(
    paths: Iterable[Path],
    index: ApiIndex,
    *,
    root: Path | None = None,
    features: FeatureResolver | None = None,
) -> list[Finding]:
    out: list[Finding] = []
    for path in paths:
        if (
            path.read_text(encoding="utf-8").lstrip().startswith("---")
            and "jupytext" in path.read_text(encoding="utf-8")[:400]
        ):
            out += check_notebook(path, index, root=root, features=features)
    return out
