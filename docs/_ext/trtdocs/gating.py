"""Fail-closed gating: decide, before execution, which cells run on this machine.

myst-nb reads ``.md`` notebooks through :data:`read_notebook` (registered as a
custom format). For each code cell it evaluates the notebook's and the cell's
requirements against the probe. A cell that is not met, or that reads a name
defined only by a cell that did not run, is tagged ``skip-execution`` (nbclient
does not run it) and preceded by a ``not-executed`` mark with the exact reason.
When a notebook cannot execute here and a matching record exists, the record's
outputs are rendered instead.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nbformat
from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook
from sphinx.util import logging

from . import cachekey, recorded, requirements
from .dataflow import cell_names
from .environment import Environment
from .frontmatter import front_matter_problem

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from sphinx.application import Sphinx

DEFERRED_REASON = "not among this build's NOTEBOOKS, and no record or cached execution matches"
SKIP_TAG = "skip-execution"  # nbclient's NotebookClient.skip_cells_with_tag
MARK_DIRECTIVE = "not-executed"
STATUS_DIRECTIVE = "page-status"


@dataclasses.dataclass(frozen=True, slots=True)
class SkippedCell:
    number: int  # 1-based among code cells
    line: int  # first line of the cell in the source
    needs: tuple[str, ...]  # the unmet requirements, or () for a dependency
    reason: str  # the whole reason, as the cell's mark shows it
    reasons: tuple[str, ...] = ()  # one "needs X: found Y" per unmet requirement


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
        return "; ".join(dict.fromkeys(r for s in self.skipped for r in s.reasons))


@dataclasses.dataclass(frozen=True, slots=True)
class BuildContext:
    """Build-wide inputs of the gating, set at builder-inited."""

    environment: Environment
    disabled: frozenset[str]
    features: Callable[[str], Any]  # feature id -> packaging Requirement
    record_dir: Path
    import_roots: tuple[Path, ...]
    srcdir: Path  # where a notebook's `inputs:` globs are rooted
    # the docnames this build executes (NOTEBOOKS); None = every notebook
    subset: tuple[str, ...] | None = None
    cache_path: Path | None = None  # myst-nb's jupyter-cache, for pages outside the subset
    # the documented release's pins and the age limit a record must meet
    freshness: recorded.Freshness = recorded.Freshness({}, None)
    now: dt.datetime = dataclasses.field(default_factory=lambda: dt.datetime.now(dt.timezone.utc))
    recording: bool = False  # `make record`: the pages this build executes get new records


class NotebookReader:
    """The custom-format reader myst-nb calls with a notebook's text.

    myst-nb passes only the text; the document being read is ``app.env.docname``,
    so the reader keeps the application it was set up with.
    """

    def __init__(self) -> None:
        self.app: Sphinx | None = None
        self.context: BuildContext | None = None
        # docname -> the notebook being read and executed in this process,
        # for trtdocs.execerrors to find the cell that failed
        self.notebooks: dict[str, nbformat.NotebookNode] = {}

    def __call__(self, text: str) -> nbformat.NotebookNode:
        if (bad := front_matter_problem(text)) is not None:
            return self._broken_front_matter(text, *bad)
        nb = read_myst_markdown_notebook(text, add_source_map=True)
        if not is_myst_markdown_notebook(text):
            # A plain Markdown page: render it, execute nothing.
            nb.metadata["mystnb"] = {"execution_mode": "off"}
            return nb
        assert self.app is not None and self.context is not None, "trtdocs is not set up"
        env = self.app.env
        plan = gate(nb, self.context, env.docname)
        env.trtdocs_pages[env.docname] = plan
        # Re-read the page when what decided its gating changes.
        env.note_dependency(str(env.trtdocs_features_table.path))
        if plan.record_seen:
            env.note_dependency(str(recorded.record_path(self.context.record_dir, env.docname)))
        self.notebooks[env.docname] = nb
        _stable_ids(nb)
        return nb

    def _broken_front_matter(self, text: str, line: int, message: str) -> nbformat.NotebookNode:
        """Report the page, at the file line; render only the error, execute nothing."""
        assert self.app is not None, "trtdocs is not set up"
        docname = self.app.env.docname
        logger.error(message, location=(docname, line), type="trtdocs", subtype="front-matter")
        title = next((t for t in text.splitlines() if t.startswith("# ")), f"# {docname}")
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_markdown_cell(
            f"{title}\n\n```{{error}}\nThis page failed to build: its front matter is broken "
            f"(line {line}): {message}\n```\n")]
        nb.metadata["mystnb"] = {"execution_mode": "off"}
        _stable_ids(nb)
        return nb


read_notebook = NotebookReader()


def _stable_ids(nb: nbformat.NotebookNode) -> None:
    """Cell ids from the cells' places: nbformat draws random ones, and two
    builds of one checkout must write the same notebooks."""
    for number, cell in enumerate(nb.cells, start=1):
        cell["id"] = f"cell-{number}"


def gate(nb: nbformat.NotebookNode, ctx: BuildContext, docname: str) -> PagePlan:
    """Tag, mark and key ``nb`` in place; return the plan."""
    lines: list[int] = list(nb.metadata.get("source_map", [1] * len(nb.cells)))
    source_hash = recorded.source_hash(nb)
    problems: list[tuple[int, str, str]] = []

    def reqs_of(value: object, line: int) -> tuple[tuple[str, ...], list[requirements.Unmet]]:
        """The requirements, and an unmet entry when they are invalid (fail closed)."""
        try:
            parsed = requirements.parse(value)
            for r in parsed:
                requirements.check(r, ctx.features)
            return parsed, []
        except requirements.RequirementError as exc:
            problems.append((line, str(exc), "error"))
            return (), [requirements.Unmet(str(value), "valid requirements", str(exc))]

    def unmet(reqs: Sequence[str]) -> list[requirements.Unmet]:
        return requirements.evaluate(reqs, ctx.environment, features=ctx.features, disabled=ctx.disabled)

    page_reqs, page_invalid = reqs_of(nb.metadata.get("requires"), 1)
    page_unmet = page_invalid + unmet(page_reqs)
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    skipped: list[SkippedCell] = []
    all_cell_reqs: dict[str, None] = {}
    cell_needs: list[tuple[str, ...]] = []
    tainted: dict[str, int] = {}  # name -> line of the skipped cell that defines it
    for number, (index, cell) in enumerate(code, start=1):
        line = lines[index]
        cell_reqs, cell_invalid = reqs_of(cell.metadata.get("requires"), line)
        all_cell_reqs.update(dict.fromkeys(cell_reqs))
        cell_needs.append(cell_reqs)
        names = cell_names(cell.source)
        missing = page_unmet + cell_invalid + unmet(cell_reqs)
        if missing:
            reasons = tuple(dict.fromkeys(f"needs {u.needs}: {u.reason}" for u in missing))
            skipped.append(SkippedCell(number, line, tuple(u.requirement for u in missing),
                                       "; ".join(reasons), reasons))
        elif names is not None and names.reads & tainted.keys():
            name = sorted(names.reads & tainted.keys())[0]
            reason = f"reads `{name}`, which the cell at line {tainted[name]} defines and which did not run"
            skipped.append(SkippedCell(number, line, (), reason))
        if names is None:
            continue
        if skipped and skipped[-1].number == number:
            tainted.update(dict.fromkeys(names.defines, line))
        else:
            for name in names.defines:
                tainted.pop(name, None)

    plan = PagePlan(page_reqs, tuple(all_cell_reqs), len(code), skipped, problems=problems,
                    cell_needs=tuple(cell_needs))
    plan.needs = {r: requirements.describe(r, ctx.features) for r in (*page_reqs, *all_cell_reqs)}
    sources = [c.source for _, c in code]
    plan.environment_digest = cachekey.environment_digest(ctx.environment)
    inputs, bad_inputs = input_files(nb.metadata.get("inputs"), ctx.srcdir)
    if bad_inputs:
        problems.append((1, bad_inputs, "error"))
    plan.project_files = tuple(str(p) for p in [*cachekey.project_files(sources, ctx.import_roots), *inputs])
    plan.inputs = tuple(nb.metadata.get("inputs") or ()) if not bad_inputs else ()
    plan.record_seen = recorded.record_path(ctx.record_dir, docname).is_file()
    plan.project_digest = cachekey.files_digest(plan.project_files)

    # A record is checked whether or not it is shown: a stale one is reported
    # (an error in CI and under REQUIRE_ALL) even where the page executes,
    # unless this build executes the page and records it again.
    plan.deferred = ctx.subset is not None and not in_subset(docname, ctx.subset)
    replaced = ctx.recording and not (skipped or plan.deferred)
    record = _matching_record(ctx, docname, source_hash, problems) if plan.record_seen and not replaced else None
    if skipped or plan.deferred:
        if record is not None:
            recorded.merge_outputs(record, nb)
            nb.metadata["mystnb"] = {"execution_mode": "off"}
            plan.record = record.provenance
            # named from the source root: the published page shows no build machine's folders
            root, path = ctx.srcdir.resolve(), record.path.resolve()
            plan.record_path = str(path.relative_to(root) if path.is_relative_to(root) else path)
            _insert_status(nb, lines)
            return plan

    skipped_numbers = {s.number: s for s in skipped}
    inserts: list[tuple[int, str]] = []
    for number, (index, cell) in enumerate(code, start=1):
        if number in skipped_numbers:
            cell.metadata.setdefault("tags", []).append(SKIP_TAG)
            s = skipped_numbers[number]
            needs = ", ".join(s.needs) or "dependency"
            inserts.append((index, f"```{{{MARK_DIRECTIVE}}}\n:needs: {needs}\n\n{s.reason}\n```"))
    for index, source in reversed(inserts):
        nb.cells.insert(index, nbformat.v4.new_markdown_cell(source))
        lines.insert(index, lines[index])
    if code:
        first = next(c for c in nb.cells if c.cell_type == "code")
        first.metadata.setdefault("trtdocs", {})["cache_key"] = {
            "environment": plan.environment_digest, "project_code": plan.project_digest}
    nb.metadata["source_map"] = lines
    if plan.deferred:
        plan.deferred_shown = _in_cache(nb, ctx.cache_path)
        if not plan.deferred_shown:
            nb.metadata["mystnb"] = {"execution_mode": "off"}
    _insert_status(nb, lines)
    return plan


def subset_names(value: str) -> tuple[str, ...] | None:
    """``NOTEBOOKS`` as names (``kv-cache``, ``notebooks/kv-cache`` or
    ``notebooks/kv-cache.md``, separated by spaces or commas); None when empty."""
    names = tuple(n.removesuffix(".md").strip("/") for n in value.replace(",", " ").split())
    return names or None


def in_subset(docname: str, names: Sequence[str]) -> bool:
    return docname in names or docname.rsplit("/", 1)[-1] in names


def _in_cache(nb: nbformat.NotebookNode, cache_path: Path | None) -> bool:
    """Whether myst-nb's cache holds an execution of ``nb`` as gated here (its
    cache mode then shows it without executing)."""
    if cache_path is None or not cache_path.is_dir():
        return False
    from jupyter_cache import get_cache

    try:
        get_cache(str(cache_path)).match_cache_notebook(nb)
    except KeyError:
        return False
    return True


def input_files(value: object, srcdir: Path) -> tuple[list[Path], str]:
    """Files named by the front matter's ``inputs:`` (globs from the source
    root): a notebook that reads them re-executes when they change."""
    if value is None:
        return [], ""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return [], f"'inputs' must be a list of glob patterns, not {value!r}"
    found: list[Path] = []
    for pattern in value:
        matches = sorted(p for p in srcdir.glob(pattern) if p.is_file())
        if not matches:
            return [], f"'inputs' pattern {pattern!r} matches no file under {srcdir}"
        found.extend(matches)
    return found, ""


def _insert_status(nb: nbformat.NotebookNode, lines: list[int]) -> None:
    """Put the page-status banner right under the page title.

    The title's Markdown cell is split after the ``# `` line, so the banner
    stands at the top even when long prose follows the title.
    """
    first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"), None)
    banner = nbformat.v4.new_markdown_cell(f"```{{{STATUS_DIRECTIVE}}}\n```")
    if first is None:
        nb.cells.insert(0, banner)
        lines.insert(0, 1)
    else:
        text = nb.cells[first].source.splitlines(keepends=True)
        title = next((n for n, line in enumerate(text) if line.startswith("# ")), len(text) - 1)
        head, rest = "".join(text[: title + 1]), "".join(text[title + 1:])
        nb.cells[first].source = head
        after = [banner] + ([nbformat.v4.new_markdown_cell(rest)] if rest.strip() else [])
        nb.cells[first + 1:first + 1] = after
        lines[first + 1:first + 1] = [lines[first] + title + 1] * len(after)
    nb.metadata["source_map"] = lines


def _matching_record(ctx: BuildContext, docname: str, source_hash: str,
                     problems: list[tuple[int, str, str]]) -> recorded.Record | None:
    path = recorded.record_path(ctx.record_dir, docname)
    try:
        record = recorded.load(path)
    except ValueError as exc:
        problems.append((1, str(exc), "error"))
        return None
    if record is None:
        return None
    if record.source_hash != source_hash:
        where = path.relative_to(ctx.srcdir) if path.is_relative_to(ctx.srcdir) else path
        problems.append((1, f"stale record {where}: made from source {record.source_hash}, the "
                            f"source is now {source_hash} (a code cell or a requirement changed); "
                            f"run `make record` on a machine that meets the requirements and "
                            f"commit the new record, or delete the stale one", "stale"))
        return None
    reasons = recorded.expiry(record.provenance, ctx.freshness, ctx.now)
    if reasons:
        where = path.relative_to(ctx.srcdir) if path.is_relative_to(ctx.srcdir) else path
        problems.append((1, f"stale record {where}: {'; '.join(reasons)}; run `make record` on a "
                            f"machine with the documented release", "stale"))
        return None
    return record
