"""Stream outputs shown the way Jupyter shows them.

A kernel forwards what a cell writes in pieces, cut wherever the writer
flushed: ExecuTorch's C++ logging reaches stderr a few characters at a time
(``[``, ``method.cpp``, ``:``, ``85``, ``] Backend …``). Jupyter joins
consecutive pieces of one stream as they are. myst-nb's ``nb_merge_streams``
strips each piece and ends it with a newline, so every piece would get a line
of its own and trailing spaces would go; conf.py leaves it off and this
transform joins the rendered pieces instead, with the terminal's carriage
return and backspace applied.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from docutils import nodes
from sphinx.errors import ConfigError
from sphinx.transforms import SphinxTransform

from .rewrite import set_text

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata

# The classes myst-nb gives the literal blocks of stdout and stderr pieces
# (myst_nb/core/render.py, render_stdout and render_stderr), in the order the
# joined blocks are shown when a cell writes to both.
STREAM_CLASSES: Final = ("stream", "stderr")
# The container myst-nb puts a code cell's outputs in.
OUTPUT_CONTAINER: Final = "cell_code_output"


def terminal_text(text: str) -> str:
    """``text`` as a terminal leaves it: ``\\r`` returns to the start of the
    line and what follows overwrites it; ``\\b`` erases the character before."""
    lines = []
    for line in text.replace("\r\n", "\n").split("\n"):
        shown = ""
        for segment in line.split("\r"):
            typed = ""
            for char in segment:
                typed = typed[:-1] if char == "\b" else typed + char
            shown = typed + shown[len(typed) :]
        lines.append(shown)
    return "\n".join(lines)


def stream_kind(node: nodes.Node) -> str | None:
    """``"stream"`` or ``"stderr"`` for a myst-nb stream block, else None."""
    if not isinstance(node, nodes.literal_block) or "output" not in node["classes"]:
        return None
    return next((kind for kind in STREAM_CLASSES if kind in node["classes"]), None)


def join_run(run: list[nodes.literal_block]) -> list[nodes.literal_block]:
    """One block per stream for a run of consecutive stream pieces: each
    keeps the first piece's node and attributes, stdout before stderr."""
    joined = []
    for kind in STREAM_CLASSES:
        pieces = [node for node in run if stream_kind(node) == kind]
        if not pieces:
            continue
        first = pieces[0]
        set_text(first, terminal_text("".join(piece.astext() for piece in pieces)))
        joined.append(first)
    return joined


class JoinStreamPieces(SphinxTransform):
    """Joins the pieces of each run of stream outputs in a code cell; a rich
    output between two pieces ends the run, as in Jupyter."""

    default_priority = 700

    def apply(self, **kwargs: object) -> None:
        for container in list(self.document.findall(nodes.container)):
            if container.get("nb_element") != OUTPUT_CONTAINER:
                continue
            children: list[nodes.Node] = []
            run: list[nodes.literal_block] = []
            for child in container.children:
                if isinstance(child, nodes.literal_block) and stream_kind(child):
                    run.append(child)
                    continue
                children.extend(join_run(run))
                run = []
                children.append(child)
            children.extend(join_run(run))
            container.clear()
            container.extend(children)


def refuse_merge_streams(app: Sphinx, config: Config) -> None:
    if config.nb_merge_streams:
        raise ConfigError(
            f"{app.confdir / 'conf.py'}: nb_merge_streams = True puts every piece of a stream "
            f"on a line of its own; leave it False, trtdocs.output.streams joins the pieces"
        )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_transform(JoinStreamPieces)
    app.connect("config-inited", refuse_merge_streams)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
