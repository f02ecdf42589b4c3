"""A notebook's Markdown as plain Markdown, for its downloads, from its MyST source.

A downloaded notebook opens in Jupyter, which knows no MyST: a
``{install-command}`` directive would show as its own text, a ``{data-table}``
as nothing. :func:`render` turns each directive and role into the Markdown it
stands for, from the same data the site uses: install commands and version
notes from the features table, tables from ``docs/data``, admonitions as
quotes, tabs one after the other, links to the other pages (the hosted site
when ``html_baseurl`` is set, else the sibling download), definition lists as
bullet lists (:mod:`.deflists`: JupyterLab shows them as written). MyST
comments and targets go. Each directive and role is looked up in :mod:`.meanings`, and
written in its form with :mod:`.forms`, as a twin writes it; one with no
meaning, or one only pages without downloads use, is an error naming the line
(:class:`DownloadError`). :func:`.leftovers.find` finds any MyST syntax left
in a written download, which fails the build.

Pure: markdown-it (the parser MyST uses), no Sphinx.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Final

from markdown_it.token import Token

from .. import datatables
from ..features.model import FeaturesTable
from ..features.words import DOCUMENTED, join_over, plain, release_words
from ..pages.blocks import directive_options
from ..site import dotgraphs, ptelayout
from . import deflists, forms, meanings
from .leftovers import DIRECTIVE, PARSER
from .meanings import CELL_MARKERS, Form

_ROLE: Final = re.compile(r"\{(?P<name>[\w:+-]+)\}`(?P<content>[^`]+)`")
_EXPLICIT: Final = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)


class DownloadError(ValueError):
    """MyST syntax with no Markdown form; ``line`` is 1-based in the text rendered."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


@dataclasses.dataclass(frozen=True)
class Context:
    """What the rendering of one page needs to know of the site."""

    features: FeaturesTable
    data_dir: Path  # docs/data
    page: str  # the page's docname ("notebooks/install")
    suffix: str  # ".ipynb" or ".md": a link to another notebook points at its download of that kind
    titles: Mapping[str, str]  # docname -> title
    labels: Mapping[str, tuple[str, str, str]]  # label -> (docname, anchor, title)
    notebooks: frozenset[str]  # docnames that have downloads
    extlinks: Mapping[str, tuple[str, str | None]]  # sphinx.ext.extlinks: role -> (url, caption)
    baseurl: str = ""  # html_baseurl: links go to the hosted site
    diagram: Callable[[str, str], str] | None = (
        None  # (dot code, alt) -> Markdown image; None: caption only
    )
    folder: Path | None = None  # where the page ran ({pte-diagram} reads its file there)
    # a {code-block}'s `:requires:` value, as written -> the line of the mark a twin shows over
    # it (ValueError for a bad one); None: no mark
    requires_mark: Callable[[str], str] | None = None


def render(text: str, ctx: Context) -> str:
    """``text`` (a notebook's Markdown cell) with every directive and role rendered."""
    lines = text.split("\n")
    out: list[str] = []
    at = 0
    for token, start, end in _blocks(text):
        out += _roles(lines[at:start], at, ctx)
        out += _directive(token, lines, start, ctx)
        at = end
    out += _roles(lines[at:], at, ctx)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n") + (
        "\n" if text.endswith("\n") else ""
    )


def _blocks(text: str) -> Iterator[tuple[Token, int, int]]:
    """Top-level tokens to replace: directives (not code cells), targets, comments."""
    for token in PARSER.parse(text):
        if token.map is None or token.level != 0:
            continue
        if token.type in ("myst_target", "myst_line_comment", "dl_open"):
            yield token, token.map[0], token.map[1]
        elif (
            token.type in ("fence", "colon_fence")
            and (m := DIRECTIVE.match(token.info.strip()))
            and m["name"] not in CELL_MARKERS
        ):
            yield token, token.map[0], token.map[1]


def _directive(token: Token, lines: list[str], start: int, ctx: Context) -> list[str]:
    if token.type == "dl_open":  # JupyterLab shows a definition list as written: a list
        assert token.map is not None
        try:
            items = deflists.as_list(lines[start : token.map[1]])
        except ValueError as exc:
            raise DownloadError(start + 1, str(exc)) from None
        return ["", *render("\n".join(items), ctx).split("\n"), ""]
    if token.type != "fence" and token.type != "colon_fence":
        return []  # a target or a comment: nothing for a reader
    m = DIRECTIVE.match(token.info.strip())
    assert m is not None
    name, arg = m["name"], m["arg"].strip()
    body = token.content.rstrip("\n").split("\n") if token.content.strip() else []
    options, skip = directive_options(body)
    content = "\n".join(body[skip:])
    line = start + 1
    meaning = meanings.directive(name)
    if meaning is None:
        raise DownloadError(
            line, f"the directive {{{name}}} has no Markdown meaning (trtdocs.markdown.meanings)"
        )
    if not meaning.downloads:
        raise DownloadError(
            line,
            f"the directive {{{name}}} ({meaning.what}) has no Markdown form in a download: "
            f"only pages without downloads use it (trtdocs.markdown.meanings)",
        )
    render_one = _DIRECTIVES.get(name) or _FORMS[meaning.form]
    try:
        text = render_one(name, arg, options, content, ctx)
    except DownloadError as exc:
        raise DownloadError(line + skip + exc.line, str(exc)) from None
    except (KeyError, ValueError) as exc:
        raise DownloadError(line, f"{{{name}}} {arg}: {exc}") from None
    return ["", *text.strip("\n").split("\n"), ""] if text.strip() else [""]


def _install_command(
    name: str, arg: str, options: dict[str, str], content: str, ctx: Context
) -> str:
    command = ctx.features.install_command(
        arg, options.get("tool", "pip"), options.get("platform", "linux")
    )
    return forms.fence(command, "bash")


def _feature_note(name: str, arg: str, options: dict[str, str], content: str, ctx: Context) -> str:
    feature = ctx.features.feature(arg)
    headline = ctx.features.note_text(feature)
    if not headline:
        return ""
    matrix = _matrix_link("the support matrix", feature.id, ctx)
    return forms.quote(
        headline[0].upper() + headline[1:], f"{feature.title}. {feature.note} See {matrix}."
    )


def _data_table(name: str, arg: str, options: dict[str, str], content: str, ctx: Context) -> str:
    spec = datatables.TABLES[arg]
    entries = datatables.load(ctx.data_dir / f"{arg}.toml", spec)
    rows = [[_inline(col.cell(e), ctx) for col in spec.columns] for e in entries]
    once = []
    for i, col in enumerate(spec.columns):
        if not col.feature:
            continue
        ids = [str(e.get(col.feature, "")) for e in entries]
        texts, said = ctx.features.column_notes(ids)
        for row, fid, text in zip(rows, ids, texts, strict=True):
            row[i] = _matrix_link(text, fid, ctx) if text else ("" if fid else col.absent)
        if said:
            note = ctx.features.table_note(ctx.features.feature(said))
            once.append(f"{col.title}: {_matrix_link(note, said, ctx)}")
    rows = [[c.replace("|", "\\|").replace("\n", " ") for c in r] for r in rows]
    keep = [i for i in range(len(spec.columns)) if any(r[i].strip() for r in rows)]
    head = [spec.columns[i].title for i in keep]
    out = [f"*{'; '.join(once)}*", ""] if once else []
    out += ["| " + " | ".join(_inline(h, ctx) or " " for h in head) + " |"]
    out += ["|" + "---|" * len(head)]
    out += ["| " + " | ".join(r[i] for i in keep) + " |" for r in rows]
    if spec.definitions:
        term, text = spec.definitions
        out += [""] + [f"- `{e[term]}`: {_inline(str(e[text]), ctx)}" for e in entries]
    return "\n".join(out)


def _matrix_link(text: str, feature_id: str, ctx: Context) -> str:
    return _link(text, "docs/support-matrix", f"feature-{feature_id}", ctx)


def _content(name: str, arg: str, options: dict[str, str], content: str, ctx: Context) -> str:
    return render(content, ctx)  # a tab set: each tab renders itself, one after the other


def _labelled(name: str, arg: str, options: dict[str, str], content: str, ctx: Context) -> str:
    return forms.labelled(_inline(arg, ctx), render(content, ctx))


def _quote(name: str, arg: str, options: dict[str, str], content: str, ctx: Context) -> str:
    return forms.quote(forms.admonition_title(name, _inline(arg, ctx)), render(content, ctx))


def _graphviz(name: str, arg: str, options: dict[str, str], content: str, ctx: Context) -> str:
    caption = _inline(options.get("caption", ""), ctx)
    alt = options.get("alt", caption or "diagram")
    wide = dotgraphs.wide(content)  # a second graph is the site's layout for phones
    picture = ctx.diagram(wide, alt) if ctx.diagram is not None else ""
    return forms.diagram(alt, wide, caption, picture)


def _code_block(name: str, arg: str, options: dict[str, str], content: str, ctx: Context) -> str:
    """A fence in the block's language; what it needs (``:requires:``) in the quoted
    mark a twin shows over it."""
    block = forms.fence(content, arg)
    if "requires" not in options or ctx.requires_mark is None:
        return block
    try:
        mark = ctx.requires_mark(options["requires"])
    except ValueError:
        return block  # the {code-block} directive reports its bad option, once, at its line
    return f"{forms.quote(mark)}\n\n{block}"


def _pte_diagram(name: str, arg: str, options: dict[str, str], content: str, ctx: Context) -> str:
    if ctx.folder is None or not (ctx.folder / arg).is_file():
        raise ValueError(f"{arg} is not in the folder the page ran in")
    layout = ptelayout.read(ctx.folder / arg)
    return _graphviz(
        name,
        "",
        {"alt": options.get("alt") or ptelayout.alt(layout), "caption": options.get("caption", "")},
        ptelayout.dot(layout),
        ctx,
    )


_DIRECTIVES: Final[Mapping[str, Callable[[str, str, dict[str, str], str, Context], str]]] = {
    "install-command": _install_command,
    "feature-note": _feature_note,
    "data-table": _data_table,
    "graphviz": _graphviz,
    "pte-diagram": _pte_diagram,
    "code-block": _code_block,
}
# The directives of a form that needs nothing of the directive but its title and content.
_FORMS: Final[Mapping[Form, Callable[[str, str, dict[str, str], str, Context], str]]] = {
    Form.QUOTE: _quote,
    Form.CONTENT: _content,
    Form.LABELLED: _labelled,
}


def _roles(lines: list[str], first: int, ctx: Context) -> list[str]:
    """Lines with each role rendered; inline code and code blocks untouched."""
    text = "\n".join(lines)
    expected = sum(1 for t in PARSER.parse(text) for c in t.children or () if c.type == "myst_role")
    if not expected:
        return lines
    found = list(_ROLE.finditer(text))
    if len(found) != expected:
        raise DownloadError(
            first + 1,
            f"{expected} roles, but {len(found)} look like roles; a role inside "
            f"inline code or a code block, or a role that spans lines?",
        )
    return _inline(text, ctx, first).split("\n")


def _inline(text: str, ctx: Context, first: int = 0) -> str:
    """Roles of one text rendered; a version note with nothing to say goes, and
    the sentence closes over it (:func:`~trtdocs.features.words.join_over`)."""
    head, rest, newlines = "", text, 0
    while (m := _ROLE.search(rest)) is not None:
        line = first + newlines + rest.count("\n", 0, m.start()) + 1
        newlines += rest.count("\n", 0, m.end())
        piece = _role(m["name"], m["content"], ctx, line)
        before, rest = head + rest[: m.start()], rest[m.end() :]
        if m["name"] == "feature":
            if not piece:
                head, rest = join_over(before, rest)
                continue
            # no parentheses inside the prose's own, or for a note that is the whole text (a table
            # cell)
            bare = before.rstrip().endswith("(") or not (before.strip() or rest.strip())
            piece = piece if bare else f"({piece})"
        head = before + piece
    return head + rest


def _role(name: str, content: str, ctx: Context, line: int) -> str:
    meaning = meanings.role(name, ctx.extlinks)
    if meaning is None:
        raise DownloadError(
            line, f"the role {{{name}}} has no Markdown meaning (trtdocs.markdown.meanings)"
        )
    if not meaning.downloads:
        raise DownloadError(
            line,
            f"the role {{{name}}} ({meaning.what}) has no Markdown form in a download: only "
            f"pages without downloads use it (trtdocs.markdown.meanings)",
        )
    explicit = _EXPLICIT.match(content)
    text, target = (explicit["text"], explicit["target"]) if explicit else (None, content)
    if name == "feature":
        return ctx.features.note_text(ctx.features.feature(content.strip()))
    if name == "feature-release":
        feature = ctx.features.feature(content.strip())
        return release_words(ctx.features.release_of(feature).key)
    if name == "release":
        if content.strip() != DOCUMENTED:
            raise DownloadError(line, f"{{release}} takes `{DOCUMENTED}`, not {content.strip()!r}")
        return release_words(ctx.features.documented)
    if name == "doc":
        doc = _docname(target, ctx)
        return _link(text or ctx.titles.get(doc, target), doc, "", ctx)
    if name == "ref":
        if target not in ctx.labels:
            raise DownloadError(line, f"{{ref}} {target!r}: no such label on the site")
        doc, anchor, title = ctx.labels[target]
        if not (text or title):
            raise DownloadError(
                line, f"{{ref}} {target!r}: the label has no title; give the link a text"
            )
        return _link(text or title, doc, anchor, ctx, heading=title)
    url, caption = ctx.extlinks[name]
    return f"[{text or (caption % target if caption else url % target)}]({url % target})"


def _docname(target: str, ctx: Context) -> str:
    if target.startswith("/"):
        return target.lstrip("/").removesuffix(".md")
    base = ctx.page.rsplit("/", 1)[0] if "/" in ctx.page else ""
    parts = [p for p in f"{base}/{target.removesuffix('.md')}".split("/") if p]
    doc: list[str] = []
    for p in parts:
        if p == "..":
            doc.pop()
        elif p != ".":
            doc.append(p)
    return "/".join(doc)


def _link(text: str, doc: str, anchor: str, ctx: Context, heading: str = "") -> str:
    """A link to a page of the site: the hosted page, else the sibling download,
    else the text alone; on the page itself, Jupyter's anchor of the ``heading``."""
    fragment = f"#{anchor}" if anchor else ""
    if doc == ctx.page and not ctx.baseurl:
        return f"[{plain(text)}](#{plain(heading).replace(' ', '-')})" if heading else plain(text)
    if ctx.baseurl:
        return f"[{plain(text)}]({ctx.baseurl}{doc}.html{fragment})"
    if doc in ctx.notebooks and doc.rsplit("/", 1)[0] == ctx.page.rsplit("/", 1)[0]:
        return f"[{plain(text)}]({doc.rsplit('/', 1)[-1]}{ctx.suffix})"
    return plain(text)
