"""``{pte-diagram} <path>``: what a ``.pte`` the page's own code wrote holds, drawn.

    ```{pte-diagram} programs/tiny_mlp_xnnpack.pte
    :caption: The program the cell above saved.
    ```

The path is relative to the folder the page's notebook ran in (where its code
writes ``programs/``, the guide's folder for files pages share). The directive
runs while myst-nb renders the page, after the page executed, and reads the
file there (:mod:`.ptelayout`, which keeps ExecuTorch's private readers out of
the notebooks); the diagram is a Graphviz figure like the hand-drawn ones, in
the theme's colours (:mod:`.diagrams`). A page whose file is missing fails,
naming the page, the path and the folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.ext.graphviz import figure_wrapper, graphviz
from sphinx.util.docutils import SphinxDirective

from .. import state
from . import ptelayout

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata


def execution_folder(env: BuildEnvironment, docname: str) -> Path | None:
    """The folder page ``docname`` ran in; None when no folder outlives its run.

    The notebooks part runs every page of a build in one folder, kept between
    builds (its context's ``run_dir``); None until something ran there. A build
    whose notebooks part has none runs each page in its own folder (myst-nb's
    ``nb_execution_in_temp``: gone after the run) or beside the page."""
    context = state.of(env).context
    if context is not None:  # the notebooks part runs this build's pages: its run folder
        folder = context.run_dir
        assert folder is not None, "trtdocs.notebooks is not set up"
        return folder if folder.is_dir() else None
    if env.config.nb_execution_in_temp:
        return None
    return Path(env.doc2path(docname)).parent


class PteDiagram(SphinxDirective):
    required_arguments = 1
    has_content = False
    option_spec = {"caption": directives.unchanged, "alt": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        rel = self.arguments[0].strip()
        folder = execution_folder(self.env, self.env.docname)
        page = self.env.doc2path(self.env.docname, False)
        if folder is None:
            raise self.error(
                f"pte-diagram: {page}: {rel}: the page ran in a temporary folder that is gone "
                f"(nb_execution_in_temp), so no file its code wrote can be drawn"
            )
        path = folder / rel
        if not path.is_file():
            raise self.error(
                f"pte-diagram: {page}: {rel} is not in the folder the page ran in ({folder}); "
                f"the page's code must write it before this line"
            )
        try:
            layout = ptelayout.read(path)
        except ptelayout.PteError as exc:
            raise self.error(f"pte-diagram: {page}: {exc}") from None
        node = graphviz()
        node["code"] = ptelayout.dot(layout)
        node["options"] = {"docname": self.env.docname}
        node["alt"] = self.options.get("alt") or ptelayout.alt(layout)
        node["classes"] = ["trtdocs-pte-diagram"]
        self.set_source_info(node)
        caption = self.options.get("caption")
        if not caption:
            return [node]
        figure = figure_wrapper(self, node, caption)
        self.add_name(figure)
        return [figure]


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("sphinx.ext.graphviz")
    app.add_directive("pte-diagram", PteDiagram)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
