"""What a Markdown twin must not hold: MyST markup that was not rendered, a
directive (```` ```{note} ````, ``:::{note}``) or a role (``{doc}`page```).
Read with markdown-it (MyST's own parser) as CommonMark sees the twin, so
code blocks and code spans, where such text is an example, are left alone.
Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
import re

from markdown_it import MarkdownIt

_ROLE_NAME = re.compile(r"\{[A-Za-z][\w:.+-]*\}$")  # text right before a code span: {doc}`x`
_COLON_FENCE = re.compile(r"(?m)^\s*:{3,}\s*\{[A-Za-z][\w:.+-]*\}")


@dataclasses.dataclass(frozen=True, slots=True)
class Unrendered:
    """MyST markup left in a twin."""

    line: int  # 1-based line of the twin
    text: str  # the markup as the twin holds it

    def message(self) -> str:
        return f"line {self.line}: unrendered MyST markup {self.text!r}"


def unrendered(markdown: str) -> list[Unrendered]:
    """The directives and roles ``markdown`` holds as text."""
    found: list[Unrendered] = []
    for token in MarkdownIt("commonmark").parse(markdown):
        line = token.map[0] + 1 if token.map else 0
        if token.type == "fence" and token.info.strip().startswith("{"):
            found.append(Unrendered(line, f"```{token.info.strip()}"))
        elif token.type == "inline":
            found += _in_inline(token.children or [], line)
    return found


def _in_inline(children: list, line: int) -> list[Unrendered]:
    found = []
    previous = None
    for child in children:
        if child.type == "text":
            found += [
                Unrendered(line, m.group().strip()) for m in _COLON_FENCE.finditer(child.content)
            ]
        elif child.type == "code_inline" and previous is not None and previous.type == "text":
            role = _ROLE_NAME.search(previous.content)
            if role:
                found.append(Unrendered(line, f"{role.group()}`{child.content}`"))
        previous = child
    return found
