"""The tool-facing outputs in a build: each page's Markdown twin beside its
HTML (``page.html.md``), ``llms.txt`` and ``llms-full.txt`` at the site's root.

* ``html-page-context``: the page's twin (:mod:`trtdocs.markdown.doctree`), from
  the doctree the HTML was written from; a twin with unrendered MyST markup fails
  the build (:mod:`trtdocs.markdown.leftovers`). The page's ``<head>`` names its twin
  (``<link rel="alternate" type="text/markdown">``), and a line at the foot of its
  text links the twin and ``llms.txt`` (:func:`tools_line`).
* ``build-finished``: ``llms.txt`` and ``llms-full.txt`` (:mod:`.index`), from
  the twins on disk, in reading order (:mod:`trtdocs.order`), one section a
  caption of the root page's toctrees, the maintainers' pages
  (``trtdocs_maintainer_docs``) under ``## Optional``; with ``html_baseurl``
  (``TRTDOCS_BASEURL``), every link absolute. A page the build did not write
  again keeps the twin it has.
"""

from __future__ import annotations

import hashlib
import html
import posixpath
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.util import logging

from .. import config
from ..markdown import doctree as twins
from ..markdown import leftovers
from ..order import reading_order
from . import index

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)
LLMS_STAMP = "llms.key"  # beside drift.json: what llms.txt and llms-full.txt were last made from
_MAKERS = tuple(f"{d}={metadata.version(d)}" for d in ("markdown-it-py", "sphinx-markdown-builder"))


def _html_name(app: Sphinx, docname: str) -> str:
    """The page's HTML file, relative to the site's root."""
    if not isinstance(app.builder, StandaloneHTMLBuilder):  # its callers run for HTML only
        raise TypeError(f"the {app.builder.name} builder writes no HTML pages")
    return Path(app.builder.get_outfilename(docname)).relative_to(app.outdir).as_posix()


def write_twin(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: nodes.document | None
) -> None:
    """At html-page-context: the page's twin, beside its HTML."""
    if app.builder.format != "html" or doctree is None or pagename not in app.env.all_docs:
        return
    text = twins.markdown(doctree, pagename, app.builder)
    for left in leftovers.find(text):
        logger.error(
            "its Markdown twin holds %s: render it, or write it as code",
            left.message(),
            location=pagename,
            type="trtdocs",
            subtype="twins",
        )
    name = twins.twin_name(_html_name(app, pagename))
    out = Path(app.outdir, name)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    href = html.escape(posixpath.basename(name))
    context["metatags"] = (
        context.get("metatags", "")
        + f'\n<link rel="alternate" type="text/markdown" href="{href}" />'
    )
    llms_txt = context["pathto"](index.LLMS_TXT, 1)
    context["body"] = context.get("body", "") + tools_line(href, llms_txt)


TOOLS_CLASS = "trtdocs-for-tools"


def tools_line(twin: str, llms_txt: str) -> str:
    """The line at the foot of a page's text: its twin and llms.txt, for tools. Not in
    the doctree: neither the search index nor the twin holds it."""
    return (
        f'\n<p class="{TOOLS_CLASS}">For tools: '
        f'<a href="{twin}" type="text/markdown">this page as Markdown</a> · '
        f'<a href="{html.escape(llms_txt)}" type="text/plain">llms.txt</a> (every page)</p>\n'
    )


def _sections(env: BuildEnvironment) -> dict[str, str]:
    """Page -> the caption of the root page's toctree it is listed under (with its own
    pages); a maintainers' page: ``Optional``."""
    root = env.config.root_doc
    out = {root: ""}
    for toctree in env.get_doctree(root).findall(addnodes.toctree):
        caption = toctree.get("caption") or ""
        stack = list(reversed(toctree["includefiles"]))
        while stack:
            doc = stack.pop()
            if doc not in out:
                out[doc] = caption
                stack += reversed(env.toctree_includes.get(doc, []))
    first = next((c for c in out.values() if c), "Pages")
    out[root] = first
    out.update(dict.fromkeys(config.of(env.config).maintainer_docs, index.OPTIONAL))
    return out


def write_index(app: Sphinx, exception: Exception | None) -> None:
    """At build-finished: llms.txt and llms-full.txt, from the twins."""
    if exception is not None or app.builder.format != "html":
        return
    env = app.env
    sections = _sections(env)
    base = app.config.html_baseurl or ""
    base = base if not base or base.endswith("/") else base + "/"
    pages = []
    for docname in reading_order(env):
        name = twins.twin_name(_html_name(app, docname))
        path = Path(app.outdir, name)
        if not path.is_file():
            logger.error(
                "no Markdown twin at %s: llms.txt lists every page",
                name,
                location=docname,
                type="trtdocs",
                subtype="twins",
            )
            continue
        title = env.titles[docname].astext() if docname in env.titles else docname
        pages.append(
            index.Page(
                sections.get(docname, "Pages"), title, base + name, path.read_text(encoding="utf-8")
            )
        )
    if not pages:
        return
    # Both files are a function of the pages and the project's name. When neither
    # changed (a rebuild that wrote no page) and the files are the ones last
    # written from them, they stand: parsing every twin for its first sentence is
    # a third of a no-op build's own work.
    made_from = hashlib.sha256(repr((app.config.project, pages, _MAKERS)).encode())
    for code in sorted(Path(__file__).parent.glob("*.py")):  # the code that writes them
        made_from.update(code.read_bytes())
    digest = made_from.hexdigest()
    stamp = Path(app.outdir).parent / "trtdocs" / LLMS_STAMP
    outputs = [Path(app.outdir, index.LLMS_TXT), Path(app.outdir, index.LLMS_FULL_TXT)]
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == f"{digest} {_digest(outputs)}":
        return
    summary = index.description(pages[0].twin) or app.config.project
    outputs[0].write_text(
        index.llms_txt(app.config.project, summary, pages, base), encoding="utf-8"
    )
    outputs[1].write_text(
        index.llms_full_txt(app.config.project, summary, pages, base), encoding="utf-8"
    )
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(f"{digest} {_digest(outputs)}", encoding="utf-8")


def _digest(files: list[Path]) -> str:
    """The files' bytes ("-" for a missing one), as one digest."""
    h = hashlib.sha256()
    for f in files:
        h.update(f.read_bytes() if f.is_file() else b"-")
        h.update(b"\0")
    return h.hexdigest()


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.config")
    app.setup_extension("sphinx_markdown_builder")  # its translator's settings (markdown_*)
    app.connect("html-page-context", write_twin)
    app.connect("build-finished", write_index)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
