"""Fenced blocks of MyST pages and text notebooks, with their line numbers."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

# The pages the guards read, relative to the project root.
PAGE_GLOBS: tuple[str, ...] = ("index.md", "docs/**/*.md", "notebooks/**/*.md")
# Folders never read (recorded outputs, the extension's own files).
EXCLUDED_PARTS = frozenset({"_recorded", "_ext", "_build"})

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
_DIRECTIVE = re.compile(r"^\{(?P<name>[\w:-]+)\}\s*(?P<arg>.*)$")


@dataclasses.dataclass(frozen=True, slots=True)
class Block:
    """One fenced block."""

    path: Path  # the page
    kind: str  # "fence" for ```lang, else the directive name ("code-cell", "code-block")
    language: str  # the fence's language or the directive's argument, lower case
    first_line: int  # 1-based page line of the block's first content line
    lines: tuple[str, ...]  # content, without directive option lines
    options: dict[str, str]  # directive options (":key: value" lines)

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
    """Every fenced block of a page, nested ones included (top level first)."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    yield from _scan(path, lines, 0)


def _scan(path: Path, lines: list[str], offset: int) -> Iterator[Block]:
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m["fence"], m["info"].strip()
        close = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        body = lines[i + 1:j]
        d = _DIRECTIVE.match(info)
        kind, language = ("fence", info.split()[0].lower() if info else "")
        if d:
            kind, language = d["name"], d["arg"].strip().lower()
        start = i + 1  # index in `lines` of the first body line
        options: dict[str, str] = {}
        if d:
            k = 0
            if body[:1] == ["---"]:  # YAML option block
                end = body.index("---", 1) if "---" in body[1:] else 0
                for opt in body[1:end]:
                    key, _, value = opt.partition(":")
                    options[key.strip()] = value.strip()
                k = end + 1
            while k < len(body) and re.match(r"^:[\w-]+:", body[k]):
                key, _, value = body[k][1:].partition(":")
                options[key.strip()] = value.strip()
                k += 1
            body, start = body[k:], start + k
        yield Block(path, kind, language, offset + start + 1, tuple(body), options)
        if d and kind not in ("code-cell", "code-block", "code"):
            yield from _scan(path, list(body), offset + start)
        i = j + 1
