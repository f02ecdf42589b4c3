"""The evidence register: where each claim of a guide page was checked (contract 5).

``docs/evidence/<page>.toml`` holds, for one guide page (``index.toml`` for the
landing page, ``<name>.toml`` for ``notebooks/<name>.md``), one ``[[claim]]``
table per claim::

    [[claim]]
    text = "Importing the package does nothing by itself"
    source = "torch-tensorrt-executorch-runtime 0.1.0: its __init__.py"

``text`` is a verbatim fragment of the page's ``.md`` source (prose, a code line
or a shell line), compared with every run of whitespace made one space;
``source`` names the wheel and version, file and function, or the pull request,
issue or commit URL. A page's sentence that changes no longer holds its
``text``, so the claim is checked again.

Claim-like units of a page's prose (paragraph sentences, list items, headings,
table rows; not code, outputs or MyST comments) are the ones that match
:data:`.claims.CLAIM_PATTERNS`: a version number, or a word of the frozen
:data:`.claims.CLAIM_WORDS` (behaviour, defaults, limits, failures, copies, platforms).
A unit is covered when an entry's ``text`` occurs in it or it occurs in an
entry's ``text``. Steps are covered the same way: every shell block, every C++
block and every code cell gated on ``cuda`` or ``tensorrt`` (which never runs
when the site is built) needs an entry whose ``text`` occurs in it.

Every guide page has an evidence file: a page without one is a violation
(:data:`REQUIRE_EVIDENCE`). ``check(..., require=False)`` lists such pages
instead, for a page still being written.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from .. import tomlfile
from ..pages import Violation
from ..pages.blocks import Block, iter_blocks
from ..tomlfile import TomlFileError
from ..vocab import CPP_LANGUAGES, SHELL_LANGUAGES
from .claims import normal, prose_units

REQUIRE_EVIDENCE = True  # a guide page without an evidence file fails
EVIDENCE_DIR = "docs/evidence"
# Registers of the folder that belong to no page, each checked by its own module.
OWN_REGISTERS: Mapping[str, str] = MappingProxyType({"failures.toml": "trtdocs.drift.raises"})
INDEX_PAGE = "index.md"
NOTEBOOKS = "notebooks"
TOP_KEYS = frozenset({"claim"})
CLAIM_KEYS = frozenset({"text", "source"})
RULES: Mapping[str, str] = MappingProxyType(
    {
        "evidence-toml": "an evidence file is valid TOML",
        "evidence-keys": "an evidence file has only [[claim]] tables, each with a non-empty text "
        "and source only",
        "evidence-page": "an evidence file names a guide page that exists (index.toml, or "
        "notebooks/<name>.md)",
        "evidence-stale": "every text occurs verbatim (whitespace-normalised) in its page's .md "
        "source",
        "evidence-duplicate": "no text is written twice in one file",
        "evidence-coverage": "every claim-like unit of the page's prose is covered by an entry",
        "evidence-steps": "every shell block, C++ block and gated code cell holds an entry's text",
        "evidence-missing": "a guide page has an evidence file",
    }
)
GATING = frozenset({"cuda", "tensorrt"})  # cell requirements the build machine never meets
_BUILD_FILE = re.compile(
    r"%%writefile\s+(?:-a\s+)?\S*(\.(cpp|cc|cxx|h|hpp|cmake)|CMakeLists\.txt)\s*$"
)


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    text: str
    source: str
    line: int  # line of its [[claim]] header in the evidence file


@dataclasses.dataclass(frozen=True, slots=True)
class Result:
    violations: tuple[Violation, ...]
    without_evidence: tuple[str, ...]  # guide pages with no evidence file (listed, not failed)


def guide_pages(root: Path) -> list[Path]:
    """The pages that get an evidence file: the landing page and the notebooks."""
    return [p for p in [root / INDEX_PAGE, *sorted((root / NOTEBOOKS).glob("*.md"))] if p.is_file()]


def evidence_file(root: Path, page: Path) -> Path:
    stem = "index" if page == root / INDEX_PAGE else page.stem
    return root / EVIDENCE_DIR / f"{stem}.toml"


def page_of(root: Path, evidence: Path) -> Path:
    return (
        root / INDEX_PAGE if evidence.stem == "index" else root / NOTEBOOKS / f"{evidence.stem}.md"
    )


def load(path: Path, rel: str) -> tuple[list[Entry], list[Violation]]:
    """An evidence file's entries, and what is wrong with its shape."""
    raw = path.read_text(encoding="utf-8")
    try:
        data = tomlfile.parse(raw, path)
    except TomlFileError as exc:
        return [], [Violation(rel, exc.line, "evidence-toml", exc.problem)]
    headers = [n for n, text in enumerate(raw.splitlines(), start=1) if text.strip() == "[[claim]]"]
    problems: list[Violation] = []
    if unknown := set(data) - TOP_KEYS:
        problems.append(
            Violation(
                rel,
                1,
                "evidence-keys",
                f"unknown top-level key(s) {sorted(unknown)}; the file holds [[claim]] tables only",
            )
        )
    claims = data.get("claim", [])
    if not isinstance(claims, list):
        return [], [*problems, Violation(rel, 1, "evidence-keys", "claim must be [[claim]] tables")]
    entries: list[Entry] = []
    for n, claim in enumerate(claims):
        line = headers[n] if n < len(headers) else 1
        if not isinstance(claim, dict):
            problems.append(Violation(rel, line, "evidence-keys", "a claim must be a table"))
            continue
        if unknown := set(claim) - CLAIM_KEYS:
            problems.append(
                Violation(
                    rel,
                    line,
                    "evidence-keys",
                    f"unknown key(s) {sorted(unknown)}; a claim "
                    f"has {', '.join(sorted(CLAIM_KEYS))} only",
                )
            )
        missing = [
            k
            for k in sorted(CLAIM_KEYS)
            if not isinstance(claim.get(k), str) or not claim[k].strip()
        ]
        if missing:
            problems.append(
                Violation(rel, line, "evidence-keys", f"{', '.join(missing)} missing or empty")
            )
            continue
        entries.append(Entry(normal(claim["text"]), claim["source"].strip(), line))
    return entries, problems


def _steps(path: Path) -> Iterator[tuple[Block, str]]:
    """The blocks that need an entry: shell and C++ blocks, cells that write a C++ or
    CMake file or run a shell, gated code cells."""
    for block in iter_blocks(path):
        first = block.lines[0] if block.lines else ""
        if block.kind in ("fence", "code-block", "code") and block.language in SHELL_LANGUAGES:
            yield block, "shell step"
        elif block.kind in ("fence", "code-block", "code") and block.language in CPP_LANGUAGES:
            yield block, "C++ block"
        elif block.kind != "code-cell":
            continue
        elif GATING & set(re.findall(r"[\w:-]+", block.options.get("requires", ""))):
            yield block, "gated cell"
        elif re.match(_BUILD_FILE, first):
            yield block, "C++ or CMake file cell"
        elif re.match(r"%%(bash|sh)\b", first):
            yield block, "shell cell"


def check_page(root: Path, page: Path, evidence: Path) -> list[Violation]:
    """The rules for one page and its evidence file."""
    rel_file, rel_page = (str(p.relative_to(root)) for p in (evidence, page))
    entries, violations = load(evidence, rel_file)
    if any(v.rule == "evidence-toml" for v in violations):
        return violations  # the file's entries are unknown: coverage would report every claim
    source = page.read_text(encoding="utf-8")
    whole = normal(source)
    seen: set[str] = set()
    for entry in entries:
        if entry.text in seen:
            violations.append(
                Violation(rel_file, entry.line, "evidence-duplicate", f"{entry.text!r} again")
            )
        seen.add(entry.text)
        if entry.text not in whole:
            violations.append(
                Violation(
                    rel_file,
                    entry.line,
                    "evidence-stale",
                    f"{entry.text!r} no longer occurs in {rel_page}: check the claim "
                    f"again and write its text as the page has it",
                )
            )
    texts = [e.text for e in entries]
    for unit in prose_units(source):
        word = unit.claim()
        if word and not any(t in unit.text or unit.text in t for t in texts):
            violations.append(
                Violation(
                    rel_page,
                    unit.line,
                    "evidence-coverage",
                    f"a claim ({word!r}) with no entry in {rel_file}: {unit.text[:120]!r}",
                )
            )
    for block, kind in _steps(page):
        code = normal(block.text)
        if not any(t in code for t in texts):
            violations.append(
                Violation(
                    rel_page,
                    block.fence_line,
                    "evidence-steps",
                    f"this {kind} has no entry in {rel_file} (an entry's text is a line of it)",
                )
            )
    return violations


def check(
    root: Path,
    *,
    require: bool = REQUIRE_EVIDENCE,
    check_one: Callable[[Path, Path, Path], list[Violation]] = check_page,
) -> Result:
    """Every evidence file, and every guide page against its file (by ``check_one``:
    :func:`check_page`, or a memo of it)."""
    root = root.resolve()
    violations: list[Violation] = []
    without: list[str] = []
    pages = guide_pages(root)
    for evidence in sorted((root / EVIDENCE_DIR).glob("*.toml")):
        if evidence.name not in OWN_REGISTERS and page_of(root, evidence) not in pages:
            violations.append(
                Violation(
                    str(evidence.relative_to(root)),
                    1,
                    "evidence-page",
                    f"names no guide page: {page_of(root, evidence).relative_to(root)} "
                    f"does not exist",
                )
            )
    for page in pages:
        evidence = evidence_file(root, page)
        if evidence.is_file():
            violations += check_one(root, page, evidence)
        elif require:
            violations.append(
                Violation(
                    str(page.relative_to(root)),
                    1,
                    "evidence-missing",
                    f"no evidence file {evidence.relative_to(root)}",
                )
            )
        else:
            without.append(str(page.relative_to(root)))
    return Result(tuple(violations), tuple(without))


def measure(root: Path, pages: Iterable[Path] | None = None) -> dict[str, tuple[int, int]]:
    """Page -> (claim-like units, all units): what the vocabulary picks on real pages."""
    out = {}
    for page in pages if pages is not None else guide_pages(root):
        units = prose_units(page.read_text(encoding="utf-8"))
        out[str(page.relative_to(root))] = (sum(1 for u in units if u.claim()), len(units))
    return out
