"""What each piece of MyST markup, and each node this site's extensions make,
becomes in Markdown: one list, read by the exporter's two readers.

* A download (:mod:`.source`) renders a notebook's MyST source: it looks up each
  directive and role here, and a name with no meaning is an error at its line.
* A twin (:mod:`.doctree`) translates the page the HTML builder resolved: it
  looks up each node here by its kind (:func:`node_key`) and rewrites it into
  the form its meaning names.

Both write a form with the same writer (:mod:`.forms`), so that a warning, a
tab's label or a diagram reads the same in a download and in a twin. A test
fails when a directive, role or node the extension registers, or a directive or
role a page uses, has no meaning here. Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from typing import Final


class Form(enum.Enum):
    """A Markdown form, in words."""

    QUOTE = "a quote: its title in bold on a line of its own, then its body"
    FENCE = "a fenced code block in its language"
    CELL = (
        "a notebook cell: in a download, the cell itself; in a twin, its code in a fence, "
        "then each output in a fence under an *Output* line"
    )
    TABLE = "a pipe table"
    LIST = "a bulleted list"
    LABELLED = "each item's label in bold on a line of its own, then its content"
    CONTENT = "its content, in place"
    DIAGRAM = (
        "its picture where the file holds pictures (an attached PNG in a .ipynb), else its "
        "alt text and its Graphviz source in a dot fence; then its caption in italics"
    )
    ENTRIES = (
        "API entries: each a heading with an anchor named for the entry (its dotted name), "
        "its signature, then its text"
    )
    LINK = (
        "a link: in a twin to the other page's twin, in a download to the hosted page "
        "(with a base URL) or the sibling download"
    )
    TEXT = "its text, in the sentence"
    NOTHING = "nothing: a target, a comment, a line-break opportunity"


@dataclasses.dataclass(frozen=True, slots=True)
class Meaning:
    form: Form
    what: str  # the markup or node, in words
    # a download renders it from the source; False: only pages without downloads use it, and
    # only their twins, from the doctree, meet it (a download that meets it reports so)
    downloads: bool = True


def _each(names: Iterable[str], meaning: Meaning) -> dict[str, Meaning]:
    return dict.fromkeys(names, meaning)


# Docutils' and Sphinx's admonitions: MyST writes them as directives.
ADMONITIONS: Final = frozenset(
    {
        "admonition",
        "attention",
        "caution",
        "danger",
        "error",
        "hint",
        "important",
        "note",
        "seealso",
        "tip",
        "warning",
    }
)
# Directives that mark a cell of the jupytext MyST format, not page content.
CELL_MARKERS: Final = frozenset({"code-cell", "raw-cell"})

DIRECTIVES: Final[Mapping[str, Meaning]] = {
    # this site's extension (docs/_ext/trtdocs)
    "api-module": Meaning(Form.ENTRIES, "a module's API reference", downloads=False),
    "api-upstream-names": Meaning(
        Form.TABLE, "the other projects' names the guide calls", downloads=False
    ),
    "build-benchmark": Meaning(Form.TABLE, "the build-speed table", downloads=False),
    "build-report": Meaning(Form.TABLE, "every notebook's status", downloads=False),
    "code-block": Meaning(
        Form.FENCE, "code shown as text; with `:requires:`, the quoted mark of what it needs first"
    ),
    "data-row": Meaning(Form.ENTRIES, "an error message's entry", downloads=False),
    "data-table": Meaning(Form.TABLE, "a table of docs/data; its definitions as a list after it"),
    "feature-note": Meaning(Form.QUOTE, "a version note, headed by what it says"),
    "include-cell": Meaning(Form.FENCE, "another notebook's cell", downloads=False),
    "install-command": Meaning(Form.FENCE, "an install command, in a bash fence"),
    "page-needs": Meaning(Form.TABLE, "every notebook's requirements", downloads=False),
    "pte-diagram": Meaning(Form.DIAGRAM, "the layout of a .pte the page wrote"),
    "support-matrix": Meaning(Form.TABLE, "the support matrix", downloads=False),
    # Sphinx, MyST, myst-nb, sphinx-design and Graphviz, as the pages use them
    **_each(CELL_MARKERS, Meaning(Form.CELL, "a notebook cell")),
    **_each(ADMONITIONS, Meaning(Form.QUOTE, "an admonition, headed by its title")),
    "graphviz": Meaning(Form.DIAGRAM, "a Graphviz diagram"),
    "grid": Meaning(Form.CONTENT, "a grid of cards", downloads=False),
    "grid-item-card": Meaning(Form.LABELLED, "a card, headed by its title", downloads=False),
    "tab-set": Meaning(Form.CONTENT, "tabs, one after the other"),
    "tab-item": Meaning(Form.LABELLED, "a tab, headed by its label"),
    "toctree": Meaning(Form.LIST, "the pages it lists, as links", downloads=False),
}

ROLES: Final[Mapping[str, Meaning]] = {
    "doc": Meaning(Form.LINK, "a link to a page, reading its title"),
    "ref": Meaning(Form.LINK, "a link to a label, reading its title"),
    "feature": Meaning(Form.TEXT, "a version note in parentheses, or nothing for 2.14"),
    "feature-release": Meaning(Form.TEXT, "the release a feature comes in, from the table"),
    "release": Meaning(Form.TEXT, "the release the pages describe, from the table"),
    "api-feature": Meaning(Form.TEXT, "an API entry's version note", downloads=False),
    "data-row": Meaning(Form.LINK, "a link to an error message's entry", downloads=False),
}
# A role sphinx.ext.extlinks makes from conf.py's ``extlinks`` (``{pypi}`x```).
EXTLINK: Final = Meaning(Form.LINK, "a link out, from conf.py's extlinks")

# Nodes a twin meets that sphinx-markdown-builder's translator does not write as the
# site means them, by :func:`node_key`.
NODES: Final[Mapping[str, Meaning]] = {
    "Admonition": Meaning(Form.QUOTE, "docutils' admonitions (a note, a version note)"),
    "desc": Meaning(Form.ENTRIES, "an API entry (Sphinx's desc is an admonition too)"),
    "folded": Meaning(Form.QUOTE, "a folded block: a banner, a mark on a cell"),
    "folded_summary": Meaning(Form.QUOTE, "a folded block's line: the quote's title"),
    "download_link": Meaning(Form.LINK, "a link the browser saves: a download"),
    "page_links": Meaning(
        Form.NOTHING,
        "a line of links about the page (its downloads, Colab): the status at the page's end "
        "says what the downloads hold",
    ),
    "cell_code_output": Meaning(Form.CELL, "a cell's outputs"),
    "graphviz": Meaning(Form.DIAGRAM, "a Graphviz diagram"),
    "sd_tab_label": Meaning(Form.LABELLED, "a sphinx-design tab's label"),
    "sd_tab_input": Meaning(Form.NOTHING, "the radio button of a sphinx-design tab"),
    "PassthroughTextElement": Meaning(Form.LABELLED, "a sphinx-design card's title or link"),
    "used_in": Meaning(Form.LIST, "an API entry's 'Used in' list"),
    "upstream_names": Meaning(Form.TABLE, "the table of other projects' names"),
    "status_placeholder": Meaning(Form.CONTENT, "the status banner's place"),
    "page_status": Meaning(Form.CONTENT, "the page's status, at its end (its footer in HTML)"),
    "included_from": Meaning(Form.CONTENT, "where a cell shown on another page ran"),
    "report_placeholder": Meaning(Form.CONTENT, "the build report's place"),
    "needs_placeholder": Meaning(Form.CONTENT, "the page-needs table's place"),
    "wbr": Meaning(Form.NOTHING, "a line-break opportunity in a table's code"),
    "entry": Meaning(Form.TABLE, "a table cell"),
}


def directive(name: str) -> Meaning | None:
    return DIRECTIVES.get(name)


def role(name: str, extlinks: Iterable[str] = ()) -> Meaning | None:
    """A role's meaning; ``extlinks``: the roles conf.py's ``extlinks`` makes."""
    if name in ROLES:
        return ROLES[name]
    return EXTLINK if name in set(extlinks) else None


def node_key(cls_names: Iterable[str], nb_element: str = "") -> str | None:
    """The key of :data:`NODES` a node has: myst-nb's element kind, else the nearest of
    its classes (its own, then its bases: ``note`` -> ``Admonition``) with a meaning."""
    if nb_element in NODES:
        return nb_element
    return next((name for name in cls_names if name in NODES), None)


def missing(
    directives: Iterable[str] = (),
    roles: Iterable[str] = (),
    node_names: Iterable[str] = (),
    extlinks: Iterable[str] = (),
) -> list[str]:
    """What has no meaning here, in words ("the directive {x}")."""
    links = set(extlinks)
    return sorted(
        [f"the directive {{{d}}}" for d in set(directives) if d not in DIRECTIVES]
        + [f"the role {{{r}}}" for r in set(roles) if role(r, links) is None]
        + [f"the node {n}" for n in set(node_names) if n not in NODES]
    )
