"""ExecuTorch's C++ start-up log left out of every page the same way.

ExecuTorch's runtime logs to stderr how it read the CPU's description
(``[cpuinfo_utils.cpp:71] Reading file /sys/devices/…``) the first time a
program loads. The lines say nothing about the reader's program; they are
dropped from stderr outputs after :mod:`.streams` joined the pieces, and an
output left empty goes with them. Other log lines stay.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from docutils import nodes
from sphinx.transforms import SphinxTransform

from .rewrite import set_text
from .streams import JoinStreamPieces, stream_kind

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

# The C++ sources whose log lines are noise on these pages.
NOISY_SOURCES: Final = frozenset({"cpuinfo_utils.cpp"})
LOG_LINE: Final = re.compile(r"^\[(?P<source>[\w.]+):\d+\] ")


def quiet(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True)
                   if not ((m := LOG_LINE.match(line)) and m["source"] in NOISY_SOURCES))


class DropLogNoise(SphinxTransform):
    default_priority = JoinStreamPieces.default_priority + 10

    def apply(self, **kwargs: object) -> None:
        for block in list(self.document.findall(nodes.literal_block)):
            if stream_kind(block) != "stderr":
                continue
            text = quiet(block.astext())
            if not text.strip():
                block.parent.remove(block)
                continue
            set_text(block, text)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_transform(DropLogNoise)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
