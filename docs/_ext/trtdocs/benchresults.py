"""The ``build-benchmark`` directive: the latest build-speed measurements.

It renders the JSON that ``benchmarks/build_bench.py`` writes (a table of
scenarios with median, spread and targets, and the machine they ran on), so
the numbers on the page always come from a file the script produced. The page
is rebuilt when that file changes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

HEADER = (
    "Scenario",
    "Notebooks executed",
    "Median (s)",
    "Min (s)",
    "Max (s)",
    "Runs",
    "Target",
    "Verdict",
    "Load at start",
)


def _seconds(value: Any) -> str:
    return "" if value is None else f"{value:.1f}"


def table_rows(data: dict[str, Any]) -> list[tuple[str, ...]]:
    """One row of text per scenario: the venv first (when measured), then the rest."""
    rows = ([data["venv"]] if data.get("venv") else []) + list(data["rows"])
    out: list[tuple[str, ...]] = []
    for row in rows:
        label = row.get("label", row["id"])
        if row.get("carried"):
            label += f" (measured {row.get('measured_at', 'earlier')})"
        target = row.get("target") or {}
        # how many notebooks each run executed: "3", or "3, 2" when runs differ
        counts = list(dict.fromkeys(len(e) for e in row.get("executed") or []))
        # the machine is shared: its 1-minute load average when each run of the scenario started
        load = ", ".join(f"{x:.1f}" for x in row.get("load_1m") or [] if x is not None)
        out.append(
            (
                label,
                ", ".join(map(str, counts)),
                _seconds(row.get("median_s")),
                _seconds(row.get("min_s")),
                _seconds(row.get("max_s")),
                str(row.get("runs", "")),
                target.get("rule", ""),
                target.get("verdict", ""),
                load,
            )
        )
    return out


# What benchmarks/build_bench.py measures in every run (tests/unit/tools/test_benchmark_results.py
# checks its LABELS against this). A results file from an older benchmark lacks some.
SCENARIOS: tuple[str, ...] = (
    "cold",
    "noop",
    "edit-code",
    "edit-markdown",
    "edit-data",
    "edit-cpp",
    "raw",
    "cpp-configure",
    "cpp-build",
    "check",
    "test",
)


def missing_scenarios(data: dict[str, Any]) -> list[str]:
    """The scenarios of the current benchmark that these results do not hold."""
    ids = {row["id"] for row in data["rows"]}
    return [s for s in SCENARIOS if s not in ids]


def machine_text(data: dict[str, Any]) -> str:
    m = data["machine"]
    load = m.get("load_average_start")
    text = (
        f"Measured at {data['measured_at']} on commit {data['commit'][:12]}, "
        f"{data['runs']} run(s) of each scenario, on {m['cpu_model']} with {m['cores']} cores "
        f"and {m.get('memory_gb')} GB of memory ({m.get('platform')})."
    )
    if load:
        text += f" Load average when it started: {', '.join(map(str, load))}."
    return text


def _table(rows: list[tuple[str, ...]]) -> nodes.table:
    table = nodes.table(classes=["trtdocs-build-benchmark"])
    group = nodes.tgroup(cols=len(HEADER))
    table += group
    for width in (34, 8, 7, 7, 7, 5, 28, 7, 7):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    body = nodes.tbody()
    group += body
    head += _row(HEADER)
    body.extend(_row(cells) for cells in rows)
    return table


def _row(cells: tuple[str, ...]) -> nodes.row:
    row = nodes.row()
    for text in cells:
        entry = nodes.entry()
        entry += nodes.paragraph(text=text)
        row += entry
    return row


class BuildBenchmark(SphinxDirective):
    """``{build-benchmark} <path to the results JSON, from the source root>``"""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        rel = self.arguments[0]
        path = Path(self.env.srcdir, rel)
        self.env.note_dependency(str(path))
        if not path.is_file():
            # Only before the first benchmark run; tests/unit/tools/test_benchmark_results.py
            # checks that the repository ships the file.
            return [
                nodes.paragraph(
                    text=f"No measurements yet: {rel} does not exist. "
                    "Run benchmarks/build_bench.py to make it."
                )
            ]
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            rows = table_rows(data)
            intro = machine_text(data)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise self.error(
                f"build-benchmark: cannot read {rel}: {exc.__class__.__name__}: {exc}"
            ) from None
        result: list[nodes.Node] = [nodes.paragraph(text=intro), _table(rows)]
        missing = missing_scenarios(data)
        if missing:
            result.append(
                nodes.paragraph(
                    text=(
                        "Not in these results, because the benchmark gained them after this run: "
                        + ", ".join(missing)
                        + ". Run benchmarks/build_bench.py to measure them."
                    )
                )
            )
        for note in data.get("notes", []):
            para = nodes.paragraph(text="Note from that run: ")
            # command-line options stay literal (no smart dashes)
            for i, part in enumerate(re.split(r"(--[\w-]+)", note)):
                para += nodes.literal(text=part) if i % 2 else nodes.Text(part)
            result.append(para)
        return result


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("build-benchmark", BuildBenchmark)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
