"""The claim-sized units of a page's prose, and which of them read as claims.

A page's Markdown is parsed with MyST's markdown-it setup; its paragraph
sentences, list items' sentences, headings and table rows are units (code,
outputs, MyST comments and the bodies of :data:`NOT_PROSE` directives are not).
A unit is claim-like when it matches :data:`CLAIM_PATTERNS`. :mod:`.evidence`
asks every claim-like unit for its evidence entry."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

from ..pages.blocks import CODE_DIRECTIVES, directive_options

# Words that make a sentence state a behaviour, a default, a limit or a platform. Measured on
# the pages as they stood when this was written (main at 126a025, the landing page and the 16
# notebooks): 348 of 690 prose units match (21 by a version number); the commonest words are
# "one", "not", "only", "no", "every", "needs", "fails", "default", "copies". Each word was
# kept because the units it adds state a behaviour (issue 19's wrong claims all match).
CLAIM_WORDS: frozenset[str] = frozenset(
    {
        # defaults and limits
        "default",
        "defaults",
        "only",
        "always",
        "never",
        "must",
        "cannot",
        "can't",
        "unless",
        "requires",
        "required",
        "require",
        "needs",
        "pins",
        "pinned",
        # failure
        "fails",
        "fail",
        "failed",
        "refuses",
        "refused",
        "raises",
        "raise",
        "rejects",
        "rejected",
        "crashes",
        "error",
        "errors",
        # behaviour a reader relies on
        "copies",
        "copy",
        "clones",
        "allocates",
        "overwrites",
        "ignores",
        "ignored",
        "supports",
        "supported",
        "unsupported",
        "ships",
        "links",
        # absence, number, universality: "has no CUDA backend", "one method", "every call"
        "no",
        "not",
        "none",
        "neither",
        "nor",
        "every",
        "one",
        "self-contained",
        "overwritten",
        "wrong",
        # platforms
        "linux",
        "windows",
        "macos",
        "aarch64",
        "arm64",
        "x86-64",
        "x86_64",
        "jetson",
        "jetpack",
        "orin",
        "thor",
        "ampere",
        "hopper",
        "blackwell",
    }
)
CLAIM_PATTERNS: Mapping[str, re.Pattern[str]] = MappingProxyType(
    {
        "version": re.compile(
            r"(?<![\w.])\d+\.\d+(?:\.\d+)?(?![\w.]*\w)"
        ),  # 2.14, 1.4.1; not x.pte
        "word": re.compile(
            r"(?<![\w-])("
            + "|".join(map(re.escape, sorted(CLAIM_WORDS, key=len, reverse=True)))
            + r")(?![\w-])",
            re.I,
        ),
    }
)
# Directives whose body is not Markdown prose.
NOT_PROSE = CODE_DIRECTIVES | frozenset(
    {
        "toctree",
        "math",
        "raw",
        "csv-table",
        "mermaid",
        "literalinclude",
        "include",
        "install-command",
        "graphviz",
        "digraph",
        "graph",
    }
)
_PARSER = create_md_parser(
    MdParserConfig(enable_extensions={"colon_fence", "deflist", "substitution"}), RendererHTML
)
_DIRECTIVE = re.compile(r"^\{(?P<name>[\w:-]+)\}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`*_\[{(\"'])")
_WS = re.compile(r"\s+")


def normal(text: str) -> str:
    """Whitespace-normalised: every run of whitespace one space, none at the ends."""
    return _WS.sub(" ", text).strip()


@dataclasses.dataclass(frozen=True, slots=True)
class Unit:
    """A claim-sized piece of prose: a sentence, a list item's sentence, a heading, a table row."""

    line: int  # 1-based page line where it starts
    text: str  # whitespace-normalised source

    def claim(self) -> str | None:
        """The first claim-like match, or None."""
        for pattern in CLAIM_PATTERNS.values():
            if m := pattern.search(self.text):
                return m[0]
        return None


def prose_units(text: str) -> list[Unit]:
    """The claim-sized units of a page's prose, in page order."""
    return list(_units(text, 0))


def _units(text: str, offset: int) -> Iterator[Unit]:
    lines = text.splitlines()
    in_row = in_heading = False
    for token in _PARSER.parse(text):
        if token.type in ("tr_open", "heading_open"):
            in_row, in_heading = token.type == "tr_open", token.type == "heading_open"
            if in_row and token.map:
                yield Unit(offset + token.map[0] + 1, normal(lines[token.map[0]]))
        elif token.type in ("tr_close", "heading_close"):
            in_row = in_heading = False
        elif token.type == "inline" and token.map and not in_row:
            if in_heading:
                yield Unit(offset + token.map[0] + 1, normal(token.content))
            else:
                yield from _sentences(token, offset)
        elif token.type in ("fence", "colon_fence") and token.map:
            yield from _directive_units(token, offset)


def _sentences(token: Token, offset: int) -> Iterator[Unit]:
    assert token.map is not None
    content, start = token.content, 0
    for m in [*_SENTENCE_END.finditer(content), None]:
        end = m.start() if m else len(content)
        if piece := normal(content[start:end]):
            yield Unit(offset + token.map[0] + 1 + content.count("\n", 0, start), piece)
        start = m.end() if m else end


def _directive_units(token: Token, offset: int) -> Iterator[Unit]:
    """A directive's Markdown body (a note, a tab, a card), parsed again; code bodies skipped."""
    assert token.map is not None
    m = _DIRECTIVE.match(token.info.strip())
    if m is None or m["name"] in NOT_PROSE:
        return
    body = token.content.splitlines()
    _, skip = directive_options(body)
    yield from _units("\n".join(body[skip:]) + "\n", offset + token.map[0] + 1 + skip)
