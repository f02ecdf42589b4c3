"""What a notebook page needs from ``_build`` when Sphinx writes it without
reading it, and the pages that lost it.

Sphinx writes a page from its saved environment without reading it again when
only the output side changed (a template edit, a removed site). The page's
download is made then from what myst-nb kept when it last read the page: the
notebook it wrote to ``_build/jupyter_execute/<doc>.ipynb`` and, in cache mode,
the outputs in the jupyter-cache (``_build/.jupyter_cache``), which that copy
lacks. Both are caches that a person may delete at any time. :func:`lost`
names the pages whose part is gone; :mod:`.provenance` has Sphinx read them
again at ``env-get-outdated``, and the read executes them (or shows them from
their record), as a first build does. Pure: no Sphinx.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import nbformat

from .plan import PagePlan

# plan.status of a page whose outputs come from this machine's execution: in
# cache mode they live in the jupyter-cache, not in myst-nb's copy
FROM_CACHE = frozenset({"executed", "partly executed"})


def has_outputs(nb: nbformat.NotebookNode) -> bool:
    return any(c.get("outputs") for c in nb.cells if c.cell_type == "code")


def notebook_path(output_folder: Path, docname: str) -> Path:
    """Where myst-nb writes the notebook it read for ``docname``."""
    return output_folder / f"{docname}.ipynb"


def lost(
    output_folder: Path, cache_path: Path, plans: Mapping[str, PagePlan], mode: str = "cache"
) -> dict[str, str]:
    """docname -> what of the page's outputs is gone from the build folder, in
    words, for each page in ``plans`` that Sphinx cannot write as it stands.
    ``mode``: the site's ``nb_execution_mode`` (a page's front matter may set its own)."""
    gone: dict[str, str] = {}
    unmatched: dict[str, nbformat.NotebookNode] = {}
    for doc, plan in plans.items():
        path = notebook_path(output_folder, doc)
        if not path.is_file():
            gone[doc] = f"myst-nb's notebook {path} is gone"
            continue
        if plan.status not in FROM_CACHE:
            continue  # its outputs, if any, are in that notebook (a record's) or nowhere
        try:
            nb = nbformat.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            gone[doc] = f"myst-nb's notebook {path} cannot be read ({exc})"
            continue
        if nb.metadata.get("mystnb", {}).get("execution_mode", mode) == "cache" and not has_outputs(
            nb
        ):
            unmatched[doc] = nb
    if unmatched and not cache_path.is_dir():
        gone.update(dict.fromkeys(unmatched, f"the jupyter-cache {cache_path} is gone"))
    elif unmatched:
        from jupyter_cache import get_cache

        cache = get_cache(str(cache_path))
        for doc, nb in unmatched.items():
            try:
                cache.match_cache_notebook(nb)
            except KeyError:
                gone[doc] = f"the jupyter-cache {cache_path} holds no execution of it"
    return gone
