"""The guide's notebooks run as a reader runs them, once per session.

The site's downloads (each page's ``.ipynb``, outputs cleared), all in ONE
empty folder outside the repository, with nothing on ``PYTHONPATH``, skipping
the cells the build skipped. Pages that share a path in that folder (a page
reads from ``programs/`` what an earlier page wrote there, as far as a CPU
machine runs them: issue 19, export here, run there) run one after another in
reading order (the ``toctree`` blocks of ``index.md``); groups of pages that
share nothing run beside each other, one a core, as the build runs them
(``trtdocs.notebooks.handoffs``). The run goes on in background threads while
other tests run; :class:`ReaderRun` gives each page's executed notebook, or
the error that stopped it.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import os
import re
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from paths import ROOT
from trtdocs.notebooks import cxxsdk, setupcell
from trtdocs.notebooks.handoffs import Handoffs
from trtdocs.pages.accesses import reading_order

SKIP_TAG = "skip-execution"  # nbclient's skip_cells_with_tag, as the build tags them
RUNS_HERE = ("executed", "partly executed")  # statuses of pages this machine runs
# What varies between two runs of the same code on the same machine.
VOLATILE = [
    # the site shows installed files from site-packages
    # (trtdocs.output.buildpaths); a kernel prints the full path
    (re.compile(r"(?:/[^\s/:'\"]+)+/site-packages(?=/)"), "site-packages"),
    (re.compile(r"0x[0-9a-fA-F]{4,}"), "0x<addr>"),
    (re.compile(r"(/tmp|/var/folders)/[^\s'\"]+"), "<tmp>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?"), "<timestamp>"),
    (
        re.compile(r"\b\d\d:\d\d:\d\d\.\d{6}\b"),
        "<clock>",
    ),  # ExecuTorch's log lines: time since start
    # torch's glog-style warnings (W1203 <clock> 15943
    # torch/utils/_pytree.py:...): month, day and process id
    (re.compile(r"\b([IWEF])\d{4} <clock> \d+\b"), r"\1<date> <clock> <pid>"),
    (re.compile(r"\b\d+(\.\d+)?(e-?\d+)?\s?(ms|µs|us|ns|s|sec|seconds)\b"), "<duration>"),
]


def normalise(text: str) -> str:
    for pattern, repl in VOLATILE:
        text = pattern.sub(repl, text)
    return text


def outputs(cell: nbformat.NotebookNode) -> dict[str, object]:
    """A cell's outputs, streams merged (as the site renders them), volatile parts masked."""
    streams: dict[str, str] = {}
    rich: list[dict[str, str]] = []
    errors: list[str] = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            streams[out.name] = streams.get(out.name, "") + out.text
        elif out.output_type in ("execute_result", "display_data"):
            rich.append(
                {
                    mime: normalise(v if isinstance(v, str) else "".join(v))
                    if mime.startswith("text/")
                    else "<binary>"
                    for mime, v in out.data.items()
                }
            )
        elif out.output_type == "error":
            errors.append(f"{out.ename}: {normalise(out.evalue)}")
    return {
        "streams": {k: normalise(v) for k, v in sorted(streams.items())},
        "rich": rich,
        "errors": errors,
    }


def provenance(html: Path) -> dict:
    return json.loads((html / "provenance.json").read_text())


def as_downloaded(html: Path, doc: str, skipped: set[int]) -> nbformat.NotebookNode:
    """The download, outputs cleared, with the build's skipped cells tagged (numbered
    as the build numbers them: the page's code cells, after Colab's setup cell, which
    runs and, outside Colab, does nothing)."""
    nb = nbformat.read(html / f"{doc}.ipynb", as_version=4)
    code = [c for c in setupcell.page_cells(nb) if c.cell_type == "code"]
    for number, cell in enumerate(code, start=1):
        cell.outputs, cell.execution_count = [], None
        tags = cell.metadata.setdefault("tags", [])
        assert SKIP_TAG not in tags, f"{doc} cell {number}: the download keeps the build's skip tag"
        if number in skipped:
            tags.append(SKIP_TAG)
    return nb


def kernel_environment() -> dict[str, str]:
    """What a reader's kernel sees: this environment with nothing on PYTHONPATH,
    and ExecuTorch's C++ package where run-cpp's first step tells a reader to
    point ``EXECUTORCH_CXX_PREFIX``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    prefix = cxxsdk.prefix()
    if prefix is not None:
        env.setdefault(cxxsdk.PREFIX_ENV, str(prefix))
    return env


def execute(nb: nbformat.NotebookNode, folder: Path, timeout: int = 600) -> None:
    NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        skip_cells_with_tag=SKIP_TAG,
        resources={"metadata": {"path": str(folder)}},
    ).execute(env=kernel_environment())


def notebook_sources() -> list[Path]:
    """The guide's notebooks (MyST text notebooks under notebooks/ and docs/)."""
    from myst_nb.core.read import is_myst_markdown_notebook

    return sorted(
        p
        for d in ("notebooks", "docs")
        for p in (ROOT / d).rglob("*.md")
        if not p.relative_to(ROOT).parts[1].startswith("_")
        and is_myst_markdown_notebook(p.read_text())
    )


def reading_docs(html: Path) -> list[str]:
    """The notebook pages this machine runs, in reading order (pages outside the
    table of contents last, by name)."""
    entries = provenance(html)["notebooks"]
    order = [p.relative_to(ROOT).with_suffix("").as_posix() for p in reading_order(ROOT)]
    runs = [d for d, e in entries.items() if e["status"] in RUNS_HERE]
    return sorted(runs, key=lambda d: (order.index(d) if d in order else len(order), d))


@dataclasses.dataclass
class ReaderRun:
    """One run of the downloads, page after page, in :attr:`folder`."""

    html: Path
    folder: Path
    order: list[str]
    done: dict[str, concurrent.futures.Future[nbformat.NotebookNode]]

    @classmethod
    def start(cls, html: Path, workers: int | None = None) -> ReaderRun:
        folder = Path(tempfile.mkdtemp(prefix="trtdocs-reader-")).resolve()
        order = reading_docs(html)
        run = cls(html, folder, order, {doc: concurrent.futures.Future() for doc in order})
        pool = concurrent.futures.ThreadPoolExecutor(
            workers or os.cpu_count() or 1, thread_name_prefix="reader-run"
        )
        for group in run.groups():
            pool.submit(run._run, group)
        pool.shutdown(wait=False)
        return run

    def groups(self) -> list[list[str]]:
        """The pages in groups that share nothing in the folder, each in reading
        order; the longest group (by the build's execution times) first."""
        entries = provenance(self.html)["notebooks"]
        group_of = {doc: group for group in Handoffs.of_site(ROOT).groups() for doc in group}
        groups: dict[tuple[str, ...], list[str]] = {}
        for doc in self.order:
            groups.setdefault(group_of.get(doc, (doc,)), []).append(doc)
        return sorted(
            groups.values(), key=lambda g: -sum(entries[d].get("duration_s") or 0.0 for d in g)
        )

    def _run(self, group: list[str]) -> None:
        entries = provenance(self.html)["notebooks"]
        for doc in group:
            try:  # whatever stops a page is its test's failure; the next page runs
                skipped = {s["cell"] for s in entries[doc]["cells_not_executed"]}
                nb = as_downloaded(self.html, doc, skipped)
                execute(nb, self.folder)
            except Exception as exc:  # noqa: BLE001 -- its page's test reports it; the next runs
                self.done[doc].set_exception(exc)
            else:
                self.done[doc].set_result(nb)

    def notebook(self, doc: str) -> nbformat.NotebookNode:
        """The page's notebook as the run left it (waits for it); raises what stopped it."""
        return self.done[doc].result()
