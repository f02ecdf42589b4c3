"""The words of a version note: what a cell's state says to a reader ("in
code in 2.14, no run shown", "described for 2.15, not released"), how a note
sits in running text (the sentence around a note that says nothing closes over
it), and a note's text without its code marks where only plain text fits.
Pure: no Sphinx."""

from __future__ import annotations

import re

from ..vocab import NIGHTLY

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


def release_words(key: str) -> str:
    """A release key as a reader says it: "2.15", "nightly builds"."""
    return "nightly builds" if key == NIGHTLY else key


def needs_words(key: str) -> str:
    """What a reader installs to get a feature that release ``key`` shows."""
    return (
        "Needs a Torch-TensorRT nightly build"
        if key == NIGHTLY
        else f"Needs Torch-TensorRT {key} or newer"
    )


# State -> what a cell says of its release, in a note ({release}: "2.14", "nightly builds").
# An in-code cell's remark says which run is missing ("no run with engines shown";
# the validator holds it to that), so it takes the place of "no run shown".
_IN_CODE_WITH_REMARK = "in code in {release}, {remark}"
_STATE_WORDS = {
    "yes": "in {release}",
    "in-code": "in code in {release}, no run shown",
    "broken": "fails in {release}",
    "no": "not in {release}",
    "unknown": "not known for {release}",
}
# A described cell says whether its release is out (vocab.STATUSES keys).
_DESCRIBED_WORDS = {
    "released": "described for {release}; the release does not show it",
    "described": "described for {release}, not released",
    "nightly": "described for {release}; no build is shown to have it",
}


def state_words(state: str, key: str, status: str, remark: str = "") -> str:
    """What cell ``state`` of release ``key`` (whose status is ``status``) says,
    then its remark: "described for 2.15, not released: not tested on Windows";
    an in-code cell's remark names the missing run itself: "in code in 2.14, no
    run with engines shown"."""
    if state == "in-code" and remark:
        return _IN_CODE_WITH_REMARK.format(release=release_words(key), remark=remark)
    words = _DESCRIBED_WORDS[status] if state == "described" else _STATE_WORDS[state]
    words = words.format(release=release_words(key))
    return f"{words}: {remark}" if remark else words


def sentence(text: str) -> str:
    """``text`` with a capital first letter (the rest as it is: code stays code)."""
    return text[:1].upper() + text[1:]
