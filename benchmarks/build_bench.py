#!/usr/bin/env python3
"""Measure how long building this site takes on the current machine.

Each run works on a scratch ``git clone`` of the repository in a temporary
folder, so the edits it makes never touch your checkout; the clone is deleted
afterwards. One run measures, in order:

* ``cold``: ``make html`` in the fresh clone (empty ``_build``: every notebook
  executes), reusing the shared venv;
* ``noop``: ``make html`` again with nothing changed;
* ``edit-code``: after adding one line to a code cell of one notebook;
* ``edit-markdown``: after adding a sentence of Markdown text to that notebook;
* ``edit-data``: after adding a comment line to a data file that a
  ``{data-table}`` directive reads (``docs/data/errors.toml``, the table of
  notebooks/troubleshooting): that page is read and written again, and no
  notebook executes (its code is unchanged, so it comes from the cache); the
  benchmark stops if the page is not read and written again, since the
  scenario would then measure nothing;
* ``edit-cpp``: after adding a comment line to the ``main.cpp`` that
  notebooks/run-cpp writes (its cache key changes: it exports, configures,
  builds and runs again);
* ``raw``: the same notebooks executed with nbclient outside Sphinx, one
  kernel each, in reading order, all in one empty folder (pages hand files on
  in ``programs/`` there), cells the build skipped skipped too, with
  ``EXECUTORCH_CXX_PREFIX`` where the Makefile points it (run-cpp builds
  against ExecuTorch's C++ package);
* ``check`` and ``test``: ``make check`` (the pure tests) and ``make test``
  (every tier: the real site built cold, since a fresh clone has no execution
  cache) in another fresh clone; ``--skip-tests`` leaves them out;
* ``cpp-configure`` and ``cpp-build``: the C++ project of notebooks/run-cpp
  (its ungated ``%%writefile`` cells) configured and built alone, with the docs
  venv's CMake and Ninja against ExecuTorch's C++ package (``<venv>/cxx``).
  ``--cpp-only`` measures just these two, on the checkout, and prints them.

Optional, because they are slow:

* ``--with-venv``: ``make venv`` into a throwaway ``VENV_ROOT`` (about 6 GB and
  2 minutes), deleted afterwards. Without it, the venv row of the previous
  results file is carried over with its own date.
* ``--parallel``: a second cold build per run with ``SPHINXOPTS="-j 2"``; the
  output is searched for "database is locked" (jupyter-cache's SQLite).

It prints a table with each scenario's median and spread over ``--runs`` runs,
evaluates the build-speed targets, and writes JSON (default
``benchmarks/results/latest.json``, which docs/building.md renders).

Run it with any Python 3.11+; it finds the docs venv through the Makefile.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "latest.json"
SCHEMA = 1

# The notebook whose code and text the edit scenarios change, and the data
# file that edit-data changes, with the page whose {data-table} reads it.
EDIT_NOTEBOOK = "notebooks/export-on-cpu.md"
EDIT_DATA = "docs/data/errors.toml"
DATA_PAGE = "notebooks/troubleshooting"
# The notebook that builds a C++ project, and the file of it that edit-cpp changes.
CPP_NOTEBOOK = "notebooks/run-cpp.md"
CPP_EDIT_FILE = "main.cpp"
CXX_PREFIX_ENV = "EXECUTORCH_CXX_PREFIX"  # where run-cpp finds ExecuTorch's C++ package
_WRITEFILE = re.compile(r"^%%writefile\s+(?P<file>[\w.-]+)\s*$")  # a file of the project folder

LOCK_ERROR = "database is locked"

# Scenario ids in table order, with the words the table shows.
LABELS: dict[str, str] = {
    "venv": "Create the venv (make venv, empty VENV_ROOT)",
    "cold": "Cold build, clean clone (make html)",
    "cold-j2": "Cold build, -j 2",
    "padded-j1": "Cold build, each notebook plus {copies} copies, -j 1",
    "padded-j2": "Cold build, each notebook plus {copies} copies, -j 2",
    "noop": "No-op rebuild",
    "edit-code": "Rebuild after editing one notebook's code",
    "edit-markdown": "Rebuild after editing one notebook's Markdown",
    "edit-data": "Rebuild after editing a data file a page's table reads",
    "edit-cpp": "Rebuild after editing the C++ source run-cpp builds",
    "cpp-configure": "run-cpp's C++ project alone: cmake configure",
    "cpp-build": "run-cpp's C++ project alone: cmake --build",
    "raw": "Raw execution of the notebooks with nbclient",
    "check": "make check (the pure tests)",
    "test": "make test (every tier, the real site cold)",
}

# Targets on the 2-core CI machine (issues 8 and 21; issue 29 for the no-op, the
# edit, make check and make test): the cold build runs independent notebooks at
# once, so it takes less than their sum.
COLD_FACTOR = 0.7
COLD_SLACK_S = 0.0
NOOP_LIMIT_S = 1.5
EDIT_SLACK_S = 3.0
CHECK_LIMIT_S = 30.0
TEST_LIMIT_S = 240.0


# -- Pure parts (unit-tested in tests/unit/tools/test_benchmark.py) ----------------------


@dataclasses.dataclass(frozen=True)
class Summary:
    """Median and spread of one scenario's wall times."""

    # wall-clock seconds of each run, in run order
    times_s: tuple[float, ...]

    @property
    def median_s(self) -> float:
        return statistics.median(self.times_s)

    @property
    def min_s(self) -> float:
        return min(self.times_s)

    @property
    def max_s(self) -> float:
        return max(self.times_s)

    @property
    def spread_s(self) -> float:
        return self.max_s - self.min_s

    def to_json(self) -> dict[str, Any]:
        return {
            "times_s": [round(t, 2) for t in self.times_s],
            "median_s": round(self.median_s, 2),
            "min_s": round(self.min_s, 2),
            "max_s": round(self.max_s, 2),
            "spread_s": round(self.spread_s, 2),
            "runs": len(self.times_s),
        }


@dataclasses.dataclass(frozen=True)
class Target:
    rule: str
    limit_s: float
    # the target also requires that no run of the scenario executed a notebook
    no_execution: bool = False

    def verdict(self, median_s: float, executed: Sequence[Sequence[str]] = ()) -> str:
        """``pass`` or ``miss``; ``executed`` is the notebooks each run executed."""
        if median_s > self.limit_s:
            return "miss"
        if self.no_execution and any(executed):
            return "miss"
        return "pass"


def targets(
    raw_total_s: float, raw_by_notebook: dict[str, float], edited: str
) -> dict[str, Target]:
    """The issue's targets, as limits computed from the raw execution medians."""
    cold_rule = f"<= {COLD_FACTOR} x raw execution ({raw_total_s:.1f} s)"
    found: dict[str, Target] = {
        "cold": Target(
            cold_rule + (f" + {COLD_SLACK_S:g} s" if COLD_SLACK_S else ""),
            COLD_FACTOR * raw_total_s + COLD_SLACK_S,
        ),
        "noop": Target(f"<= {NOOP_LIMIT_S:g} s", NOOP_LIMIT_S),
        "check": Target(f"<= {CHECK_LIMIT_S:g} s", CHECK_LIMIT_S),
        "test": Target(f"<= {TEST_LIMIT_S:g} s", TEST_LIMIT_S),
        # a data file changes a page's table, not its code: the no-op time plus
        # the slack of an edit, and its notebook comes from the cache
        "edit-data": Target(
            f"<= no-op limit ({NOOP_LIMIT_S:g} s) + {EDIT_SLACK_S:g} s, no notebook executes",
            NOOP_LIMIT_S + EDIT_SLACK_S,
            no_execution=True,
        ),
    }
    if edited in raw_by_notebook:
        found["edit-code"] = Target(
            f"<= {edited} execution ({raw_by_notebook[edited]:.1f} s) + {EDIT_SLACK_S:g} s",
            raw_by_notebook[edited] + EDIT_SLACK_S,
        )
    return found


_FENCE = re.compile(r"^```\{code-cell\}")


def edit_code(text: str, marker: str) -> str:
    """Add an assignment as the first line of the first code cell.

    The line goes after the cell's option lines (``:key: value``) and before
    its code, so the cell's displayed result stays the same.
    """
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            j = i + 1
            while j < len(lines) and lines[j].startswith(":"):
                j += 1
            lines.insert(j, f"_benchmark_edit = {marker!r}\n")
            return "".join(lines)
    raise ValueError("no ```{code-cell} block to edit")


def edit_markdown(text: str, marker: str) -> str:
    """Add a paragraph of text after everything else."""
    return text.rstrip("\n") + f"\n\nBenchmark edit {marker}.\n"


def edit_data(text: str, marker: str) -> str:
    """Add a TOML comment line: the file changes, the table it holds does not."""
    return text.rstrip("\n") + f"\n# benchmark edit {marker}\n"


_EXECUTED = re.compile(
    r"^(?P<path>\S+?)\.(?:md|ipynb): Executed notebook in (?P<s>[\d.]+) seconds", re.M
)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Sphinx's progress lines, one a document when its output is not a terminal
_PROGRESS = re.compile(
    r"^(?P<what>reading sources|writing output)\.\.\. \[\s*\d+%\] (?P<doc>\S+)\s*$", re.M
)


def edit_cpp(text: str, marker: str) -> str:
    """Add a comment line to the C++ file run-cpp writes (after its %%writefile line)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        m = _WRITEFILE.match(line.strip())
        if m and m["file"] == CPP_EDIT_FILE:
            lines.insert(i + 1, f"// benchmark edit {marker}\n")
            return "".join(lines)
    raise BenchError(f"no '%%writefile {CPP_EDIT_FILE}' cell in {CPP_NOTEBOOK}")


def orphan_copy(text: str) -> str:
    """The notebook with ``orphan: true`` in its front matter (no toctree needs it)."""
    if not text.startswith("---\n"):
        raise ValueError("the notebook has no front matter")
    return "---\norphan: true\n" + text[len("---\n") :]


def executed_notebooks(output: str, srcdir: Path) -> dict[str, float]:
    """The notebooks a build executed, from myst-nb's log lines, with their seconds.

    A notebook taken from the cache logs "Using cached notebook" instead.
    """
    found = {}
    for m in _EXECUTED.finditer(output):
        path = Path(m["path"])
        doc = (
            path.relative_to(srcdir) if path.is_absolute() and path.is_relative_to(srcdir) else path
        )
        found[doc.as_posix()] = float(m["s"])
    return dict(sorted(found.items()))


def progress_documents(output: str) -> tuple[list[str], list[str]]:
    """The documents a serial build read and wrote, from Sphinx's progress lines."""
    found: dict[str, list[str]] = {"reading sources": [], "writing output": []}
    # with colour (FORCE_COLOR), Sphinx rewrites one line: escape codes and "\r"
    plain = _ANSI.sub("", output).replace("\r", "\n")
    for m in _PROGRESS.finditer(plain):
        found[m["what"]].append(m["doc"])
    return sorted(set(found["reading sources"])), sorted(set(found["writing output"]))


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """A plain-text table of scenario rows (``to_json`` of a Summary, plus id and target)."""
    head = ("Scenario", "Median s", "Min s", "Max s", "Runs", "Target", "Verdict")
    body = [
        (
            r.get("label") or LABELS.get(r["id"], r["id"]),
            f"{r['median_s']:.1f}",
            f"{r['min_s']:.1f}",
            f"{r['max_s']:.1f}",
            str(r["runs"]),
            (r.get("target") or {}).get("rule", "-"),
            (r.get("target") or {}).get("verdict", "-"),
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in (head, *body)) for i in range(len(head))]
    fmt = "  ".join(f"{{:{'>' if 1 <= i <= 4 else '<'}{w}}}" for i, w in enumerate(widths))
    return "\n".join(
        [
            fmt.format(*head),
            fmt.format(*("-" * w for w in widths)),
            *(fmt.format(*row) for row in body),
        ]
    )


# -- The machine ------------------------------------------------------------------


def machine() -> dict[str, Any]:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_gb = None
    try:
        memory_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        pass
    return {
        "cpu_model": model,
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "memory_gb": memory_gb,
        "platform": platform.platform(),
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
    }


# -- Running things ---------------------------------------------------------------


class BenchError(RuntimeError):
    pass


def _run(
    cmd: Sequence[str], cwd: Path, log: Path, env: dict[str, str] | None = None
) -> tuple[float, str]:
    """Run ``cmd``; return its wall time and output. A failure stops the benchmark."""
    start = time.perf_counter()
    proc = subprocess.run(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    log.write_text(proc.stdout)
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.splitlines()[-40:])
        raise BenchError(
            f"{' '.join(cmd)} failed in {cwd} (exit {proc.returncode}); log {log}:\n{tail}"
        )
    return elapsed, proc.stdout


def _make_env() -> dict[str, str]:
    env = dict(os.environ)
    for name in (
        "SPHINXOPTS",
        "REQUIRE_ALL",
        "TRTDOCS_RECORD",
        "TRTDOCS_DISABLE",
        "BUILDDIR",
        "VENV",
        "TESTS",
        "TRTDOCS_BUILT_SITE",
        "TRTDOCS_SITE_SOURCE",
        "TRTDOCS_JOBS",
    ):
        env.pop(name, None)
    return env


def venv_dir(clone: Path) -> Path:
    out = subprocess.run(
        ["make", "-s", "--eval", "print-venv: ; @echo $(VENV)", "print-venv"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Path(out)


def _provenance(clone: Path) -> dict[str, Any]:
    return json.loads((clone / "_build" / "html" / "provenance.json").read_text())


def _clone(source: Path, dest: Path) -> None:
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(source), str(dest)], check=True
    )


@dataclasses.dataclass
class Step:
    seconds: float
    executed: list[str]
    locked: bool = False
    # the documents the build read and wrote (Sphinx's progress lines)
    read: list[str] = dataclasses.field(default_factory=list)
    written: list[str] = dataclasses.field(default_factory=list)
    failed: bool = False  # make check / make test: a test failed (the time still counts)
    result: str = ""  # their summary line ("412 passed in 41.20s")
    load: float | None = (
        None  # the machine's 1-minute load average when the step started (it is shared)
    )


def shared_venv_stamp(clone: Path) -> Path:
    """The shared venv's stamp; the benchmark never creates or replaces that venv.

    A fresh clone's requirements files are newer than the stamp, which an
    older Makefile takes as a reason to rebuild the shared venv in place, so
    every build runs with ``make -o <stamp>`` (the stamp counts as up to date).
    """
    stamp = venv_dir(clone) / ".complete"
    if not stamp.is_file():
        raise BenchError(
            f"the docs venv {stamp.parent} is missing or incomplete: run `make venv` first "
            "(the benchmark times only builds; --with-venv times a throwaway venv)"
        )
    return stamp


def timed_build(clone: Path, logs: Path, name: str, extra: Sequence[str] = ()) -> Step:
    stamp = shared_venv_stamp(clone)
    load = _load()
    seconds, output = _run(
        ["make", "-o", str(stamp), "html", *extra], clone, logs / f"{name}.log", _make_env()
    )
    read, written = progress_documents(output)
    return Step(
        seconds,
        list(executed_notebooks(output, clone)),
        LOCK_ERROR in output,
        read,
        written,
        load=load,
    )


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _edit(path: Path, change: Callable[[str, str], str], marker: str) -> None:
    path.write_text(change(path.read_text(encoding="utf-8"), marker), encoding="utf-8")


def one_run(source: Path, scratch: Path, index: int, edit_notebook: str) -> dict[str, Any]:
    clone = scratch / f"run{index}"
    logs = scratch / f"logs{index}"
    logs.mkdir()
    _clone(source, clone)
    shared_venv_stamp(clone)
    marker = f"run{index}-{time.time_ns()}"
    steps: dict[str, Step] = {}
    steps["cold"] = timed_build(clone, logs, "cold")
    cold_durations = {
        doc: e.get("duration_s") for doc, e in _provenance(clone)["notebooks"].items()
    }
    steps["noop"] = timed_build(clone, logs, "noop")
    _edit(clone / edit_notebook, edit_code, marker)
    steps["edit-code"] = timed_build(clone, logs, "edit-code")
    _edit(clone / edit_notebook, edit_markdown, marker)
    steps["edit-markdown"] = timed_build(clone, logs, "edit-markdown")
    _edit(clone / EDIT_DATA, edit_data, marker)
    steps["edit-data"] = timed_build(clone, logs, "edit-data")
    check_data_page(steps["edit-data"], logs / "edit-data.log")
    _edit(clone / CPP_NOTEBOOK, edit_cpp, marker)
    steps["edit-cpp"] = timed_build(clone, logs, "edit-cpp")
    raw = raw_execution(clone, logs)
    cpp = cpp_build(clone, logs)
    shutil.rmtree(clone)
    return {"steps": steps, "raw": raw, "cold_durations": cold_durations, "cpp": cpp}


def tests_run(source: Path, scratch: Path, index: int) -> dict[str, Step]:
    """``make check``, then ``make test`` (its real site cold), in a fresh clone.

    A failing test run is timed too (its row says so); it does not stop the benchmark.
    """
    clone = scratch / f"tests{index}"
    logs = scratch / f"testlogs{index}"
    logs.mkdir()
    _clone(source, clone)
    stamp = shared_venv_stamp(clone)
    steps = {}
    try:
        for name in ("check", "test"):
            load = _load()
            start = time.perf_counter()
            proc = subprocess.run(
                ["make", "-o", str(stamp), name],
                cwd=clone,
                env=_make_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                check=False,
            )
            seconds = time.perf_counter() - start
            (logs / f"{name}.log").write_text(proc.stdout)
            steps[name] = Step(
                seconds,
                [],
                failed=proc.returncode != 0,
                result=(proc.stdout.strip().splitlines() or [""])[-1].strip("= "),
                load=load,
            )
    finally:
        shutil.rmtree(clone, ignore_errors=True)
    return steps


def check_data_page(step: Step, log: Path) -> None:
    """Stop unless the edit-data build read and wrote DATA_PAGE again.

    Otherwise the page does not depend on the data file (or the build's
    output changed form), and the scenario would time a no-op rebuild.
    """
    missing = [
        what
        for what, docs in (("read", step.read), ("written", step.written))
        if DATA_PAGE not in docs
    ]
    if missing:
        raise BenchError(
            f"after editing {EDIT_DATA}, {DATA_PAGE} was not {' or '.join(missing)} again "
            f"(read: {step.read or 'nothing'}); log {log}"
        )


def pad_notebooks(clone: Path, copies: int) -> list[str]:
    """Add ``copies`` orphan copies of every notebook with code, named to sort last,
    each with a different first cell so that it executes rather than matching
    the original in the cache.

    Sphinx -j splits the sorted document names into chunks, one process per
    chunk; the copies put notebooks into more than one chunk, so that two
    kernels run at once and both write to jupyter-cache's database.
    """
    added = []
    for path in sorted((clone / "notebooks").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        if "```{code-cell}" not in text:
            continue
        for k in range(copies):
            copy = path.with_name(f"zz-copy{k}-{path.name}")
            # A changed first cell: an unchanged copy would match the original in the cache.
            copy.write_text(edit_code(orphan_copy(text), f"copy{k}"), encoding="utf-8")
            added.append(copy.relative_to(clone).as_posix())
    return added


def parallel_run(source: Path, scratch: Path, index: int, copies: int) -> dict[str, Step]:
    """Cold builds with -j 2; with ``copies``, also -j 1 and -j 2 of a padded site."""
    steps = {}
    builds = [("cold-j2", 0, ["SPHINXOPTS=-j 2"])]
    if copies:
        builds += [("padded-j1", copies, []), ("padded-j2", copies, ["SPHINXOPTS=-j 2"])]
    for name, pad, extra in builds:
        clone = scratch / f"par{index}-{name}"
        logs = scratch / f"parlogs{index}"
        logs.mkdir(exist_ok=True)
        _clone(source, clone)
        try:
            pad_notebooks(clone, pad)
            steps[name] = timed_build(clone, logs, name, extra)
        finally:
            shutil.rmtree(clone)
    return steps


def venv_run(source: Path, scratch: Path, index: int) -> tuple[float, float]:
    """Seconds to create the venv in an empty VENV_ROOT, and its size in GB."""
    clone = scratch / f"venv{index}"
    _clone(source, clone)
    root = scratch / f"venvroot{index}"
    logs = scratch / f"venvlogs{index}"
    logs.mkdir()
    try:
        seconds, _ = _run(
            ["make", "venv", f"VENV_ROOT={root}"], clone, logs / "venv.log", _make_env()
        )
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())
        return seconds, size / 2**30
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(clone, ignore_errors=True)


def raw_execution(clone: Path, logs: Path) -> dict[str, float]:
    """Execute the build's notebooks with nbclient in the docs venv, one kernel each.

    The notebooks are the build's own (``_build/jupyter_execute``), outputs
    cleared; cells the build skipped carry the ``skip-execution`` tag, which
    nbclient skips too. They run in reading order in one empty folder, as the
    build runs them in its run folder, with ExecuTorch's C++ package where the
    Makefile points ``EXECUTORCH_CXX_PREFIX``.
    """
    python = shared_venv_stamp(clone).parent / "bin" / "python"
    notebooks = sorted((clone / "_build" / "jupyter_execute").rglob("*.ipynb"))
    if not notebooks:
        raise BenchError(f"no executed notebooks under {clone / '_build' / 'jupyter_execute'}")
    env = _make_env()
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(clone / "docs" / "_ext"), env.get("PYTHONPATH")])
    )
    env.setdefault(CXX_PREFIX_ENV, str(python.parent.parent / "cxx"))  # the Makefile's default
    _, out = _run(
        [str(python), __file__, "--raw-worker", str(clone), *map(str, notebooks)],
        clone,
        logs / "raw.log",
        env,
    )
    return json.loads(out.strip().splitlines()[-1])


def _raw_worker(clone: Path, notebooks: Sequence[str]) -> None:
    import nbclient
    import nbformat

    from trtdocs.drift.programs import reading_order

    times: dict[str, float] = {}
    base = clone / "_build" / "jupyter_execute"
    order = [p.relative_to(clone).with_suffix("").as_posix() for p in reading_order(clone)]
    docs = {
        Path(name).relative_to(base).with_suffix("").as_posix(): Path(name) for name in notebooks
    }
    # the kernels see what a reader's do: nothing of this repository on their path
    kernel_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryDirectory(prefix="trtdocs-bench-raw-") as folder:
        for doc in sorted(docs, key=lambda d: (order.index(d) if d in order else len(order), d)):
            nb = nbformat.read(docs[doc], as_version=4)
            if not any(c.cell_type == "code" for c in nb.cells):
                continue  # a page without code: the build executes nothing for it
            for cell in nb.cells:
                if cell.cell_type == "code":
                    cell.outputs, cell.execution_count = [], None
            start = time.perf_counter()
            nbclient.NotebookClient(
                nb,
                timeout=600,
                kernel_name="python3",
                skip_cells_with_tag="skip-execution",
                resources={"metadata": {"path": folder}},
            ).execute(env=kernel_env)
            times[doc] = time.perf_counter() - start
    print(json.dumps(times))


def cpp_build(clone: Path, logs: Path) -> dict[str, float]:
    """Seconds to configure and to build run-cpp's C++ project alone (in the docs venv)."""
    python = shared_venv_stamp(clone).parent / "bin" / "python"
    _, out = _run(
        [str(python), __file__, "--cpp-worker", str(clone)], clone, logs / "cpp.log", _make_env()
    )
    return json.loads(out.strip().splitlines()[-1])


def _cpp_worker(clone: Path) -> None:
    import jupytext

    venv = Path(sys.prefix)
    cmake = venv / "bin" / "cmake"
    notebook = jupytext.read(clone / CPP_NOTEBOOK)
    with tempfile.TemporaryDirectory(prefix="trtdocs-bench-cpp-") as tmp:
        project = Path(tmp)
        for cell in notebook.cells:
            first, _, body = cell.source.partition("\n")
            m = _WRITEFILE.match(first.strip())
            if cell.cell_type == "code" and m and "requires" not in cell.metadata:
                (project / m["file"]).write_text(body + "\n", encoding="utf-8")
        if not (project / "CMakeLists.txt").is_file():
            raise BenchError(f"{CPP_NOTEBOOK} writes no CMakeLists.txt")
        env = dict(
            os.environ, PATH=os.pathsep.join([str(venv / "bin"), os.environ.get("PATH", "")])
        )
        times = {}
        for name, cmd in (
            (
                "cpp-configure",
                [
                    cmake,
                    "-S",
                    project,
                    "-B",
                    project / "build",
                    "-G",
                    "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release",
                    f"-DCMAKE_PREFIX_PATH={venv / 'cxx' / 'executorch'}",
                ],
            ),
            ("cpp-build", [cmake, "--build", project / "build"]),
        ):
            start = time.perf_counter()
            subprocess.run(
                [str(c) for c in cmd], env=env, check=True, capture_output=True, text=True
            )
            times[name] = time.perf_counter() - start
    print(json.dumps(times))


# -- Putting it together ----------------------------------------------------------


def _git(source: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=source, capture_output=True, text=True, check=True
    ).stdout.strip()


def summarize(
    runs: list[dict[str, Any]],
    parallel: list[dict[str, Step]],
    venv: list[tuple[float, float]],
    edit_notebook: str,
    previous: dict[str, Any] | None,
    measured_at: str = "",
    copies: int = 0,
    tests: Sequence[dict[str, Step]] = (),
) -> dict[str, Any]:
    edited = edit_notebook.removesuffix(".md")
    rows: list[dict[str, Any]] = []
    raw_docs = sorted(runs[0]["raw"])
    raw_by_nb = {doc: Summary(tuple(r["raw"][doc] for r in runs)) for doc in raw_docs}
    raw_total = Summary(tuple(sum(r["raw"].values()) for r in runs))
    limits = targets(raw_total.median_s, {d: s.median_s for d, s in raw_by_nb.items()}, edited)

    venv_row = None
    if venv:
        venv_row = {
            "id": "venv",
            **Summary(tuple(s for s, _ in venv)).to_json(),
            "size_gb": round(statistics.median(g for _, g in venv), 2),
            "measured_at": measured_at,
            "carried": False,
        }
    elif previous and previous.get("venv"):
        venv_row = {**previous["venv"], "carried": True}

    scenarios = ("cold", "noop", "edit-code", "edit-markdown", "edit-data", "edit-cpp")
    for scenario in (s for s in scenarios if s in runs[0]["steps"]):
        summary = Summary(tuple(r["steps"][scenario].seconds for r in runs))
        row: dict[str, Any] = {
            "id": scenario,
            **summary.to_json(),
            "executed": [r["steps"][scenario].executed for r in runs],
            "load_1m": [r["steps"][scenario].load for r in runs],
        }
        if scenario == "edit-data":
            row["read"] = [r["steps"][scenario].read for r in runs]
        if scenario in limits:
            target = limits[scenario]
            row["target"] = {
                "rule": target.rule,
                "limit_s": round(target.limit_s, 2),
                "verdict": target.verdict(summary.median_s, row["executed"]),
            }
        rows.append(row)
    for offset, scenario in enumerate(sorted(parallel[0]) if parallel else []):
        steps = [p[scenario] for p in parallel]
        summary = Summary(tuple(s.seconds for s in steps))
        rows.insert(
            1 + offset,
            {
                "id": scenario,
                **summary.to_json(),
                "executed": [s.executed for s in steps],
                "load_1m": [s.load for s in steps],
                "database_locked": any(s.locked for s in steps),
            },
        )
    rows.append({"id": "raw", **raw_total.to_json()})
    for scenario in ("check", "test"):
        steps = [p[scenario] for p in tests if scenario in p]
        if steps:
            summary = Summary(tuple(s.seconds for s in steps))
            row = {
                "id": scenario,
                **summary.to_json(),
                "failed": [s.failed for s in steps],
                "result": [s.result for s in steps],
                "load_1m": [s.load for s in steps],
            }
            row["target"] = {
                "rule": limits[scenario].rule,
                "limit_s": round(limits[scenario].limit_s, 2),
                "verdict": limits[scenario].verdict(summary.median_s),
            }
            rows.append(row)
    for scenario in ("cpp-configure", "cpp-build"):
        if all(scenario in r.get("cpp", {}) for r in runs):
            rows.append(
                {"id": scenario, **Summary(tuple(r["cpp"][scenario] for r in runs)).to_json()}
            )

    notebooks = {
        doc: {
            "raw": raw_by_nb[doc].to_json(),
            "build_duration_s": [r["cold_durations"].get(doc) for r in runs],
        }
        for doc in raw_docs
    }
    for row in rows + ([venv_row] if venv_row else []):
        row["label"] = LABELS[row["id"]].format(copies=copies)
    return {
        "rows": rows,
        "notebooks": notebooks,
        "venv": venv_row,
        "database_locked_in_j1": any(r["steps"][s].locked for r in runs for s in r["steps"]),
    }


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each scenario (default 3)")
    parser.add_argument(
        "--with-venv",
        action="store_true",
        help="also time make venv into a throwaway VENV_ROOT (6 GB, ~2 min a run)",
    )
    parser.add_argument(
        "--venv-runs", type=int, default=1, help="runs of the venv creation (default 1)"
    )
    parser.add_argument("--parallel", action="store_true", help="also time cold builds with -j 2")
    parser.add_argument(
        "--parallel-copies",
        type=int,
        default=0,
        metavar="K",
        help="with --parallel, also time -j 1 and -j 2 cold builds of a clone with K extra "
        "copies of each notebook, so that notebooks execute concurrently",
    )
    parser.add_argument(
        "--skip-tests",
        action="store_true",
        help="leave out the make check and make test scenarios (make test takes minutes)",
    )
    parser.add_argument("--edit-notebook", default=EDIT_NOTEBOOK, help=f"default {EDIT_NOTEBOOK}")
    parser.add_argument("--source", type=Path, default=ROOT, help="repository to clone (its HEAD)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument(
        "--note", action="append", default=[], help="a caveat to store with the results"
    )
    parser.add_argument("--logs", type=Path, help="copy every build's log into this folder")
    parser.add_argument(
        "--cpp-only",
        action="store_true",
        help="only configure and build run-cpp's C++ project, on the checkout, and print the times",
    )
    parser.add_argument("--raw-worker", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--cpp-worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.raw_worker:
        _raw_worker(Path(args.raw_worker[0]), args.raw_worker[1:])
        return 0
    if args.cpp_worker:
        _cpp_worker(args.cpp_worker)
        return 0
    if args.cpp_only:
        with tempfile.TemporaryDirectory(prefix="trtdocs-bench-") as tmp:
            times = cpp_build(args.source, Path(tmp))
        rows = [{"id": k, "label": LABELS[k], **Summary((v,)).to_json()} for k, v in times.items()]
        print(format_table(rows))
        return 0
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    previous = json.loads(args.output.read_text()) if args.output.is_file() else None
    info = machine()
    started = _now()
    commit = _git(args.source, "rev-parse", "HEAD")
    print(
        f"benchmarking {args.source} at {commit[:12]} on {info['cpu_model']}, {info['cores']} "
        f"cores; load average {info['load_average_start']}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="trtdocs-bench-") as tmp:
        scratch = Path(tmp)
        venv = []
        for i in range(args.venv_runs if args.with_venv else 0):
            venv.append(venv_run(args.source, scratch, i))
            print(f"venv run {i + 1}: {venv[-1][0]:.1f} s, {venv[-1][1]:.1f} GB", flush=True)
        runs, parallel, tests = [], [], []
        for i in range(args.runs):
            runs.append(one_run(args.source, scratch, i, args.edit_notebook))
            done = ", ".join(f"{k} {s.seconds:.1f} s" for k, s in runs[-1]["steps"].items())
            print(
                f"run {i + 1}/{args.runs}: {done}, raw {sum(runs[-1]['raw'].values()):.1f} s",
                flush=True,
            )
            if args.parallel:
                parallel.append(parallel_run(args.source, scratch, i, args.parallel_copies))
                done = ", ".join(f"{k} {s.seconds:.1f} s" for k, s in parallel[-1].items())
                print(f"run {i + 1}/{args.runs}: {done}", flush=True)
            if not args.skip_tests:
                tests.append(tests_run(args.source, scratch, i))
                done = ", ".join(
                    f"{k} {s.seconds:.1f} s ({s.result})" for k, s in tests[-1].items()
                )
                print(f"run {i + 1}/{args.runs}: {done}", flush=True)
        if args.logs:
            args.logs.mkdir(parents=True, exist_ok=True)
            for log in scratch.glob("*logs*/*.log"):
                shutil.copy2(log, args.logs / f"{log.parent.name}-{log.name}")
    info["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    result = {
        "schema": SCHEMA,
        "measured_at": started,
        "finished_at": _now(),
        "commit": commit,
        "runs": args.runs,
        "parallel_copies": args.parallel_copies if args.parallel else None,
        "edit_notebook": args.edit_notebook,
        "edit_data": EDIT_DATA,
        "data_page": DATA_PAGE,
        "machine": info,
        "notes": args.note,
        **summarize(
            runs, parallel, venv, args.edit_notebook, previous, started, args.parallel_copies, tests
        ),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")

    rows = ([result["venv"]] if result["venv"] else []) + result["rows"]
    print()
    print(format_table(rows))
    if result["venv"] and result["venv"].get("carried"):
        print(f"(venv row carried over from the run of {result['venv'].get('measured_at')})")
    if args.parallel:
        locked = any(s.locked for p in parallel for s in p.values())
        print(f"'{LOCK_ERROR}' in the parallel builds' output: {locked}")
    print(f"\nwrote {args.output}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as exc:
        sys.exit(f"build_bench: {exc}")
