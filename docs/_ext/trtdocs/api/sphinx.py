"""The API reference in a Sphinx build.

``{api-module} <module>`` renders the public names of one module of
:data:`.model.COVERED` as Python-domain objects (:mod:`.render`), so ``:py:func:``
roles, the Python module index and the general index know them;
``{api-feature}`<id>``` in the generated entries is a feature's title and
note. The installed API (:class:`.site.ApiSite`) is set up at
``builder-inited`` and loads when a page first asks for it; pages made from it
are read again when the installed sources change.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from .. import config, state
from ..features.nodes import matrix_ref, table_of, use_feature
from ..features.sphinx import table
from . import fields, model, render
from .site import ApiSite

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

SIG_MARK = (
    "trtdocs_api_signature"  # on xrefs of signatures and types: unresolved ones render as text
)


class used_in(nodes.General, nodes.Element):
    """Where an entry's "Used in" list goes (``name``: its dotted name); :mod:`.backrefs` fills
    it."""


def site_of(env: BuildEnvironment) -> ApiSite:
    """This build's installed API (trtdocs.api sets it up at builder-inited)."""
    site = state.of(env).api
    assert site is not None, "trtdocs.api is not set up"
    return site


class ApiModule(SphinxDirective):
    """``{api-module} <module>``: the module's entries (a module of :data:`.model.COVERED`)."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        path = self.arguments[0].strip()
        if path not in model.COVERED:
            raise self.error(
                f"{path} is not a module the API reference covers ({', '.join(model.COVERED)})"
            )
        site = site_of(self.env)
        data = site.data
        for f in (data.data_path, data.errata_path):
            self.env.note_dependency(str(f))
        state.of(self.env).api_docs.add(self.env.docname)
        text = "\n".join(render.Renderer(site.model, data, self._valid).module(path))
        out = render.parse(text, self.state.document)
        fields.unnest(out)  # a :param: body of several blocks: Sphinx writes it in one paragraph
        for ref in (n for top in out for n in top.findall(addnodes.pending_xref)):
            if _feature_note(ref):
                continue
            if ref.get("refdomain") == "std" and ref.get("reftype") == "ref":
                label = ref["reftarget"]
                if label not in data.upstream_refs:
                    logger.error(
                        "a docstring links to upstream label %r, which %s does not map to a page "
                        "(upstream_refs)",
                        label,
                        data.data_path,
                        location=self.get_location(),
                        type="trtdocs",
                        subtype="api",
                    )
                    continue
                ref["reftype"], ref["reftarget"] = "doc", "/" + data.upstream_refs[label]
            elif _in_signature_or_type(ref):
                ref[SIG_MARK] = True
                if "refspecific" in ref:
                    del ref["refspecific"]  # a bare annotation (Program) names one object or none
        for desc in (n for top in out for n in top.findall(addnodes.desc)):
            _add_used_in(self.env, desc)
        return out

    def _valid(self, text: str) -> bool:
        """Whether docutils parses ``text`` without a warning or error."""
        problems: list[nodes.system_message] = []
        render.parse(text, self.state.document, problems)
        return not problems


def _add_used_in(env: BuildEnvironment, desc: addnodes.desc) -> None:
    """An entry's "Used in" placeholder (:mod:`.backrefs`), after its own
    description and before its members' entries."""
    sig = desc.next_node(addnodes.desc_signature)
    content = desc.next_node(addnodes.desc_content)
    if sig is None or content is None or not sig.get("fullname"):
        return
    name = ".".join(filter(None, (sig.get("module"), sig["fullname"])))
    members = [i for i, child in enumerate(content.children) if isinstance(child, addnodes.desc)]
    state.of(env).backref_docs.add(env.docname)  # written again when a page's uses change
    content.insert(members[0] if members else len(content.children), used_in(name=name))


def _feature_note(ref: addnodes.pending_xref) -> bool:
    """A link of a feature note to the support matrix."""
    return isinstance(ref.parent, nodes.inline) and "trtdocs-feature" in ref.parent["classes"]


class ApiFeatureRole(SphinxRole):
    """``:api-feature:`<id>``` in generated entries: the feature's title and its
    note from the features table, as a link to its row of the support matrix
    (the {feature} role gives the note alone, which prose puts next to the name)."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        feature = use_feature(self.env, self.text.strip(), self.get_location())
        if feature is None:
            return [], []
        note = table_of(self.env).note_text(feature)
        wrapper = nodes.inline(classes=["trtdocs-feature"])
        wrapper += nodes.Text("(")
        wrapper += matrix_ref(
            self.env, feature, f"{feature.title}: {note}" if note else feature.title
        )
        wrapper += nodes.Text(")")
        return [wrapper], []


def _in_signature_or_type(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, addnodes.desc_signature):
            return True
        if isinstance(parent, nodes.field_body):
            return False
        parent = parent.parent
    return False


def _annotation_as_text(
    app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref, contnode: nodes.Element
) -> nodes.Element | None:
    """An annotation naming something outside the reference (``torch.Tensor``,
    ``Optional``, an undocumented torch_tensorrt class) renders as text."""
    if node.get(SIG_MARK):
        return contnode
    return None


def _set_up(app: Sphinx) -> None:
    """At builder-inited: this build's installed API, not loaded yet."""
    settings = config.of(app.config)
    root = Path(app.confdir)
    state.of(app.env).api = ApiSite(
        tuple(str(root / p) for p in settings.api_search_paths),
        root / settings.api_data_file,
        root / settings.api_errata_file,
        table(app),
        root / settings.api_links_file,
    )


def _outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Pages made from the installed API (the reference, prose whose literals were
    checked against it, linked code) are read again when its sources change."""
    build = state.of(env)
    key = model.key(site_of(env).search_paths or None)  # file sizes and times: no griffe load
    if build.api_key == key:
        return []
    build.api_key = key
    return sorted(build.api_docs - removed)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.config")
    app.setup_extension("trtdocs.state")
    app.setup_extension("trtdocs.features")  # {api-feature} notes come from the features table
    app.connect("builder-inited", _set_up)
    app.connect("env-get-outdated", _outdated)
    app.connect("missing-reference", _annotation_as_text)
    app.add_node(used_in)
    app.add_directive("api-module", ApiModule)
    app.add_role("api-feature", ApiFeatureRole())
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
