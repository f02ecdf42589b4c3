"""The installed packages' API (torch_tensorrt, the runtime wheel, executorch),
read from their sources with griffe, never imported, and what the site makes
of it.

* :mod:`.model`: the griffe model, loaded on first use and kept on disk
  (:mod:`.cache`), and what the reference covers (pure);
* :mod:`.index`: look-ups in it: does a name exist, which keywords does a call take (pure);
* :mod:`.uses`: what a notebook's code cells call, resolved through their imports (pure);
* :mod:`.data`: ``docs/data/api.toml`` and the errata, checked against the model (pure);
* :mod:`.returns`: api.toml's ``[[returns]]``: a call's class for one keyword's value,
  checked against the installed source (pure);
* :mod:`.render`: the reference's entries as Python-domain directives, and their parser;
* :mod:`.site`: the API one build sees, loaded when a page first asks;
* :mod:`.sphinx`: ``{api-module}`` and ``{api-feature}``;
* :mod:`.fields`: a ``:param:`` body of several blocks as valid HTML;
* :mod:`.signatures`: long signatures, one parameter a line, as valid HTML;
* :mod:`.xref`: code literals in prose that name a documented object link to it;
* :mod:`.external`: the other installed packages (torch), read file by file (pure);
* :mod:`.links`: ``docs/data/api-links.toml``: upstream pages and unlinked names (pure);
* :mod:`.names`: every name a code cell calls has a home (pure);
* :mod:`.pagecode`: a page's Python code (code cells, static blocks) in reading order;
* :mod:`.codelinks`: names in a page's code link to their entries, or upstream;
* :mod:`.backrefs`: the names check in the build, and each entry's "Used in".

The drift guard :mod:`trtdocs.drift.api` checks the notebooks against the same model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata


# Its modules that are Sphinx extensions, set up in this order.
PARTS = ("sphinx", "signatures", "xref", "codelinks", "backrefs")


def setup(app: Sphinx) -> ExtensionMetadata:
    for part in PARTS:
        app.setup_extension(f"{__name__}.{part}")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
