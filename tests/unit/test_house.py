"""The extension's house rules, read from its sources (no Sphinx build):
no module over the line budget, no import circle, no module reaching into
another's private names, every part declaring its parallel safety; and conf.py
lists the parts it uses. Each check is shown to catch a planted break."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from paths import ROOT

PACKAGE = ROOT / "docs" / "_ext" / "trtdocs"
LINE_BUDGET = 400
# Modules over the budget, each with the reason it may be; the test fails once one fits.
OVER_BUDGET: Mapping[str, str] = {}
# The parts conf.py lists (each a Sphinx extension).
PARTS = (
    "trtdocs.notebooks",
    "trtdocs.output",
    "trtdocs.features",
    "trtdocs.api",
    "trtdocs.datatables",
    "trtdocs.benchresults",
    "trtdocs.failures",
    "trtdocs.site",
    "trtdocs.drift",
    "trtdocs.llms",
)


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _absolute(name: str, path: Path, module: str | None, level: int) -> str:
    """The absolute module name an import statement in ``name`` (file ``path``) names."""
    if level == 0:
        return module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = package[: len(package) - level + 1]
    return ".".join([*base, module] if module else base)


def imports(name: str, path: Path, source: str | None = None) -> Iterator[tuple[str, str, int]]:
    """(imported module, imported name or "", line) for each module-level import of
    ``name`` (``if TYPE_CHECKING:`` blocks included; imports inside functions are
    the lazy ones a setup() makes, and are left out)."""
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    body: list[ast.stmt] = []
    for node in tree.body:
        body += node.body if isinstance(node, ast.If) else [node]
    for node in body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, "", node.lineno
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(name, path, node.module, node.level)
            for alias in node.names:
                yield target, alias.name, node.lineno


def graph(
    mods: Mapping[str, Path], sources: Mapping[str, str] | None = None
) -> dict[str, set[str]]:
    """Module -> the package's modules it imports at module level."""
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for target, member, _ in imports(name, path, (sources or {}).get(name)):
            sub = f"{target}.{member}"
            if sub in mods:
                edges[name].add(sub)  # from . import module
            elif target in mods:
                edges[name].add(target)
    return edges


def circles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module, or a self-import (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in edges.get(node, ()):
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def private_uses(mods: Mapping[str, Path], sources: Mapping[str, str] | None = None) -> list[str]:
    """Places where a module imports another module's ``_private`` name, or reads
    ``module._private`` off a module it imported."""
    out = []
    for name, path in mods.items():
        source = (sources or {}).get(name) or path.read_text(encoding="utf-8")
        bound: dict[str, str] = {}  # local name -> a package module it stands for
        for target, member, line in imports(name, path, source):
            if target.startswith("trtdocs") and member.startswith("_") and target != name:
                out.append(f"{name}:{line}: imports {target}.{member}")
            if f"{target}.{member}" in mods:
                bound[member] = f"{target}.{member}"
            elif not member and target in mods:
                bound[target.split(".")[0]] = target
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
            ):
                out.append(f"{name}:{node.lineno}: reads {bound[node.value.id]}.{node.attr}")
    return out


# -- the house ----------------------------------------------------------------------


def test_no_module_over_the_line_budget() -> None:
    sizes = {
        str(p.relative_to(PACKAGE)): len(p.read_text(encoding="utf-8").splitlines())
        for p in modules().values()
    }
    over = sorted(
        f"{m}: {n} lines" for m, n in sizes.items() if n > LINE_BUDGET and m not in OVER_BUDGET
    )
    assert not over, f"over {LINE_BUDGET} lines: {over}"
    fits = sorted(m for m in OVER_BUDGET if sizes.get(m, 0) <= LINE_BUDGET)
    assert not fits, f"{fits} fit the budget now: take them out of OVER_BUDGET"


def test_no_import_circle() -> None:
    assert circles(graph(modules())) == []


def test_no_module_reads_another_modules_private_names() -> None:
    assert private_uses(modules()) == []


def test_the_pure_layers_import_no_sphinx() -> None:
    """The models, validators and decisions test without Sphinx: they import no
    Sphinx or docutils, directly or through the package."""
    pure = [
        "trtdocs.vocab",
        "trtdocs.features.model",
        "trtdocs.features.validate",
        "trtdocs.api.model",
        "trtdocs.api.index",
        "trtdocs.api.uses",
        "trtdocs.api.data",
        "trtdocs.notebooks.plan",
        "trtdocs.notebooks.gating",
        "trtdocs.notebooks.requirements",
        "trtdocs.notebooks.recorded",
        "trtdocs.notebooks.integrity",
    ]
    mods = modules()
    edges = graph(mods)
    for start in pure:
        seen, todo = set(), [start]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            todo += edges[name]
            third = {t.split(".")[0] for t, _, _ in imports(name, mods[name])}
            assert not third & {"sphinx", "docutils", "myst_nb", "myst_parser"}, (
                start,
                name,
                third,
            )


class _App:
    """Enough of Sphinx's application for a setup() to run: every call is recorded."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.extensions: dict[str, Any] = {}

    def setup_extension(self, name: str) -> None:
        self.calls.append(f"setup_extension {name}")

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self.calls.append(name)


@pytest.mark.parametrize(
    "part",
    [
        *PARTS,
        "trtdocs",
        "trtdocs.config",
        "trtdocs.state",
        "trtdocs.output.folding",
        "trtdocs.output.streams",
        "trtdocs.output.lognoise",
        "trtdocs.output.tracebacks",
        "trtdocs.output.buildpaths",
        "trtdocs.output.cellmagic",
        "trtdocs.output.cellinclude",
    ],
)
def test_every_part_declares_its_parallel_safety(
    part: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "EXECUTORCH_CXX_PREFIX", "/nonexistent"
    )  # notebooks' setup() exports it otherwise
    metadata = importlib.import_module(part).setup(_App())
    assert metadata["parallel_read_safe"] is True and metadata["parallel_write_safe"] is True, part


def test_conf_py_lists_the_parts_it_uses() -> None:
    text = (ROOT / "conf.py").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 150
    tree = ast.parse(text)
    listed = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "extensions"
    )
    assert [e for e in listed if e.startswith("trtdocs")] == list(PARTS)
    assert "PYTHONPATH" not in text  # the notebooks' kernels never import the extension


# -- each check catches a planted break --------------------------------------------


def _planted(tmp_path: Path, files: Mapping[str, str]) -> dict[str, Path]:
    for rel, text in files.items():
        (tmp_path / "trtdocs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "trtdocs" / rel).write_text(text, encoding="utf-8")
    return modules(tmp_path / "trtdocs")


def test_a_planted_circle_is_found(tmp_path: Path) -> None:
    mods = _planted(
        tmp_path,
        {
            "__init__.py": "",
            "a/__init__.py": "",
            "a/one.py": "from ..b import two\n",
            "b/__init__.py": "",
            "b/two.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from ..a.one import X\n",
            "c.py": "from .a import one\n",
        },
    )
    assert circles(graph(mods)) == [["trtdocs.a.one", "trtdocs.b.two"]]


def test_a_lazy_import_in_a_function_is_no_circle(tmp_path: Path) -> None:
    mods = _planted(
        tmp_path,
        {
            "__init__.py": "def setup(app):\n    from .b import x\n",
            "b.py": "from . import c\n",
            "c.py": "import trtdocs\n",
        },
    )
    assert circles(graph(mods)) == []


def test_planted_private_uses_are_found(tmp_path: Path) -> None:
    mods = _planted(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "def _helper(): pass\n",
            "b.py": "from .a import _helper\n",
            "c.py": "from . import a\nx = a._helper()\ny = a.__name__\n",
        },
    )
    assert private_uses(mods) == [
        "trtdocs.b:1: imports trtdocs.a._helper",
        "trtdocs.c:2: reads trtdocs.a._helper",
    ]
