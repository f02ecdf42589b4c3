"""Build-wide outputs of the gating: ``provenance.json``, the build report
page, recorded notebooks (``make record``), and the strict check
(``REQUIRE_ALL=1``) that fails a build in which anything did not execute, or
(``REQUIRE_OUTPUTS=1``) in which a page has neither its execution nor a fresh record."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import nbformat
from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .. import config, state
from . import cxxsdk, kept, recorded
from .banner import page_entry
from .gating import input_files
from .marks import needs_words
from .plan import NO_CODE, BuildContext, PagePlan

if TYPE_CHECKING:
    from myst_nb.sphinx_ import SphinxEnvType
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)

PROVENANCE_FILE = "provenance.json"


class report_placeholder(nodes.General, nodes.Element):
    pass


class BuildReport(SphinxDirective):
    """The table of every notebook: status, reason, duration."""

    def run(self) -> list[nodes.Node]:
        state.of(self.env).report_docs.add(self.env.docname)
        return [report_placeholder()]


def _context(env: BuildEnvironment) -> BuildContext:
    context = state.of(env).context
    assert context is not None, "trtdocs.notebooks is not set up"
    return context


def entries(app: Sphinx) -> dict[str, dict[str, Any]]:
    plans = state.of(app.env).plans
    return {doc: page_entry(app, doc, plans[doc]) for doc in sorted(plans)}


def _machine(app: Sphinx) -> nodes.definition_list:
    """The probe's whole diagnostic, shown once, here; the pages' marks fold a reason each."""
    envdata = _context(app.env).environment.to_json()
    versions = envdata.get("versions", {})
    rows = [
        (
            "Machine",
            f"{envdata.get('cpu_model')} ({envdata.get('cpu_count')} cores), "
            f"{envdata.get('platform')}",
        ),
        ("CUDA GPU", envdata.get("gpu_name") or f"none: {envdata.get('cuda_error')}"),
        (
            "import torch_tensorrt",
            "works"
            if envdata.get("torch_tensorrt_imports")
            else f"fails: {envdata.get('torch_tensorrt_error')}",
        ),
        ("Versions", ", ".join(f"{k} {v}" for k, v in versions.items() if v)),
    ]
    items = nodes.definition_list(classes=["trtdocs-build-machine"])
    for term, text in rows:
        item = nodes.definition_list_item()
        item += nodes.term(text=term)
        item += nodes.definition("", nodes.paragraph(text=str(text)))
        items += item
    return items


def _report_table(app: Sphinx, fromdoc: str) -> nodes.table:
    rows = entries(app)
    table = nodes.table(classes=["trtdocs-build-report"])
    group = nodes.tgroup(cols=4)
    table += group
    for width in (30, 15, 45, 10):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += _row(nodes.Text("Notebook"), "Status", "Cells not run here need", "Duration (s)")
    body = nodes.tbody()
    group += body
    for doc, entry in rows.items():
        title = app.env.titles[doc].astext() if doc in app.env.titles else doc
        ref = nodes.reference(
            "", title, internal=True, refuri=app.builder.get_relative_uri(fromdoc, doc)
        )
        duration = entry.get("duration_s")
        plan = state.of(app.env).plans[doc]
        needs = [n for s in plan.skipped for n in s.needs]  # of a record: not run where it was made
        reason = f"needs {needs_words(needs, plan.needs)}" if needs else ""
        if plan.skipped and not needs:
            reason = "uses results of cells that did not run"
        body += _row(ref, entry["status"], reason, "" if duration is None else str(duration))
    return table


def _row(first: nodes.Node, *cells: str) -> nodes.row:
    row = nodes.row()
    entry = nodes.entry()
    entry += nodes.paragraph("", "", first)
    row += entry
    for text in cells:
        entry = nodes.entry()
        entry += nodes.paragraph(text=text)
        row += entry
    return row


def resolve_report(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for node in list(doctree.findall(report_placeholder)):
        node.replace_self([_machine(app), _report_table(app, docname)])


def outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Re-read notebooks whose environment, imported project code, `inputs:`
    files or record changed, or whose outputs are gone from the build folder
    (:mod:`.kept`), and the report pages and those that show a notebook's cell
    when any notebook is re-read."""
    from .cachekey import environment_digest, files_digest

    build = state.of(env)
    ctx = _context(env)
    current = environment_digest(ctx.environment)

    def stale(doc: str, plan: PagePlan) -> bool:
        inputs = input_files(list(plan.inputs), ctx.srcdir)[0] if plan.inputs else []
        return (
            plan.environment_digest != current
            or files_digest(plan.project_files) != plan.project_digest
            or files_digest(plan.upstream_files) != plan.upstream_digest
            or not {str(p) for p in inputs} <= set(plan.project_files)
            or recorded.record_path(ctx.record_dir, doc).is_file() != plan.record_seen
            or (
                plan.record is not None
                and bool(recorded.expiry(plan.record, ctx.freshness, ctx.now))
            )
        )

    redo = [
        doc
        for doc, plan in build.plans.items()
        if doc not in changed and doc not in removed and stale(doc, plan)
    ]
    # what Sphinx would write them from, which anyone may delete from _build
    unread = {
        doc: plan
        for doc, plan in build.plans.items()
        if doc not in changed and doc not in removed and doc not in redo
    }
    nb_config = cast("SphinxEnvType", env).mystnb_config  # myst-nb's setting, on the env
    for doc, what in kept.lost(
        Path(nb_config.output_folder),
        Path(nb_config.execution_cache_path),
        unread,
        app.config.nb_execution_mode,
    ).items():
        logger.info("%s; reading the page again", what, location=doc)
        redo.append(doc)
    if redo or added or changed or removed:
        redo.extend(
            d
            for d in build.report_docs | build.include_docs
            if d not in changed and d not in removed and d not in redo
        )
    return redo


def check_problems(app: Sphinx, exc: Exception | None) -> None:
    """Report the gating's problems on every build (build-finished runs even
    when no page was re-read); an error fails the build (trtdocs.failures sets the
    exit status). Strictness comes from this build's settings."""
    if exc is not None:
        return
    settings = config.of(app.config)
    strict = bool(
        settings.require_all
        or settings.require_outputs
        or os.environ.get("CI", "").lower() not in ("", "0", "false")
    )
    _check_orphans(app, strict)
    for doc, plan in sorted(state.of(app.env).plans.items()):
        for line, message, kind in plan.problems:
            # a stale record outside this build's subset is another shard's concern
            is_error = kind == "error" or (kind == "stale" and strict and not plan.deferred)
            (logger.error if is_error else logger.warning)(
                message, location=(doc, line), type="trtdocs", subtype="gating"
            )
        # a channel's strict run requires what its release can run; a newer release runs the rest
        if settings.require_all and not plan.ran_what_release_can and not plan.deferred:
            why = "outputs come from a record" if plan.record is not None else plan.blocking_reason
            logger.error(
                "REQUIRE_ALL: %s: %s",
                plan.status,
                why or plan.reason,
                location=(doc, 1),
                type="trtdocs",
                subtype="strict",
            )
        elif settings.require_all and plan.skipped and not plan.deferred:
            logger.info(
                "REQUIRE_ALL: %s: %d of %d code cells need a newer release than the installed "
                "one, and are marked: %s",
                doc,
                len(plan.skipped),
                plan.code_cells,
                plan.reason,
            )
        elif settings.require_outputs and plan.status not in ("executed", "recorded", NO_CODE):
            # the gathering build: each page executed here or shown from a fresh record
            logger.error(
                "REQUIRE_OUTPUTS: %s: %s",
                plan.status,
                plan.reason,
                location=(doc, 1),
                type="trtdocs",
                subtype="strict",
            )


def _check_orphans(app: Sphinx, strict: bool) -> None:
    """Name each record of no notebook page: as a stale record, a warning, and an
    error in CI and strict builds. Nothing shows it; it misleads whoever reads
    the records (tools/shard.py weighs its duration, a reviewer trusts it)."""
    ctx = _context(app.env)
    for path in recorded.orphans(ctx.record_dir, state.of(app.env).plans.keys()):
        where = path.relative_to(ctx.srcdir) if path.is_relative_to(ctx.srcdir) else path
        (logger.error if strict else logger.warning)(
            "record of %s, which is not a notebook page of this site: delete it (`git rm %s`), "
            "or restore the page",
            recorded.docname_of(path),
            where,
            location=f"{path}:1",
            type="trtdocs",
            subtype="gating",
        )


def write_outputs(app: Sphinx, exc: Exception | None) -> None:
    if exc is not None or app.builder.format != "html":
        return
    environment = _context(app.env).environment
    data = {
        "environment": environment.to_json(),
        "notebooks": entries(app),
        # the guide's C++ programs: exported by the Python ExecuTorch, run by the C++ package
        "cxx": cxxsdk.pairing(
            environment.versions.get("executorch"), environment.cxx_toolchain.get("executorch_cxx")
        ),
    }
    Path(app.outdir, PROVENANCE_FILE).write_text(json.dumps(data, indent=2) + "\n")
    if config.of(app.config).record:
        _record(app)


def _record(app: Sphinx) -> None:
    """Write a record for each notebook with requirements that executed every
    cell but those that need a newer release than the installed one (the record
    lists those, with their reasons)."""
    from .downloads import executed_notebook

    ctx = _context(app.env)
    record_out = config.of(app.config).record_out
    out = Path(app.srcdir, record_out) if record_out else ctx.record_dir
    for doc, plan in sorted(state.of(app.env).plans.items()):
        if not plan.ran_what_release_can or not (plan.requires or plan.cell_requires):
            continue
        executed = executed_notebook(app, doc, plan)
        if executed is None:
            logger.error(
                "cannot record %s: the build wrote no executed notebook",
                doc,
                location=(doc, 1),
                type="trtdocs",
                subtype="record",
            )
            continue
        path = recorded.record_path(out, doc)
        try:
            recorded.write(
                path, read_notebook_source(app, doc), executed, page_entry(app, doc, plan)
            )
        except recorded.RecordError as exc:
            logger.error(
                "cannot record %s: %s",
                doc,
                exc,
                location=(doc, 1),
                type="trtdocs",
                subtype="record",
            )
            continue
        logger.info("recorded %s -> %s", doc, path)


def read_notebook_source(app: Sphinx, docname: str) -> nbformat.NotebookNode:
    from myst_nb.core.read import read_myst_markdown_notebook

    return read_myst_markdown_notebook(Path(app.env.doc2path(docname)).read_text(encoding="utf-8"))
