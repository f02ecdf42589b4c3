"""Long signatures, one parameter a line, in valid HTML.

``python_maximum_signature_line_length`` (conf.py) marks a signature longer
than the limit ``multi_line_parameter_list``; Sphinx's HTML writer then puts
each parameter in a ``<dd>`` of a ``<dl>`` that has no ``<dt>``, which HTML
does not allow (a ``<dd>`` follows a ``<dt>``). For the HTML builders,
:class:`SignatureLines` writes those parameters inline, as every other
signature's, and marks the signature with :data:`LINES_CLASS`; trtdocs.css
starts each parameter, and the closing parenthesis, on a line of its own.
Other builders (the Markdown twins among them) keep Sphinx's own layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

LINES_CLASS: Final = "trtdocs-sig-lines"  # trtdocs.css: one parameter a line
_LISTS: Final = (addnodes.desc_parameterlist, addnodes.desc_type_parameter_list)


class SignatureLines(SphinxPostTransform):
    """A multi-line parameter list as inline parameters, its signature marked."""

    default_priority = 400
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for sig in self.document.findall(addnodes.desc_signature):
            lists = [
                c
                for c in sig.children
                if isinstance(c, _LISTS) and c.get("multi_line_parameter_list")
            ]
            for params in lists:
                params["multi_line_parameter_list"] = False
            if lists and LINES_CLASS not in sig["classes"]:
                sig["classes"].append(LINES_CLASS)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_post_transform(SignatureLines)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
