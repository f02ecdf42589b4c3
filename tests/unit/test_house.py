"""The extension's house rules, read from its sources (no Sphinx build):
no module over the line budget, no import circle and no pair of packages that
import each other (an import inside a function counts: it runs when the function
is called; only a part's ``setup()`` may import lazily), no module reaching into
another's private names, every part declaring its parallel safety; and conf.py
lists the parts it uses. Each check is shown to catch a planted break.

The packages (``api``, ``drift``, ``features``, ``notebooks`` ...) depend one way:
``pages`` (the pages read statically) imports no other package, ``drift`` may
import ``notebooks`` and never the reverse. The top-level modules (``state``,
``config``, ``vocab`` ...) are the base every package imports; ``state`` names the
types of its per-build slots under ``TYPE_CHECKING`` only."""

from __future__ import annotations

import ast
import importlib
import re
import shutil
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from paths import ROOT

PACKAGE = ROOT / "docs" / "_ext" / "trtdocs"
LINE_BUDGET = 400
# Modules over the budget, each with the reason it may be; the test fails once one fits.
OVER_BUDGET: Mapping[str, str] = {}
# Top-level modules with a setup() that conf.py does not list: the parts set them up.
SHARED = ("trtdocs.config", "trtdocs.state")


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


def imports(
    name: str, path: Path, source: str | None = None, *, typing: bool = True
) -> Iterator[tuple[str, str, int]]:
    """(imported module, imported name or "", line) for each import of ``name``: at
    module level (``if TYPE_CHECKING:`` blocks included) and inside functions and
    classes, which run when they are called and so are arrows too. Only the imports
    of a module-level ``setup()`` are left out: Sphinx calls it once, to load the
    part's modules, and it is where a package names them. ``typing=False`` leaves out
    the ``if TYPE_CHECKING:`` blocks too (names for annotations, never run)."""
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    setups = {
        id(n)
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "setup"
    }
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if id(node) in setups or (not typing and _type_checking(node)):
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, "", node.lineno
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(name, path, node.module, node.level)
            for alias in node.names:
                yield target, alias.name, node.lineno
        todo += reversed(list(ast.iter_child_nodes(node)))


def _type_checking(node: ast.AST) -> bool:
    """Whether ``node`` is an ``if TYPE_CHECKING:`` block."""
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )


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


def package_of(name: str, mods: Mapping[str, Path]) -> str | None:
    """The package a module belongs to (``trtdocs.drift`` for ``trtdocs.drift.cpp``), or
    None for a top-level module (``trtdocs.state``) and the top package itself."""
    parts = name.split(".")
    if len(parts) > 2 or (len(parts) == 2 and mods[name].name == "__init__.py"):
        return ".".join(parts[:2])
    return None


def both_ways(mods: Mapping[str, Path], edges: Mapping[str, Iterable[str]]) -> list[str]:
    """Each pair of packages that import each other, with one arrow each way."""
    arrows: dict[tuple[str, str], str] = {}
    for name, targets in edges.items():
        for target in targets:
            a, b = package_of(name, mods), package_of(target, mods)
            if a and b and a != b:
                arrows.setdefault((a, b), f"{name} -> {target}")
    return sorted(
        f"{a} <-> {b}: {arrows[a, b]}; {arrows[b, a]}"
        for a, b in arrows
        if a < b and (b, a) in arrows
    )


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


def units(
    mods: Mapping[str, Path], sources: Mapping[str, str] | None = None
) -> dict[str, set[str]]:
    """The run-time import graph between the house's units: each package one node, each
    top-level module (``config``, ``datatables`` ...) one node; annotation-only imports
    left out. A circle here is a circle the module graph hides inside packages, as
    config -> notebooks -> markdown -> datatables -> config would be."""
    edges: dict[str, set[str]] = {}
    for name, path in mods.items():
        unit = package_of(name, mods) or name
        targets = edges.setdefault(unit, set())
        for target, member, _ in imports(name, path, (sources or {}).get(name), typing=False):
            sub = f"{target}.{member}"
            found = sub if sub in mods else target if target in mods else None
            if found is not None and found != PACKAGE.name:
                other = package_of(found, mods) or found
                if other != unit:
                    targets.add(other)
    return edges


def test_no_circle_between_packages_and_top_level_modules() -> None:
    assert circles(units(modules())) == []


def test_a_planted_circle_through_a_package_is_found() -> None:
    mods = modules()
    config = mods["trtdocs.config"]
    planted = config.read_text(encoding="utf-8") + "\nfrom .notebooks import launch\n"
    found = circles(units(mods, {"trtdocs.config": planted}))
    assert any("trtdocs.config" in c and "trtdocs.notebooks" in c for c in found), found


def test_no_two_packages_import_each_other() -> None:
    mods = modules()
    assert both_ways(mods, graph(mods)) == []


def test_no_module_reads_another_modules_private_names() -> None:
    assert private_uses(modules()) == []


def toml_readers(mods: Mapping[str, Path]) -> list[str]:
    """Modules that parse TOML themselves instead of through trtdocs.tomlfile (which
    names the file and the line of a bad one)."""
    return sorted(
        name
        for name, path in mods.items()
        if name != "trtdocs.tomlfile" and "tomllib." in path.read_text(encoding="utf-8")
    )


def test_toml_is_read_through_one_helper() -> None:
    assert toml_readers(modules()) == []


def test_a_planted_toml_reader_is_found(tmp_path: Path) -> None:
    mods = _planted(
        tmp_path,
        {
            "__init__.py": "",
            "tomlfile.py": "import tomllib\nx = tomllib.loads('')\n",
            "a.py": "import tomllib\nx = tomllib.loads('')\n",
            "b.py": "from . import tomlfile\n",
        },
    )
    assert toml_readers(mods) == ["trtdocs.a"]


def test_the_pure_layers_import_no_sphinx() -> None:
    """The models, validators and decisions test without Sphinx: they import no
    Sphinx or docutils, directly or through the package."""
    pure = [
        "trtdocs.vocab",
        "trtdocs.tomlfile",
        "trtdocs.features.model",
        "trtdocs.features.validate",
        "trtdocs.features.fields",
        "trtdocs.features.releases",
        "trtdocs.drift.raisesites",
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


# The one shape of a package's setup(): it sets up, in order, the modules its PARTS
# tuple names, each a Sphinx extension with its own setup() (by the house convention,
# a package's Sphinx wiring, its events and directives, lives in its module
# ``sphinx.py``; the others are named for what they add). A package with no setup()
# is a library of the parts (trtdocs.pages).
PACKAGE_SETUP = """
def setup(app: Sphinx) -> ExtensionMetadata:
    for part in PARTS:
        app.setup_extension(f"{__name__}.{part}")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
"""


def setup_shapes(mods: Mapping[str, Path]) -> list[str]:
    """What departs from the one shape, in every package that has a setup()."""
    canonical = ast.dump(ast.parse(PACKAGE_SETUP).body[0])
    out = []
    for name, path in mods.items():
        if path.name != "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        setup = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "setup"]
        if not setup:
            continue
        if ast.dump(setup[0]) != canonical:
            out.append(f"{name}: setup() is not the package shape")
        parts = [
            n.value
            for n in tree.body
            if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "PARTS"
        ]
        names = ast.literal_eval(parts[0]) if parts else ()
        if not names:
            out.append(f"{name}: no PARTS")
        for part in names:
            module = mods.get(f"{name}.{part}")
            has_setup = module is not None and any(
                isinstance(n, ast.FunctionDef) and n.name == "setup"
                for n in ast.parse(module.read_text(encoding="utf-8")).body
            )
            if not has_setup:
                out.append(f"{name}: PARTS names {part!r}, which has no setup()")
    return out


def setup_modules() -> list[str]:
    """Every module of the package with a module-level setup(): each a Sphinx extension."""
    return [
        name
        for name, path in modules().items()
        if any(
            isinstance(n, ast.FunctionDef) and n.name == "setup"
            for n in ast.parse(path.read_text(encoding="utf-8")).body
        )
    ]


def test_every_package_sets_up_its_parts_one_way() -> None:
    assert setup_shapes(modules()) == []


def test_a_planted_setup_of_another_shape_is_found(tmp_path: Path) -> None:
    mods = _planted(
        tmp_path,
        {
            "__init__.py": 'PARTS = ("a",)\n' + PACKAGE_SETUP,
            "a.py": "def setup(app):\n    return {}\n",
            "lazy/__init__.py": "def setup(app):\n"
            "    from .sphinx import setup\n"
            "    return setup(app)\n",
            "lazy/sphinx.py": "def setup(app):\n    return {}\n",
            "named/__init__.py": 'PARTS = ("sphinx", "gone")\n' + PACKAGE_SETUP,
            "named/sphinx.py": "def setup(app):\n    return {}\n",
            "pages/__init__.py": "",
        },
    )
    assert setup_shapes(mods) == [
        "trtdocs.lazy: setup() is not the package shape",
        "trtdocs.lazy: no PARTS",
        "trtdocs.named: PARTS names 'gone', which has no setup()",
    ]


class _App:
    """Enough of Sphinx's application for a setup() to run: every call is recorded."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.extensions: dict[str, Any] = {}

    def setup_extension(self, name: str) -> None:
        self.calls.append(f"setup_extension {name}")

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self.calls.append(name)


@pytest.mark.parametrize("part", setup_modules())
def test_every_part_declares_its_parallel_safety(part: str) -> None:
    metadata = importlib.import_module(part).setup(_App())
    assert metadata["parallel_read_safe"] is True and metadata["parallel_write_safe"] is True, part


def conf_parts() -> list[str]:
    """The trtdocs entries of conf.py's ``extensions``."""
    tree = ast.parse((ROOT / "conf.py").read_text(encoding="utf-8"))
    listed = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "extensions"
    )
    return [e for e in listed if e.startswith("trtdocs")]


def test_conf_py_lists_the_parts_it_uses() -> None:
    """conf.py is the one list of the parts: every package and top-level module of
    the extension that has a setup(), but the shared ones the parts set up."""
    text = (ROOT / "conf.py").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 150
    top = {m for m in setup_modules() if m.count(".") == 1}
    assert sorted(conf_parts()) == sorted(top - set(SHARED))
    assert "PYTHONPATH" not in text  # the notebooks' kernels never import the extension


def parts_table(text: str) -> list[str]:
    """The first column of docs/building.md's table of the extension's parts."""
    start = text.index("| Part | What it does |")
    rows = text[start:].split("\n\n", 1)[0].splitlines()[2:]
    return [name for row in rows for name in re.findall(r"`([\w.]+/?)`", row.split("|")[1])]


def test_the_building_page_lists_every_part_once() -> None:
    """docs/building.md holds the one list of the extension's parts (the README points
    to it): each package and each top-level module, once, and nothing else."""
    listed = parts_table((ROOT / "docs" / "building.md").read_text(encoding="utf-8"))
    there = sorted(
        [p.name + "/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()]
        + [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    )
    assert sorted(listed) == there
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/building.md#where-the-builds-code-lives" in readme
    assert not re.search(r"(?im)^\| *(part|to change) *\|", readme)  # no second table


def test_a_planted_parts_table_is_read_cell_by_cell() -> None:
    text = (
        "| Part | What it does |\n| --- | --- |\n"
        "| `api/` | x `not/this` |\n| `a.py`, `b.py` | y |\n\nafter"
    )
    assert parts_table(text) == ["api/", "a.py", "b.py"]


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


def test_an_import_in_setup_is_no_arrow(tmp_path: Path) -> None:
    mods = _planted(
        tmp_path,
        {
            "__init__.py": "def setup(app):\n    from .b import x\n",
            "b.py": "from . import c\n",
            "c.py": "import trtdocs\n",
        },
    )
    assert circles(graph(mods)) == []


def test_a_function_local_import_that_closes_a_circle_is_found(tmp_path: Path) -> None:
    mods = _planted(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from . import b\n",
            "b.py": "def helper():\n    if True:\n        from .a import thing\n",
        },
    )
    assert circles(graph(mods)) == [["trtdocs.a", "trtdocs.b"]]


def test_a_package_pair_that_imports_both_ways_is_found(tmp_path: Path) -> None:
    mods = _planted(
        tmp_path,
        {
            "__init__.py": "",
            "state.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from .x.four import T\n",
            "x/__init__.py": "",
            "x/one.py": "from .. import state\nfrom ..y import two\n",
            "y/__init__.py": "",
            "y/two.py": "",
            "y/three.py": "class C:\n    def m(self):\n        from ..x import four\n",
            "x/four.py": "",
        },
    )
    assert circles(graph(mods)) == []  # no module circle, and a top-level module is no package
    assert both_ways(mods, graph(mods)) == [
        "trtdocs.x <-> trtdocs.y: trtdocs.x.one -> trtdocs.y.two; trtdocs.y.three -> trtdocs.x.four"
    ]


def test_a_circle_planted_in_a_copy_of_the_package_is_found(tmp_path: Path) -> None:
    """The real package, copied, with one function-local import that closes a circle:
    the shared page reader reaching back into a guard that imports it."""
    shutil.copytree(PACKAGE, tmp_path / "trtdocs", ignore=shutil.ignore_patterns("__pycache__"))
    blocks = tmp_path / "trtdocs" / "pages" / "blocks.py"
    blocks.write_text(
        blocks.read_text(encoding="utf-8")
        + "\n\ndef planted() -> None:\n    from ..drift import cpp  # noqa: F401\n",
        encoding="utf-8",
    )
    mods = modules(tmp_path / "trtdocs")
    edges = graph(mods)
    assert any({"trtdocs.pages.blocks", "trtdocs.drift.cpp"} <= set(c) for c in circles(edges))
    assert [p.split(":")[0] for p in both_ways(mods, edges)] == ["trtdocs.drift <-> trtdocs.pages"]


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
