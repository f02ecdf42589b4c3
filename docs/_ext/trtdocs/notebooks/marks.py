"""Where a cell's requirement becomes its mark: the gating's decisions
(:class:`~.plan.PagePlan`), laid out on the parsed page.

:func:`place` runs when :class:`.parser.Parser` has rendered a gated notebook:

* under the page's title, one line with its downloads (:func:`.downloads.row`),
  and at the page's end a placeholder for its status, which :mod:`.banner`
  fills in once every page's execution data exist and :mod:`.pagefoot` shows
  in the footer: nothing of the build stands between a sentence and the code
  it introduces. A page with no code cells has neither: nothing of it runs;
* before each code cell that did not run, its mark (:func:`mark`): one line
  saying what it needs (:func:`mark_line`), the probe's reasons folded under it.

The words come from :data:`trtdocs.vocab.CAPABILITIES` and
:data:`~trtdocs.vocab.JOINED_NEEDS` (a capability), and from the plan's
``needs`` (a feature or a package requirement, from :mod:`.requirements`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from docutils import nodes

from ..output import folding
from ..output.inline import inline
from ..vocab import CAPABILITIES, JOINED_NEEDS
from .plan import PagePlan, SkippedCell

CODE_CELL = "cell_code"  # myst-nb's nb_element of a code cell's container


class status_placeholder(nodes.General, nodes.Element):
    """Where the page's status banner goes; filled at doctree-resolved (:mod:`.banner`)."""


def mark_line(needs: Sequence[str], words: Mapping[str, str], recorded: bool = False) -> str:
    """'Not run in this build: needs a CUDA GPU with TensorRT.' (the reason is
    folded); of a page shown from a record, where that record was made."""
    where = "where these outputs were recorded" if recorded else "in this build"
    if not needs:
        return f"Not run {where}: it uses a result of a cell above that did not run."
    return f"Not run {where}: needs {needs_words(needs, words)}."


def text_line(needs: Sequence[str], words: Mapping[str, str]) -> str:
    """'Shown as text; no build runs it. Running it needs a CUDA GPU with
    TensorRT.': the line over a block shown as text (:mod:`.textmarks`)."""
    return f"Shown as text; no build runs it. Running it needs {needs_words(needs, words)}."


def needs_words(needs: Sequence[str], words: Mapping[str, str]) -> str:
    """'a CUDA GPU with TensorRT': requirements in a few words."""
    rest = list(dict.fromkeys(needs))
    parts = []
    for group, text in JOINED_NEEDS.items():
        if group <= set(rest):
            parts.append(text)
            rest = [r for r in rest if r not in group]
    parts += [CAPABILITIES[r].short if r in CAPABILITIES else words.get(r) or r for r in rest]
    return " and ".join(dict.fromkeys(parts))  # two requirements can read the same


def mark(skipped: SkippedCell, plan: PagePlan) -> folding.folded:
    """The mark before a cell that did not run: one line with what it needs,
    each reason (``needs X: found Y``) a paragraph folded under it."""
    reasons = []
    for reason in skipped.reasons:
        para = nodes.paragraph()
        para += inline(" ".join(reason.splitlines()))  # `name` as code
        reasons.append(para)
    return folding.make(
        [nodes.Text(mark_line(skipped.needs, plan.needs, plan.record is not None))],
        reasons,
        ["trtdocs-not-executed", "no-search"],
    )


def place(document: nodes.document, plan: PagePlan, docname: str, downloads: nodes.Node) -> None:
    """Lay ``plan`` out on ``document``, the page myst-nb rendered: ``downloads``
    under the title and the status's place at the end, for a page with code
    cells; and a mark before each cell that did not run (here, or where the
    record whose outputs it shows was made)."""
    if plan.skipped:
        containers = {
            node["cell_index"]: node
            for node in document.findall(nodes.container)
            if node.get("nb_element") == CODE_CELL
        }
        for skipped in plan.skipped:
            _insert_before(document, _shown_from(containers, skipped.index), mark(skipped, plan))
    if plan.code_cells == 0:
        return
    section = next(document.findall(nodes.section), None)
    title = section.next_node(nodes.title) if section is not None else None
    if section is not None and title is not None and title.parent is section:
        section.insert(section.index(title) + 1, downloads)
    else:
        document.insert(0, downloads)
    document += status_placeholder()


def _shown_from(containers: Mapping[int, nodes.container], index: int) -> nodes.container | None:
    """The container of cell ``index``; for a cell the page does not show
    (``remove-cell``), that of the next shown code cell; None after the last."""
    after = sorted(i for i in containers if i >= index)
    return containers[after[0]] if after else None


def _insert_before(document: nodes.document, where: nodes.Node | None, node: nodes.Node) -> None:
    if where is not None:
        where.parent.insert(where.parent.index(where), node)
        return
    sections = list(document.findall(nodes.section))
    (sections[-1] if sections else document).append(node)
