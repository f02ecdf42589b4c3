"""Blocks shown as text that need what a cell can need carry a cell's not-run mark.

A step a reader runs by hand (a shell command, a C++ program, a CMake project) is
shown as text, and no build runs it. When it needs a GPU, TensorRT or a newer
release, it says so the way a code cell does: ``{code-block}`` takes the cells'
``:requires:`` option, in the same vocabulary (:mod:`.requirements`: a capability,
``feature:<id>``, or a requirement on a probed package)::

    ```{code-block} bash
    :requires: [cuda, tensorrt]
    trt_pte_runner/build/trt_pte_runner programs/small_conv_trt.pte
    ```

:class:`CodeBlock` is Sphinx's ``code-block`` with that one option: it checks each
requirement when the page is read (an unknown one is an error at the block) and
keeps them on the block (:data:`REQUIRES`). At ``doctree-resolved``,
:func:`resolve` puts before each such block the mark a cell that did not run gets
(:func:`.marks.text_line`: shown as text, and what running it needs); folded under it: what this
machine lacks of what it needs (the probe's reasons, as for a cell), and what the
build checked of it (:func:`checked`: for C++, a pointer to the guard's caption under the block).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

import yaml
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.directives.code import CodeBlock as SphinxCodeBlock

from .. import config, state
from ..output import folding
from ..output.inline import inline
from ..pages.blocks import normal, shown_code
from ..pages.commands import block_commands
from ..vocab import CMAKE_LANGUAGES, CPP_LANGUAGES, PYTHON_LANGUAGES, SHELL_LANGUAGES
from . import requirements
from .marks import text_line

if TYPE_CHECKING:
    from sphinx.application import Sphinx

REQUIRES = "trtdocs_requires"  # the literal block's attribute: its requirements, as written
MARK_CLASSES = ["trtdocs-not-executed", "trtdocs-text-block", "no-search"]
# a C++ block the guard compiled has its caption; one without failed (a warning names it)
NO_RESULT = "The C++ guard has no result for it: the build's warnings say why."
# the guard's caption sits under a C++ block it checked (trtdocs.drift.captions): said once
UNDER_BLOCK = "What the build compiled of it is said under the block."


class CodeBlock(SphinxCodeBlock):
    """``code-block`` with the cells' ``:requires:`` option."""

    option_spec: ClassVar[dict] = {
        **SphinxCodeBlock.option_spec,
        "requires": directives.unchanged_required,
    }

    def run(self) -> list[nodes.Node]:
        value = self.options.pop("requires", None)
        result = super().run()
        if value is None:
            return result
        table = state.of(self.env).features
        try:
            needs = requirements.parse(yaml.safe_load(value))
            for need in needs:
                if table is not None:
                    requirements.check(need, table.requirement)
                else:
                    requirements.check(need)
        except (requirements.RequirementError, yaml.YAMLError) as exc:
            raise self.error(f":requires: {exc}") from None
        for node in result:
            for block in node.findall(nodes.literal_block):
                block[REQUIRES] = list(needs)
        return result


def checked(block: nodes.literal_block, captions: Mapping[str, str], guards_ran: bool) -> str:
    """What the build checked of a block shown as text, in one sentence (`code` in backticks)."""
    language = block.get("language", "")
    if not guards_ran:
        return "The drift guards did not run in this build, so nothing in it was checked."
    if language in CPP_LANGUAGES:
        return UNDER_BLOCK if normal(shown_code(block.astext())) in captions else NO_RESULT
    if language in CMAKE_LANGUAGES:
        return "The build parses it with `cmake -P`; nothing is configured."
    if language in SHELL_LANGUAGES and block_commands(language, block.astext()):
        return "The build checks its install commands: packages, pins and package indexes."
    if language in PYTHON_LANGUAGES:
        return (
            "The build checks the names and keywords it uses from Torch-TensorRT and ExecuTorch "
            "against the installed packages."
        )
    return "The build checks nothing in it."


def mark(
    needs: Sequence[str], words: Mapping[str, str], reasons: Sequence[str], check: str
) -> folding.folded:
    """The mark before a block shown as text: that no build runs it and what running
    it needs; folded under it, the probe's reasons and what the build checked of it."""
    body: list[nodes.Node] = []
    for text in [*reasons, check]:
        para = nodes.paragraph()
        para += inline(" ".join(text.splitlines()))
        body.append(para)
    return folding.make([nodes.Text(text_line(needs, words))], body, MARK_CLASSES)


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """At doctree-resolved: a mark before each block shown as text that has ``:requires:``."""
    build = state.of(app.env)
    kwargs = {"features": build.features.requirement} if build.features is not None else {}
    captions = {normal(code): text for code, _, text in build.cpp_captions.get(docname, ())}
    guards_ran = "trtdocs.drift" in app.extensions and config.of(app.config).drift
    for block in list(doctree.findall(nodes.literal_block)):
        needs = list(block.get(REQUIRES) or ())
        if not needs:
            continue
        words = {r: requirements.describe(r, **kwargs) for r in needs}
        unmet = (
            requirements.evaluate(
                needs,
                build.context.environment,
                disabled=build.context.disabled,
                pins=build.context.freshness.pins,
                **kwargs,
            )
            if build.context is not None
            else []
        )
        reasons = list(dict.fromkeys(f"needs {u.needs}: {u.reason}" for u in unmet))
        target: nodes.Element = block
        while (
            isinstance(target.parent, nodes.container)
            and "literal-block-wrapper" in target.parent["classes"]
        ):
            target = target.parent
        target.parent.insert(
            target.parent.index(target),
            mark(needs, words, reasons, checked(block, captions, guards_ran)),
        )


def marked(doctree: nodes.Node) -> int:
    """How many blocks of a page carry :data:`REQUIRES`."""
    return sum(1 for block in doctree.findall(nodes.literal_block) if block.get(REQUIRES))
