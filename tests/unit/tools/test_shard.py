"""tools/shard.py: greedy longest-first packing of notebooks by duration."""

from __future__ import annotations

import json

import pytest

from paths import TOOLS
from scripts import load

shard = load("shard", TOOLS)


def test_longest_first_into_the_least_loaded_shard():
    bins = shard.plan({"a": 10.0, "b": 7.0, "c": 5.0, "d": 4.0, "e": 1.0}, 2)
    assert [b.notebooks for b in bins] == [["a", "d"], ["b", "c", "e"]]
    assert [b.seconds for b in bins] == [14.0, 13.0]


def test_more_shards_than_notebooks_leaves_empty_shards():
    bins = shard.plan({"a": 1.0}, 3)
    assert [b.notebooks for b in bins] == [["a"], [], []]


def test_zero_shards_is_an_error():
    with pytest.raises(ValueError, match="at least 1"):
        shard.plan({"a": 1.0}, 0)


def test_durations_default_for_notebooks_that_did_not_run():
    data = {"notebooks": {"x": {"duration_s": 2.5}, "y": {"status": "not executed"}}}
    assert shard.durations(data, 9.0) == {"x": 2.5, "y": 9.0}
    with pytest.raises(ValueError, match="notebooks"):
        shard.durations({}, 0.0)


def _site(tmp_path, *names):
    (tmp_path / "notebooks").mkdir()
    for name in names:
        (tmp_path / "notebooks" / f"{name}.md").write_text("# page\n")
    return tmp_path


def test_cli_reads_provenance_and_names_a_bad_file(tmp_path, capsys):
    root = _site(tmp_path, "a", "b")
    prov = tmp_path / "provenance.json"
    prov.write_text(
        json.dumps(
            {"notebooks": {"notebooks/a": {"duration_s": 3.0}, "notebooks/b": {"duration_s": 1.0}}}
        )
    )
    assert (
        shard.main(["--root", str(root), "--provenance", str(prov), "--shards", "2", "--json"]) == 0
    )
    plan = json.loads(capsys.readouterr().out)
    assert [p["notebooks"] for p in plan] == [["notebooks/a"], ["notebooks/b"]]
    missing = tmp_path / "nope.json"
    assert shard.main(["--root", str(root), "--provenance", str(missing), "--shards", "2"]) == 2
    assert str(missing) in capsys.readouterr().err


def test_records_weigh_first_and_a_bad_record_is_named(tmp_path, capsys):
    root = _site(tmp_path, "a", "b", "c")
    records = root / "notebooks" / "_recorded"
    records.mkdir()
    record = {
        "metadata": {"trtdocs_record": {"source_hash": "x", "provenance": {"duration_s": 100.0}}}
    }
    (records / "notebooks__c.ipynb").write_text(json.dumps(record))
    out = tmp_path / "github_output"
    assert (
        shard.main(
            ["--root", str(root), "--shards", "2", "--default", "1", "--github-output", str(out)]
        )
        == 0
    )
    lines = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert json.loads(lines["matrix"])["include"] == [
        {"shard": 0, "notebooks": "notebooks/c", "seconds": 100.0},
        {"shard": 1, "notebooks": "notebooks/a notebooks/b", "seconds": 2.0},
    ]
    assert lines["shards"] == "2"
    (records / "notebooks__b.ipynb").write_text("{}")
    assert shard.main(["--root", str(root), "--shards", "2"]) == 2
    assert "notebooks__b.ipynb: not a record" in capsys.readouterr().err


def _notebook(title: str, code: str) -> str:
    return (
        "---\njupytext:\n  text_representation:\n    format_name: myst\nkernelspec:\n  name: "
        f"python3\n---\n# {title}\n\n```{{code-cell}} python\n{code}\n```\n"
    )


def test_pages_that_hand_files_on_share_a_shard(tmp_path, capsys):
    root = _site(tmp_path)
    (root / "index.md").write_text(
        "# Guide\n\n```{toctree}\nnotebooks/a\nnotebooks/b\nnotebooks/c\n```\n"
    )
    notebooks = root / "notebooks"
    (notebooks / "a.md").write_text(_notebook("A", 'open("programs/model.pte", "wb").write(b"x")'))
    (notebooks / "b.md").write_text(_notebook("B", "print(1)"))
    (notebooks / "c.md").write_text(
        _notebook("C", 'print(open("programs/model.pte", "rb").read())')
    )
    assert shard.handoff_groups(root) == [("notebooks/a", "notebooks/c")]
    # by weight alone, a and c (the two longest) would go to different shards
    weights = {"notebooks/a": 10.0, "notebooks/b": 2.0, "notebooks/c": 9.0}
    assert [b.notebooks for b in shard.plan(weights, 2)] == [
        ["notebooks/a"],
        ["notebooks/c", "notebooks/b"],
    ]
    bins = shard.plan(weights, 2, shard.handoff_groups(root))
    assert [b.notebooks for b in bins] == [["notebooks/a", "notebooks/c"], ["notebooks/b"]]
    assert [b.seconds for b in bins] == [19.0, 2.0]
    # the command line reads the groups too (every page at the default weight)
    assert shard.main(["--root", str(root), "--shards", "3", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert [p["notebooks"] for p in plan] == [["notebooks/a", "notebooks/c"], ["notebooks/b"], []]


def test_the_planning_requirements_are_the_docs_venvs_own():
    from importlib import metadata

    from packaging.requirements import Requirement

    from paths import ROOT

    lines = (ROOT / shard.PLAN_REQUIREMENTS).read_text().splitlines()
    pins = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    assert pins, "requirements-plan.txt pins nothing"
    for pin in pins:
        installed = metadata.version(pin.name)
        assert pin.specifier.contains(installed), (
            f"{pin} in {shard.PLAN_REQUIREMENTS}, the docs venv has {installed}"
        )
