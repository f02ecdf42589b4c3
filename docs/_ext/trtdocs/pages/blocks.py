"""Fenced blocks of MyST pages and text notebooks, with their line numbers.

Blocks come from markdown-it-py's tokens (the parser MyST itself uses), with
the front-matter and colon-fence plugins; a directive's body is parsed again
for the blocks nested in it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

# The pages the guards read, relative to the project root.
PAGE_GLOBS: tuple[str, ...] = ("index.md", "docs/**/*.md", "notebooks/**/*.md")
# Folders never read (recorded outputs, the extension's own files).
EXCLUDED_PARTS = frozenset({"_recorded", "_ext", "_build"})
# Directives whose body is code, not Markdown with more blocks in it.
CODE_DIRECTIVES = frozenset({"code-cell", "code-block", "code"})

_DIRECTIVE = re.compile(r"^\{(?P<name>[\w:-]+)\}\s*(?P<arg>.*)$")
_MARK = re.compile(r"^\s*%\s*drift:\s*(?P<mark>.*)$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s?(?P<value>.*)$")
_PARSER = MarkdownIt("commonmark").use(front_matter_plugin).use(colon_fence_plugin)


@dataclasses.dataclass(frozen=True, slots=True)
class Block:
    """One fenced block."""

    path: Path  # the page
    kind: str  # "fence" for ```lang, else the directive name ("code-cell", "code-block")
    language: str  # the fence's language or the directive's argument, lower case
    fence_line: int  # 1-based page line of the opening fence
    first_line: int  # 1-based page line of the block's first content line
    lines: tuple[str, ...]  # content, without directive option lines
    options: dict[str, str]  # directive options (":key: value" lines or a YAML block)
    # the "drift: ..." marks of the MyST comment lines ("% drift: ...") right above
    # the opening fence: guard instructions live there, never inside reader code
    marks: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def page_paths(root: Path, globs: Iterable[str] = PAGE_GLOBS) -> list[Path]:
    found: set[Path] = set()
    for pattern in globs:
        for path in root.glob(pattern):
            if path.is_file() and not EXCLUDED_PARTS.intersection(path.relative_to(root).parts):
                found.add(path)
    return sorted(found)


def iter_blocks(path: Path, text: str | None = None) -> Iterator[Block]:
    """Every fenced block of a page, nested ones included (outer first)."""
    text = path.read_text(encoding="utf-8") if text is None else text
    page = text.splitlines()
    for block in _scan(path, text, 0):
        yield dataclasses.replace(block, marks=marks_above(page, block.fence_line))


def marks_above(page: list[str], fence_line: int) -> tuple[str, ...]:
    """The ``drift:`` marks of the MyST comment lines directly above a fence
    (1-based ``fence_line``), top to bottom."""
    marks: list[str] = []
    n = fence_line - 2
    while n >= 0 and (m := _MARK.match(page[n])):
        marks.insert(0, m["mark"].strip())
        n -= 1
    return tuple(marks)


def _scan(path: Path, text: str, offset: int) -> Iterator[Block]:
    for token in _PARSER.parse(text):
        if token.type not in ("fence", "colon_fence") or token.map is None:
            continue
        fence = offset + token.map[0]  # 0-based page line of the opening fence
        info = token.info.strip()
        body = token.content.splitlines()
        directive = _DIRECTIVE.match(info)
        if directive is None:
            yield Block(
                path,
                "fence",
                info.split()[0].lower() if info else "",
                fence + 1,
                fence + 2,
                tuple(body),
                {},
            )
            continue
        options, skip = directive_options(body)
        kind = directive["name"]
        yield Block(
            path,
            kind,
            directive["arg"].strip().lower(),
            fence + 1,
            fence + 2 + skip,
            tuple(body[skip:]),
            options,
        )
        if kind not in CODE_DIRECTIVES:
            yield from _scan(path, "\n".join(body[skip:]) + "\n", fence + 1 + skip)


def directive_options(body: list[str]) -> tuple[dict[str, str], int]:
    """A directive's options, and how many body lines they take."""
    if body[:1] == ["---"] and "---" in body[1:]:
        end = body.index("---", 1)
        data = yaml.safe_load("\n".join(body[1:end])) or {}
        return {str(k): str(v) for k, v in data.items()}, end + 1
    options: dict[str, str] = {}
    n = 0
    while n < len(body) and (m := _OPTION.match(body[n])):
        options[m["key"]] = m["value"].strip()
        n += 1
    return options, n


def shown_code(text: str) -> str:
    """A code block's text as the guards saw it: a ``%%writefile`` cell without its
    magic line, no trailing blanks (the built page's block is found by it)."""
    lines = text.strip("\n").splitlines()
    if lines and lines[0].startswith("%%writefile"):
        lines = lines[1:]
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def normal(code: str) -> str:
    """Code as the guards and the page both show it: no trailing blanks, no blank edges."""
    return "\n".join(line.rstrip() for line in code.strip("\n").splitlines())
