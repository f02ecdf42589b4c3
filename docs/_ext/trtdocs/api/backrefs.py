"""Each entry says where the guide uses it ("Used in", as sphinx-gallery's
back-references do), and every name a code cell calls has a home.

Read (``doctree-read``, each page with code): its code cells and static
Python blocks (:mod:`.pagecode`) and the section each shown one sits in are
kept (:class:`.names.CellPage`). Check
(``env-updated``, once every page is read, on a site with the reference):
the cells of the pages read go through :func:`.names.targets`. A name with no
target fails the build, naming the page, the cell and the line.
Each use by a shown block that has a target is kept in the build state
(:class:`.names.UseSite`: the page, the section the block sits in, the block).

Resolve (``doctree-resolved``): under each entry of the reference, a
``used_in`` placeholder becomes the list of the pages and sections whose
cells use it, in reading order (:mod:`trtdocs.order`); the
``{api-upstream-names}`` directive becomes the table of the other projects'
names the code calls, each with its link and its uses, and of the names left
unlinked with their reasons. The pages that hold them are written again
whenever a page's uses change (``env-get-updated``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .. import state
from ..order import rank
from .names import ENTRY, UNLINKED, UPSTREAM, CellPage, Finding, UseSite, targets
from .pagecode import code_blocks, is_cell, page_code
from .sphinx import site_of, used_in

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

USED_IN = "Used in"
TABLE_CLASS = "trtdocs-api-upstream"


class upstream_names(nodes.General, nodes.Element):
    """Where the table of other projects' names goes."""


class UpstreamNames(SphinxDirective):
    """``{api-upstream-names}``: the other projects' names the guide's code calls."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        state.of(self.env).backref_docs.add(self.env.docname)
        self.env.note_dependency(str(site_of(self.env).links_file))
        return [upstream_names()]


# -- read ---------------------------------------------------------------------------


def _section(node: nodes.Node) -> tuple[str, str]:
    """The id and title of the section ``node`` is in."""
    parent = node.parent
    while parent is not None and not isinstance(parent, nodes.section):
        parent = parent.parent
    if parent is None or not parent["ids"]:
        return "", ""
    title = parent.next_node(nodes.title)
    return parent["ids"][0], title.astext() if title is not None else ""


def collect(app: Sphinx, doctree: nodes.document) -> None:
    """At doctree-read: a page's code (its code cells and static Python blocks) and
    where its blocks sit, for the check once every page is read."""
    docname = app.env.docname
    build = state.of(app.env)
    build.api_cells.pop(docname, None)
    blocks = code_blocks(doctree)
    if not blocks:
        return
    sources, shown = page_code(Path(app.env.doc2path(docname)), blocks)
    places = tuple(
        (*_section(b), b.line or (b.parent.line if b.parent is not None else None)) for b in blocks
    )
    cells = tuple(is_cell(b) for b in blocks)
    build.api_cells[docname] = CellPage(tuple(sources), tuple(shown), places, cells)
    build.api_unchecked.add(docname)


def check(app: Sphinx, env: BuildEnvironment) -> None:
    """At env-updated (every page read), on a site with the API reference: the names of
    each page read since its last check. One with no home fails the build; the
    uses of the others are kept for "Used in"."""
    build = state.of(env)
    if not build.backref_docs:
        return  # no reference on this site: nothing to link to, and the API stays unloaded
    api = site_of(env)
    for docname in sorted(build.api_unchecked & set(build.api_cells)):
        page = build.api_cells[docname]
        build.api_docs.add(docname)  # read again when the installed packages change
        sites: list[UseSite] = []
        for i, (cell, j) in enumerate(
            zip(targets(list(page.sources), api.resolver), page.shown, strict=True)
        ):
            for use, target in cell:
                if target is None:
                    line = page.places[j][2] if j is not None else None
                    hidden = "" if j is not None else " (a hidden cell)"
                    logger.error(
                        "%s%s",
                        Finding(i, use.line, use.path, page.label(i)).message(),
                        hidden,
                        location=(docname, line),
                        type="trtdocs",
                        subtype="api-names",
                    )
                elif j is not None:
                    section, heading, _ = page.places[j]
                    sites.append(UseSite(target.kind, target.name, docname, section, heading, i))
        build.api_uses[docname] = tuple(dict.fromkeys(sites))
    build.api_unchecked.clear()


def before_read(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    state.of(env).api_uses_before = dict(state.of(env).api_uses)


def load_while_notebooks_run(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """At env-before-read-docs, once trtdocs.notebooks has started this build's
    executions: the process only waits for their kernels, so what :func:`check`
    needs after the read (the API model, the links) loads now, off the build's
    critical path."""
    if state.of(env).backref_docs and state.of(env).execution is not None:
        site_of(env).load_names()


def updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The pages with "Used in" lists, when some page's uses changed in this build."""
    build = state.of(env)
    if build.api_uses_before is None or build.api_uses_before == build.api_uses:
        return []
    return sorted(build.backref_docs & env.found_docs)


# -- resolve -------------------------------------------------------------------------


def _by_name(env: BuildEnvironment) -> dict[tuple[str, str], list[UseSite]]:
    """(kind, name) -> its uses, in reading order, one per page and section."""
    order = rank(env)
    out: dict[tuple[str, str], list[UseSite]] = defaultdict(list)
    for docname in sorted(state.of(env).api_uses, key=lambda d: order.get(d, len(order))):
        for site in state.of(env).api_uses[docname]:
            uses = out[(site.kind, site.name)]
            if not any(u.docname == site.docname and u.section == site.section for u in uses):
                uses.append(site)
    return out


def _link(app: Sphinx, fromdoc: str, site: UseSite) -> nodes.reference:
    uri = app.builder.get_relative_uri(fromdoc, site.docname) + (
        f"#{site.section}" if site.section else ""
    )
    title = (
        app.env.titles[site.docname].astext() if site.docname in app.env.titles else site.docname
    )
    text = title if not site.heading or site.heading == title else f"{title} › {site.heading}"
    return nodes.reference("", text, internal=True, refuri=uri)


def _used_in(app: Sphinx, fromdoc: str, uses: list[UseSite]) -> list[nodes.Node]:
    if not uses:
        return []
    items = nodes.bullet_list(classes=["trtdocs-used-in"])
    for site in uses:
        items += nodes.list_item("", nodes.paragraph("", "", _link(app, fromdoc, site)))
    return [nodes.rubric(text=USED_IN, classes=["trtdocs-used-in"]), items]


def _table(
    app: Sphinx,
    fromdoc: str,
    rows: Sequence[tuple[nodes.Node, Sequence[nodes.Node], list[UseSite]]],
    heads: tuple[str, str, str],
) -> nodes.table:
    table = nodes.table(classes=[TABLE_CLASS])
    group = nodes.tgroup(cols=3)
    table += group
    group.extend(nodes.colspec(colwidth=w) for w in (3, 3, 4))
    head = nodes.thead()
    head += nodes.row("", *(nodes.entry("", nodes.paragraph(text=h)) for h in heads))
    body = nodes.tbody()
    for name, what, uses in rows:
        places: list[nodes.Node] = []
        for i, site in enumerate(uses):
            places += [nodes.Text("; ")] * bool(i) + [_link(app, fromdoc, site)]
        body += nodes.row(
            "",
            nodes.entry("", nodes.paragraph("", "", name)),
            nodes.entry("", nodes.paragraph("", "", *what)),
            nodes.entry("", nodes.paragraph("", "", *places)),
        )
    group += [head, body]
    return table


def _upstream_table(
    app: Sphinx, fromdoc: str, uses: dict[tuple[str, str], list[UseSite]]
) -> list[nodes.Node]:
    links = site_of(app.env).links
    linked, unlinked = [], []
    for (kind, name), sites in sorted(uses.items(), key=lambda kv: kv[0][1]):
        code = nodes.literal(text=name)
        if kind == UPSTREAM:
            upstream = links.upstream[name.split(".")[0]]
            ref = nodes.reference("", "", code, refuri=links.url(name), internal=False)
            linked.append((ref, [nodes.Text(f"{upstream.package} {upstream.release}")], sites))
        elif kind == UNLINKED:
            unlinked.append((code, [nodes.Text(links.unlinked[name])], sites))
    out: list[nodes.Node] = []
    if linked:
        out.append(_table(app, fromdoc, linked, ("Name", "Documented by", "Used in")))
    if unlinked:
        out += [
            nodes.paragraph(text="Names the code calls that link nowhere, and why:"),
            _table(app, fromdoc, unlinked, ("Name", "Why it links nowhere", "Used in")),
        ]
    return out


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """At doctree-resolved: fill the "Used in" lists and the table of other projects' names."""
    holders = list(doctree.findall(used_in)) + list(doctree.findall(upstream_names))
    if not holders:
        return
    uses = _by_name(app.env)
    for node in holders:
        if isinstance(node, used_in):
            node.replace_self(_used_in(app, docname, uses.get((ENTRY, node["name"]), [])))
        else:
            node.replace_self(
                _upstream_table(app, docname, {k: v for k, v in uses.items() if k[0] != ENTRY})
            )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_node(upstream_names)
    app.add_directive("api-upstream-names", UpstreamNames)
    app.connect("doctree-read", collect)
    app.connect("env-updated", check)
    app.connect("env-before-read-docs", before_read)
    app.connect(
        "env-before-read-docs", load_while_notebooks_run, priority=700
    )  # after notebooks.jobs.start (600)
    app.connect("env-get-updated", updated)
    app.connect("doctree-resolved", resolve)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
