"""The executor's start order (trtdocs.notebooks.execute) and the durations it
is made from (trtdocs.notebooks.durations): what it decides, never how fast
anything runs. The jobs run a stand-in runner, no kernel."""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path
from typing import Any

import nbformat

from trtdocs.notebooks import durations
from trtdocs.notebooks.execute import Executor, Job, Outcome, Runner


def _job(name: str, weight: float, after: tuple[str, ...] = ()) -> Job:
    return Job(
        name,
        Path(f"{name}.md"),
        nbformat.v4.new_notebook(),
        timeout=None,
        allow_errors=False,
        after=after,
        weight=weight,
    )


def _done(job: Job, run_dir: Path, cache_path: Path) -> Outcome:
    return Outcome(0.0)


def _run_all(
    tmp_path: Path, jobs: list[Job], workers: int, runner: Runner = _done
) -> tuple[Executor, dict]:
    executor = Executor(tmp_path / "run", tmp_path / "cache", workers, runner)
    executor.start(jobs)
    outcomes = executor.wait_all()
    executor.shutdown()
    return executor, outcomes


def test_a_free_thread_takes_the_longest_ready_job(tmp_path: Path) -> None:
    executor, _ = _run_all(
        tmp_path, [_job("short", 1), _job("long", 5), _job("middle", 3)], workers=1
    )
    assert executor.started == ["long", "middle", "short"]
    assert executor.priority() == executor.started


def test_a_job_ready_later_starts_before_shorter_ones_that_were_ready_first(tmp_path: Path) -> None:
    """The writer's chain (1 + 10 s) starts first; when it ends, the reader
    (10 s) goes before x and y, which were ready all along."""
    jobs = [_job("writer", 1), _job("reader", 10, after=("writer",)), _job("x", 2), _job("y", 3)]
    executor, _ = _run_all(tmp_path, jobs, workers=1)
    assert executor.started == ["writer", "reader", "y", "x"]


def test_independent_slow_jobs_start_together_and_run_at_once(tmp_path: Path) -> None:
    """Two threads: the two slow jobs take them first, before the short chain.
    Each slow job waits for the other to start (a barrier with a timeout), so
    both end without error only when they ran at once."""
    meet = threading.Barrier(2, timeout=60)

    def runner(job: Job, run_dir: Path, cache_path: Path) -> Outcome:
        if job.docname.startswith("slow"):
            meet.wait()
        return Outcome(0.0)

    jobs = [
        _job("writer", 1),
        _job("reader", 1, after=("writer",)),
        _job("slow-a", 30),
        _job("slow-b", 30),
    ]
    executor, outcomes = _run_all(tmp_path, jobs, workers=2, runner=runner)
    assert executor.started[:2] == ["slow-a", "slow-b"]
    assert {doc: o.error for doc, o in outcomes.items()} == dict.fromkeys(outcomes)


def test_a_runner_that_raises_ends_its_job_and_the_jobs_after_it_still_run(tmp_path: Path) -> None:
    def runner(job: Job, run_dir: Path, cache_path: Path) -> Outcome:
        if job.docname == "writer":
            raise FileNotFoundError("an input is gone")
        return Outcome(0.0)

    executor, outcomes = _run_all(
        tmp_path, [_job("writer", 1), _job("reader", 1, after=("writer",))], 1, runner
    )
    assert isinstance(outcomes["writer"].error, FileNotFoundError)
    assert outcomes["reader"].error is None and executor.started == ["writer", "reader"]


@dataclasses.dataclass
class _Record:  # a jupyter-cache record, as durations reads one
    uri: str
    data: dict[str, Any] | None
    created: int


def test_last_runs_come_from_the_cache_then_the_last_site(tmp_path: Path) -> None:
    provenance = tmp_path / "provenance.json"
    provenance.write_text(
        json.dumps(
            {
                "notebooks": {
                    "notebooks/a": {"duration_s": 4.0},
                    "notebooks/b": {"duration_s": 2.5},
                    "notebooks/c": {"status": "not executed", "duration_s": None},
                }
            }
        )
    )
    records = [
        _Record("/s/a.md", {"execution_seconds": 7.0}, created=2),
        _Record("/s/a.md", {"execution_seconds": 9.0}, created=1),  # older: the newer one counts
        _Record("/s/gone.md", {"execution_seconds": 1.0}, created=1),  # no such page now
        _Record("/s/c.md", None, created=1),
    ]
    pages = {"/s/a.md": "notebooks/a", "/s/b.md": "notebooks/b", "/s/c.md": "notebooks/c"}
    assert durations.last_runs(records, pages, provenance) == {
        "notebooks/a": 7.0,
        "notebooks/b": 2.5,
    }


def test_a_missing_or_broken_provenance_knows_no_durations(tmp_path: Path) -> None:
    broken = tmp_path / "provenance.json"
    broken.write_text('{"notebooks": {"notebooks/a": ')  # cut short
    assert durations.from_provenance(broken) == {}
    assert durations.from_provenance(tmp_path / "missing.json") == {}
    broken.write_text(json.dumps({"notebooks": {"notebooks/a": {"duration_s": "fast"}}}))
    assert durations.from_provenance(broken) == {}


def test_a_kernel_gets_no_jobserver_of_make() -> None:
    from trtdocs.notebooks.execute import kernel_environ

    base = {"PATH": "/usr/bin", "MAKEFLAGS": " -j2 --jobserver-auth=fifo:/tmp/x", "MAKELEVEL": "1"}
    env = kernel_environ(base, {"EXECUTORCH_CXX_PREFIX": "/opt/et"})
    assert env == {"PATH": "/usr/bin", "EXECUTORCH_CXX_PREFIX": "/opt/et"}
    assert base["MAKEFLAGS"]  # the build's own environment keeps it
