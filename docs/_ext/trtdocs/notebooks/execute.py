"""Run the notebooks a build executes, several at once, all in one folder.

Every notebook runs in the same folder (the build's ``run`` folder), as a
reader runs them all in one folder: a page finds in ``programs/`` what an
earlier page wrote there. A :class:`Job` names the jobs it runs after (pages
that share a path in that folder, :mod:`.handoffs`); the others run side by
side on ``workers`` threads (each drives one kernel, a separate process).
Whenever a thread is free, the ready job with the longest critical path starts
on it (a job's expected time, its last run's, plus the longest chain of jobs
waiting for it): independent slow pages start first, side by side. The order
in which it started them is kept (:attr:`Executor.started`): what it decided.

A notebook that runs to its end is stored in myst-nb's jupyter-cache under the
key myst-nb matches when it reads the page, so the read takes its outputs from
there. A failure is kept as the exception nbclient raised, for the page's
error (:mod:`.execerrors`). Pure: no Sphinx.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Final

import nbformat

# jupyter-cache keeps its index in one SQLite file: one writer at a time.
_CACHE_LOCK = threading.Lock()
# nbclient's own progress lines ("Executing notebook with kernel") stay out of the build's log.
_QUIET = logging.getLogger("trtdocs.nbclient")
_QUIET.setLevel(logging.WARNING)


@dataclasses.dataclass(frozen=True)
class Job:
    """One notebook to run."""

    docname: str
    path: Path  # its source file: the jupyter-cache record's uri, as myst-nb names it
    notebook: nbformat.NotebookNode  # gated, exactly as myst-nb reads it (the cache key)
    timeout: int | None  # seconds per cell (the page's front matter, else conf.py)
    allow_errors: bool
    after: tuple[str, ...] = ()  # jobs it starts after
    weight: float = 60.0  # expected seconds (its last run's), for the start order
    read: bool = True  # whether this build reads its page (else it runs for the files it writes)
    inputs: tuple[Path, ...] = ()  # the files its front matter's `inputs:` names, copied in by name
    # variables its kernel gets on top of this process's environment (cxxsdk.kernel_env)
    env: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """How one job ended."""

    seconds: float
    error: BaseException | None = None  # nbclient's exception; None when every cell ran


Runner = Callable[[Job, Path, Path], Outcome]  # job, run folder, cache -> how it ended


class Executor:
    """Runs jobs on ``workers`` threads in ``run_dir``, each after the jobs it names."""

    def __init__(
        self, run_dir: Path, cache_path: Path, workers: int, runner: Runner | None = None
    ) -> None:
        self.run_dir = run_dir
        self.cache_path = cache_path
        self.workers = max(1, workers)
        self._runner = runner or run_one
        self._pool = concurrent.futures.ThreadPoolExecutor(
            self.workers, thread_name_prefix="trtdocs-nb"
        )
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}
        self._done: dict[str, concurrent.futures.Future[Outcome]] = {}
        self._waiting: dict[str, set[str]] = {}  # job -> the jobs it still waits for
        self._running = 0
        self.started: list[str] = []  # the jobs in the order it started them
        self._rank: dict[str, float] = {}  # job -> its critical path (start order)

    def start(self, jobs: Iterable[Job]) -> None:
        """Queue the jobs; those with nothing to wait for start now, one a thread."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        with self._lock:
            for job in jobs:
                self._jobs[job.docname] = job
                self._done[job.docname] = concurrent.futures.Future()
            for job in self._jobs.values():
                self._waiting[job.docname] = {
                    d for d in job.after if d in self._jobs and d != job.docname
                }
            self._rank = _critical_paths(self._jobs.values(), self._waiting)
            self._release()

    @property
    def jobs(self) -> tuple[Job, ...]:
        return tuple(self._jobs.values())

    def priority(self) -> list[str]:
        """Every job, longest critical path first: the order in which ready jobs start."""
        return sorted(self._jobs, key=lambda d: (-self._rank[d], d))

    def outcome(self, docname: str) -> Outcome | None:
        """The job's outcome once it ended (waits for it); None when it is no job."""
        future = self._done.get(docname)
        return future.result() if future is not None else None

    def wait_all(self) -> dict[str, Outcome]:
        return {doc: future.result() for doc, future in list(self._done.items())}

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _release(self) -> None:
        """Start ready jobs on the free threads, longest critical path first (holding the lock)."""
        started = set(self.started)
        ready = [d for d, wait in self._waiting.items() if not wait and d not in started]
        for docname in sorted(ready, key=lambda d: (-self._rank[d], d))[
            : self.workers - self._running
        ]:
            self.started.append(docname)
            self._running += 1
            self._pool.submit(self._run, self._jobs[docname])

    def _run(self, job: Job) -> None:
        try:
            outcome = self._runner(job, self.run_dir, self.cache_path)
        except Exception as exc:  # noqa: BLE001 -- its page reports it; the jobs after it still run
            outcome = Outcome(0.0, exc)
        self._done[job.docname].set_result(outcome)
        with self._lock:
            self._running -= 1
            for wait in self._waiting.values():
                wait.discard(job.docname)
            self._release()


def _critical_paths(jobs: Iterable[Job], waits: dict[str, set[str]]) -> dict[str, float]:
    """Each job's weight plus the longest chain of jobs that wait for it: the
    jobs at the head of long chains start first."""
    later: dict[str, list[str]] = {}
    for doc, wait in waits.items():
        for earlier in wait:
            later.setdefault(earlier, []).append(doc)
    weights = {j.docname: j.weight for j in jobs}
    rank: dict[str, float] = {}

    def chain(doc: str) -> float:
        if doc not in rank:
            rank[doc] = weights[doc] + max((chain(d) for d in later.get(doc, ())), default=0.0)
        return rank[doc]

    for doc in weights:
        chain(doc)
    return rank


def run_one(job: Job, run_dir: Path, cache_path: Path) -> Outcome:
    """Execute one notebook in ``run_dir`` and store it in the cache when every cell ran."""
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn
    from jupyter_cache.executors.utils import single_nb_execution

    nb = nbformat.from_dict(job.notebook)  # the job's notebook stays the key myst-nb matches
    for (
        source
    ) in job.inputs:  # what the page reads from beside it, as a reader keeps it beside the notebook
        shutil.copyfile(source, run_dir / source.name)
    start = time.perf_counter()
    try:
        result = single_nb_execution(
            nb,
            cwd=str(run_dir),
            timeout=job.timeout,
            allow_errors=job.allow_errors,
            meta_override=True,
            log=_QUIET,
            kernel_manager_class=_kernels(job.env),
        )
        error = result.err
    except Exception as exc:  # noqa: BLE001 -- DeadKernelError and the like escape jupyter-cache
        error = exc
    seconds = time.perf_counter() - start
    if error is None:
        with _CACHE_LOCK:
            get_cache(str(cache_path)).cache_notebook_bundle(
                CacheBundleIn(nb, str(job.path), data={"execution_seconds": seconds}),
                check_validity=False,
                overwrite=True,
            )
    return Outcome(seconds, error)


# make's jobserver, which `make -j html` hands to the build: a kernel runs as from a
# reader's shell, so ninja in a notebook's C++ build does not try to join it and warn
MAKE_VARIABLES: Final = frozenset({"MAKEFLAGS", "MFLAGS", "MAKELEVEL"})


def kernel_environ(base: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
    """A kernel's environment: ``base`` without make's variables, then ``extra``."""
    return {**{k: v for k, v in base.items() if k not in MAKE_VARIABLES}, **extra}


def _kernels(env: Mapping[str, str]) -> type:
    """nbclient's kernel manager, starting each kernel with ``env`` on top of this
    process's environment (jupyter_client takes a kernel's environment as ``env``).

    Its kernels talk over TCP encrypted with CurveZMQ keys the manager makes
    (jupyter_client's ``transport_encryption``; the venv's ipykernel kernelspec
    declares ``curve``): a kernel over plain TCP logs a warning into the build's
    log as it starts. ``required``: a kernel that cannot encrypt fails to start,
    and its page says so."""
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    extra = dict(env)

    class Kernels(AsyncKernelManager):
        @default("transport_encryption")
        def _encrypted(self) -> str:
            return "required"

        async def start_kernel(self, **kw: object) -> None:  # type: ignore[override]  # jupyter_client's is untyped
            given = kw.pop("env", None)
            base = given if isinstance(given, Mapping) else os.environ
            await super().start_kernel(env=kernel_environ(base, extra), **kw)

    return Kernels
