"""The status of each notebook page with code cells, at its foot
(:mod:`.pagefoot`): one line (whether it ran, the machine, the date), and
folded under it what the page needs, where its outputs came from and what the
downloads hold; and the page's total running time at the end of its text.
Both are filled in at ``doctree-resolved`` (:func:`resolve`), once every page's
execution data exist, from the page's plan and the probe. The line a folded
block shows (its ``<summary>``) holds no link: a control inside a control is
one no keyboard or screen reader can use (axe: nested-interactive).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from docutils import nodes

from .. import config, state
from ..output import folding
from ..vocab import BLOCK_KINDS, CAPABILITIES
from . import downloads, recorded, textmarks
from .marks import status_placeholder
from .pagefoot import page_status
from .plan import NO_CODE, PagePlan

if TYPE_CHECKING:
    from sphinx.application import Sphinx

    from .environment import Environment


def needs_text(plan: PagePlan, shown_as_text: bool = False) -> str | None:
    """'Runs on a CPU' or the requirements, in words; of the code cells, when the
    page also shows blocks as text that it does not run. None for a page with no
    code cells: nothing of it runs."""
    if plan.code_cells == 0:
        return None
    reqs = list(dict.fromkeys(plan.requires + plan.cell_requires))
    if not reqs:
        return "Its code cells run on a CPU." if shown_as_text else "Runs on a CPU."
    # two requirements can read the same (two features of one release): said once
    words = list(
        dict.fromkeys(
            plan.needs.get(r) or (CAPABILITIES[r].needs if r in CAPABILITIES else r) for r in reqs
        )
    )
    scope = "" if plan.requires else " for some cells"
    return f"Needs {', '.join(words)}{scope}."


def text_blocks(doctree: nodes.Node) -> dict[str, int]:
    """How many shell, C++ and CMake blocks the page shows as text, outside its
    code cells (myst-nb's ``cell`` containers): the build runs none of them. The
    tabs of one tab set (a command for pip and for uv) are one block."""
    seen: dict[str, set[int]] = {kind: set() for kind in BLOCK_KINDS}
    for block in doctree.findall(nodes.literal_block):
        kind = next(
            (k for k, languages in BLOCK_KINDS.items() if block.get("language") in languages), None
        )
        if kind is None:
            continue
        key, ancestor = id(block), block.parent
        while ancestor is not None and "cell" not in ancestor.get("classes", ()):
            if "sd-tab-set" in ancestor.get("classes", ()):
                key = id(ancestor)
            ancestor = ancestor.parent
        if ancestor is None:
            seen[kind].add(key)
    return {kind: len(keys) for kind, keys in seen.items() if keys}


# What the drift guards (trtdocs.drift) check of each kind of block, in every build.
CHECKED: Final[Mapping[str, str]] = MappingProxyType(
    {
        "shell": "checks the install commands in the shell blocks: packages, pins and package "
        "indexes",
        "C++": "compiles each C++ block and says under it against which headers, stubs included",
        "CMake": "parses each CMake block",
        "Python": (
            "checks the names and keywords each Python block uses from Torch-TensorRT and "
            "ExecuTorch against the installed packages"
        ),
    }
)


def text_blocks_text(counts: Mapping[str, int], checked: bool, marked: int = 0) -> str | None:
    """'Shown as text, not run in this build: 7 shell blocks, 1 C++ block and 3 CMake
    blocks.', how many of them carry a not-run mark (their ``:requires:``,
    :mod:`.textmarks`) and, when the drift guards ran, what they check of those
    kinds."""
    if not counts:
        return None
    blocks = _and([f"{n} {kind} block{'s' if n > 1 else ''}" for kind, n in counts.items()])
    text = f"Shown as text, not run in this build: {blocks}."
    total = sum(counts.values())
    if marked:
        which = (
            ("It is" if total == 1 else "Each is")
            if marked >= total
            else f"{marked} of them {'is' if marked == 1 else 'are'}"
        )
        needs = "it needs" if marked == 1 or marked >= total else "they need"
        text += f" {which} marked with what {needs}, as a cell that did not run is."
    checks = [CHECKED[kind] for kind in counts if kind in CHECKED] if checked else []
    if checks:
        first, *more = checks
        text += f" The build {first}." + "".join(f" It {check}." for check in more)
    return text


def _and(items: list[str]) -> str:
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 1 else items)


def provenance(
    plan: PagePlan, env: Environment, exec_data: dict[str, Any] | None
) -> dict[str, Any]:
    """Where this page's outputs came from (the provenance.json entry)."""
    # shown from a record: the cells that did not run where it was made
    entry: dict[str, Any] = {
        "status": plan.status,
        "reason": plan.reason,
        "code_cells": plan.code_cells,
        "cells_not_executed": [
            {"cell": s.number, "line": s.line, "needs": list(s.needs), "reason": s.reason}
            for s in plan.skipped
        ],
    }
    if plan.status == NO_CODE:
        return entry  # nothing ran: no machine, time or duration to give
    if plan.record is not None:
        # The record's own provenance: where and when it really executed.
        entry["record"] = plan.record_path
        for key in ("environment", "executed_at", "duration_s"):
            entry[key] = plan.record.get(key)
        return entry
    entry["environment"] = env.to_json()
    if exec_data:
        entry["executed_at"] = dt.datetime.fromtimestamp(exec_data["mtime"], dt.UTC).isoformat(
            timespec="seconds"
        )
        entry["duration_s"] = (
            round(exec_data["runtime"], 2) if exec_data.get("runtime") is not None else None
        )
    return entry


def _machine_text(envdata: dict[str, Any]) -> str:
    if envdata.get("cuda_available") and envdata.get("gpu_name"):
        return (
            f"{envdata['gpu_name']} (driver {envdata.get('driver_version')}, "
            f"CUDA {envdata.get('cuda_runtime')})"
        )
    return f"{envdata.get('cpu_model')} ({envdata.get('cpu_count')} cores), no CUDA GPU"


def _machine_short(envdata: dict[str, Any]) -> str:
    if envdata.get("cuda_available") and envdata.get("gpu_name"):
        return str(envdata["gpu_name"])
    return f"{envdata.get('cpu_model')} CPU, no CUDA GPU"


def summary_words(entry: dict[str, Any]) -> str:
    """What the status line says after its title: " · machine · date" (a page with
    nothing to run names no machine)."""
    words = ""
    if entry["status"] != NO_CODE:
        words += f" · {_machine_short(entry.get('environment') or {})}"
    if entry.get("executed_at"):
        words += f" · {str(entry['executed_at'])[:10]}"
    return words


def _versions_text(envdata: dict[str, Any]) -> str:
    v = envdata.get("versions", {})
    return ", ".join(f"{k} {v[k]}" for k in v if v[k])


TITLES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "executed": "Executed in this build",
        "recorded": "Outputs recorded on another machine",
        "partly executed": "Partly executed in this build",
        "not executed": "Not executed in this build",
        NO_CODE: "No code cells",
    }
)
# an execution this build found in the jupyter-cache: it ran in an earlier build of
# the same code and environment (the cache key, cachekey.py), not in this one
EARLIER: Final[Mapping[str, str]] = MappingProxyType(
    {
        "executed": "Executed in an earlier build",
        "partly executed": "Partly executed in an earlier build",
    }
)


def resolutions(claims: tuple[str, tuple[str, ...]]) -> list[nodes.Node]:
    """How the page's install commands resolved (trtdocs.drift.resolved): a lead, one item each."""
    lead, items = claims
    listing = nodes.bullet_list()
    for text in items:
        listing += nodes.list_item("", nodes.paragraph(text=text))
    return [nodes.paragraph(text=lead), listing]


def banner(
    plan: PagePlan,
    entry: dict[str, Any],
    docname: str,
    report: nodes.Node | None = None,
    blocks: Mapping[str, int] | None = None,
    checked: bool = False,
    resolved: tuple[str, tuple[str, ...]] | None = None,
    marked: int = 0,
) -> nodes.Element:
    """One line (status, machine, date), with no link in it; what it needs,
    which cells did not run, where the outputs come from and what the downloads
    hold, folded under it; and how its install commands resolved, when the
    drift guards resolved them."""
    status = entry["status"]
    envdata = entry.get("environment") or {}
    earlier = bool(entry.get("earlier")) and status in EARLIER
    summary: list[nodes.Node] = [nodes.strong(text=(EARLIER if earlier else TITLES)[status])]
    if words := summary_words(entry):
        summary.append(nodes.Text(words))
    shown_as_text = (
        text_blocks_text(blocks or {}, checked, marked) if status != "not executed" else None
    )
    needs = needs_text(plan, shown_as_text is not None)
    body: list[nodes.Node] = [nodes.paragraph(text=needs)] if needs else []
    if shown_as_text:
        body.append(nodes.paragraph(text=shown_as_text))
    if resolved and checked:
        body += resolutions(resolved)
    if status == "recorded":
        when = recorded.executed_at(entry)
        age = recorded.age_words(when, dt.datetime.now(dt.UTC)) if when else "at an unknown time"
        tensorrt = (envdata.get("versions") or {}).get("tensorrt") or "not installed"
        body.append(
            nodes.paragraph(
                text=f"Recorded on {_machine_text(envdata)}, TensorRT {tensorrt}, {age}."
            )
        )
        body.append(
            nodes.paragraph(
                text=(
                    f"These outputs come from {entry.get('record')}: executed on "
                    f"{_machine_text(envdata)} at {entry.get('executed_at')} in "
                    f"{entry.get('duration_s')} s, with {_versions_text(envdata)}."
                )
            )
        )
        if plan.skipped:
            body.append(
                nodes.paragraph(
                    text=(
                        f"{len(plan.skipped)} of {plan.code_cells} code cells did not run there, "
                        "because that machine's release lacks what they need; each is marked, "
                        "with its reason."
                    )
                )
            )
    elif status == NO_CODE:
        pass  # nothing ran: no outputs to account for
    elif plan.deferred and status == "not executed":
        body.append(nodes.paragraph(text=f"Reason: {plan.reason}."))
    else:
        if plan.skipped:
            para = nodes.paragraph(
                text=(
                    f"{len(plan.skipped)} of {plan.code_cells} code cells did not run here; "
                    f"each is marked, with its reason."
                )
            )
            if report is not None:
                para += nodes.Text(" What the build machine lacks is on the ")
                para += report
                para += nodes.Text(".")
            body.append(para)
        if not (plan.skipped and len(plan.skipped) == plan.code_cells):
            body.append(
                nodes.paragraph(
                    text=(
                        f"The outputs on this page come from {_machine_text(envdata)}, executed at "
                        f"{entry.get('executed_at', 'unknown time')} in "
                        f"{entry.get('duration_s', '?')} s, with {_versions_text(envdata)}."
                    )
                )
            )
            if earlier:
                body.append(
                    nodes.paragraph(
                        text=(
                            "This build found that run in its execution cache: the page's code, "
                            "the files it reads, and the machine and its packages are unchanged "
                            "since."
                        )
                    )
                )
    body.append(downloads.description(docname, plan, earlier))
    # no-search: Sphinx's search index leaves the status out (its words are on every page)
    return folding.make(
        summary,
        body,
        [
            "trtdocs-status",
            f"trtdocs-status-{status.replace(' ', '-')}",
            "no-search",
        ],
    )


def _report_link(app: Sphinx, docname: str) -> nodes.Node | None:
    reports = sorted(state.of(app.env).report_docs)
    if not reports or app.builder.format != "html":
        return None
    return nodes.reference(
        "", "Build report", internal=True, refuri=app.builder.get_relative_uri(docname, reports[0])
    )


def running_time(entry: dict[str, Any]) -> nodes.paragraph | None:
    """'Total running time' at the end of the page, as in PyTorch's tutorials."""
    seconds = entry.get("duration_s")
    if seconds is None or entry["status"] in ("not executed", NO_CODE):
        return None
    minutes, rest = divmod(float(seconds), 60)
    where = {
        "recorded": f" (recorded on {_machine_short(entry.get('environment') or {})})",
        "partly executed": " (the cells that ran)",
    }.get(entry["status"], "")
    return nodes.paragraph(
        text=f"Total running time of this notebook: {int(minutes)} min {rest:.1f} s{where}.",
        classes=["trtdocs-running-time"],
    )


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """At doctree-resolved: the status in its placeholder (none for a page with no
    code cells), the running time at the end of the page's text."""
    plan = state.of(app.env).plans.get(docname)
    blocks = text_blocks(doctree)
    for node in list(doctree.findall(status_placeholder)):
        if plan is None or plan.code_cells == 0:
            node.parent.remove(node)
            continue
        entry = page_entry(app, docname, plan)
        node.replace_self(
            page_status(
                "",
                banner(
                    plan,
                    entry,
                    docname,
                    _report_link(app, docname),
                    blocks,
                    checked="trtdocs.drift" in app.extensions and config.of(app.config).drift,
                    resolved=state.of(app.env).install_claims.get(docname),
                    marked=textmarks.marked(doctree),
                ),
                classes=["no-search"],
            )
        )
        shown = running_time(entry)
        section = next(iter(doctree.findall(nodes.section)), None)
        if shown is not None and section is not None:
            section += shown


def page_entry(app: Sphinx, docname: str, plan: PagePlan) -> dict[str, Any]:
    from myst_nb.sphinx_ import NbMetadataCollector

    exec_data = NbMetadataCollector.get_exec_data(app.env, docname)
    context = state.of(app.env).context
    assert context is not None, "trtdocs.notebooks is not set up"
    entry = provenance(plan, context.environment, exec_data)
    if (
        exec_data
        and plan.record is None
        and plan.status != NO_CODE
        and exec_data.get("mtime") is not None
    ):
        entry["earlier"] = exec_data["mtime"] < context.now.timestamp()
    return entry
