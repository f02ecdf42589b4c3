"""Show a code cell of another notebook: ``{include-cell} <path>`` with ``:tag:``.

    ```{include-cell} notebooks/export-pte.md
    :tag: quick-start
    ```

renders the source of the one cell of that text notebook that carries the tag,
as a highlighted block, so a summary page (the landing page's quick start)
shows code that its own page executes or checks, never a copy. The path is
relative to the including page, as ``literalinclude``'s is. A ``%%writefile``
cell renders as the file it writes: the magic line is dropped and the file
name becomes the caption. Under the block, where the notebook's gating is set
up (:mod:`trtdocs.notebooks.includes`), a line says which page the cell is of
and whether it ran in this build, as that page's mark and status say: the
block shows code that runs, or says why it did not. The including page is read
again when the notebook changes, or is read again. A missing file, no cell with
the tag, or several are errors at the directive's line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from .. import state
from .cellmagic import LANGUAGES, WRITEFILE

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

PYTHON = "python"


class CellSource:
    """The source and language of one tagged cell of a text notebook."""

    def __init__(self, path: Path, tag: str) -> None:
        import jupytext  # a page with an {include-cell} pays for it, not every build

        notebook = jupytext.read(path)
        cells = [
            c for c in notebook.cells if c.cell_type == "code" and tag in c.metadata.get("tags", [])
        ]
        if len(cells) != 1:
            found = "no code cell" if not cells else f"{len(cells)} code cells"
            raise ValueError(
                f"{path.name}: {found} with the tag {tag!r}; exactly one must carry it"
            )
        source: str = cells[0].source
        self.caption: str | None = None
        self.language = PYTHON
        first, _, rest = source.partition("\n")
        if (m := WRITEFILE.match(first)) is not None:
            self.caption = Path(m["file"]).name
            self.language = LANGUAGES.get(Path(m["file"]).suffix, "text")
            source = rest
        self.source = source.rstrip("\n")


class included_from(nodes.General, nodes.Element):
    """Where the line saying where the cell ran goes (``source``: the notebook's
    docname, ``tag``); a build without the notebooks' gating shows nothing."""


def _skip(self: object, node: nodes.Node) -> None:
    raise nodes.SkipNode


class IncludeCell(SphinxDirective):
    required_arguments = 1
    option_spec = {"tag": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        rel, path = self.env.relfn2path(self.arguments[0], self.env.docname)
        if "tag" not in self.options:
            raise self.error("include-cell needs a :tag: option (the tag of the cell to show)")
        if not Path(path).is_file():
            raise self.error(f"include-cell: {rel} does not exist")
        self.env.note_dependency(rel)
        try:
            cell = CellSource(Path(path), self.options["tag"])
        except ValueError as error:
            raise self.error(f"include-cell: {error}") from None
        block = nodes.literal_block(cell.source, cell.source, language=cell.language)
        self.set_source_info(block)
        source = self.env.path2doc(path)
        where = [included_from(source=source, tag=self.options["tag"])] if source else []
        if source:
            state.of(self.env).include_docs.add(self.env.docname)
        if cell.caption is None:
            return [block, *where]
        container = nodes.container("", literal_block=True, classes=["literal-block-wrapper"])
        caption = nodes.caption(cell.caption, "", nodes.literal(cell.caption, cell.caption))
        container += [caption, block]
        self.set_source_info(container)
        return [container, *where]


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.state")
    skip = (_skip, _skip)
    app.add_node(included_from, html=skip, latex=skip, text=skip, man=skip, texinfo=skip)
    app.add_directive("include-cell", IncludeCell)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
