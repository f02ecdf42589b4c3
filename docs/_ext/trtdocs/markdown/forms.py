"""The Markdown of each form of :mod:`.meanings`, written once: a download
(:mod:`.source`) writes its text with these, and a twin (:mod:`.doctree`) either
inserts their text or builds the nodes that sphinx-markdown-builder writes in
the same shape (a quote: its title paragraph in bold, then its body). Pure."""

from __future__ import annotations

import re

# a quote's line with nothing after the marker: ">" (the translator writes "> ")
_BARE_QUOTE = re.compile(r"(?m)^((?:> ?)*>) +$")


def bold(text: str) -> str:
    """``**text**``; text with bold words of its own as it is (a banner's status line)."""
    return text if "**" in text else f"**{text}**"


def quote(title: str, body: str = "") -> str:
    """A quote headed by ``title`` in bold, its body after a quoted empty line."""
    lines = [bold(title)] if title else []
    if body.strip():
        lines += ([""] if lines else []) + body.strip("\n").split("\n")
    return bare_quotes("\n".join(f"> {line}" for line in lines))


def bare_quotes(text: str) -> str:
    """Quote lines that hold only the marker lose the space after it."""
    return _BARE_QUOTE.sub(r"\1", text)


def admonition_title(name: str, title: str = "") -> str:
    """What heads an admonition: its own title, else its kind as the theme shows it
    ("Note", "See also")."""
    return title or name.replace("seealso", "see also").capitalize()


def labelled(label: str, body: str) -> str:
    """A tab or a card: its label in bold on a line of its own, then its content."""
    return f"{bold(label)}\n\n{body.strip(chr(10))}" if label else body


def backticks(code: str, least: int = 3) -> str:
    """A run of backticks longer than any in ``code`` (CommonMark), at least ``least``."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    return "`" * max(least, longest + 1)


def fence(code: str, language: str = "") -> str:
    marker = backticks(code)
    return f"{marker}{language}\n{code.strip(chr(10))}\n{marker}"


def code_span(text: str) -> str:
    """Inline code that holds backticks too (``{py:func}`x```), padded where it
    starts or ends with one."""
    marker = backticks(text, least=1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{marker}{pad}{text}{pad}{marker}"


def diagram(alt: str, dot: str, caption: str = "", picture: str = "") -> str:
    """A diagram: its picture (a Markdown image) where the file holds one, else its
    alt text and its Graphviz source; then its caption in italics."""
    parts = [picture] if picture else [f"*Diagram:* {alt}", fence(dot, "dot")]
    if caption:
        parts.append(f"*{caption}*")
    return "\n\n".join(parts)
