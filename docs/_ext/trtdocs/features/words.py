"""How a version note sits in running text: the sentence around a note that
says nothing closes over it, and a note's text loses its code marks where
only plain text fits. Pure: no Sphinx."""

from __future__ import annotations

import re

_TRAILING_SEPARATOR = re.compile(r"\s*(?:,|;|\band|\bor)\s*$")
_LEADING_SEPARATOR = re.compile(r"^\s*(?:,|;|and\b|or\b)\s*")


def join_over(prev: str, nxt: str) -> tuple[str, str]:
    """The text on both sides of a version note that says nothing (and goes),
    closed over it: no space before the next punctuation, no parentheses the
    prose opened for it alone, no separator left dangling."""
    head = prev.rstrip()
    if head.endswith("(") and nxt.lstrip().startswith(")"):  # "(x)" with x gone: no parentheses
        return head[:-1].rstrip(), nxt.lstrip()[1:]
    if head.endswith("("):  # "(x, y)" with x gone: "(y)"
        return head, _LEADING_SEPARATOR.sub("", nxt, count=1)
    if (m := _TRAILING_SEPARATOR.search(prev)) and (not nxt.strip() or nxt.lstrip()[:1] in ".,;:)"):
        return prev[:m.start()], nxt  # "(y, x)" with x gone: "(y)"
    if not nxt or nxt[:1] in ".,;:)":
        return prev.rstrip(), nxt
    return prev, nxt


def plain(text: str) -> str:
    """A note's text without its `code` marks."""
    return text.replace("`", "")
