"""A line under each C++ block the build does not compile, saying why.

The C++ guard (:mod:`.cpp`) compiles every C++ block against the ExecuTorch
release its page names and lists each block it cannot compile, with the reason:
a header no package the build installs ships, a release no package ships, or a
fragment of a larger file. The page says so under the block, from that list, so
a reader never takes an uncompiled block for a checked one and the reason
cannot drift from the guard's.

Order in a build: the guards run in a child process while the pages are read
(:mod:`.sphinx`). At ``env-updated`` every page has been read; the report is
waited for, each page's captions are kept in the environment, and the pages
whose captions changed since the last build are returned, so Sphinx writes them
again even when their source did not change (a package that starts shipping a
header removes the caption). At ``doctree-resolved`` each caption goes after its
block, found by the block's code. A listed block that is not found is a warning
with the page and line: nothing is dropped silently.

Rule (one): ``caption-placed``: every block the C++ guard lists gets its caption.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util import logging

from .. import state
from .cpp import Listed

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

RULES: Mapping[str, str] = MappingProxyType({
    "caption-placed": "every C++ block the guard does not compile shows the reason under it on its page",
})
CAPTION_CLASS = "trtdocs-uncompiled"  # the caption paragraph's class (for styling and tests)
LEAD = "Not compiled when this site was built"
# Containers that hold a code block and nothing a caption should go inside of:
# Sphinx's captioned code block and myst-nb's cell input.
_WRAPPERS = frozenset({"literal-block-wrapper", "cell_input"})

Caption = tuple[str, str, str]  # the block's code, the missing header ("" when none), the reason
Captions = dict[str, tuple[Caption, ...]]


def caption_text(header: str, reason: str) -> str:
    """The sentence under the block, as text."""
    return f"{LEAD}: it includes <{header}>, and {reason}." if header else f"{LEAD}: {reason}."


def caption_node(header: str, reason: str) -> nodes.paragraph:
    """The sentence under the block: the header as inline code."""
    para = nodes.paragraph("", "", classes=[CAPTION_CLASS])
    if header:
        para += [nodes.Text(f"{LEAD}: it includes "), nodes.literal(f"<{header}>", f"<{header}>"),
                 nodes.Text(f", and {reason}.")]
    else:
        para += nodes.Text(f"{LEAD}: {reason}.")
    return para


def by_page(items: Iterable[Listed], srcdir: Path, env: BuildEnvironment) -> Captions:
    """Docname -> (code, header, reason) of each listed block, one entry per block."""
    out: dict[str, list[Caption]] = {}
    seen: set[tuple[str, int]] = set()
    for item in items:
        if (item.path, item.fence_line) in seen:
            continue  # one caption for a block, even with several missing headers
        seen.add((item.path, item.fence_line))
        docname = env.path2doc(str(srcdir / item.path))
        if docname is None:
            continue  # a page outside this project's documents (the guards read by glob)
        out.setdefault(docname, []).append((item.code, item.header, item.reason))
    return {doc: tuple(entries) for doc, entries in out.items()}


def _updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """At env-updated: keep this build's captions; return the pages whose captions changed."""
    from .sphinx import current_report

    report = current_report(app)
    new = by_page(report.uncompiled, Path(app.srcdir), env) if report is not None else {}
    build = state.of(env)
    old: Captions = build.uncompiled
    build.uncompiled = new
    changed = {doc for doc in set(old) | set(new) if old.get(doc) != new.get(doc)}
    return sorted(changed & env.all_docs.keys())


def _shown_code(block: nodes.literal_block) -> str:
    """A code block's text as the guard saw it: a ``%%writefile`` cell without its magic line."""
    lines = block.astext().strip("\n").splitlines()
    if lines and lines[0].startswith("%%writefile"):
        lines = lines[1:]
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def _normal(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.strip("\n").splitlines())


def place(doctree: nodes.document, entries: Iterable[Caption]) -> list[str]:
    """Put each caption after its block; return the captions whose block was not found."""
    blocks = list(doctree.findall(nodes.literal_block))
    used: set[int] = set()
    lost = []
    for code, header, reason in entries:
        want = _normal(code)
        found = next((b for b in blocks if id(b) not in used and _shown_code(b) == want), None)
        if found is None:
            lost.append(caption_text(header, reason))
            continue
        used.add(id(found))
        target: nodes.Element = found
        while isinstance(target.parent, nodes.container) and _WRAPPERS & set(target.parent["classes"]):
            target = target.parent
        target.parent.insert(target.parent.index(target) + 1, caption_node(header, reason))
    return lost


def _resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    entries = state.of(app.env).uncompiled.get(docname, ())
    for text in place(doctree, entries):
        logger.warning("[caption-placed] no code block on the page matches a C++ block the guard "
                       "did not compile; its caption is not shown: %s", text,
                       location=docname, type="trtdocs", subtype="drift")


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("env-updated", _updated)
    app.connect("doctree-resolved", _resolved)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
