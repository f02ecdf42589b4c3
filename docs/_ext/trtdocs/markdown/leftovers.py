"""What Markdown made for a reader or a tool must not hold: MyST markup that was
not rendered, a directive (```` ```{note} ````, ``:::{note}``), a role
(``{doc}`page```), a target (``(label)=``) or a comment (``% text``). The
exporter checks what each of its readers writes with :func:`find`: a download,
whose cell markers (```` ```{code-cell} ````) are its format, and a twin.

Read with markdown-it and MyST's own plugins, as MyST would read the text, and
as CommonMark sees it (a role name as text before a code span, a colon fence as
text): code blocks and code spans, where such text is an example, are left
alone. Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Final

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

from .meanings import CELL_MARKERS

PARSER: Final = (
    MarkdownIt("commonmark")
    .enable("table")
    .use(colon_fence_plugin)
    .use(deflist_plugin)
    .use(myst_role_plugin)
    .use(myst_block_plugin)
)
DIRECTIVE: Final = re.compile(r"^\{(?P<name>[\w:-]+)\}\s*(?P<arg>.*)$")
_ROLE_NAME = re.compile(r"\{(?P<name>[A-Za-z][\w:.+-]*)\}$")  # text right before a code span
_COLON_FENCE = re.compile(r"(?m)^\s*:{3,}\s*\{(?P<name>[A-Za-z][\w:.+-]*)\}")


@dataclasses.dataclass(frozen=True, slots=True)
class Leftover:
    """MyST markup left in Markdown text."""

    line: int  # 1-based line of the text
    what: str  # "the directive {note}", "the role {doc}", "MyST target"
    text: str  # the markup as the text holds it

    def message(self) -> str:
        return f"line {self.line}: unrendered MyST markup {self.text!r} ({self.what})"


def find(text: str, cells: bool = False, lists: bool = False) -> list[Leftover]:
    """Each piece of MyST markup ``text`` holds; ``cells``: the text is a MyST
    notebook, whose cell markers are its format; ``lists``: a definition list
    counts (a download: JupyterLab shows one as written; a twin keeps them)."""
    found: list[Leftover] = []
    for token in PARSER.parse(text):
        line = (token.map[0] + 1) if token.map else 1
        if token.type in ("fence", "colon_fence") and token.info.strip().startswith("{"):
            m = DIRECTIVE.match(token.info.strip())
            name = m["name"] if m else token.info.strip()
            if not (cells and name in CELL_MARKERS):
                marker = token.markup or "```"
                found.append(Leftover(line, f"the directive {{{name}}}", marker + token.info))
        elif token.type in ("myst_target", "myst_line_comment"):
            kind = token.type.removeprefix("myst_").replace("_", " ")
            found.append(Leftover(line, f"MyST {kind}", token.content.strip()))
        elif token.type == "dl_open" and lists:
            found.append(Leftover(line, "a MyST definition list", text.split("\n")[line - 1]))
        elif token.type == "inline":
            found += _inline(token.children or [], line)
    return found


def _inline(children: Sequence[Token], line: int) -> list[Leftover]:
    found = []
    previous = None
    for child in children:
        if child.type == "myst_role":
            name = child.meta["name"]
            found.append(Leftover(line, f"the role {{{name}}}", f"{{{name}}}`{child.content}`"))
        elif child.type == "text":
            found += [
                Leftover(line, f"the directive {{{m['name']}}}", m.group().strip())
                for m in _COLON_FENCE.finditer(child.content)
            ]
        elif child.type == "code_inline" and previous is not None and previous.type == "text":
            if role := _ROLE_NAME.search(previous.content):
                found.append(
                    Leftover(
                        line, f"the role {{{role['name']}}}", f"{role.group()}`{child.content}`"
                    )
                )
        previous = child
    return found
