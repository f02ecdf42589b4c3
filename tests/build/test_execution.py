"""How a build runs the notebooks (trtdocs.notebooks.jobs, .execute, .handoffs),
on the execution fixture root (tests/roots/test-execution): before the read,
two at a time, all in the build's run folder; two pages that share nothing run
at once (each waits for the other to start: they end only if they do); ready
pages start longest last run first; a page that reads a file an earlier page
writes runs after it, and runs it again when the file is missing; its cache
key holds the writer's code. And Sphinx's parallel read (``-j 2``) gives the
site the serial read gives. No assertion reads a clock: the order of runs is
what the pages could only do in that order, or what the executor decided."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from sites import Built, build, copy_root

READER_OUTPUT = "handed on by the writer"


def _times(run: Path, page: str) -> tuple[float, float]:
    start, end = (run / f"{page}.times").read_text().split()
    return float(start), float(end)


def _plan(result: Built) -> list[tuple[str, float | None]]:
    """The executor's start order as the build logs it: (page, its last run's seconds or None)."""
    line = re.search(r"executing \d+ notebook\(s\).*longest chain first: (.*)", result.log)
    assert line, result.log
    found = re.findall(r"notebooks/([\w-]+) \((?:last run ([\d.]+) s|no run on record)\)", line[1])
    return [(page, float(seconds) if seconds else None) for page, seconds in found]


def _executed(result: Built) -> set[str]:
    """The pages the build executed (the log line the benchmark reads)."""
    return set(re.findall(r"notebooks/([\w-]+)\.md: Executed notebook in", result.log))


@pytest.fixture(scope="module")
def cold(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    site = copy_root("execution", tmp_path_factory.mktemp("execution"))
    result = build(site, site.parent / "_build")
    assert result.returncode == 0, result.log
    return site, result


def test_every_notebook_runs_in_the_run_folder_and_none_in_the_source(
    cold: tuple[Path, Built],
) -> None:
    site, result = cold
    run = result.outdir.parent / "run"
    assert _executed(result) == {"writer", "reader", "slow-a", "slow-b"}
    assert {p.name for p in run.glob("*.times")} == {"writer.times", "reader.times"}
    assert {p.name for p in run.glob("*.started")} == {"slow-a.started", "slow-b.started"}
    assert (run / "programs" / "handoff.txt").read_text() == READER_OUTPUT
    assert not [
        p for p in site.rglob("*") if p.suffix in (".times", ".started") or p.name == "programs"
    ]
    assert READER_OUTPUT in result.html("notebooks/reader").get_text()


def test_pages_that_share_nothing_run_at_once(cold: tuple[Path, Built]) -> None:
    """Each slow page starts, then waits for the other to start: both end (the
    build passes) only when they ran at once, however loaded the machine."""
    _, result = cold
    assert "slow a ran beside slow b" in result.html("notebooks/slow-a").get_text()
    assert "slow b ran beside slow a" in result.html("notebooks/slow-b").get_text()
    # a cold cache knows no durations: the writer's chain (writer, then reader) goes first
    assert _plan(result) == [("writer", None), ("reader", None), ("slow-a", None), ("slow-b", None)]


def test_pages_start_longest_last_run_first(cold: tuple[Path, Built], tmp_path: Path) -> None:
    """A new build folder whose site (provenance.json) knows the last runs: the
    executor's order follows them, the writer's chain counting the reader's time."""
    site, first = cold
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    shutil.copytree(
        first.outdir, tmp_path / "_build" / "html"
    )  # the last site; no cache: all run again
    last = {
        doc.removeprefix("notebooks/"): entry["duration_s"]
        for doc, entry in json.loads((first.outdir / "provenance.json").read_text())[
            "notebooks"
        ].items()
    }
    result = build(copy, tmp_path / "_build")
    assert result.returncode == 0, result.log
    plan = _plan(result)
    assert dict(plan) == last  # every page's expected time is its last run's
    chain = {
        "writer": last["writer"] + last["reader"],
        "reader": last["reader"],
        "slow-a": last["slow-a"],
        "slow-b": last["slow-b"],
    }
    assert [page for page, _ in plan] == sorted(chain, key=lambda p: (-chain[p], p))


def test_a_page_runs_after_the_page_whose_file_it_reads(cold: tuple[Path, Built]) -> None:
    _, result = cold
    run = result.outdir.parent / "run"
    assert _times(run, "writer")[1] <= _times(run, "reader")[0]


def test_a_reader_in_a_fresh_folder_runs_the_writer_for_its_file(
    cold: tuple[Path, Built], tmp_path: Path
) -> None:
    """A new build folder with the same cache (a CI shard, a clean checkout): the
    edited reader runs, and so does the writer, whose file the folder lacks."""
    site, first = cold
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    reader = copy / "notebooks" / "reader.md"
    reader.write_text(
        reader.read_text().replace("start = time.time()", "start = time.time()  # edited")
    )
    cache = first.outdir.parent / ".jupyter_cache"
    result = build(copy, tmp_path / "_build", nb_execution_cache_path=str(cache))
    assert result.returncode == 0, result.log
    assert _executed(result) == {"reader"} | {"writer"}, result.log
    assert READER_OUTPUT in result.html("notebooks/reader").get_text()


def test_the_writers_code_is_in_the_readers_cache_key(
    cold: tuple[Path, Built], tmp_path: Path
) -> None:
    site, first = cold
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    shutil.copytree(first.outdir.parent, tmp_path / "_build")
    writer = copy / "notebooks" / "writer.md"
    # prose: nothing runs again
    writer.write_text(writer.read_text().replace("Writes a file", "Writes one file"))
    result = build(
        copy,
        tmp_path / "_build",
        nb_execution_cache_path=str(tmp_path / "_build" / ".jupyter_cache"),
    )
    assert result.returncode == 0, result.log
    assert _executed(result) == set(), result.log
    # code: the writer runs again, and so does the page that reads its file
    writer.write_text(writer.read_text().replace("time.sleep(1)", "time.sleep(0)"))
    result = build(
        copy,
        tmp_path / "_build",
        nb_execution_cache_path=str(tmp_path / "_build" / ".jupyter_cache"),
    )
    assert result.returncode == 0, result.log
    assert _executed(result) == {"writer", "reader"}, result.log


_VARIABLE = [
    re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\+00:00|Z)?"),  # when a notebook ran
    re.compile(r"(\bin |\"duration_s\": )\d+(\.\d+)? ?s?"),
    re.compile(r"\d+ min \d+(\.\d+)? s"),
    re.compile(r"\b1\d{9}\.\d+\b"),
]  # the times a page prints


def _pages(html: Path) -> dict[str, str]:
    out = {}
    for path in sorted(html.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        for pattern in _VARIABLE:
            text = pattern.sub("<masked>", text)
        out[path.relative_to(html).as_posix()] = text
    return out


def test_a_parallel_read_gives_the_serial_site(tmp_path: Path) -> None:
    """sphinx-build -j 2: every part of trtdocs says it is parallel_read_safe; the
    tables root (page-needs reads every notebook's plan) reads the same."""
    site = copy_root("tables", tmp_path)
    serial = build(site, tmp_path / "serial")
    # its own execution cache: a page taken from the
    # serial build's would say it ran in an earlier build
    parallel = build(site, tmp_path / "parallel", parallel=2)
    assert serial.returncode == 0 and parallel.returncode == 0, serial.log + parallel.log
    assert (
        parallel.app is not None
        and parallel.app.parallel == 2
        and parallel.app.is_parallel_allowed("read")
    )
    assert _pages(parallel.outdir) == _pages(serial.outdir)
    # the comparison sees one changed word on one page
    changed = tmp_path / "changed"
    shutil.copytree(serial.outdir, changed)
    page = changed / "tables.html"
    text = page.read_text()
    assert "</h1>" in text
    page.write_text(text.replace("</h1>", "</h1><p>One more sentence.</p>", 1))
    assert _pages(changed) != _pages(serial.outdir)
