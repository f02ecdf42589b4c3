"""Which pages hand files to which, and so which notebooks may run at once.

A reader runs the guide's notebooks in one folder, in the order of the landing
page's table of contents; a page hands files to a later page in ``programs/``
(contract 1), and writes its scratch files (a CMake project, ``main.cpp``) where
it runs. The build runs every notebook in one folder too (:mod:`.execute`), so
two notebooks may run at the same time only when neither touches a path the
other writes there. This module says which, from the static
reading of every page (:func:`trtdocs.pages.accesses.page_accesses`):

* :meth:`Handoffs.after`: the earlier pages a page runs after (it reads what they
  write, or one of the two writes a path the other uses);
* :meth:`Handoffs.producers`: the earlier pages that write a ``programs/`` path
  the page reads;
* :meth:`Handoffs.groups`: the pages tied together by those edges, each group in
  reading order (the CI puts a group into one GPU shard, ``tools/shard.py``).

A ``runs`` predicate (page line -> whether the cell there runs in this build)
limits a page to the cells that run. Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path

from ..pages.accesses import FOLDER, Access, overlap, page_accesses, reading_order

# Where a path lives: programs/ (handed on), or the folder the notebooks run in.
SHARED_ROOTS = frozenset({FOLDER, "cwd"})
Runs = Callable[[int], bool]  # page line -> whether the code there runs


def _all_lines(line: int) -> bool:
    return True


@dataclasses.dataclass(frozen=True)
class Handoffs:
    """Every page's reads and writes in the shared folder, pages in reading order."""

    pages: Mapping[str, tuple[Access, ...]]  # docname -> its accesses of shared paths
    paths: Mapping[str, Path]  # docname -> its source file

    @classmethod
    def of_site(cls, root: Path) -> Handoffs:
        """The pages of ``root``'s ``index.md`` toctrees (the landing page first)."""
        root = root.resolve()
        pages: dict[str, tuple[Access, ...]] = {}
        paths: dict[str, Path] = {}
        for path in reading_order(root):
            if not path.is_file():
                continue
            rel = path.resolve().relative_to(root)
            found, _ = page_accesses(
                path, rel.as_posix()
            )  # unreadable steps: the guard reports them
            docname = rel.with_suffix("").as_posix()
            pages[docname] = tuple(a for a in found if a.root in SHARED_ROOTS and a.path)
            paths[docname] = path
        return cls(pages, paths)

    @property
    def order(self) -> tuple[str, ...]:
        return tuple(self.pages)

    def _earlier(self, docname: str) -> tuple[str, ...]:
        order = self.order
        return order[: order.index(docname)] if docname in self.pages else ()

    def after(self, docname: str, runs: Mapping[str, Runs] | None = None) -> tuple[str, ...]:
        """The earlier pages that share a path with ``docname`` in the folder, one
        of the two writing it: ``docname`` runs after them, never beside them."""
        mine = self._accesses(docname, runs)
        return tuple(
            other
            for other in self._earlier(docname)
            if any(_clash(a, b) for a in mine for b in self._accesses(other, runs))
        )

    def producers(
        self, docname: str, runs: Mapping[str, Runs] | None = None
    ) -> dict[str, tuple[str, ...]]:
        """Earlier page -> the ``programs/`` paths it writes that ``docname`` reads
        (the last writer of a path wins, as in a reader's folder)."""
        reads = [a.path for a in self._accesses(docname, runs) if a.root == FOLDER and not a.write]
        found: dict[str, list[str]] = {}
        for path in dict.fromkeys(reads):
            writers = [
                other
                for other in self._earlier(docname)
                if any(
                    w.write and w.root == FOLDER and overlap(w.path, path)
                    for w in self._accesses(other, runs)
                )
            ]
            if writers:
                found.setdefault(writers[-1], []).append(path)
        return {doc: tuple(paths) for doc, paths in found.items()}

    def groups(self) -> list[tuple[str, ...]]:
        """The pages joined by :meth:`after` edges, each group in reading order;
        pages that share nothing are groups of one."""
        parent = {doc: doc for doc in self.pages}

        def top(doc: str) -> str:
            while parent[doc] != doc:
                doc = parent[doc]
            return doc

        for doc in self.pages:
            for other in self.after(doc):
                parent[top(doc)] = top(other)
        members: dict[str, list[str]] = {}
        for doc in self.pages:
            members.setdefault(top(doc), []).append(doc)
        return [tuple(m) for m in members.values()]

    def _accesses(self, docname: str, runs: Mapping[str, Runs] | None) -> list[Access]:
        keep = (runs or {}).get(docname, _all_lines)
        return [a for a in self.pages.get(docname, ()) if keep(a.line)]


def _clash(a: Access, b: Access) -> bool:
    return a.root == b.root and (a.write or b.write) and overlap(a.path, b.path)


def cell_runs(source_map: list[int], skipped_lines: set[int], code_lines: set[int]) -> Runs:
    """The ``runs`` predicate of one gated notebook: a page line runs when it
    belongs to a code cell that is not skipped. ``source_map``: each cell's first
    page line; ``code_lines``/``skipped_lines``: those of its code cells, and of
    the ones that do not run."""
    starts = sorted(source_map)

    def runs(line: int) -> bool:
        start = max((s for s in starts if s <= line), default=None)
        return start is not None and start in code_lines and start not in skipped_lines

    return runs


class Upstream:
    """For a page's execution cache key: the code of the earlier pages it reads
    ``programs/`` files from (every cell, whatever this machine runs), so that it
    runs again when what wrote those files changes. Made on first use."""

    def __init__(self, root: Path, source_hash: Callable[[Path], str]) -> None:
        self.root = root
        self.source_hash = source_hash  # a page file -> the digest of its code cells
        self._handoffs: Handoffs | None = None

    def __call__(self, docname: str) -> tuple[str, tuple[Path, ...]]:
        if self._handoffs is None:
            index = self.root / "index.md"
            self._handoffs = Handoffs.of_site(self.root) if index.is_file() else Handoffs({}, {})
        producers = sorted(self._handoffs.producers(docname))
        files = tuple(self._handoffs.paths[p] for p in producers)
        if not files:
            return "", ()
        digest = hashlib.sha256(
            "\n".join(
                f"{p} {self.source_hash(f)}" for p, f in zip(producers, files, strict=True)
            ).encode()
        )
        return digest.hexdigest()[:16], files
