"""``{support-matrix}``: features x releases at a glance, then the releases
(status, platforms, pins, install command), then each feature with its note
and, folded, the linked sources of every cell. Every other note links to a
feature's entry here (``feature-<id>``); the sidebar links to the release
table (:data:`ROW_ID`).

The features table reads at a glance: a state is a mark and a word, a
platform limit or a remark is a short line under it, and the sources are one
tap away in the entry below, each a link to what it cites. On a phone each
feature is a block: its title, then one short line of its releases' states
(trtdocs.site.tables labels the cells; trtdocs.css lays them out).
"""

from __future__ import annotations

from collections.abc import Sequence

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

from ..output import folding
from ..output.inline import inline
from ..vocab import PINS, PLATFORMS, STATES, STATUSES
from .model import Feature, FeaturesTable, cell_source
from .nodes import table_of
from .releases import PIN_KEYS, Release
from .sources import Source
from .words import plain

# The id of a release's row in the release table: the sidebar links there.
ROW_ID = "release-{key}"
# The id of the block that holds the release table (the sidebar's "other releases" link).
RELEASES_ID = "releases"


class SupportMatrix(SphinxDirective):
    """``{support-matrix}``: features x releases x platforms, then the releases."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        env = self.env
        table = table_of(env)
        env.note_dependency(str(table.path))
        std = env.domains.standard_domain
        # the sidebar's link targets a block around the release table, never the
        # table: the theme copies a table's ids onto the wrapper it adds (furo's
        # WrapTableAndMathInAContainerTransform), which would give the page the id twice
        releases = nodes.container(ids=[RELEASES_ID])
        releases += self._releases_table(table)
        out: list[nodes.Node] = [legend(), self._features_table(table), releases]
        items = nodes.definition_list(classes=["trtdocs-feature-list"])
        for f in table.features:
            label = f"feature-{f.id}"
            item = nodes.definition_list_item()
            term = nodes.term(ids=[label])
            term += nodes.strong("", "", *inline(f.title))
            item += term
            body = nodes.definition()
            body += nodes.paragraph("", "", *inline(f.note))
            if f.table_only:
                body += nodes.paragraph(text=f"Listed here only: {f.table_only}.")
            body += folding.make(
                [nodes.Text("Sources, by release")],
                [self._sources(table, f)],
                ["trtdocs-feature-sources"],
            )
            item += body
            items += item
            std.note_hyperlink_target(label, env.docname, label, plain(f.title))
        out.append(items)
        return out

    def _sources(self, table: FeaturesTable, f: Feature) -> nodes.bullet_list:
        """One line per release: its state, then each source as a link."""
        known = nodes.bullet_list(classes=["trtdocs-feature-evidence"])
        for r in table.releases.values():
            cell = f.cells[r.key]
            para = nodes.paragraph(
                "", "", nodes.strong(text=f"{_column(table, r)}: {table.cell_words(f, r)}.")
            )
            if not cell.sources:
                para += nodes.Text(" No source shows it.")
            elif cell.state == "unknown":
                para += nodes.Text(" Known:")
            for i, source in enumerate(cell.sources):
                para += nodes.Text(" " if i == 0 else "; ")
                para += source_nodes(source)
            known += nodes.list_item("", para)
        return known

    def _features_table(self, table: FeaturesTable) -> nodes.table:
        releases = list(table.releases.values())
        head: list[nodes.Node | str] = ["Feature"]
        for r in releases:
            cell = nodes.inline("", r.label)
            if r.key == table.documented:
                cell += nodes.inline("", " documented", classes=["trtdocs-matrix-documented"])
            head.append(cell)
        rows = []
        for f in table.features:
            # a link on this page keeps the title's code as
            # code (a resolved reference would flatten it)
            cells: list[nodes.Node | str] = [
                nodes.reference("", "", *inline(f.title), internal=True, refid=f"feature-{f.id}")
            ]
            for r in releases:
                cells.append(_state(table, f, r))
            rows.append(cells)
        return _table(head, rows, ["trtdocs-support-matrix"], widths=[40] + [20] * len(releases))

    def _releases_table(self, table: FeaturesTable) -> nodes.table:
        head = ["Release", "Status", "Platforms", "Pins", "Install"]
        rows: list[list[nodes.Node | str]] = []
        for r in table.releases.values():
            status = STATUSES[r.status].words + (f" ({r.date})" if r.date else "")
            rows.append(
                [
                    r.version or r.label,
                    status,
                    ", ".join(PLATFORMS[p] for p in r.platforms),
                    _pins_cell(r),
                    nodes.literal(text=table.install_command(r.key)),
                ]
            )
        out = _table(head, rows, ["trtdocs-release-table"], widths=[10, 14, 16, 25, 35])
        # each release's row is a target of its own (the sidebar, the notes)
        rows_out = [r for r in next(out.findall(nodes.tbody)).children if isinstance(r, nodes.row)]
        for row, r in zip(rows_out, table.releases.values(), strict=True):
            row["ids"].append(ROW_ID.format(key=r.key))
        return out


def _column(table: FeaturesTable, r: Release) -> str:
    return r.label + (" (documented)" if r.key == table.documented else "")


def _state(table: FeaturesTable, f: Feature, r: Release) -> nodes.Node:
    """A cell of the matrix: the state's mark and word, its sources as a
    tooltip, and under it the platform limit or remark, if any."""
    cell = f.cells[r.key]
    words = table.cell_words(f, r)
    state = nodes.abbreviation(
        "",
        "",
        explanation=cell_source(cell),
        classes=["trtdocs-cell", f"trtdocs-cell-{cell.state}"],
    )
    word = STATES[cell.state].word
    state += nodes.inline("", STATES[cell.state].mark, classes=["trtdocs-cell-mark"])
    state += nodes.inline("", f" {word}", classes=["trtdocs-cell-word"])
    out = nodes.inline()
    out += state
    detail = words[len(word) :].lstrip(", ")
    if detail:
        # the page shows the detail on its own line and hides the comma; a text
        # export (the .html.md twin) reads "in code, no run shown"
        out += nodes.inline("", ", ", classes=["trtdocs-cell-sep"])
        out += nodes.inline("", detail, classes=["trtdocs-cell-detail"])
    return out


def legend() -> nodes.bullet_list:
    """What each state of a cell needs (vocab.STATES, the evidence standard), as the
    matrix's legend: the mark, the word, then what its sources must show."""
    items = nodes.bullet_list(classes=["trtdocs-matrix-legend"])
    for key, state in STATES.items():
        para = nodes.paragraph()
        mark = nodes.inline("", state.mark, classes=["trtdocs-cell-mark", f"trtdocs-cell-{key}"])
        para += [
            mark,
            nodes.Text(" "),
            nodes.strong(text=state.word),
            nodes.Text(f": {state.needs}."),
        ]
        items += nodes.list_item("", para)
    return items


def source_nodes(source: Source) -> list[nodes.Node]:
    """A source as a reader sees it: its label as a link (a page of this guide as a
    link to that page), then what it shows."""
    if source.kind == "run":
        ref = addnodes.pending_xref(
            "",
            refdomain="std",
            reftype="doc",
            reftarget=f"/{source.value}",
            refexplicit=True,
            refwarn=True,
        )
        ref += nodes.inline("", source.label)
        out: list[nodes.Node] = [ref]
    else:
        out = [nodes.reference("", source.label, refuri=source.url, internal=False)]
    if source.kind in ("wheel", "artifact") and source.path:
        out += [nodes.Text(", "), nodes.literal(text=source.path)]
    if source.shows:
        out += [nodes.Text(": "), *inline(source.shows)]
    return out


def _pins_cell(release: Release) -> nodes.inline:
    """Each pin with its metadata source as a tooltip; a release with no
    published metadata says why it shows none."""
    cell = nodes.inline(classes=["trtdocs-pins"])
    if not release.pins:
        cell += nodes.Text(STATUSES[release.status].unpinned)
        return cell
    for i, (name, spec) in enumerate(release.pins.items()):
        if i:
            cell += nodes.Text("; ")
        cell += nodes.abbreviation(
            "",
            f"{PINS[PIN_KEYS[name]].label} {spec}",
            explanation=f"From {release.pin_sources[name]}",
        )
    return cell


def _table(
    head: Sequence[nodes.Node | str],
    rows: Sequence[Sequence[nodes.Node | str]],
    classes: list[str],
    widths: list[int],
) -> nodes.table:
    table = nodes.table(classes=classes)
    group = nodes.tgroup(cols=len(head))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    thead = nodes.thead()
    group += thead
    thead += _row(head)
    body = nodes.tbody()
    group += body
    for r in rows:
        body += _row(r)
    return table


def _row(cells: Sequence[nodes.Node | str]) -> nodes.row:
    row = nodes.row()
    for c in cells:
        entry = nodes.entry()
        para = nodes.paragraph()
        para += nodes.Text(c) if isinstance(c, str) else c
        entry += para
        row += entry
    return row
