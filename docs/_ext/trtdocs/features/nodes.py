"""The features table's notes on the pages: ``{feature-note} <id>``,
``{feature}`<id>```, ``{feature-release}`<id>```, ``{release}`documented``` and
``{install-command} <release>``.

Every note is generated from the table (:mod:`.model`) relative to the
documented release, says one of three states ("In 2.14", "In 2.15, not
released", "Nightly builds only") and links to the feature's row of the support
matrix (:mod:`.matrix`), which alone gives the evidence. :func:`use_feature`
and :func:`matrix_ref` are what other parts of the site (the API reference's
``{api-feature}``, the data tables) use to say the same.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.environment import BuildEnvironment
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from .. import state
from ..output.inline import inline
from ..vocab import INSTALL_PLATFORMS, INSTALL_TOOLS
from .model import Feature, FeaturesTable
from .words import DOCUMENTED, join_over, release_words

logger = logging.getLogger(__name__)

NOTE_CLASS = "trtdocs-version-note"  # the box of {feature-note}
ROLE_CLASS = "trtdocs-feature"  # the inline note of {feature}
RELEASE_CLASS = "trtdocs-feature-release"  # the release {feature-release} names


def table_of(env: BuildEnvironment) -> FeaturesTable:
    """This build's features table (trtdocs.features loads it at builder-inited)."""
    table = state.of(env).features
    assert table is not None, "trtdocs.features is not set up"
    return table


def matrix_ref(env: BuildEnvironment, feature: Feature, text: str) -> addnodes.pending_xref:
    """A link to ``feature``'s entry in the support matrix, reading ``text``."""
    ref = addnodes.pending_xref(
        "",
        refdomain="std",
        reftype="ref",
        reftarget=f"feature-{feature.id}",
        refexplicit=True,
        refwarn=True,
        refdoc=env.docname,
    )
    ref += nodes.inline("", "", *inline(text))
    return ref


def use_feature(env: BuildEnvironment, feature_id: str, location: Any) -> Feature | None:
    """The feature a page names, noted as referenced by the page; an error naming
    the location (and None) when the table has no such id."""
    table = table_of(env)
    env.note_dependency(str(table.path))
    try:
        feature = table.feature(feature_id)
    except KeyError:
        logger.error(
            "unknown feature %r: %s has no such id",
            feature_id,
            table.path,
            location=location,
            type="trtdocs",
            subtype="features",
        )
        return None
    state.of(env).feature_refs.setdefault(env.docname, set()).add(feature.id)
    return feature


class FeatureNote(SphinxDirective):
    """``{feature-note} <id>``: the generated note of one feature, as a box
    headed by what a reader of the documented release needs to know: the
    release a feature comes in ("In 2.15, not released", "Nightly builds
    only"), and a platform limit ("Linux x86-64 only"). A feature the
    documented release has everywhere gets no box: the whole guide is about
    that release."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        feature = use_feature(self.env, self.arguments[0].strip(), self.get_location())
        if feature is None:
            return []
        table = table_of(self.env)
        headline = table.note_text(feature)
        if not headline:
            return []
        box = nodes.admonition(classes=[NOTE_CLASS, "note"])
        self.set_source_info(box)
        box += nodes.title(text=headline[0].upper() + headline[1:])
        para = nodes.paragraph()
        para += inline(feature.title)
        para += nodes.Text(". ")
        para += inline(feature.note)
        para += nodes.Text(" See ")
        para += matrix_ref(self.env, feature, "the support matrix")
        para += nodes.Text(".")
        box += para
        return [box]


class FeatureRole(SphinxRole):
    """``{feature}`<id>```: the short note, as a link to the matrix row; nothing
    (the marker only, which :class:`FeatureNoteParentheses` removes) when the
    documented release has the feature everywhere."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        feature = use_feature(self.env, self.text.strip(), self.get_location())
        if feature is None:
            return [], []
        text = table_of(self.env).note_text(feature)
        wrapper = nodes.inline(classes=[ROLE_CLASS], trtdocs_note=text)
        if text:
            wrapper += nodes.Text("(")
            wrapper += matrix_ref(self.env, feature, text)
            wrapper += nodes.Text(")")
        return [wrapper], []


class FeatureReleaseRole(SphinxRole):
    """``{feature-release}`<id>```: the release a reader gets the feature in, as
    the table says it ("2.14", "2.15", "nightly builds"), so that prose names a
    release without typing it: a change of the table or of the documented
    release changes the sentence too."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        feature = use_feature(self.env, self.text.strip(), self.get_location())
        if feature is None:
            return [], []
        key = table_of(self.env).release_of(feature).key
        return [nodes.inline(text=release_words(key), classes=[RELEASE_CLASS])], []


class ReleaseRole(SphinxRole):
    """``{release}`documented```: the release the pages describe, as the table says it
    ("2.14"), so that prose says "with Torch-TensorRT 2.14" without typing it."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        if self.text.strip() != DOCUMENTED:
            msg = self.inliner.reporter.error(
                f"{{release}} takes `{DOCUMENTED}` (the release the pages describe), "
                f"not {self.text.strip()!r}",
                line=self.lineno,
            )
            return [], [msg]
        words = release_words(table_of(self.env).documented)
        return [nodes.inline(text=words, classes=[RELEASE_CLASS])], []


# Text that may separate two inline notes of one run ("a, b", "a and b").
_NOTE_SEPARATORS = frozenset({",", ";", "and", "or", ", and", ", or"})


class FeatureNoteParentheses(SphinxTransform):
    """Inline notes fit the sentence they sit in.

    A note with nothing to say goes, and the sentence closes over it: the
    space before it ("works {feature}`x`." reads "works."), parentheses the
    prose opened for it alone, a separator between it and another note. A
    ``{feature}`` role brings its own parentheses; inside parentheses the prose
    already opened, or when it is all its paragraph holds (a table cell), it
    drops them (no "((Needs 2.15))"); and a run of notes
    with the same text ("a, b", "a and b") keeps the first one only.
    """

    default_priority = 700  # after the roles have run; before references resolve

    def apply(self, **kwargs: Any) -> None:
        parents = {id(n.parent): n.parent for n in self.document.findall(_is_feature_note)}
        for parent in parents.values():
            _close_over_empty_notes(parent)
            self._fit(parent)

    @staticmethod
    def _fit(parent: nodes.Element) -> None:
        # Text nodes are strings and compare equal by value, so this works on
        # positions, never on parent.index() or parent.remove().
        kept: list[nodes.Node] = []
        # a note that is all its paragraph holds (a table cell) needs no parentheses either
        alone = (
            sum(1 for c in parent.children if not isinstance(c, nodes.Text) or c.astext().strip())
            == 1
        )
        depth = 0
        # the last note's index in `kept` and its feature, while only separators follow it
        previous: tuple[int, str] | None = None
        for child in parent.children:
            if _is_feature_note(child):
                if previous is not None and previous[1] == child["trtdocs_note"]:
                    del kept[previous[0] + 1 :]  # the separator, then this note, go
                    continue
                if depth > 0 or alone:
                    child.children = [c for c in child.children if not isinstance(c, nodes.Text)]
                previous = (len(kept), child["trtdocs_note"])
            elif isinstance(child, nodes.Text):
                words = child.astext()
                depth = max(0, depth + words.count("(") - words.count(")"))
                if words.strip() not in _NOTE_SEPARATORS:
                    previous = None
            else:
                previous = None
            kept.append(child)
        if len(kept) != len(parent.children):
            parent.children = []
            parent.extend(kept)


_GONE = object()  # where an empty note was


def _close_over_empty_notes(parent: nodes.Element) -> None:
    """Take out the notes with nothing to say, mending the text around each."""
    items: list[Any] = []
    for child in parent.children:
        if _is_feature_note(child) and not child["trtdocs_note"]:
            items.append(_GONE)
        elif isinstance(child, nodes.Text):
            items.append(child.astext())
        else:
            items.append(child)
    if _GONE not in items:
        return
    i = 0
    while i < len(items):
        if items[i] is not _GONE:
            i += 1
            continue
        before = items[i - 1] if i and isinstance(items[i - 1], str) else None
        after = items[i + 1] if i + 1 < len(items) and isinstance(items[i + 1], str) else None
        prev, nxt = join_over(before or "", after or "")
        if before is not None:
            items[i - 1] = prev
        if after is not None:
            items[i + 1] = nxt
        del items[i]
        if i and i < len(items) and isinstance(items[i - 1], str) and isinstance(items[i], str):
            items[i - 1] += items.pop(i)  # the two sides are one text again
        i = max(i - 1, 0)
    parent.children = []
    parent.extend(
        nodes.Text(x) if isinstance(x, str) else x
        for x in items
        if not (isinstance(x, str) and not x)
    )


def _is_feature_note(node: nodes.Node) -> TypeGuard[nodes.inline]:
    return isinstance(node, nodes.inline) and "trtdocs_note" in node.attributes


class InstallCommand(SphinxDirective):
    """``{install-command} <release>``: that release's install command, generated
    from the table (and checked by trtdocs.drift like any printed command).
    ``:tool: uv`` writes it for ``uv pip``; ``:platform: windows`` for Windows."""

    required_arguments = 1
    has_content = False
    option_spec = {
        "tool": lambda arg: directives.choice(arg, INSTALL_TOOLS),
        "platform": lambda arg: directives.choice(arg, INSTALL_PLATFORMS),
    }

    def run(self) -> list[nodes.Node]:
        table = table_of(self.env)
        key = self.arguments[0].strip()
        tool = self.options.get("tool", "pip")
        platform = self.options.get("platform", "linux")
        self.env.note_dependency(str(table.path))
        try:
            release = table.release(key)
        except KeyError:
            logger.error(
                "unknown release %r: %s has no such release",
                key,
                table.path,
                location=self.get_location(),
                type="trtdocs",
                subtype="features",
            )
            return []
        if platform not in release.install_platforms:
            logger.error(
                "release %r of %s does not install on %s (its platforms: %s)",
                key,
                table.path,
                platform,
                ", ".join(release.platforms),
                location=self.get_location(),
                type="trtdocs",
                subtype="features",
            )
            return []
        text = table.install_command(key, tool, platform)
        block = nodes.literal_block(text, text, language="bash", classes=["trtdocs-install"])
        return [block]
