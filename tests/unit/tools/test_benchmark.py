"""The pure parts of benchmarks/build_bench.py: statistics, targets, edits, table."""

from __future__ import annotations

import tomllib

import pytest

from scripts import load

bench = load("build_bench")

NOTEBOOK = """\
---
jupytext:
  text_representation:
    extension: .md
---

# Title

Text.

```{code-cell} ipython3
:tags: [hide-output]
x = 1
x
```

```{code-cell} ipython3
y = 2
```
"""


def test_summary_median_and_spread():
    s = bench.Summary((4.0, 1.0, 2.0))
    assert (s.median_s, s.min_s, s.max_s, s.spread_s) == (2.0, 1.0, 4.0, 3.0)
    assert bench.Summary((1.0, 3.0)).median_s == 2.0
    assert s.to_json()["runs"] == 3


def test_targets_follow_the_raw_execution_times():
    t = bench.targets(20.0, {"notebooks/a": 8.0, "notebooks/b": 2.0}, "notebooks/a")
    assert t["cold"].limit_s == pytest.approx(0.7 * 20.0)
    assert (t["check"].limit_s, t["test"].limit_s) == (30.0, 240.0)
    assert t["noop"].limit_s == 1.5
    assert t["edit-code"].limit_s == 11.0
    assert t["noop"].verdict(1.5) == "pass"
    assert t["noop"].verdict(1.51) == "miss"


def test_edit_data_target_is_noop_plus_slack_and_no_execution():
    t = bench.targets(20.0, {"notebooks/a": 8.0}, "notebooks/a")["edit-data"]
    assert t.limit_s == bench.NOOP_LIMIT_S + bench.EDIT_SLACK_S == 4.5
    assert "no notebook executes" in t.rule
    assert t.verdict(4.5, [[], []]) == "pass"
    assert t.verdict(4.51, [[], []]) == "miss"
    # fast, but a notebook executed in one run: the cache missed
    assert t.verdict(2.0, [[], ["notebooks/troubleshooting"]]) == "miss"
    # the other targets look only at the time
    assert (
        bench.targets(20.0, {"notebooks/a": 8.0}, "notebooks/a")["edit-code"].verdict(
            9.0, [["notebooks/a"]]
        )
        == "pass"
    )


def test_targets_skip_an_edit_whose_notebook_did_not_run():
    t = bench.targets(5.0, {}, "notebooks/a")
    assert "edit-code" not in t and "edit-data" in t


def test_edit_code_goes_after_the_options_of_the_first_cell():
    out = bench.edit_code(NOTEBOOK, "m1")
    lines = out.splitlines()
    first = lines.index("```{code-cell} ipython3")
    assert lines[first + 1] == ":tags: [hide-output]"
    assert lines[first + 2] == "_benchmark_edit = 'm1'"
    assert lines[first + 3] == "x = 1"
    # everything else is unchanged
    assert out.replace("_benchmark_edit = 'm1'\n", "") == NOTEBOOK


def test_edit_code_needs_a_code_cell():
    with pytest.raises(ValueError, match="code-cell"):
        bench.edit_code("# only text\n", "m")


def test_markdown_and_data_edits_only_append():
    md = bench.edit_markdown(NOTEBOOK, "m2")
    assert md.startswith(NOTEBOOK.rstrip("\n")) and md.endswith("Benchmark edit m2.\n")
    toml = '[[errors]]\nsymptom = "x"\n'
    edited = bench.edit_data(toml, "m3")
    assert edited == toml + "# benchmark edit m3\n"
    assert tomllib.loads(edited) == tomllib.loads(toml)


def test_edit_data_file_is_read_by_the_data_page():
    """The page edit-data expects to be re-read has the {data-table} of that file."""
    data = bench.ROOT / bench.EDIT_DATA
    page = (bench.ROOT / f"{bench.DATA_PAGE}.md").read_text(encoding="utf-8")
    assert f"```{{data-table}} {data.stem}\n" in page
    edited = bench.edit_data(data.read_text(encoding="utf-8"), "m4")
    assert tomllib.loads(edited) == tomllib.loads(data.read_text(encoding="utf-8"))


def test_progress_documents_come_from_sphinx_progress_lines():
    output = "\n".join(
        [
            "updating environment: 0 added, 2 changed, 0 removed",
            "reading sources... [ 50%] notebooks/troubleshooting",
            "reading sources... [100%] index",
            "",
            "writing output... ",
            "writing output... [ 33%] index",
            "writing output... [100%] notebooks/troubleshooting",
        ]
    )
    assert bench.progress_documents(output) == (
        ["index", "notebooks/troubleshooting"],
        ["index", "notebooks/troubleshooting"],
    )
    assert bench.progress_documents("build succeeded.") == ([], [])
    # with FORCE_COLOR: one rewritten line, escape codes around the names
    coloured = (
        "\x1b[2K\x1b[01mreading sources... \x1b[39;49;00m[100%] \x1b[32mnotebooks/troubleshooting"
        "\x1b[39;49;00m\r\n"
    )
    assert bench.progress_documents(coloured) == (["notebooks/troubleshooting"], [])


def test_check_data_page_stops_when_the_page_was_not_rebuilt(tmp_path):
    page = bench.DATA_PAGE
    bench.check_data_page(
        bench.Step(1.0, [], read=[page], written=["index", page]), tmp_path / "x.log"
    )
    with pytest.raises(bench.BenchError, match="not read or written"):
        bench.check_data_page(bench.Step(1.0, []), tmp_path / "x.log")
    with pytest.raises(bench.BenchError, match="not written"):
        bench.check_data_page(bench.Step(1.0, [], read=[page]), tmp_path / "x.log")


def test_executed_notebooks_come_from_mystnb_log_lines(tmp_path):
    output = "\n".join(
        [
            f"{tmp_path}/notebooks/a.md: Executing notebook using local CWD [mystnb]",
            f"{tmp_path}/notebooks/a.md: Executed notebook in 18.04 seconds [mystnb]",
            f"{tmp_path}/notebooks/b.md: Using cached notebook: ID=2 [mystnb]",
            "notebooks/c.ipynb: Executed notebook in 1.50 seconds [mystnb]",
            f"{tmp_path}/notebooks/d.md: Executing notebook failed: CellExecutionError [mystnb]",
        ]
    )
    assert bench.executed_notebooks(output, tmp_path) == {"notebooks/a": 18.04, "notebooks/c": 1.5}
    assert bench.executed_notebooks("build succeeded.", tmp_path) == {}


def test_format_table_lines_up_and_shows_verdicts():
    rows = [
        {
            "id": "noop",
            "median_s": 2.0,
            "min_s": 1.5,
            "max_s": 2.5,
            "runs": 2,
            "target": {"rule": "<= 3 s", "verdict": "pass"},
        },
        {"id": "raw", "median_s": 12.25, "min_s": 12.0, "max_s": 12.5, "runs": 2},
    ]
    text = bench.format_table(rows).splitlines()
    assert len(text) == 4
    assert len({len(line.rstrip()) for line in text[:2]}) == 1
    assert bench.LABELS["noop"] in text[2] and text[2].rstrip().endswith("pass")
    assert "12.2" in text[3] or "12.3" in text[3]


def test_summarize_builds_rows_targets_and_carries_the_venv():
    def step(seconds, executed=()):
        return bench.Step(seconds, list(executed))

    runs = [
        {
            "steps": {
                "cold": step(30.0, ["notebooks/a", "notebooks/b"]),
                "noop": step(2.0),
                "edit-code": step(9.0, ["notebooks/a"]),
                "edit-markdown": step(2.5),
                "edit-data": step(4.0, ["notebooks/b"]),
            },
            "raw": {"notebooks/a": 7.0, "notebooks/b": 3.0},
            "cold_durations": {"notebooks/a": 6.0, "notebooks/b": 2.5},
        }
    ]
    previous = {
        "venv": {"id": "venv", "median_s": 120.0, "measured_at": "2026-12-01T00:00:00+00:00"}
    }
    tests = [
        {
            "check": bench.Step(29.0, [], result="412 passed in 28.1s", load=0.5),
            "test": bench.Step(640.0, [], failed=True, result="1 failed, 600 passed", load=2.1),
        }
    ]
    out = bench.summarize(runs, [], [], "notebooks/a.md", previous, tests=tests)
    by_id = {r["id"]: r for r in out["rows"]}
    assert (
        by_id["cold"]["target"]["limit_s"] == 7.0 and by_id["cold"]["target"]["verdict"] == "miss"
    )
    assert by_id["check"]["target"]["verdict"] == "pass" and by_id["check"]["load_1m"] == [0.5]
    assert by_id["test"]["target"]["verdict"] == "miss" and by_id["test"]["failed"] == [True]
    assert by_id["test"]["result"] == ["1 failed, 600 passed"]
    assert (
        by_id["edit-code"]["target"]["limit_s"] == 10.0
        and by_id["edit-code"]["target"]["verdict"] == "pass"
    )
    assert by_id["raw"]["median_s"] == 10.0
    assert by_id["edit-code"]["executed"] == [["notebooks/a"]]
    # in time, but a notebook executed: the edit-data target is missed
    assert (
        by_id["edit-data"]["target"]["limit_s"] == 4.5
        and by_id["edit-data"]["target"]["verdict"] == "miss"
    )
    assert by_id["edit-data"]["read"] == [[]]
    assert out["venv"]["carried"] is True and out["venv"]["median_s"] == 120.0
    assert out["notebooks"]["notebooks/a"]["build_duration_s"] == [6.0]


def test_orphan_copy_marks_the_front_matter():
    out = bench.orphan_copy(NOTEBOOK)
    assert out.startswith("---\norphan: true\njupytext:")
    assert out.endswith(NOTEBOOK[4:])
    with pytest.raises(ValueError, match="front matter"):
        bench.orphan_copy("# no front matter\n")


def test_pad_notebooks_copies_only_notebooks_with_code(tmp_path):
    nb = tmp_path / "notebooks"
    nb.mkdir()
    (nb / "a.md").write_text(NOTEBOOK)
    (nb / "text-only.md").write_text("---\ntitle: x\n---\n# Text\n")
    added = bench.pad_notebooks(tmp_path, 2)
    assert added == ["notebooks/zz-copy0-a.md", "notebooks/zz-copy1-a.md"]
    copies = [(nb / name).read_text() for name in ("zz-copy0-a.md", "zz-copy1-a.md")]
    assert copies[1] == bench.edit_code(bench.orphan_copy(NOTEBOOK), "copy1")
    assert copies[0] != copies[1]  # each copy executes instead of matching a cached one
    assert bench.pad_notebooks(tmp_path, 0) == []


def test_summarize_orders_parallel_rows_after_cold():
    step = bench.Step
    runs = [
        {
            "steps": {
                k: step(1.0, [])
                for k in ("cold", "noop", "edit-code", "edit-markdown", "edit-data")
            },
            "raw": {"notebooks/a": 1.0},
            "cold_durations": {},
        }
    ]
    parallel = [
        {
            "cold-j2": step(2.0, []),
            "padded-j1": step(3.0, []),
            "padded-j2": step(2.5, [], locked=True),
        }
    ]
    out = bench.summarize(runs, parallel, [], "notebooks/a.md", None, copies=2)
    assert [r["id"] for r in out["rows"]][:4] == ["cold", "cold-j2", "padded-j1", "padded-j2"]
    padded = out["rows"][3]
    assert padded["database_locked"] is True and "plus 2 copies" in padded["label"]


def test_edit_cpp_changes_the_main_cpp_run_cpp_writes():
    text = (bench.ROOT / bench.CPP_NOTEBOOK).read_text(encoding="utf-8")
    edited = bench.edit_cpp(text, "m1")
    lines = edited.splitlines()
    at = lines.index("// benchmark edit m1")
    assert lines[at - 1] == "%%writefile main.cpp"
    assert len(lines) == len(text.splitlines()) + 1
    with pytest.raises(bench.BenchError, match="main.cpp"):
        bench.edit_cpp("# no C++ here\n", "m1")


def test_summarize_adds_the_cpp_rows_when_measured():
    step = bench.Step
    runs = [
        {
            "steps": {
                k: step(1.0, [])
                for k in ("cold", "noop", "edit-code", "edit-markdown", "edit-data", "edit-cpp")
            },
            "raw": {"notebooks/a": 1.0},
            "cold_durations": {},
            "cpp": {"cpp-configure": 1.5, "cpp-build": 9.0},
        }
    ]
    rows = {r["id"]: r for r in bench.summarize(runs, [], [], "notebooks/a.md", None)["rows"]}
    assert rows["cpp-build"]["median_s"] == 9.0 and rows["cpp-configure"]["median_s"] == 1.5
    assert rows["edit-cpp"]["label"] == bench.LABELS["edit-cpp"]
