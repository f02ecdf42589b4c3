"""What each notebook needs: ``{page-needs}`` renders one row per notebook,
in the order of the tables of contents, from the plans the gating made
(:class:`.plan.PagePlan`): how many code cells it has, how many need only a
CPU, and what the others need, in words.

Every notebook's plan is known only once all pages are read, so the directive
leaves a placeholder that is filled at ``doctree-resolved``; its page is
re-read whenever a notebook is (:func:`.provenance.outdated`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from .. import state
from .plan import PagePlan

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

HEADER = ("Page", "Code cells", "Need only a CPU", "The other cells need")


class needs_placeholder(nodes.General, nodes.Element):
    pass


class PageNeeds(SphinxDirective):
    """``{page-needs}``: the table of every notebook's requirements."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        # provenance.outdated re-reads these pages when any notebook is re-read
        state.of(self.env).report_docs.add(self.env.docname)
        return [needs_placeholder()]


def toc_order(env: BuildEnvironment, root: str) -> Iterator[str]:
    """Documents in the order a reader meets them in the tables of contents."""
    seen: set[str] = set()
    stack = [root]
    while stack:
        doc = stack.pop()
        if doc in seen:
            continue
        seen.add(doc)
        yield doc
        stack.extend(reversed(env.toctree_includes.get(doc, [])))


def needs_in_words(plan: PagePlan) -> tuple[int, list[tuple[str, int]]]:
    """Cells that need nothing, and (requirements in words, count) for the rest."""
    groups: Counter[str] = Counter()
    free = 0
    for own in plan.cell_needs:
        reqs = tuple(dict.fromkeys((*plan.requires, *own)))
        if not reqs:
            free += 1
        else:
            groups[" and ".join(plan.needs.get(r, r) for r in reqs)] += 1
    return free, list(groups.items())


def _cell(*children: nodes.Node) -> nodes.entry:
    entry = nodes.entry()
    entry += nodes.paragraph("", "", *children)
    return entry


def table(app: Sphinx, fromdoc: str) -> nodes.table:
    env = app.env
    plans = state.of(env).plans
    order = [d for d in toc_order(env, app.config.root_doc) if d in plans]
    order += sorted(set(plans) - set(order))
    result = nodes.table(classes=["trtdocs-page-needs"])
    group = nodes.tgroup(cols=len(HEADER))
    result += group
    for width in (28, 12, 14, 46):
        group += nodes.colspec(colwidth=width)
    head, body = nodes.thead(), nodes.tbody()
    group += head
    group += body
    row = nodes.row()
    for title in HEADER:
        row += _cell(nodes.Text(title))
    head += row
    for doc in order:
        plan = plans[doc]
        free, others = needs_in_words(plan)
        title = env.titles[doc].astext() if doc in env.titles else doc
        ref = nodes.reference(
            "", title, internal=True, refuri=app.builder.get_relative_uri(fromdoc, doc)
        )
        row = nodes.row()
        row += _cell(ref)
        row += _cell(nodes.Text(str(plan.code_cells)))
        row += _cell(nodes.Text(str(free)))
        row += _cell(
            nodes.Text("; ".join(f"{n} × {words}" for words, n in others) or "nothing more")
        )
        body += row
    return result


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for node in list(doctree.findall(needs_placeholder)):
        node.replace_self(table(app, docname))
