"""A line under each C++ block: what the build compiled it against, or why not.

The C++ guard (:mod:`.cpp`) compiles every C++ block and reports, for each, the
headers it read (:class:`~.gxx.Compiled`: ExecuTorch's package, CUDA's headers,
real headers named in ``TRTDOCS_CXX_INCLUDE``, declaration stubs) or why it was
not compiled (:class:`~.gxx.Listed`: a fragment, a release no package ships). The
page says so under the block, from that report, so a reader sees what was checked
of each block, every stub it leaned on is named, and the words cannot drift from
the guard's.

Order in a build: the guards run in a child process while the pages are read
(:mod:`.sphinx`). At ``env-updated`` every page has been read; the report is
waited for, each page's captions are kept in the environment, and the pages
whose captions changed since the last build are returned, so Sphinx writes them
again even when their source did not change (a package that starts shipping a
header changes the caption). At ``doctree-resolved`` each caption goes after its
block, found by the block's code. A caption whose block is not found is a warning
with the page: nothing is dropped silently.

Rule (one): ``caption-placed``: every C++ block the guard checks gets its caption.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util import logging

from .. import state
from ..output.inline import inline
from ..pages.blocks import normal, shown_code
from .gxx import Compiled, Listed
from .headers import EXTRA_INCLUDE_ENV, STUBS_WORDS

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

RULES: Mapping[str, str] = MappingProxyType(
    {
        "caption-placed": "every C++ block the guard checks says under it what it compiled "
        "against, or why not",
    }
)
CAPTION_CLASS = "trtdocs-uncompiled"  # the caption of a block not compiled (for styling and tests)
COMPILED_CLASS = "trtdocs-compiled"  # the caption of a block compiled
LEAD = "Not compiled when this site was built"
COMPILED_LEAD = "Compiled when this site was built"
# Containers that hold a code block and nothing a caption should go inside of:
# Sphinx's captioned code block and myst-nb's cell input.
_WRAPPERS = frozenset({"literal-block-wrapper", "cell_input"})

Caption = tuple[
    str, str, str
]  # the block's code, its class, the sentence (`code` spans in backticks)
Captions = dict[str, tuple[Caption, ...]]


def caption_text(header: str, reason: str) -> str:
    """The sentence under a block not compiled."""
    return f"{LEAD}: it includes `<{header}>`, and {reason}." if header else f"{LEAD}: {reason}."


def _and(items: Sequence[str]) -> str:
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 1 else items)


def _headers(names: Sequence[str]) -> str:
    return _and([f"`<{name}>`" for name in names])


def compiled_text(item: Compiled) -> str:
    """The sentence under a block compiled: the compiler, and every kind of header it read."""
    sources = list(item.against)
    if item.real:
        sources.append(f"the real {_headers(item.real)} from `{EXTRA_INCLUDE_ENV}`")
    text = (
        f"{COMPILED_LEAD} ({item.compiler}, syntax only, C++17) against "
        f"{_and(sources) if sources else 'the C++ standard library only'}"
    )
    if item.stubs:
        many = len(item.stubs) > 1
        text += (
            f", with {'declaration stubs' if many else 'a declaration stub'} for "
            f"{_headers(item.stubs)}, which no package the build installs carries (`{STUBS_WORDS}`)"
        )
    return text + "."


def caption_node(text: str, kind: str = CAPTION_CLASS) -> nodes.paragraph:
    """The sentence under the block: headers and paths as inline code."""
    para = nodes.paragraph("", "", classes=[kind])
    para += inline(text)
    return para


def by_page(
    listed: Iterable[Listed], compiled: Iterable[Compiled], srcdir: Path, env: BuildEnvironment
) -> Captions:
    """Docname -> (code, class, sentence) of each C++ block the guard checked, one entry per
    block."""
    out: dict[str, list[Caption]] = {}
    seen: set[tuple[str, int]] = set()
    entries = [
        (
            item.path,
            item.fence_line,
            item.code,
            CAPTION_CLASS,
            caption_text(item.header, item.reason),
        )
        for item in listed
    ]
    entries += [
        (item.path, item.fence_line, item.code, COMPILED_CLASS, compiled_text(item))
        for item in compiled
    ]
    for path, fence_line, code, kind, text in entries:
        if (path, fence_line) in seen:
            continue  # one caption for a block
        seen.add((path, fence_line))
        docname = env.path2doc(str(srcdir / path))
        if docname is None:
            continue  # a page outside this project's documents (the guards read by glob)
        out.setdefault(docname, []).append((code, kind, text))
    return {doc: tuple(entries) for doc, entries in out.items()}


def _updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """At env-updated: keep this build's captions; return the pages whose captions changed."""
    run = state.of(env).drift_run
    report = run.result() if run is not None else None
    new = (
        by_page(report.uncompiled, report.compiled, Path(app.srcdir), env)
        if report is not None
        else {}
    )
    build = state.of(env)
    old: Captions = build.cpp_captions
    build.cpp_captions = new
    changed = {doc for doc in set(old) | set(new) if old.get(doc) != new.get(doc)}
    return sorted(changed & env.all_docs.keys())


def place(doctree: nodes.document, entries: Iterable[Caption]) -> list[str]:
    """Put each caption after its block; return the captions whose block was not found."""
    blocks = list(doctree.findall(nodes.literal_block))
    used: set[int] = set()
    lost = []
    for code, kind, text in entries:
        want = normal(code)
        found = next(
            (b for b in blocks if id(b) not in used and shown_code(b.astext()) == want), None
        )
        if found is None:
            lost.append(text)
            continue
        used.add(id(found))
        target: nodes.Element = found
        while isinstance(target.parent, nodes.container) and _WRAPPERS & set(
            target.parent["classes"]
        ):
            target = target.parent
        target.parent.insert(target.parent.index(target) + 1, caption_node(text, kind))
    return lost


def _resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    entries = state.of(app.env).cpp_captions.get(docname, ())
    for text in place(doctree, entries):
        logger.warning(
            "[caption-placed] no code block on the page matches a C++ block the guard "
            "checked; its caption is not shown: %s",
            text,
            location=docname,
            type="trtdocs",
            subtype="drift",
        )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("env-updated", _updated)
    app.connect("doctree-resolved", _resolved)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
