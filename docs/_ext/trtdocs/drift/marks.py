"""Guard marks: on MyST comment lines directly above a block, from one vocabulary.

The guards read their instructions from ``% drift: ...`` lines right above a
block's opening fence (contract 2). This guard makes sure that a mark is where
the guards look for it, and nowhere a reader copies it:

* no line of a code block or code cell holds a ``drift:`` mark;
* every ``% drift:`` comment line sits directly above a fence (or above another
  mark that does), so no mark is silently ignored;
* every mark is one of :data:`VOCABULARY`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from ..pages import Violation, commands
from ..pages.blocks import CODE_DIRECTIVES, iter_blocks, marks_above
from . import cpp

RULES: Mapping[str, str] = MappingProxyType(
    {
        "mark-in-code": "no code block or code cell line holds a drift: mark (marks go on % "
        "comment lines above it)",
        "mark-detached": "a % drift: comment line sits directly above a block's opening fence",
        "mark-unknown": "a mark is one of VOCABULARY",
    }
)
# Every mark a guard reads, from the guards' own constants, and the guard that reads it.
_PREFIX = "drift: "
VOCABULARY: Mapping[str, re.Pattern[str]] = MappingProxyType(
    {
        "fragment (cpp)": re.compile(re.escape(cpp.FRAGMENT_MARK)),
        "executorch X.Y (cpp)": cpp.API_MARK,
        "cxx-package (installs)": re.compile(
            re.escape(commands.CXX_PACKAGE_MARK.removeprefix(_PREFIX))
        ),
        "export-only (installs)": re.compile(
            re.escape(commands.EXPORT_ONLY_MARK.removeprefix(_PREFIX))
        ),
        "release=<key> (installs)": re.compile(
            commands.RELEASE_MARK.pattern.removeprefix(r"drift:\s*")
        ),
    }
)
_IN_CODE = re.compile(r"(?:^|[\s#/*;%!(-])drift:")
_COMMENT_MARK = re.compile(r"^\s*%\s*drift:\s*(?P<mark>.*)$")
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,}|:{3,})")


def check_page(path: Path, rel: str) -> list[Violation]:
    text = path.read_text(encoding="utf-8")
    page = text.splitlines()
    violations: list[Violation] = []
    in_code: set[int] = set()  # 1-based page lines inside code blocks
    for block in iter_blocks(path, text):
        if block.kind != "fence" and block.kind not in CODE_DIRECTIVES:
            # a directive whose body is Markdown (a note, a tab): its marks are comment lines
            continue
        for n, line in enumerate(block.lines):
            in_code.add(block.first_line + n)
            if _IN_CODE.search(line):
                violations.append(
                    Violation(
                        rel,
                        block.first_line + n,
                        "mark-in-code",
                        "a drift: mark inside code a reader copies; put it on a MyST "
                        "comment line above the block's fence (% drift: ...)",
                    )
                )
    for n, line in enumerate(page, start=1):
        if n in in_code or not (m := _COMMENT_MARK.match(line)):
            continue
        below = n
        while below < len(page) and _COMMENT_MARK.match(page[below]):
            below += 1  # the next line that is not a mark (0-based index = 1-based line below)
        if (
            below >= len(page)
            or not _FENCE.match(page[below])
            or m["mark"].strip() not in marks_above(page, below + 1)
        ):
            violations.append(
                Violation(
                    rel,
                    n,
                    "mark-detached",
                    "this mark is not directly above a block's opening fence, so no guard reads it",
                )
            )
        mark = m["mark"].strip()
        if not any(p.fullmatch(mark) for p in VOCABULARY.values()):
            violations.append(
                Violation(
                    rel, n, "mark-unknown", f"unknown mark {mark!r}; known: {', '.join(VOCABULARY)}"
                )
            )
    return violations


def check_pages(root: Path, paths: Iterable[Path]) -> list[Violation]:
    out: list[Violation] = []
    for path in paths:
        out += check_page(
            path, str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        )
    return out
