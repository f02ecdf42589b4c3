"""The build-benchmark directive's text, and the committed results it renders."""

from __future__ import annotations

import json

from paths import BENCHMARKS
from scripts import load
from trtdocs import benchresults

LATEST = BENCHMARKS / "results" / "latest.json"

DATA = {
    "measured_at": "2026-12-02T11:00:00+00:00",
    "commit": "0123456789abcdef",
    "runs": 2,
    "machine": {
        "cpu_model": "Some CPU",
        "cores": 2,
        "memory_gb": 24.0,
        "platform": "Linux",
        "load_average_start": [3.5, 2.0, 1.0],
    },
    "venv": {
        "id": "venv",
        "label": "Create the venv",
        "median_s": 118.04,
        "min_s": 118.04,
        "max_s": 118.04,
        "runs": 1,
        "carried": True,
        "measured_at": "2026-12-01T09:00:00+00:00",
    },
    "rows": [
        {
            "id": "noop",
            "label": "No-op rebuild",
            "median_s": 2.04,
            "min_s": 1.9,
            "max_s": 2.2,
            "runs": 2,
            "target": {"rule": "<= 3 s", "verdict": "pass"},
            "executed": [[], []],
            "load_1m": [0.42, 2.5],
        },
        {
            "id": "edit-code",
            "label": "Edit",
            "median_s": 9.0,
            "min_s": 8.0,
            "max_s": 10.0,
            "runs": 2,
            "executed": [["notebooks/a"], ["notebooks/a", "notebooks/b"]],
        },
        {"id": "raw", "label": "Raw", "median_s": 10.0, "min_s": 9.0, "max_s": 11.0, "runs": 2},
    ],
}


def test_rows_put_the_venv_first_and_say_when_it_was_measured():
    rows = benchresults.table_rows(DATA)
    assert rows[0][0] == "Create the venv (measured 2026-12-01T09:00:00+00:00)"
    assert rows[0][1] == ""
    assert rows[1] == ("No-op rebuild", "0", "2.0", "1.9", "2.2", "2", "<= 3 s", "pass", "0.4, 2.5")
    assert rows[2][1] == "1, 2"
    assert rows[3][6:] == ("", "", "")
    assert len(rows) == 4


def test_machine_text_names_cores_cpu_and_load():
    text = benchresults.machine_text(DATA)
    assert "Some CPU with 2 cores" in text and "0123456789ab" in text and "3.5, 2.0, 1.0" in text


def test_committed_results_render():
    data = json.loads(LATEST.read_text())
    rows = benchresults.table_rows(data)
    ids = [r["id"] for r in data["rows"]]
    assert {"cold", "noop", "edit-code", "edit-markdown", "raw"} <= set(ids)
    assert all(row[2] for row in rows)  # every row has a median
    # scenarios the file predates are named on the page, never filled in
    assert set(benchresults.missing_scenarios(data)) == set(benchresults.SCENARIOS) - set(ids)
    assert benchresults.machine_text(data)


def test_scenarios_match_the_benchmark():
    build_bench = load("build_bench")
    assert set(benchresults.SCENARIOS) <= set(build_bench.LABELS)
