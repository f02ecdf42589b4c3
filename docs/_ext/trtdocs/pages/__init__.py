"""The guide's pages read statically, with no Sphinx: what the parts share.

* :mod:`.blocks`: the fenced blocks of a MyST page, their options and the
  ``% drift:`` marks above them;
* :mod:`.cells`: a code cell's text as Python;
* :mod:`.commands`: the install commands a block or a cell runs, parsed;
* :mod:`.accesses`: the paths each page reads and writes, and the pages in a
  reader's order.

The drift guards (:mod:`trtdocs.drift`) and the notebooks part
(:mod:`trtdocs.notebooks`) both read pages through these modules; this package
imports neither. A reader reports what it cannot read as a :class:`Violation`.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True, slots=True)
class Violation:
    """One place where a page disagrees with the packages."""

    path: str  # page path, relative to the project root where possible
    line: int  # 1-based line in that page
    rule: str  # rule id (each guard keeps its rules in a frozen table)
    message: str  # what is wrong, in words
    cell: int | None = None  # 1-based code-cell number in a notebook, when it applies

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}"
        if self.cell is not None:
            where += f" (cell {self.cell})"
        return f"{where}: [{self.rule}] {self.message}"
