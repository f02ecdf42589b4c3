"""The words of a version note: which of three states a feature is in for a
reader ("In 2.14", "In 2.15, not released", "Nightly builds only"), what a
not-run mark says a cell needs, how a note sits in running text (the sentence
around a note that says nothing closes over it), and a note's text without its
code marks where only plain text fits. Pure: no Sphinx."""

from __future__ import annotations

import re
from typing import Final

from ..vocab import NIGHTLY, STATUSES

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
        return prev[: m.start()], nxt  # "(y, x)" with x gone: "(y)"
    if not nxt or nxt[:1] in ".,;:)":
        return prev.rstrip(), nxt
    return prev, nxt


def plain(text: str) -> str:
    """A note's text without its `code` marks."""
    return text.replace("`", "")


# The one word ``{release}`` takes: the release the pages describe (the table's ``documented``).
DOCUMENTED: Final = "documented"


def release_words(key: str) -> str:
    """A release key as a reader says it: "2.15", "nightly builds"."""
    return "nightly builds" if key == NIGHTLY else key


def state_words(key: str, status: str) -> str:
    """What a version note says of a feature that release ``key`` (whose status is
    ``status``) brings: one of three states (vocab.Status.state), "In 2.14", "In
    2.15, not released", "Nightly builds only". What shows it (a run, code, a
    description) is the support matrix's to say."""
    return STATUSES[status].state.format(release=release_words(key))


def needs_words(key: str, status: str) -> str:
    """What a reader installs to get what release ``key`` brings, as a not-run mark
    says it: "Torch-TensorRT 2.15 or newer (not released)", "a Torch-TensorRT
    nightly build"."""
    if status == NIGHTLY:
        return "a Torch-TensorRT nightly build"
    out = "" if status == "released" else " (not released)"
    return f"Torch-TensorRT {key} or newer{out}"
