"""Files one page writes and a later page reads: written first, in ``programs/``.

A reader runs the guide's notebooks and shell steps in one folder, in the order of
the landing page's table of contents (the ``toctree`` blocks of ``index.md``, top
to bottom). A file that one page hands to another lives in ``programs/`` in that
folder (contract 1). This guard reads every page in that order, statically, and
records which paths each page writes and reads (:mod:`trtdocs.pages.accesses`).

A page's reads of paths it writes itself are its own business. Syntax the reader
cannot split (an unbalanced quote in a shell step) is a violation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from ..pages import Violation
from ..pages.accesses import FOLDER, Access, overlap, page_accesses, reading_order

RULES: Mapping[str, str] = MappingProxyType(
    {
        "programs-unwritten": "every programs/<file> a page reads is written by some page of the "
        "guide",
        "programs-order": "every programs/<file> a page reads is written by an earlier page "
        "(index.md's toctree order)",
        "programs-link": "a page that reads a file an earlier page writes links to that page "
        "({doc} or a link)",
        "programs-tempfile": "no page reads a file that another page writes into its tempfile "
        "folder, nor a /tmp path",
        "programs-shell": "a shell step splits into words (shlex)",
    }
)
_LINK = re.compile(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`|\]\(([^)\s#]+)")


def _links(path: Path, root: Path) -> set[str]:
    """The docnames a page links to ({doc} roles and Markdown links), relative to the root."""
    out = set()
    for m in _LINK.finditer(path.read_text(encoding="utf-8")):
        target = (m[1] or m[2]).strip()
        if "://" in target:
            continue
        base = root if target.startswith("/") else path.parent
        resolved = (base / target.lstrip("/")).with_suffix("")
        out.add(
            str(resolved.resolve().relative_to(root.resolve()))
            if resolved.resolve().is_relative_to(root.resolve())
            else target
        )
    return out


Accesses = Callable[
    [Path, str], tuple[list[Access], list[Violation]]
]  # page_accesses, or a memo of it


def check(
    root: Path, pages: Iterable[Path] | None = None, *, accesses_of: Accesses = page_accesses
) -> list[Violation]:
    """The rules of :data:`RULES` over ``pages`` (by default :func:`reading_order`),
    each page read by ``accesses_of``."""
    root = root.resolve()
    order = [
        p.resolve() for p in (pages if pages is not None else reading_order(root)) if p.is_file()
    ]
    rels = [str(p.relative_to(root)) if p.is_relative_to(root) else str(p) for p in order]
    violations: list[Violation] = []
    accesses: list[list[Access]] = []
    for path, rel in zip(order, rels, strict=True):
        found, problems = accesses_of(path, rel)
        accesses.append(found)
        violations += problems
    for n, (path, rel, found) in enumerate(zip(order, rels, accesses, strict=True)):
        own = [a for a in found if a.write and a.path]
        links = _links(path, root)
        for read in (a for a in found if not a.write and a.path):
            if any(w.root == read.root and overlap(w.path, read.path) for w in own):
                continue
            shown = f"{read.root}/{read.path}" if read.root == FOLDER else read.path
            if read.root == FOLDER:
                writers = [
                    m
                    for m, other in enumerate(accesses)
                    if m != n
                    and any(
                        w.write and w.root == FOLDER and w.path and overlap(w.path, read.path)
                        for w in other
                    )
                ]
                earlier = [m for m in writers if m < n]
                if not writers:
                    violations.append(
                        Violation(
                            rel,
                            read.line,
                            "programs-unwritten",
                            f"{shown} is read here, and no page of the guide writes it",
                        )
                    )
                elif not earlier:
                    violations.append(
                        Violation(
                            rel,
                            read.line,
                            "programs-order",
                            f"{shown} is read here, and only a later page writes it: "
                            f"{', '.join(rels[m] for m in writers)}",
                        )
                    )
                elif not any(str(Path(rels[m]).with_suffix("")) in links for m in earlier):
                    violations.append(
                        Violation(
                            rel,
                            read.line,
                            "programs-link",
                            f"{shown} is written by {rels[earlier[-1]]}; "
                            f"link to that page where the file is used",
                        )
                    )
                continue
            if read.root == "temp":
                violations.append(
                    Violation(
                        rel,
                        read.line,
                        "programs-tempfile",
                        f"/tmp/{read.path} is read here and not written on this page; "
                        f"files a page hands on go to {FOLDER}/",
                    )
                )
                continue
            temp_writers = [
                rels[m]
                for m, other in enumerate(accesses)
                if m != n
                and any(
                    w.write and w.root == "temp" and w.path and overlap(w.path, read.path)
                    for w in other
                )
            ]
            if temp_writers:
                violations.append(
                    Violation(
                        rel,
                        read.line,
                        "programs-tempfile",
                        f"{shown} is read here, and {', '.join(temp_writers)} writes it into "
                        f"a temporary folder that is gone when its kernel ends; write it to "
                        f"{FOLDER}/{read.path} there and read that path here",
                    )
                )
    return violations
