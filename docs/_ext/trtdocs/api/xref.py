"""Code literals in prose that name an object of the documented packages become
cross-references to its API entry, checked like any other reference.

The rule, for an inline literal that is a dotted name under one of
:data:`PREFIXES` (an optional trailing ``()`` is kept in the text):

* the API reference documents it (:func:`.model.public_objects`):
  a ``py:obj`` reference, which the strict build (``-n``) resolves;
* the installed package has it but the reference does not document it
  (``torch_tensorrt.Input``): the literal stays as it is;
* ``docs/data/api.toml`` maps it to a feature of a later release (a name the
  installed wheel lacks, such as ``torch_tensorrt_executorch_runtime.register``):
  the literal stays as it is;
* otherwise the name does not exist: an error naming the page and line.

Names in code cells link through :mod:`.codelinks`; the drift guards check them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from .. import state
from .sphinx import site_of

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

PREFIXES = ("torch_tensorrt", "torch_tensorrt_executorch_runtime")
_NAME = re.compile(
    r"(?P<name>(?:{})(?:\.[A-Za-z_]\w*)*)(?P<call>\(\))?\Z".format("|".join(PREFIXES))
)
# Where a literal is not prose: signatures, titles, existing references.
_SKIP = (
    addnodes.desc_signature,
    nodes.title,
    nodes.reference,
    addnodes.pending_xref,
    nodes.FixedTextElement,
)


def _skipped(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, _SKIP):
            return True
        parent = parent.parent
    return False


def _in_entry(node: nodes.Node) -> bool:
    """Whether ``node`` is in an API entry (the installed docstring's text)."""
    parent = node.parent
    while parent is not None and not isinstance(parent, addnodes.desc_content):
        parent = parent.parent
    return parent is not None


MARK = "trtdocs_api_literal"  # on the references this module makes


def _no_reference_here(
    app: Sphinx, env: object, node: addnodes.pending_xref, contnode: nodes.Element
) -> nodes.Element | None:
    """A site without the API reference (no ``{api-module}`` page, as in a small
    fixture site) keeps such literals as plain code; a site that has it warns
    on a target it does not document, as ``-n`` does for any reference."""
    if not node.get(MARK):
        return None
    documented = app.env.domains.python_domain.objects
    if any(name in documented for name in site_of(app.env).documented):
        return None
    return contnode


class LiteralReferences(SphinxTransform):
    """Inline literals naming documented objects -> ``py:obj`` references."""

    default_priority = 500

    def apply(self, **kwargs: object) -> None:
        for literal in list(self.document.findall(nodes.literal)):
            match = _NAME.match(literal.astext())
            if match is None or _skipped(literal):
                continue
            api = site_of(self.env)  # loads the installed API on first use
            state.of(self.env).api_docs.add(
                self.env.docname
            )  # re-read when the installed API changes
            name = match["name"]
            if name in api.documented:
                ref = addnodes.pending_xref(
                    "",
                    refdomain="py",
                    reftype="obj",
                    reftarget=name,
                    refexplicit=False,
                    refwarn=True,
                    refdoc=self.env.docname,
                )
                ref["py:module"] = ref["py:class"] = None
                ref[MARK] = True
                literal.replace_self(ref)
                ref += literal
                literal["classes"] = [*literal["classes"], "xref", "py", "py-obj"]
            elif api.exists(name) or name in api.later or _in_entry(literal):
                continue  # a docstring's own words are the installed release's, right or wrong
            else:
                logger.error(
                    "`%s` names nothing in installed torch_tensorrt %s or the runtime wheel; "
                    "a name of a later release belongs in [features] of %s",
                    literal.astext(),
                    api.version,
                    api.data.data_path,
                    location=literal,
                    type="trtdocs",
                    subtype="api",
                )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_transform(LiteralReferences)
    app.connect("missing-reference", _no_reference_here)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
