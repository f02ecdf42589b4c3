"""The features table (``docs/features.toml``): releases, what each feature
needs, and everything generated from it.

One table drives every version note of the guide:

* :mod:`.model`: the table as data and the questions everyone asks it (pure);
* :mod:`.validate`: the TOML read and checked, every problem naming file and entry (pure);
* :mod:`.nodes`: ``{feature-note} <id>``, ``{feature}`<id>``` and
  ``{install-command} <release>``, each note linked to its row of the matrix;
* :mod:`.matrix`: ``{support-matrix}``, features x releases x platforms;
* :mod:`.sphinx`: the table loaded into the build, the check that every feature
  is referenced, the sidebar's release switcher.

``feature:<id>`` in a notebook's ``requires`` becomes a requirement on the
installed torch_tensorrt (:meth:`.model.FeaturesTable.requirement`), and the
drift guards check the pages' install commands against the same table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata


# Its modules that are Sphinx extensions, set up in this order.
PARTS = ("sphinx",)


def setup(app: Sphinx) -> ExtensionMetadata:
    for part in PARTS:
        app.setup_extension(f"{__name__}.{part}")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
