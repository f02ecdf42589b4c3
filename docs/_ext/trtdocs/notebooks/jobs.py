"""Which notebooks a build executes, started before Sphinx reads the pages.

At ``env-before-read-docs`` each notebook page about to be read is gated as
the reader will gate it (:func:`.reader.gated`); the ones jupyter-cache does
not hold become :class:`.execute.Job` objects and start on the executor at
once, several at a time, in the build's run folder (``trtdocs_run_dir``). Pages
that share a path there run one after the other in reading order
(:mod:`.handoffs`); a page that reads a ``programs/`` file an earlier page
writes runs that page too when the file is missing (a fresh build folder, or a
CI shard), so every page finds what it reads. Sphinx then reads the pages that
do not wait for an execution first; the reader of a notebook page waits for
its job and takes the outputs from the cache.

With ``sphinx-build -j N`` the reading processes fork: the jobs then finish
before the first page is read.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.util import logging

from .. import config, state
from . import cxxsdk, durations
from .execerrors import describe
from .execute import Executor, Job
from .frontmatter import front_matter_problem
from .gating import input_files
from .handoffs import Handoffs, Runs, cell_runs
from .plan import SKIP_TAG
from .provenance import PROVENANCE_FILE
from .reader import gated, log_outcome

if TYPE_CHECKING:
    import nbformat
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)
DEFAULT_WEIGHT_S = 60.0  # a notebook with no execution on record


def run_dir(app: Sphinx) -> Path:
    """The folder every notebook of this build runs in."""
    chosen = config.of(app.config).run_dir
    return Path(app.confdir, chosen) if chosen else Path(app.outdir).parent / "run"


def context_run_dir(env: BuildEnvironment) -> Path:
    context = state.of(env).context
    assert context is not None and context.run_dir is not None, "trtdocs.notebooks is not set up"
    return context.run_dir


def _runs(nb: nbformat.NotebookNode) -> Runs:
    lines = list(nb.metadata.get("source_map", []))
    code = {lines[i] for i, c in enumerate(nb.cells) if c.cell_type == "code" and i < len(lines)}
    skipped = {
        lines[i]
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and i < len(lines) and SKIP_TAG in c.metadata.get("tags", [])
    }
    return cell_runs(lines, skipped, code)


class _Planner:
    """The jobs of one build: the pages it reads that the cache lacks, and the
    earlier pages whose ``programs/`` files they need."""

    def __init__(self, app: Sphinx, env: BuildEnvironment) -> None:
        from jupyter_cache import get_cache

        self.app, self.env = app, env
        context = state.of(env).context
        assert context is not None, "trtdocs.notebooks is not set up"
        self.context = context
        self.cache_path = context.cache_path or Path(app.outdir).parent / ".jupyter_cache"
        self.cache = get_cache(str(self.cache_path))
        self.notebooks: dict[
            str, nbformat.NotebookNode | None
        ] = {}  # docname -> gated, None: not executable
        self.inputs: dict[str, tuple[Path, ...]] = {}  # docname -> the files its `inputs:` names
        # what every kernel gets beside this process's environment: the C++ package's folder
        self.kernel_env = cxxsdk.kernel_env()

    def notebook(self, docname: str) -> nbformat.NotebookNode | None:
        """The page's gated notebook, when this build may execute it (cache mode)."""
        if docname not in self.notebooks:
            self.notebooks[docname] = self._gate(docname)
        return self.notebooks[docname]

    def _gate(self, docname: str) -> nbformat.NotebookNode | None:
        path = Path(self.env.doc2path(docname))
        if path.suffix != ".md" or not path.is_file():
            return None
        text = path.read_text(encoding="utf-8")
        if front_matter_problem(text) is not None:
            return None
        nb, plan = gated(text, self.context, docname)
        mode = nb.metadata.get("mystnb", {}).get(
            "execution_mode", self.app.config.nb_execution_mode
        )
        if plan is None or mode != "cache":
            return None
        self.inputs[docname] = tuple(input_files(list(plan.inputs), self.context.srcdir)[0])
        return nb

    def cached(self, nb: nbformat.NotebookNode) -> bool:
        try:
            self.cache.match_cache_notebook(nb)
        except KeyError:
            return False
        return True

    def job(
        self, docname: str, after: tuple[str, ...], weights: dict[str, float], read: bool
    ) -> Job:
        nb = self.notebook(docname)
        assert nb is not None
        page = nb.metadata.get("mystnb", {})
        path = Path(self.env.doc2path(docname))
        return Job(
            docname,
            path,
            nb,
            timeout=page.get("execution_timeout", self.app.config.nb_execution_timeout),
            allow_errors=page.get(
                "execution_allow_errors", self.app.config.nb_execution_allow_errors
            ),
            after=after,
            weight=weights.get(docname, DEFAULT_WEIGHT_S),
            read=read,
            inputs=self.inputs.get(docname, ()),
            env=self.kernel_env,
        )

    def weights(self, docnames: list[str]) -> dict[str, float]:
        """Each notebook's last run's seconds, where the cache or the last site's
        provenance.json has it."""
        paths = {str(Path(self.env.doc2path(d))): d for d in docnames}
        return durations.last_runs(
            self.cache.list_cache_records(), paths, Path(self.app.outdir, PROVENANCE_FILE)
        )


def start(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """At env-before-read-docs: start the notebooks the pages to read need, and
    read the pages that wait for nothing first."""
    if app.config.nb_execution_mode != "cache":
        return  # myst-nb executes each page as it reads it
    planner = _Planner(app, env)
    missing = [
        d for d in docnames if (nb := planner.notebook(d)) is not None and not planner.cached(nb)
    ]
    if not missing:
        return
    folder = context_run_dir(env)
    handoffs = (
        Handoffs.of_site(Path(app.srcdir)) if (Path(app.srcdir) / "index.md").is_file() else None
    )
    todo = _with_producers(missing, planner, handoffs, folder)
    runs = {d: _runs(nb) for d in todo if (nb := planner.notebook(d)) is not None}
    weights = planner.weights(todo)
    waiting = set(missing)
    jobs = [
        planner.job(d, handoffs.after(d, runs) if handoffs else (), weights, d in waiting)
        for d in todo
    ]
    for job in jobs:  # each run starts from what a reader's first run finds
        _clear_writes(folder, handoffs, job.docname)
    workers = config.of(app.config).jobs or os.cpu_count() or 1
    executor = Executor(folder, planner.cache_path, workers)
    state.of(env).execution = executor
    executor.start(jobs)
    logger.info(
        "executing %d notebook(s), %d at a time, in %s, longest chain first: %s",
        len(jobs),
        executor.workers,
        folder,
        ", ".join(_expected(d, weights) for d in executor.priority()),
    )
    docnames[:] = [d for d in docnames if d not in waiting] + [d for d in todo if d in waiting]
    if app.parallel > 1:
        executor.wait_all()  # the reading processes fork: no thread may run across it


def _expected(docname: str, weights: dict[str, float]) -> str:
    seconds = weights.get(docname)
    return f"{docname} ({'no run on record' if seconds is None else f'last run {seconds:.2f} s'})"


def _with_producers(
    missing: list[str], planner: _Planner, handoffs: Handoffs | None, folder: Path
) -> list[str]:
    """``missing`` and, recursively, the earlier pages that write a ``programs/``
    file one of them reads and the run folder lacks; in reading order."""
    todo = set(missing)
    pending = list(missing)
    while handoffs is not None and pending:
        doc = pending.pop()
        nb = planner.notebook(doc)
        runs = {doc: _runs(nb)} if nb is not None else {}
        for producer in handoffs.producers(doc, runs):
            producer_nb = planner.notebook(producer)
            if producer in todo or producer_nb is None:
                continue
            written = handoffs.producers(doc, {**runs, producer: _runs(producer_nb)}).get(
                producer, ()
            )
            if any(not (folder / "programs" / p).exists() for p in written):
                todo.add(producer)
                pending.append(producer)
    order = {d: i for i, d in enumerate(handoffs.order)} if handoffs else {}
    return sorted(todo, key=lambda d: (order.get(d, len(order)), d))


def _clear_writes(folder: Path, handoffs: Handoffs | None, docname: str) -> None:
    """Remove what the page writes in the run folder, so that it runs as on a
    reader's first run (``%%writefile`` says "Writing", not "Overwriting")."""
    if handoffs is None:
        return
    for access in handoffs.pages.get(docname, ()):
        if not access.write:
            continue
        target = folder / (Path(access.root) if access.root != "cwd" else Path()) / access.path
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()


def finish(app: Sphinx, env: BuildEnvironment) -> None:
    """At env-updated: every job has ended; a job whose page was not read (it ran
    for the files a later page reads) reports a failure at its page."""
    executor = state.of(env).execution
    if executor is None:
        return
    outcomes = executor.wait_all()
    for job in executor.jobs:
        if job.read:
            continue  # its reader reported it
        docname, outcome = job.docname, outcomes[job.docname]
        log_outcome(docname, outcome)
        if outcome.error is not None:
            nb = _Planner(app, env).notebook(docname)
            line, message = (
                describe(outcome.error, nb, app.config)
                if nb is not None
                else (1, str(outcome.error))
            )
            logger.error(message, location=(docname, line), type="trtdocs", subtype="execution")
    executor.shutdown()
    state.of(env).execution = None


def abandon(app: Sphinx, exc: Exception | None) -> None:
    """At build-finished: no job outlives a build that stopped early."""
    executor = state.of(app.env).execution
    if executor is not None:
        executor.shutdown()
        state.of(app.env).execution = None
