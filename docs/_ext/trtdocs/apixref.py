"""Code literals in prose that name an object of the documented packages become
cross-references to its API entry, checked like any other reference.

The rule, for an inline literal that is a dotted name under one of
:data:`PREFIXES` (an optional trailing ``()`` is kept in the text):

* the API reference documents it (:func:`trtdocs.apiref.public_objects`):
  a ``py:obj`` reference, which the strict build (``-n``) resolves;
* the installed package has it but the reference does not document it
  (``torch_tensorrt.Input``): the literal stays as it is;
* ``docs/data/api.toml`` maps it to a feature of a later release (a name the
  installed wheel lacks, such as ``torch_tensorrt_executorch_runtime.register``):
  the literal stays as it is;
* otherwise the name does not exist: an error naming the page and line.

Names in code cells link through :mod:`trtdocs.codelinks`; the drift guards check them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from . import apiref
from .drift import api as drift_api

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

PREFIXES = ("torch_tensorrt", "torch_tensorrt_executorch_runtime")
_NAME = re.compile(r"(?P<name>(?:%s)(?:\.[A-Za-z_]\w*)*)(?P<call>\(\))?\Z" % "|".join(PREFIXES))
# Where a literal is not prose: signatures, titles, existing references.
_SKIP = (addnodes.desc_signature, nodes.title, nodes.reference, addnodes.pending_xref, nodes.FixedTextElement)


class Names:
    """What the rule needs, from the one API model."""

    def __init__(self, app: Sphinx) -> None:
        model = apiref.model_of(app)
        self.documented = frozenset(apiref.public_objects(model))
        self.index = drift_api.ApiIndex.load(model.search_paths)
        self.later = frozenset(k for k in apiref.data_of(app.env).absent if ":" not in k)
        self.version = model.versions.get("torch_tensorrt", "(version unknown)")

    def exists(self, name: str) -> bool:
        try:
            self.index.lookup(name)
        except drift_api._Missing:
            return False
        except drift_api._Unknown:
            return True  # an attribute's members: beyond what griffe follows
        return True


def _names(app: Sphinx) -> Names:
    if getattr(app, "trtdocs_api_names", None) is None:
        app.trtdocs_api_names = Names(app)
    return app.trtdocs_api_names


def _skipped(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, _SKIP):
            return True
        parent = parent.parent
    return False


MARK = "trtdocs_api_literal"  # on the references this module makes


def _no_reference_here(app: Sphinx, env: object, node: addnodes.pending_xref,
                       contnode: nodes.Element) -> nodes.Element | None:
    """A site without the API reference (no ``{api-module}`` page, as in a small
    fixture site) keeps such literals as plain code; a site that has it warns
    on a target it does not document, as ``-n`` does for any reference."""
    if not node.get(MARK):
        return None
    documented = app.env.domains.python_domain.objects
    if any(name in documented for name in _names(app).documented):
        return None
    return contnode


class LiteralReferences(SphinxTransform):
    """Inline literals naming documented objects -> ``py:obj`` references."""

    default_priority = 500

    def apply(self, **kwargs: object) -> None:
        names: Names | None = None
        for literal in list(self.document.findall(nodes.literal)):
            match = _NAME.match(literal.astext())
            if match is None or _skipped(literal):
                continue
            names = names or _names(self.app)
            self.env.trtdocs_api_docs.add(self.env.docname)  # re-read when the installed API changes
            name = match["name"]
            if name in names.documented:
                ref = addnodes.pending_xref("", refdomain="py", reftype="obj", reftarget=name,
                                            refexplicit=False, refwarn=True, refdoc=self.env.docname)
                ref["py:module"] = ref["py:class"] = None
                ref[MARK] = True
                literal.replace_self(ref)
                ref += literal
                literal["classes"] = [*literal["classes"], "xref", "py", "py-obj"]
            elif names.exists(name) or name in names.later:
                continue
            else:
                logger.error("`%s` names nothing in installed torch_tensorrt %s or the runtime wheel; "
                             "a name of a later release belongs in [features] of %s", literal.astext(),
                             names.version, apiref.data_of(self.env).data_path, location=literal,
                             type="trtdocs", subtype="api")


def setup(app: Sphinx) -> ExtensionMetadata:
    # needs trtdocs.apiref (set up beside it by trtdocs, or listed before it)
    app.add_transform(LiteralReferences)
    app.connect("missing-reference", _no_reference_here)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
