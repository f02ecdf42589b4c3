"""What the gating decided for a notebook, as data: the page's plan and each
skipped cell's reasons (:class:`PagePlan`, :class:`SkippedCell`), and the
build-wide inputs of the decision (:class:`BuildContext`). Pure: no Sphinx.

The plan lives in the build state (``trtdocs.state``); the marks, the banner,
the build report, the downloads and the page-needs table are all made from it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import recorded
from .environment import Environment

DEFERRED_REASON = "not among this build's NOTEBOOKS, and no record or cached execution matches"
SKIP_TAG = "skip-execution"  # nbclient's NotebookClient.skip_cells_with_tag


@dataclasses.dataclass(frozen=True, slots=True)
class SkippedCell:
    """The gating's decision on one code cell that does not run: what its mark shows."""

    number: int  # 1-based among code cells
    index: int  # its index among all cells of the notebook (myst-nb's cell_index)
    line: int  # first line of the cell in the source
    needs: tuple[
        str, ...
    ]  # the unmet requirements; () for a cell that reads a skipped cell's result
    reasons: tuple[
        str, ...
    ]  # one "needs X: found Y" per unmet requirement, or which result it reads
    # skipped only because the installed release is older than what it needs (or
    # because it reads the result of such a cell): a newer release runs it
    newer: bool = False

    @property
    def reason(self) -> str:
        """The whole reason, in one line."""
        return "; ".join(self.reasons)


NO_CODE = "no code cells"  # the status of a page with nothing to run


@dataclasses.dataclass(slots=True)
class PagePlan:
    """What the gating decided for one notebook; kept in the Sphinx env."""

    requires: tuple[str, ...]  # the notebook's own requirements
    cell_requires: tuple[str, ...]  # every requirement any cell adds
    code_cells: int
    skipped: list[SkippedCell]
    # provenance of the record whose outputs are shown, if any
    record: dict[str, Any] | None = None
    record_path: str | None = None
    # what the cache key was computed from, to re-read the page when it changes
    environment_digest: str = ""
    project_files: tuple[str, ...] = ()
    project_digest: str = ""
    # the pages whose programs/ files it reads (a change
    # re-reads it; their code is in its cache key)
    upstream_files: tuple[str, ...] = ()
    upstream_digest: str = ""
    # requirement -> what it asks for, in words (requirements.describe)
    needs: dict[str, str] = dataclasses.field(default_factory=dict)
    # (line, message, kind): reported by provenance.check_problems on every build;
    # kind is "error", or "stale" (an error only in strict builds, decided then)
    problems: list[tuple[int, str, str]] = dataclasses.field(default_factory=list)
    # the front matter's `inputs:` globs, and whether a record file existed: a change
    # in either re-reads the page (provenance.outdated)
    inputs: tuple[str, ...] = ()
    record_seen: bool = False
    # outside this build's subset (NOTEBOOKS): not executed by it, shown from a
    # record or the cache; REQUIRE_ALL and `make record` leave it alone
    deferred: bool = False
    deferred_shown: bool = False  # whether a record or the cache gave it outputs
    # each code cell's own `:requires:`, in order (the overview's needs table)
    cell_needs: tuple[tuple[str, ...], ...] = ()

    @property
    def status(self) -> str:
        if self.record is not None:
            return "recorded"
        if self.code_cells == 0:
            # nothing runs: an execution the cache matches would be another page's
            return NO_CODE
        if self.deferred and not self.deferred_shown:
            return "not executed"
        if not self.skipped:
            return "executed"
        if len(self.skipped) == self.code_cells:
            return "not executed"
        return "partly executed"

    @property
    def reason(self) -> str:
        """Each unmet requirement once, with what the probe found."""
        if self.deferred and not self.deferred_shown and self.record is None:
            return DEFERRED_REASON
        return _reasons(self.skipped)

    @property
    def ran_what_release_can(self) -> bool:
        """Executed here, every cell but those that need a newer release than the
        installed one: what a channel's strict run (REQUIRE_ALL) and a record ask."""
        return self.record is None and not self.deferred and all(s.newer for s in self.skipped)

    @property
    def blocking_reason(self) -> str:
        """The reasons of the cells this machine's release could run and did not."""
        return _reasons([s for s in self.skipped if not s.newer])


def _reasons(skipped: Sequence[SkippedCell]) -> str:
    return "; ".join(dict.fromkeys(r for s in skipped if s.needs for r in s.reasons))


@dataclasses.dataclass(frozen=True, slots=True)
class BuildContext:
    """Build-wide inputs of the gating, made at builder-inited (trtdocs.notebooks)."""

    environment: Environment
    disabled: frozenset[str]
    features: Callable[[str], Any]  # feature id -> packaging Requirement
    record_dir: Path
    import_roots: tuple[Path, ...]
    srcdir: Path  # where a notebook's `inputs:` globs are rooted
    # the docnames this build executes (NOTEBOOKS); None = every notebook
    subset: tuple[str, ...] | None = None
    cache_path: Path | None = None  # myst-nb's jupyter-cache, for pages outside the subset
    run_dir: Path | None = None  # the folder every notebook of the build runs in (.jobs)
    # the documented release's pins and the age limit a record must meet
    freshness: recorded.Freshness = recorded.Freshness({}, None)
    now: dt.datetime = dataclasses.field(default_factory=lambda: dt.datetime.now(dt.UTC))
    recording: bool = False  # `make record`: the pages this build executes get new records
    # docname -> (digest of the code of the pages it reads programs/ files from, their files)
    upstream: Callable[[str], tuple[str, tuple[Path, ...]]] | None = None


def subset_names(value: str) -> tuple[str, ...] | None:
    """``NOTEBOOKS`` as names (``kv-cache``, ``notebooks/kv-cache`` or
    ``notebooks/kv-cache.md``, separated by spaces or commas); None when empty."""
    names = tuple(n.removesuffix(".md").strip("/") for n in value.replace(",", " ").split())
    return names or None


def in_subset(docname: str, names: Sequence[str]) -> bool:
    return docname in names or docname.rsplit("/", 1)[-1] in names
