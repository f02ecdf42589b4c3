"""What readers see around the notebooks' outputs.

* :mod:`.streams`: stream outputs joined as Jupyter joins them;
* :mod:`.lognoise`: ExecuTorch's C++ start-up log left out;
* :mod:`.tracebacks`: intended errors with the reader's frames only;
* :mod:`.buildpaths`: no path of the build machine on the site (pages and downloads);
* :mod:`.cellmagic`: ``%%writefile`` cells highlighted in the language they write;
* :mod:`.cellinclude`: ``{include-cell}``, a tagged cell of another notebook shown on a page;
* :mod:`.folding`: folded blocks (``<details>``) and download links, which the
  banner and the marks (:mod:`trtdocs.notebooks`) are made of;
* :mod:`.inline`, :mod:`.rewrite`: small helpers the others share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

# Each is a Sphinx extension of its own; this one sets them all up.
PARTS = ("streams", "lognoise", "tracebacks", "buildpaths", "cellmagic", "cellinclude", "folding")


def setup(app: Sphinx) -> ExtensionMetadata:
    for part in PARTS:
        app.setup_extension(f"{__name__}.{part}")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
