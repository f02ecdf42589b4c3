"""Log lines that say nothing about the reader's program, left out of every page the same way.

* ExecuTorch's runtime logs to stderr how it read the CPU's description the
  first time a program loads: ``[cpuinfo_utils.cpp:71] Reading file …`` from
  the Python runtime, ``I 00:00:00.003454 executorch:cpuinfo_utils.cpp:71]
  Reading file …`` from the C++ package.
* Importing ExecuTorch's lowering (it imports torchao) makes torch log a
  deprecation of its own API: ``W1203 07:29:30.941000 18693
  torch/utils/_pytree.py:630] <enum 'KernelPreference'> is an Enum subclass and
  is now natively supported by torch.compile …``.

They are dropped from stderr outputs after :mod:`.streams` joined the pieces,
and an output left empty goes with it. Other log lines stay, those of the same
files included (:data:`NOISE` names each message).
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

# (source file of the log line, start of its message) -> why it is noise; "" matches any message.
NOISE: Final = {
    ("cpuinfo_utils.cpp", ""): "ExecuTorch reading the CPU's description at the first load",
    (
        "torch/utils/_pytree.py",
        "<enum 'KernelPreference'> is an Enum subclass",
    ): "torch's deprecation of register_constant() for Enum subclasses, logged when torchao is "
    "imported",
}
LOG_LINES: Final = (
    re.compile(r"^\[(?P<source>[\w./]+):\d+\] (?P<message>.*)"),  # ExecuTorch's Python runtime
    re.compile(
        r"^[IWEF] \d\d:\d\d:\d\d\.\d+ executorch:(?P<source>[\w./]+):\d+\] (?P<message>.*)"
    ),  # its C++ package
    re.compile(
        r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ (?P<source>[\w./]+):\d+\] (?P<message>.*)"
    ),  # glog (torch)
)


def is_noise(line: str) -> bool:
    for pattern in LOG_LINES:
        if (m := pattern.match(line)) is not None:
            return any(
                m["source"] == source and m["message"].startswith(start) for source, start in NOISE
            )
    return False


def quiet(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not is_noise(line))


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
