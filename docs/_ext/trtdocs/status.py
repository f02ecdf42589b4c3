"""What readers see: a status banner at the top of each notebook page (what it
needs, whether it ran here, where its outputs came from) and a mark on every
cell that did not run."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from . import downloads, recorded
from .features import inline
from .gating import MARK_DIRECTIVE, STATUS_DIRECTIVE, PagePlan
from .requirements import CAPABILITIES

if TYPE_CHECKING:
    from sphinx.application import Sphinx

    from .environment import Environment


class status_placeholder(nodes.General, nodes.Element):
    """Replaced at doctree-resolved, once execution data exist for every page."""


class NotExecuted(SphinxDirective):
    """The mark before a cell that did not run: what it needs and why."""

    has_content = True
    option_spec = {"needs": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        box = nodes.admonition(classes=["trtdocs-not-executed", "warning"])
        box += nodes.title(text="Not executed in this build")
        para = nodes.paragraph()
        para += inline(" ".join(self.content))  # `name` as code
        box += para
        return [box]


class PageStatus(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        return [status_placeholder()]


def needs_text(plan: PagePlan) -> str:
    """'Runs on a CPU' or the requirements, in words."""
    reqs = list(dict.fromkeys(plan.requires + plan.cell_requires))
    if not reqs:
        return "Runs on a CPU."
    words = [plan.needs.get(r) or CAPABILITIES.get(r, r) for r in reqs]
    scope = "" if plan.requires else " for some cells"
    return f"Needs {', '.join(words)}{scope}."


def provenance(plan: PagePlan, env: Environment, exec_data: dict[str, Any] | None) -> dict[str, Any]:
    """Where this page's outputs came from (the provenance.json entry)."""
    entry: dict[str, Any] = {"status": plan.status, "reason": plan.reason,
                             "code_cells": plan.code_cells,
                             "cells_not_executed": [
                                 {"cell": s.number, "line": s.line, "reason": s.reason}
                                 for s in plan.skipped] if plan.record is None else []}
    if plan.record is not None:
        # The record's own provenance: where and when it really executed.
        entry["record"] = plan.record_path
        for key in ("environment", "executed_at", "duration_s"):
            entry[key] = plan.record.get(key)
        return entry
    entry["environment"] = env.to_json()
    if exec_data:
        entry["executed_at"] = dt.datetime.fromtimestamp(exec_data["mtime"], dt.timezone.utc).isoformat(timespec="seconds")
        entry["duration_s"] = round(exec_data["runtime"], 2) if exec_data.get("runtime") is not None else None
    return entry


def _machine_text(envdata: dict[str, Any]) -> str:
    if envdata.get("cuda_available") and envdata.get("gpu_name"):
        return (f"{envdata['gpu_name']} (driver {envdata.get('driver_version')}, "
                f"CUDA {envdata.get('cuda_runtime')})")
    return f"{envdata.get('cpu_model')} ({envdata.get('cpu_count')} cores), no CUDA GPU"


def _versions_text(envdata: dict[str, Any]) -> str:
    v = envdata.get("versions", {})
    return ", ".join(f"{k} {v[k]}" for k in v if v[k])


def banner(plan: PagePlan, entry: dict[str, Any]) -> nodes.Element:
    status = entry["status"]
    kind = {"executed": "note", "recorded": "important"}.get(status, "warning")
    box = nodes.admonition(classes=["trtdocs-status", f"trtdocs-status-{status.replace(' ', '-')}", kind])
    box += nodes.title(text={"executed": "Executed in this build",
                             "recorded": "Outputs recorded on another machine",
                             "partly executed": "Partly executed in this build",
                             "not executed": "Not executed in this build"}[status])
    box += nodes.paragraph(text=needs_text(plan))
    if status == "recorded":
        envdata = entry.get("environment", {})
        when = recorded.executed_at(entry)
        age = recorded.age_words(when, dt.datetime.now(dt.timezone.utc)) if when else "at an unknown time"
        tensorrt = (envdata.get("versions") or {}).get("tensorrt") or "not installed"
        box += nodes.paragraph(text=f"Recorded on {_machine_text(envdata)}, TensorRT {tensorrt}, {age}.")
        box += nodes.paragraph(text=(
            f"These outputs come from {entry.get('record')}: executed at {entry.get('executed_at')} "
            f"in {entry.get('duration_s')} s, with {_versions_text(envdata)}."))
        return box
    if plan.deferred and status == "not executed":
        box += nodes.paragraph(text=f"Reason: {plan.reason}.")
        return box
    if plan.skipped:
        box += nodes.paragraph(text=(
            f"{len(plan.skipped)} of {plan.code_cells} code cells did not run here; "
            f"each is marked. Reason: {plan.reason or 'they depend on cells that did not run'}."))
    if plan.skipped and len(plan.skipped) == plan.code_cells:
        return box
    envdata = entry["environment"]
    box += nodes.paragraph(text=(
        f"Outputs below come from {_machine_text(envdata)}, executed at "
        f"{entry.get('executed_at', 'unknown time')} in {entry.get('duration_s', '?')} s, "
        f"with {_versions_text(envdata)}."))
    return box


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    plan: PagePlan | None = app.env.trtdocs_pages.get(docname)
    for node in list(doctree.findall(status_placeholder)):
        if plan is None:
            node.parent.remove(node)
            continue
        box = banner(plan, page_entry(app, docname, plan))
        box += downloads.link(docname, plan)
        node.replace_self(box)


def page_entry(app: Sphinx, docname: str, plan: PagePlan) -> dict[str, Any]:
    from myst_nb.sphinx_ import NbMetadataCollector

    exec_data = NbMetadataCollector.get_exec_data(app.env, docname)
    return provenance(plan, app.env.trtdocs_environment, exec_data)


def setup(app: Sphinx) -> None:
    app.add_node(status_placeholder)
    app.add_directive(MARK_DIRECTIVE, NotExecuted)
    app.add_directive(STATUS_DIRECTIVE, PageStatus)
    app.connect("doctree-resolved", resolve)
