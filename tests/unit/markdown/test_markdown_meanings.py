"""One meaning per directive in Markdown (trtdocs.markdown.meanings): every
directive, role and node the extension registers, and every directive and role
the site's pages use, has one; the downloads and the twins both read it. Each
check is shown to catch a planted directive."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from paths import ROOT
from trtdocs.markdown import forms, meanings
from trtdocs.markdown.leftovers import DIRECTIVE, PARSER
from trtdocs.pages.blocks import CODE_DIRECTIVES, page_paths


class Registrations:
    """Enough of Sphinx's application for the parts' setup() to run: what they
    register is kept; a part they set up is set up in turn."""

    def __init__(self) -> None:
        self.directives: set[str] = set()
        self.roles: set[str] = set()
        self.nodes: set[str] = set()
        self.extensions: dict[str, Any] = {}
        self._done: set[str] = set()

    def setup_extension(self, name: str) -> None:
        if name.startswith("trtdocs") and name not in self._done:
            self._done.add(name)
            importlib.import_module(name).setup(self)

    def add_directive(self, name: str, cls: object, override: bool = False) -> None:
        self.directives.add(name)

    def add_role(self, name: str, role: object, override: bool = False) -> None:
        self.roles.add(name)

    def add_node(self, node: type, override: bool = False, **kwargs: object) -> None:
        self.nodes.add(node.__name__)

    def add_object_type(self, directivename: str, rolename: str, *args: Any, **kw: Any) -> None:
        self.directives.add(directivename)
        self.roles.add(rolename)

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def conf_parts(conf: Path = ROOT / "conf.py") -> list[str]:
    tree = ast.parse(conf.read_text(encoding="utf-8"))
    listed = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "extensions"
    )
    return [e for e in listed if e.startswith("trtdocs")]


def registered(parts: Iterable[str]) -> Registrations:
    app = Registrations()
    for part in parts:
        app.setup_extension(part)
    return app


def extlinks(conf: Path = ROOT / "conf.py") -> set[str]:
    tree = ast.parse(conf.read_text(encoding="utf-8"))
    return next(
        set(ast.literal_eval(n.value))
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "extlinks"
    )


def used(text: str) -> tuple[set[str], set[str]]:
    """The directives and roles a MyST page uses, those nested in directives too."""
    directives: set[str] = set()
    roles: set[str] = set()
    for token in PARSER.parse(text):
        if token.type in ("fence", "colon_fence") and (m := DIRECTIVE.match(token.info.strip())):
            directives.add(m["name"])
            if m["name"] not in CODE_DIRECTIVES:
                inner = used(token.content)
                directives |= inner[0]
                roles |= inner[1]
        for child in token.children or ():
            if child.type == "myst_role":
                roles.add(child.meta["name"])
    return directives, roles


def site_uses(root: Path = ROOT) -> tuple[set[str], set[str]]:
    directives: set[str] = set()
    roles: set[str] = set()
    for page in page_paths(root):
        d, r = used(page.read_text(encoding="utf-8"))
        directives |= d
        roles |= r
    return directives, roles


# -- the extension and the site --------------------------------------------------------


def test_every_directive_role_and_node_the_extension_registers_has_a_meaning() -> None:
    app = registered(conf_parts())
    assert {"data-table", "install-command", "feature-note", "api-module"} <= app.directives
    assert {"feature", "api-feature"} <= app.roles and "folded" in app.nodes
    assert meanings.missing(app.directives, app.roles, app.nodes) == []


def test_every_directive_and_role_the_pages_use_has_a_meaning() -> None:
    directives, roles = site_uses()
    assert {"tab-set", "graphviz", "code-cell", "toctree"} <= directives
    assert {"doc", "ref", "feature", "pypi"} <= roles
    assert meanings.missing(directives, roles, extlinks=extlinks()) == []


def test_every_meaning_is_used_or_registered() -> None:
    """No meaning for markup nobody writes: the list is the site's, kept short (the
    admonitions and the cell markers are each one family)."""
    app = registered(conf_parts())
    directives, roles = site_uses()
    families = meanings.ADMONITIONS | meanings.CELL_MARKERS
    assert set(meanings.DIRECTIVES) - app.directives - directives - families == set()
    assert set(meanings.ROLES) - app.roles - roles == set()


# -- planted ---------------------------------------------------------------------------

PLANTED_PART = """
from docutils import nodes
from docutils.parsers.rst import Directive


class planted_node(nodes.General, nodes.Element):
    pass


class Planted(Directive):
    def run(self):
        return [planted_node()]


def setup(app):
    app.add_node(planted_node)
    app.add_directive("planted-box", Planted)
    app.add_role("planted-role", lambda *args: ([], []))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
"""


def test_a_directive_a_planted_part_registers_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "trtdocs_planted.py").write_text(PLANTED_PART, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    app = registered(conf_parts())
    app._done.add("trtdocs_planted")
    importlib.import_module("trtdocs_planted").setup(app)
    sys.modules.pop("trtdocs_planted", None)
    assert meanings.missing(app.directives, app.roles, app.nodes) == [
        "the directive {planted-box}",
        "the node planted_node",
        "the role {planted-role}",
    ]


def test_a_directive_a_planted_page_uses_is_found(tmp_path: Path) -> None:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "page.md").write_text(
        "# Page\n\n::::{tab-set}\n:::{tab-item} One\n```{planted-box}\n```\n"
        "See {planted-role}`x` and {doc}`other`.\n:::\n::::\n\n"
        "```{code-block} markdown\n```{not-a-directive-here}\n```\n",
        encoding="utf-8",
    )
    directives, roles = site_uses(tmp_path)
    assert meanings.missing(directives, roles, extlinks=extlinks()) == [
        "the directive {planted-box}",
        "the role {planted-role}",
    ]


# -- the forms -------------------------------------------------------------------------


def test_a_quote_has_its_title_in_bold_then_its_body() -> None:
    assert forms.quote("Warning", "Do not.\n\nReally.") == (
        "> **Warning**\n>\n> Do not.\n>\n> Really."
    )
    assert forms.quote("**Executed** · here") == "> **Executed** · here"


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("x", "`x`"),
        ("{py:func}`torch_tensorrt.save`", "`` {py:func}`torch_tensorrt.save` ``"),
        ("a `` b", "```a `` b```"),
    ],
)
def test_a_code_span_holds_its_backticks(text: str, span: str) -> None:
    assert forms.code_span(text) == span
    tokens = PARSER.parseInline(span)[0].children
    assert [t.type for t in tokens] == ["code_inline"] and tokens[0].content == text


def test_a_fence_holds_a_fence() -> None:
    assert forms.fence("```{note}\nx\n```", "markdown") == ("````markdown\n```{note}\nx\n```\n````")
