"""Intended errors (``raises-exception`` cells) shown as a reader needs them:
the exception, its message and the reader's own frames.

IPython formats a traceback as a header, one block per frame and the
exception line. A frame in the notebook starts ``Cell In[N], line M``; a frame
in a library starts ``File PATH:LINE, in NAME``. Each run of library frames
becomes one line saying how many frames were left out and in which package;
the header, the reader's frames, chained-exception lines and the exception
itself stay as they are.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from docutils import nodes
from sphinx.transforms import SphinxTransform

from .rewrite import set_text

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

# The classes myst-nb gives an error output's literal block (myst_nb/core/render.py, render_error).
TRACEBACK_CLASS: Final = "traceback"
CELL_FRAME: Final = re.compile(r"^Cell In\[\d+\], line \d+")
LIBRARY_FRAME: Final = re.compile(r"^File (?P<path>.+?):\d+(, in .*)?$")
# Lines inside a frame block: source context ("    193 x", "--> 195 x", "   (...)") or blank.
FRAME_BODY: Final = re.compile(r"^(\s|-+>|$)")
PACKAGE: Final = re.compile(r"site-packages/(?P<package>[^/]+)")


def _package(path: str) -> str:
    """The installed package a frame's file belongs to, or what else it is."""
    found = PACKAGE.search(path)
    if found:
        return found["package"].removesuffix(".py")
    return "generated code" if path.startswith("<") else "the standard library"


def trim(text: str) -> str:
    """``text`` (an IPython traceback, ANSI codes removed) without library frames."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not LIBRARY_FRAME.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        packages: list[str] = []
        while i < len(lines) and (frame := LIBRARY_FRAME.match(lines[i])):
            packages.append(_package(frame["path"]))
            i += 1
            while i < len(lines) and FRAME_BODY.match(lines[i]) and not CELL_FRAME.match(lines[i]):
                i += 1
        count = len(packages)
        names = " and ".join(dict.fromkeys(packages))
        out.append(f"({count} frame{'s' if count != 1 else ''} inside {names} not shown)")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


class TrimTracebacks(SphinxTransform):
    """Trims each error output of a notebook page."""

    default_priority = 720

    def apply(self, **kwargs: object) -> None:
        for block in list(self.document.findall(nodes.literal_block)):
            if TRACEBACK_CLASS not in block["classes"] or "output" not in block["classes"]:
                continue
            set_text(block, trim(block.astext()))


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_transform(TrimTracebacks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
