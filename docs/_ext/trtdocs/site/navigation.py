"""Two audiences, one site: readers of the guide, and maintainers of the site.

The pages named by ``trtdocs_maintainer_docs`` (how the site is built, the
build report) have their own section of the sidebar (their toctree), and:

* they are out of the readers' previous/next chain: a guide page never leads
  to a maintainer page, and a maintainer page leads only to the others;
* they rank below every guide page in search: the search's scorer
  (``html_search_scorer``, Sphinx's hook for it) lowers their results.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .. import config

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata

# What a maintainer page loses in search against any guide page.
DEMOTION: Final = 1000
# Sphinx's default scorer (sphinx/themes/basic/static/searchtools.js), with ``score`` added:
# a scorer file replaces the whole object.
SCORER: Final = """\
// trtdocs.site.navigation: pages for maintainers of the site rank below the guide's.
const TRTDOCS_MAINTAINER_DOCS = new Set(%(docs)s);
var Scorer = {
  score: (result) => {
    const [docname, title, anchor, descr, score] = result;
    return TRTDOCS_MAINTAINER_DOCS.has(docname) ? score - %(demotion)d : score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
"""


def scorer_source(docs: list[str]) -> str:
    return SCORER % {"docs": json.dumps(sorted(docs)), "demotion": DEMOTION}


def _scorer(app: Sphinx, conf: Config) -> None:
    """At config-inited: the scorer for this build's maintainer pages, unless conf.py has its
    own."""
    docs = config.of(conf).maintainer_docs
    if not docs or conf.html_search_scorer:
        return
    path = Path(app.doctreedir, "trtdocs-search-scorer.js")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(scorer_source(docs), encoding="utf-8")
    conf.html_search_scorer = str(path)


def chains(order: list[str], maintainers: set[str]) -> dict[str, tuple[str | None, str | None]]:
    """Each page's (previous, next): readers' pages among themselves, maintainers' among theirs."""
    out: dict[str, tuple[str | None, str | None]] = {}
    for group in (
        [d for d in order if d not in maintainers],
        [d for d in order if d in maintainers],
    ):
        for i, doc in enumerate(group):
            out[doc] = (group[i - 1] if i else None, group[i + 1] if i + 1 < len(group) else None)
    return out


def reading_order(app: Sphinx) -> list[str]:
    """Every page in the toctree's order, from the root page (Sphinx's relations)."""
    relations = app.env.collect_relations()
    order = [app.config.root_doc]
    seen = set(order)
    while (nxt := relations.get(order[-1], [None, None, None])[2]) and nxt not in seen:
        order.append(nxt)
        seen.add(nxt)
    return order


def _links(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """At html-page-context: previous and next within the page's audience."""
    maintainers = set(config.of(app.config).maintainer_docs)
    if not maintainers or doctree is None or app.builder.format != "html":
        return
    prev, nxt = chains(reading_order(app), maintainers).get(pagename, (None, None))
    context["prev"] = _related(app, pagename, prev)
    context["next"] = _related(app, pagename, nxt)


def _related(app: Sphinx, pagename: str, doc: str | None) -> dict[str, str] | None:
    if doc is None or doc not in app.env.titles:
        return None
    builder: Any = app.builder
    return {
        "link": builder.get_relative_uri(pagename, doc),
        "title": builder.render_partial(app.env.titles[doc])["title"],
    }


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.config")
    app.connect("config-inited", _scorer, priority=600)  # after trtdocs.config checks the values
    app.connect("html-page-context", _links)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
