"""Names in a page's Python code link to their API entries, in the highlighted code.

Resolve (``doctree-resolved``, on a site whose Python domain holds the API
reference's entries): the page's code (:func:`.pagecode.page_code`: the code
cells, hidden ones too, and the static Python blocks, in reading order) goes
through the resolution the drift guard uses too (:func:`.uses.cell_uses`:
imports, aliases, assignments, griffe's model of the installed packages,
``[[returns]]`` of api.toml). Each shown block keeps, in ``trtdocs_api_links``,
the spans of the names that resolve to an object the API reference documents
(:func:`.model.public_objects`) and that object's documented name:

* a dotted name links whole, as one link to its last part's entry
  (``torch_tensorrt.executorch.export`` in ``torch_tensorrt.executorch.export(...)``,
  ``trt_runtime.runtime.load``), or not at all: in ``torch_tensorrt.Input`` (not
  documented) the module part stays text too; after a call or a subscript the
  attribute alone (``.run`` of ``load(...).run``);
* an import's module and its imported names link (``from torch_tensorrt.executorch
  import export``), and later uses of the names it binds (``export(...)``);
* a name bound to a call's result (``program = runtime.load(...)``) is an instance,
  not the object: alone it stays unlinked, its attributes link (``program.run``;
  ``edge.to_executorch`` by the public name of a class a private module defines;
  ``program.forward`` after ``torch_tensorrt.load(..., format="executorch")``);
* a name the reference does not document (``torch_tensorrt.Input``, torch's) stays
  text.

The data lives on the doctree's nodes (nothing in the environment to merge).
A site without the reference, or a page whose code names none of the
packages, never loads the API. At ``doctree-read`` a page whose code names one
is only noted, to be read again when the installed API changes.

Write phase (``html-page-context``): in the page's body, each marked block's
Pygments token spans covering such a name are wrapped in
``<a class="reference internal">`` to the Python domain's entry (URI from the
builder, anchor from the domain's objects). A link is made only where its span
starts and ends on token boundaries and the markup between is balanced;
otherwise the code stays as Pygments wrote it.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util import logging

from .. import state
from ..vocab import API_PACKAGES
from .names import ENTRY, UPSTREAM, Target, targets
from .pagecode import LANGUAGES, code_blocks, page_code
from .sphinx import site_of
from .uses import Use

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

ATTR = (
    "trtdocs_api_links"  # literal_block attribute: [(start, end, documented name), ...] in its text
)
CLASS = "trtdocs-api-links"  # class of a block that has links (marks its <div> in the HTML)
LINK_CLASS = "trtdocs-api-link"
_LINE = re.compile(r"\r\n|\r|\n")  # ast's line ends
_TAG = re.compile(r"(<[^>]*>)")
_PACKAGE = re.compile(r"\b({})\b".format("|".join(API_PACKAGES)))  # a cell that could name the API


# -- read: names and their entries -------------------------------------------------


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts += [m.end() for m in _LINE.finditer(text)]
    return starts


def links_of(text: str, cell: list[tuple[Use, Target | None]]) -> list[tuple[int, int, str, str]]:
    """Spans of ``text`` to link: (start, end, title, target), in order, not
    overlapping; ``target`` is ``py:<name>`` for an entry of the reference, else
    the upstream page's URL. ``cell`` holds the cell's whole names with their
    targets (:func:`.names.targets`): a name links whole or not at all
    (``torch_tensorrt.Input`` as one link; a name left unlinked, all text)."""
    starts = _line_starts(text)
    out: list[tuple[int, int, str, str]] = []
    for use, target in cell:
        if target is None or target.kind not in (ENTRY, UPSTREAM):
            continue
        a, b = starts[use.line - 1] + use.start, starts[use.line - 1] + use.end
        if out and a < out[-1][1]:
            continue  # inside a longer name already linked
        out.append((a, b, target.name, f"py:{target.name}" if target.kind == ENTRY else target.url))
    return out


def note(app: Sphinx, doctree: nodes.document) -> None:
    """At doctree-read: a page whose code names one of the packages is read again
    when the installed API changes (its links may change)."""
    if any(_PACKAGE.search(b.astext()) for b in code_blocks(doctree)):
        state.of(app.env).api_docs.add(app.env.docname)


def _has_reference(app: Sphinx) -> bool:
    """Whether this site documents the packages (an ``{api-module}`` page was read)."""
    return any(name.split(".")[0] in API_PACKAGES for name in app.env.domains.python_domain.objects)


def collect(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """At doctree-resolved: the links of each shown code block, on its literal block."""
    blocks = code_blocks(doctree)
    if not blocks or not _has_reference(app):
        return
    sources, index = page_code(Path(app.env.doc2path(docname)), blocks)
    api = site_of(app.env)
    for source, j, cell in zip(sources, index, targets(sources, api.resolver), strict=True):
        if j is None or blocks[j].get("language") not in LANGUAGES:
            continue
        links = links_of(source, cell)
        if links:
            blocks[j][ATTR] = links
            blocks[j]["classes"].append(CLASS)


# -- write: the links in the highlighted HTML ---------------------------------------


def _is_open(tag: str) -> bool:
    return tag.startswith("<") and not tag.startswith("</") and not tag.endswith("/>")


def link_tokens(pre: str, text: str, links: list[tuple[int, int, str, str]]) -> str:
    """``pre`` (the inside of Pygments' ``<pre>`` for ``text``) with each
    (start, end, title, href) span wrapped in a link, when its ends fall on token
    boundaries; unchanged where the highlighted text is not ``text``."""
    items = [p for p in _TAG.split(pre) if p]
    spans: list[tuple[int, int]] = []  # item -> its range in the text (tags: empty)
    pos = 0
    for item in items:
        n = 0 if item.startswith("<") else len(html.unescape(item))
        spans.append((pos, pos + n))
        pos += n
    shown = "".join(html.unescape(i) for i in items if not i.startswith("<"))
    if shown.strip("\r\n") != text.strip("\r\n"):
        return pre  # not the text the links were computed on
    shift = len(text) - len(text.lstrip("\r\n"))  # Pygments strips leading newlines
    before: dict[int, str] = {}
    after: dict[int, str] = {}
    taken = -1
    for start, end, title, href in links:
        start, end = start - shift, end - shift
        first = next((i for i, (a, b) in enumerate(spans) if a == start and b > a), None)
        last = next((i for i, (a, b) in enumerate(spans) if b == end and b > a), None)
        if first is None or last is None or last < first or first <= taken:
            continue
        # take the token's own <span> with it
        if (
            first > 0
            and _is_open(items[first - 1])
            and first + 1 < len(items)
            and items[first + 1] == "</span>"
        ):
            first -= 1
        if last + 1 < len(items) and items[last + 1] == "</span>" and _is_open(items[last - 1]):
            last += 1
        depth, ok = 0, True
        for item in items[first : last + 1]:
            if item.startswith("<a") or item.startswith("</a"):
                ok = False
            elif item.startswith("</"):
                depth -= 1
            elif _is_open(item):
                depth += 1
            if depth < 0:
                ok = False
        if not ok or depth != 0 or first in before or last in after:
            continue
        kind = "external" if "://" in href else "internal"
        before[first] = (
            f'<a class="reference {kind} {LINK_CLASS}" href="{html.escape(href)}" '
            f'title="{html.escape(title)}">'
        )
        after[last] = "</a>"
        taken = last
    if not before:
        return pre
    return "".join(before.get(i, "") + item + after.get(i, "") for i, item in enumerate(items))


_BLOCK = re.compile(rf'<div class="[^"]*\b{re.escape(CLASS)}\b[^"]*">')
_PRE = re.compile(r"(<pre[^>]*>)(.*?)(</pre>)", re.S)


def rewrite(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: nodes.document | None
) -> None:
    """At html-page-context: the page's body with the code cells' links."""
    if doctree is None or "body" not in context:
        return
    blocks = [b for b in doctree.findall(nodes.literal_block) if b.get(ATTR)]
    if not blocks:
        return
    body: str = context["body"]
    marks = list(_BLOCK.finditer(body))
    if len(marks) != len(blocks):
        logger.warning(
            "%d code blocks with API names in the doctree, %d in the HTML: code cells left "
            "unlinked",
            len(blocks),
            len(marks),
            location=pagename,
            type="trtdocs",
            subtype="codelinks",
        )
        return
    objects = app.env.domains.python_domain.objects
    out: list[str] = []
    pos = 0
    for mark, block in zip(marks, blocks, strict=True):
        pre = _PRE.search(body, mark.end())
        if pre is None:
            continue
        links = []
        for start, end, name, target in block[ATTR]:
            if target.startswith("py:"):
                entry = objects.get(target[3:])
                if entry is None:
                    continue  # not an entry on this site (its page not built): text
                target = f"{app.builder.get_relative_uri(pagename, entry.docname)}#{entry.node_id}"
            links.append((start, end, name, target))
        out += [body[pos : pre.start(2)], link_tokens(pre.group(2), block.astext(), links)]
        pos = pre.end(2)
    out.append(body[pos:])
    context["body"] = "".join(out)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("doctree-read", note)
    app.connect("doctree-resolved", collect)
    app.connect("html-page-context", rewrite)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
