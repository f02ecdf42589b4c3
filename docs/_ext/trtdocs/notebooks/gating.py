"""Fail-closed gating: decide, before execution, which cells run on this machine.

For each code cell, the notebook's and the cell's requirements
(:mod:`.requirements`) are evaluated against the probe (:mod:`.environment`).
A cell that is not met, or that reads a name defined only by a cell that did
not run (:mod:`.dataflow`), does not run: :func:`gate` tags it
``skip-execution`` (nbclient does not run it) and records why, as data, in the
page's :class:`~.plan.PagePlan`. When a notebook cannot execute here and a
matching record exists (:mod:`.recorded`), the record's outputs are used
instead. Pure: no Sphinx. The marks and the banner are made from the plan by
:mod:`.marks`.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

import nbformat

from . import cachekey, recorded, requirements
from .dataflow import cell_names
from .plan import SKIP_TAG, BuildContext, PagePlan, SkippedCell, in_subset


def gate(nb: nbformat.NotebookNode, ctx: BuildContext, docname: str) -> PagePlan:
    """Decide which code cells of ``nb`` run here, and return the decision as a plan.

    ``nb`` changes in place only as nbclient and jupyter-cache need it: a cell
    that does not run is tagged ``skip-execution``; the first code cell carries
    the cache key's digests; a page shown from a record gets its outputs."""
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
        return requirements.evaluate(
            reqs,
            ctx.environment,
            features=ctx.features,
            disabled=ctx.disabled,
            pins=ctx.freshness.pins,
        )

    page_reqs, page_invalid = reqs_of(nb.metadata.get("requires"), 1)
    page_unmet = page_invalid + unmet(page_reqs)
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    skipped: list[SkippedCell] = []
    all_cell_reqs: dict[str, None] = {}
    cell_needs: list[tuple[str, ...]] = []
    # name -> (line of the skipped cell that defines it, whether that cell needs a newer release)
    tainted: dict[str, tuple[int, bool]] = {}
    for number, (index, cell) in enumerate(code, start=1):
        line = lines[index]
        cell_reqs, cell_invalid = reqs_of(cell.metadata.get("requires"), line)
        all_cell_reqs.update(dict.fromkeys(cell_reqs))
        cell_needs.append(cell_reqs)
        names = cell_names(cell.source)
        missing = page_unmet + cell_invalid + unmet(cell_reqs)
        if missing:
            reasons = tuple(dict.fromkeys(f"needs {u.needs}: {u.reason}" for u in missing))
            skipped.append(
                SkippedCell(
                    number,
                    index,
                    line,
                    tuple(u.requirement for u in missing),
                    reasons,
                    newer=all(u.newer for u in missing),
                )
            )
        elif names is not None and names.reads & tainted.keys():
            read = sorted(names.reads & tainted.keys())
            reason = (
                f"reads `{read[0]}`, which the cell at line {tainted[read[0]][0]} defines and "
                "which did not run"
            )
            skipped.append(
                SkippedCell(
                    number, index, line, (), (reason,), newer=all(tainted[name][1] for name in read)
                )
            )
        if names is None:
            continue
        if skipped and skipped[-1].number == number:
            tainted.update(dict.fromkeys(names.defines, (line, skipped[-1].newer)))
        else:
            for name in names.defines:
                tainted.pop(name, None)

    plan = PagePlan(
        page_reqs,
        tuple(all_cell_reqs),
        len(code),
        skipped,
        problems=problems,
        cell_needs=tuple(cell_needs),
    )
    plan.needs = {r: requirements.describe(r, ctx.features) for r in (*page_reqs, *all_cell_reqs)}
    sources = [c.source for _, c in code]
    plan.environment_digest = cachekey.environment_digest(ctx.environment)
    inputs, bad_inputs = input_files(nb.metadata.get("inputs"), ctx.srcdir)
    if bad_inputs:
        problems.append((1, bad_inputs, "error"))
    plan.project_files = tuple(
        str(p) for p in [*cachekey.project_files(sources, ctx.import_roots), *inputs]
    )
    plan.inputs = tuple(nb.metadata.get("inputs") or ()) if not bad_inputs else ()
    plan.record_seen = recorded.record_path(ctx.record_dir, docname).is_file()
    plan.project_digest = cachekey.files_digest(plan.project_files)
    upstream_code, upstream = ctx.upstream(docname) if ctx.upstream is not None else ("", ())
    plan.upstream_files = tuple(map(str, upstream))
    plan.upstream_digest = cachekey.files_digest(plan.upstream_files)

    # A record is checked whether or not it is shown: a stale one is reported
    # (an error in CI and under REQUIRE_ALL) even where the page executes,
    # unless this build executes the page and records it again.
    plan.deferred = ctx.subset is not None and not in_subset(docname, ctx.subset)
    # `make record` records again a page it executes as far as its release can
    replaced = ctx.recording and not plan.deferred and all(s.newer for s in skipped)
    code_lines = [lines[i] for i, _ in code]
    record = (
        _matching_record(ctx, docname, source_hash, code_lines, problems)
        if plan.record_seen and not replaced
        else None
    )
    if skipped or plan.deferred:
        if record is not None:
            recorded.merge_outputs(record, nb)
            nb.metadata["mystnb"] = {"execution_mode": "off"}
            plan.record = record.provenance
            # the marks: what did not run where the record was made (its release lacked it)
            plan.skipped = [
                SkippedCell(n, code[n - 1][0], lines[code[n - 1][0]], needs, (reason,), newer=True)
                for n, needs, reason in record.skipped
            ]
            # named from the source root: the published page shows no build machine's folders
            root, path = ctx.srcdir.resolve(), record.path.resolve()
            plan.record_path = str(path.relative_to(root) if path.is_relative_to(root) else path)
            return plan

    for s in skipped:
        nb.cells[s.index].metadata.setdefault("tags", []).append(SKIP_TAG)
    if code:
        key = {"environment": plan.environment_digest, "project_code": plan.project_digest}
        if upstream_code:  # what the pages it reads programs/ files from run
            key["upstream_code"] = upstream_code
        code[0][1].metadata.setdefault("trtdocs", {})["cache_key"] = key
    if plan.deferred:
        plan.deferred_shown = _in_cache(nb, ctx.cache_path)
        if not plan.deferred_shown:
            nb.metadata["mystnb"] = {"execution_mode": "off"}
    return plan


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


def _matching_record(
    ctx: BuildContext,
    docname: str,
    source_hash: str,
    code_lines: Sequence[int],
    problems: list[tuple[int, str, str]],
) -> recorded.Record | None:
    """The page's record when it may be shown: it reads as a record (else an
    error), stands for this source (else stale), holds the outputs and provenance
    it was sealed with (else an error: :mod:`.integrity`), and is fresh (else stale)."""
    path = recorded.record_path(ctx.record_dir, docname)
    where = path.relative_to(ctx.srcdir) if path.is_relative_to(ctx.srcdir) else path
    again = (
        f"re-record it with `make record NOTEBOOKS={shlex.quote(docname)}` on a machine that "
        f"meets the page's requirements"
    )
    try:
        record = recorded.load(path)
    except recorded.RecordError as exc:
        problems.append((1, f"record {where} refused: {exc.reason}; {again}", "error"))
        return None
    if record is None:
        return None
    if record.source_hash != source_hash:
        problems.append(
            (
                1,
                f"stale record {where}: made from source {record.source_hash}, the "
                f"source is now {source_hash} (a code cell or a requirement changed); "
                f"run `make record` on a machine that meets the requirements and "
                f"commit the new record, or delete the stale one",
                "stale",
            )
        )
        return None
    refusal = record.refusal()
    if refusal is not None:
        line = (
            code_lines[refusal.cell - 1]
            if refusal.cell and refusal.cell <= len(code_lines)
            else None
        )
        problems.append(
            (line or 1, f"record {where} refused: {refusal.words(line)}; {again}", "error")
        )
        return None
    reasons = recorded.expiry(record.provenance, ctx.freshness, ctx.now)
    if reasons:
        problems.append(
            (
                1,
                f"stale record {where}: {'; '.join(reasons)}; run `make record` on a "
                f"machine with the documented release",
                "stale",
            )
        )
        return None
    return record
