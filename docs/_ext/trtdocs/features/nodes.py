"""The features table's notes on the pages: ``{feature-note} <id>``,
``{feature}`<id>```, and ``{install-command} <release>``.

Every note is generated from the table (:mod:`.model`) relative to the
documented release and links to the feature's row of the support matrix
(:mod:`.matrix`). :func:`use_feature` and :func:`matrix_ref` are what other
parts of the site (the API reference's ``{api-feature}``) use to say the same.
"""

from __future__ import annotations

from typing import Any

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

logger = logging.getLogger(__name__)


def table_of(env: BuildEnvironment) -> FeaturesTable:
    """This build's features table (trtdocs.features loads it at builder-inited)."""
    table = state.of(env).features
    assert table is not None, "trtdocs.features is not set up"
    return table


def matrix_ref(env: BuildEnvironment, feature: Feature, text: str) -> addnodes.pending_xref:
    """A link to ``feature``'s entry in the support matrix, reading ``text``."""
    ref = addnodes.pending_xref("", refdomain="std", reftype="ref", reftarget=f"feature-{feature.id}",
                                refexplicit=True, refwarn=True, refdoc=env.docname)
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
        logger.error("unknown feature %r: %s has no such id", feature_id, table.path,
                     location=location, type="trtdocs", subtype="features")
        return None
    state.of(env).feature_refs.setdefault(env.docname, set()).add(feature.id)
    return feature


class FeatureNote(SphinxDirective):
    """``{feature-note} <id>``: the generated note of one feature."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        feature = use_feature(self.env, self.arguments[0].strip(), self.get_location())
        if feature is None:
            return []
        table = table_of(self.env)
        if feature.kind == "changed":
            return [self._changed(table, feature)]
        available = table.has(feature, table.documented)
        box = nodes.admonition(classes=["trtdocs-feature-note", "note" if available else "important"])
        box += nodes.title(text=table.availability(feature))
        para = nodes.paragraph()
        limit = table.platform_limit(feature)
        para += inline(feature.title)
        para += nodes.Text(". " + (f"{limit[0].upper()}{limit[1:]}. " if limit else ""))
        para += inline(feature.note)
        para += nodes.Text(" See ")
        para += matrix_ref(self.env, feature, "the support matrix")
        para += nodes.Text(".")
        box += para
        return [box]

    def _changed(self, table: FeaturesTable, feature: Feature) -> addnodes.versionmodified:
        """A changed behaviour, as Sphinx's ``versionchanged`` renders it
        (same node and classes, so the theme styles it), without entering the
        change log of the changes builder."""
        node = addnodes.versionmodified(type="versionchanged", version=feature.since,
                                        classes=["trtdocs-feature-note"])
        self.set_source_info(node)
        para = nodes.paragraph(translatable=False)
        para += nodes.inline("", f"{table.availability(feature)}: ", classes=["versionmodified", "changed"])
        para += inline(feature.title)
        para += nodes.Text(". ")
        para += inline(feature.note)
        para += nodes.Text(" See ")
        para += matrix_ref(self.env, feature, "the support matrix")
        para += nodes.Text(".")
        node += para
        return node


class FeatureRole(SphinxRole):
    """``{feature}`<id>```: the short note, as a link to the matrix row."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        feature = use_feature(self.env, self.text.strip(), self.get_location())
        if feature is None:
            return [], []
        text = table_of(self.env).note_text(feature)
        wrapper = nodes.inline(classes=["trtdocs-feature"], trtdocs_note=text)
        wrapper += nodes.Text("(")
        wrapper += matrix_ref(self.env, feature, text)
        wrapper += nodes.Text(")")
        return [wrapper], []


# Text that may separate two inline notes of one run ("a, b", "a and b").
_NOTE_SEPARATORS = frozenset({",", ";", "and", "or", ", and", ", or"})


class FeatureNoteParentheses(SphinxTransform):
    """Inline notes fit the sentence they sit in.

    A ``{feature}`` role brings its own parentheses. Inside parentheses the
    prose already opened, it drops them (no "((New in 2.14))"); and a run of
    notes with the same text ("a, b", "a and b") keeps the first one only, so
    a sentence does not say "New in 2.14" twice.
    """

    default_priority = 700  # after the roles have run; before references resolve

    def apply(self, **kwargs: Any) -> None:
        parents = {id(n.parent): n.parent for n in self.document.findall(_is_feature_note)}
        for parent in parents.values():
            self._fit(parent)

    @staticmethod
    def _fit(parent: nodes.Element) -> None:
        # Text nodes are strings and compare equal by value, so this works on
        # positions, never on parent.index() or parent.remove().
        kept: list[nodes.Node] = []
        depth = 0
        previous: int | None = None  # index in `kept` of the last note, while only separators follow it
        for child in parent.children:
            if _is_feature_note(child):
                if previous is not None and kept[previous]["trtdocs_note"] == child["trtdocs_note"]:
                    del kept[previous + 1:]  # the separator, then this note, go
                    continue
                if depth > 0:
                    child.children = [c for c in child.children if not isinstance(c, nodes.Text)]
                previous = len(kept)
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


def _is_feature_note(node: nodes.Node) -> bool:
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
            logger.error("unknown release %r: %s has no such release", key, table.path,
                         location=self.get_location(), type="trtdocs", subtype="features")
            return []
        if platform not in release.install_platforms:
            logger.error("release %r of %s does not install on %s (its platforms: %s)", key, table.path,
                         platform, ", ".join(release.platforms),
                         location=self.get_location(), type="trtdocs", subtype="features")
            return []
        text = table.install_command(key, tool, platform)
        block = nodes.literal_block(text, text, language="bash", classes=["trtdocs-install"])
        return [block]


