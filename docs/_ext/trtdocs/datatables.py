"""Tables of the guide's data files: ``{data-table} <name>`` renders
``docs/data/<name>.toml`` with the columns :data:`TABLES` gives it.

Each cell is MyST inline text (code and ``{ref}`` roles), parsed where the
directive stands, so code stays code (a literal: no smart quotes, no break
inside a name). A version-note column holds a feature id per row and shows
what the features table says of each (:meth:`~.features.model.FeaturesTable.column_notes`):
the state of each row ("In 2.14", "In 2.15, not released"), linked to the
matrix; a column whose rows all say the same says it once, in the table's
caption; one where the documented release has every row's feature says
nothing. A column with nothing in any row is left out. A table whose
spec names an ``anchor`` field gives each row that id, a link to itself, and
an entry in the site's search (:data:`OBJECT_TYPE`). The page is re-read when
the data file changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from . import config, tomlfile
from .features.model import Feature
from .features.nodes import ROLE_CLASS, matrix_ref, table_of, use_feature

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

Entry = Mapping[str, Any]


def _code(key: str) -> Callable[[Entry], str]:
    return lambda e: f"`{e[key]}`"


def _text(key: str) -> Callable[[Entry], str]:
    return lambda e: str(e[key])


def _nothing(e: Entry) -> str:
    return ""


def _symptom(e: Entry) -> str:
    text = f"`{e['symptom']}`"
    return text + (f" ({{ref}}`reproduced <{e['shown']}>`)" if "shown" in e else "")


@dataclasses.dataclass(frozen=True, slots=True)
class Column:
    title: str
    cell: Callable[[Entry], str]  # entry -> MyST inline text
    width: int  # relative width (colspec)
    # a version-note column: the entry's field holding a feature id, and what a row
    # without one says ("" = nothing)
    feature: str = ""
    absent: str = ""


def notes(title: str, key: str, width: int, absent: str = "") -> Column:
    """A version-note column: the feature id in field ``key`` of each entry."""
    return Column(title, _nothing, width, feature=key, absent=absent)


@dataclasses.dataclass(frozen=True, slots=True)
class TableSpec:
    key: str  # the array of tables in the file: [[key]]
    columns: tuple[Column, ...]
    # (term, text): a definition list after the table, for long text that
    # would make the table too wide
    definitions: tuple[str, str] | None = None
    # (anchor, name): the fields holding each row's id and the name search shows for it
    anchor: tuple[str, str] | None = None


# The search entries of anchored rows (Sphinx's standard domain; "error message" in results).
OBJECT_TYPE = "data-row"
OBJECT_NAME = "error message"


TABLES: Mapping[str, TableSpec] = MappingProxyType(
    {
        "runtime-options": TableSpec(
            "options",
            (
                Column("Option", _code("name"), 22),
                Column("Type", _text("type"), 8),
                Column("Default", _text("default"), 18),
                # scope and C++ call in one column: seven columns do not fit the page at 1280 px
                Column("Set from C++", lambda e: f"{e['scope']} option: {e['cpp']}", 28),
                notes("From Python", "python", 12, absent="no"),
                notes("First release", "feature", 12),
            ),
            definitions=("name", "meaning"),
        ),
        "errors": TableSpec(
            "errors",
            (
                Column("Symptom", _symptom, 24),
                Column("When", _text("when"), 8),
                Column("Cause", _text("cause"), 26),
                Column("Fix", _text("fix"), 26),
                notes("Feature", "feature", 16),
            ),
            anchor=("anchor", "symptom"),
        ),
        "pte-vs-pt2": TableSpec(
            "rows",
            (
                Column("", lambda e: f"**{e['aspect']}**", 16),
                Column("`.pte` (ExecuTorch)", _text("pte"), 34),
                Column("`.pt2` (ExportedProgram)", _text("pt2"), 34),
                notes("Feature", "feature", 16),
            ),
        ),
        "save-options": TableSpec(
            "options",
            (
                Column("Option", _code("name"), 22),
                Column("Default", _code("default"), 8),
                notes("Available", "feature", 16),
                Column("Meaning", _text("meaning"), 54),
            ),
        ),
    }
)


def data_path(srcdir: str | Path, data_dir: str, name: str) -> Path:
    return Path(srcdir, data_dir, f"{name}.toml")


def load(path: Path, spec: TableSpec) -> list[Entry]:
    """The entries of ``path``; a ValueError names the file and the entry."""
    data = tomlfile.read(path)
    entries = data.get(spec.key)
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: no [[{spec.key}]] entries")
    return entries


# A body cell: MyST inline text, or a version note (the feature, the note's text).
Cell = str | tuple[Feature, str]


class DataTable(SphinxDirective):
    """``{data-table} <name>``: the table of ``<trtdocs_data_dir>/<name>.toml``."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0].strip()
        spec = TABLES.get(name)
        if spec is None:
            raise self.error(
                f"data-table: unknown table {name!r}; known: {', '.join(TABLES)} "
                f"(trtdocs.datatables.TABLES)"
            )
        path = data_path(self.env.srcdir, config.of(self.config).data_dir, name)
        self.env.note_dependency(str(path))
        try:
            entries = load(path, spec)
            rows: list[list[Cell]] = [[col.cell(e) for col in spec.columns] for e in entries]
            once = self._notes(spec, entries, rows)
        except KeyError as exc:
            raise self.error(f"data-table: {path}: an entry lacks the field {exc}") from None
        except ValueError as exc:
            raise self.error(f"data-table: {exc}") from None
        table = self._table(spec, rows, name)
        if once:
            table.insert(0, self._caption(once))
        if spec.anchor:
            self._anchor_rows(table, spec.anchor, entries, path)
        _drop_empty_columns(table)
        out: list[nodes.Node] = [table]
        if spec.definitions:
            out.append(self._definitions(spec.definitions, entries))
        return out

    def _notes(
        self, spec: TableSpec, entries: list[Entry], rows: list[list[Cell]]
    ) -> list[tuple[str, Feature]]:
        """Each version-note column's cells in ``rows`` (feature, note); what a
        column says once for every row: (its title, the feature)."""
        features = table_of(self.env)
        once = []
        for i, col in enumerate(spec.columns):
            if not col.feature:
                continue
            ids = [str(e.get(col.feature, "")) for e in entries]
            known = {
                fid: feature
                for fid in dict.fromkeys(filter(None, ids))
                if (feature := use_feature(self.env, fid, self.get_location())) is not None
            }
            if len(known) < len(set(filter(None, ids))):
                raise ValueError(f"{col.title}: an unknown feature id (logged above)")
            texts, said = features.column_notes(ids)
            for row, fid, text in zip(rows, ids, texts, strict=True):
                row[i] = (known[fid], text) if text else ("" if fid else col.absent)
            if said:
                once.append((col.title, known[said]))
        return once

    def _caption(self, once: list[tuple[str, Feature]]) -> nodes.title:
        """ "From Python: In 2.15, not released": what every row of a column says, once."""
        features = table_of(self.env)
        caption = nodes.title(classes=["trtdocs-data-caption"])
        for n, (title, feature) in enumerate(once):
            caption += nodes.Text(f"{'; ' if n else ''}{title}: ")
            caption += matrix_ref(self.env, feature, features.table_note(feature))
        return caption

    def _anchor_rows(
        self, table: nodes.table, fields: tuple[str, str], entries: list[Entry], path: Path
    ) -> None:
        """Each row its own id (a link to it in its first cell), a label for
        ``{ref}``, and an entry in the search index."""
        anchor_key, name_key = fields
        std = self.env.domains.standard_domain
        seen: set[str] = set()
        rows = [r for r in next(table.findall(nodes.tbody)).children if isinstance(r, nodes.row)]
        for row, e in zip(rows, entries, strict=True):
            anchor = str(e.get(anchor_key, ""))
            if not anchor or anchor != nodes.make_id(anchor) or anchor in seen:
                raise self.error(
                    f"data-table: {path}: {anchor_key} {anchor!r} must be a unique "
                    f"lower-case slug (letters, digits, '-')"
                )
            seen.add(anchor)
            row["ids"].append(anchor)
            first = next(row[0].findall(nodes.paragraph))
            first += nodes.reference(
                "",
                "\u00b6",
                refuri=f"#{anchor}",
                internal=True,
                classes=["headerlink"],
                reftitle="Link to this entry",
            )
            name = str(e[name_key])
            std.note_object(OBJECT_TYPE, name, anchor, location=self.get_location())
            std.note_hyperlink_target(anchor, self.env.docname, anchor, name)

    def _inline(self, text: str) -> list[nodes.Node]:
        parsed, messages = self.parse_inline(text, lineno=self.lineno)
        return [*parsed, *messages]

    def _table(self, spec: TableSpec, rows: list[list[Cell]], name: str) -> nodes.table:
        table = nodes.table(classes=["trtdocs-data-table", f"trtdocs-data-{name}"])
        group = nodes.tgroup(cols=len(spec.columns))
        table += group
        for col in spec.columns:
            group += nodes.colspec(colwidth=col.width)
        head = nodes.thead()
        body = nodes.tbody()
        group += head
        group += body
        head += self._row([col.title for col in spec.columns])
        for cells in rows:
            body += self._row(cells)
        return table

    def _row(self, cells: Sequence[Cell]) -> nodes.row:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            if isinstance(cell, str):
                entry += nodes.paragraph("", "", *self._inline(cell))
            else:  # a version note, linked to its feature's row of the matrix
                feature, text = cell
                note = nodes.inline(classes=[ROLE_CLASS])
                note += matrix_ref(self.env, feature, text)
                entry += nodes.paragraph("", "", note)
            row += entry
        return row

    def _definitions(self, keys: tuple[str, str], entries: list[Entry]) -> nodes.definition_list:
        term_key, text_key = keys
        items = nodes.definition_list(classes=["trtdocs-data-definitions"])
        for e in entries:
            item = nodes.definition_list_item()
            item += nodes.term("", "", nodes.literal(text=str(e[term_key])))
            definition = nodes.definition()
            definition += nodes.paragraph("", "", *self._inline(str(e[text_key])))
            item += definition
            items += item
        return items


def _drop_empty_columns(table: nodes.table) -> None:
    """Leave out each column with no text in any body row."""
    group = next(table.findall(nodes.tgroup))
    rows = list(table.findall(nodes.row))
    body = list(next(table.findall(nodes.tbody)).children)
    empty = [
        i
        for i in range(len(rows[0].children))
        if all(not row.children[i].astext().strip() for row in body)
    ]
    if not empty:
        return
    for row in rows:
        row.children = [c for i, c in enumerate(row.children) if i not in empty]
    specs = [c for c in group.children if isinstance(c, nodes.colspec)]
    for i in empty:
        group.remove(specs[i])
    group["cols"] = len(specs) - len(empty)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.config")
    app.setup_extension("trtdocs.features")  # version-note columns
    app.add_directive("data-table", DataTable)
    app.add_object_type(OBJECT_TYPE, OBJECT_TYPE, objname=OBJECT_NAME)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
