"""``{support-matrix}``: features x releases x platforms, then the releases
(status, platforms, pins, install command), then each feature with the source
of every cell. Every other note links to a feature's entry here
(``feature-<id>``), and the sidebar's release switcher to a release's row
(:data:`ROW_ID`).
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from ..output.inline import inline
from ..vocab import PINS, PLATFORMS, STATUSES
from .model import PIN_KEYS, FeaturesTable, Release, cell_source, plain
from .nodes import matrix_ref, table_of

# The id of a release's row in the release table: the release switcher links there.
ROW_ID = "release-{key}"


class SupportMatrix(SphinxDirective):
    """``{support-matrix}``: features x releases x platforms, then the releases."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        env = self.env
        table = table_of(env)
        env.note_dependency(str(table.path))
        std = env.domains.standard_domain
        out: list[nodes.Node] = [self._features_table(table), self._releases_table(table)]
        items = nodes.definition_list(classes=["trtdocs-feature-list"])
        for f in table.features:
            label = f"feature-{f.id}"
            item = nodes.definition_list_item()
            term = nodes.term(ids=[label])
            term += nodes.strong("", "", *inline(f.title))
            term += nodes.Text(" ")
            term += nodes.literal(text=f.id)
            item += term
            body = nodes.definition()
            body += nodes.paragraph("", "", nodes.Text(f"{table.note_text(f)}. "), *inline(f.note))
            known = nodes.bullet_list(classes=["trtdocs-feature-evidence"])
            for r in table.releases.values():
                cell = f.cells[r.key]
                words = f"{self._column(table, r)}: {table.cell_words(f, r)}"
                known += nodes.list_item("", nodes.paragraph(
                    "", "", nodes.strong(text=words), nodes.Text(f". {cell_source(cell)}.")))
            body += known
            if f.table_only:
                body += nodes.paragraph(text=f"Listed here only: {f.table_only}.")
            item += body
            items += item
            std.note_hyperlink_target(label, env.docname, label, plain(f.title))
        out.append(items)
        return out

    def _features_table(self, table: FeaturesTable) -> nodes.table:
        releases = table.releases.values()
        head = ["Feature"] + [self._column(table, r) for r in releases]
        rows = []
        for f in table.features:
            cells: list[nodes.Node | str] = [matrix_ref(self.env, f, f.title)]
            for r in releases:
                cell = f.cells[r.key]
                # the state as a tooltip-carrying abbreviation; the list below
                # the matrix spells out every source
                cells.append(nodes.abbreviation(
                    "", table.cell_words(f, r), explanation=cell_source(cell),
                    classes=["trtdocs-cell", f"trtdocs-cell-{cell.state}"]))
            rows.append(cells)
        return _table(head, rows, "trtdocs-support-matrix")

    @staticmethod
    def _column(table: FeaturesTable, r: Release) -> str:
        return r.label + (" (documented)" if r.key == table.documented else "")

    def _releases_table(self, table: FeaturesTable) -> nodes.table:
        head = ["Release", "Status", "Platforms", "Pins", "Install"]
        rows = []
        for r in table.releases.values():
            status = STATUSES[r.status].words + (f" ({r.date})" if r.date else "")
            rows.append([r.version or r.label, status,
                         ", ".join(PLATFORMS[p] for p in r.platforms), _pins_cell(r),
                         nodes.literal(text=table.install_command(r.key))])
        out = _table(head, rows, "trtdocs-release-table")
        # each release's row is the release switcher's target (.sphinx)
        for row, r in zip(next(out.findall(nodes.tbody)).children, table.releases.values()):
            row["ids"].append(ROW_ID.format(key=r.key))
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
        cell += nodes.abbreviation("", f"{PINS[PIN_KEYS[name]].label} {spec}",
                                   explanation=f"From {release.pin_sources[name]}")
    return cell


def _table(head: list[str], rows: list[list[nodes.Node | str]], cls: str) -> nodes.table:
    table = nodes.table(classes=[cls])
    group = nodes.tgroup(cols=len(head))
    table += group
    for _ in head:
        group += nodes.colspec(colwidth=1)
    thead = nodes.thead()
    group += thead
    thead += _row(head)
    body = nodes.tbody()
    group += body
    for r in rows:
        body += _row(r)
    return table


def _row(cells: list[nodes.Node | str]) -> nodes.row:
    row = nodes.row()
    for c in cells:
        entry = nodes.entry()
        para = nodes.paragraph()
        para += nodes.Text(c) if isinstance(c, str) else c
        entry += para
        row += entry
    return row


