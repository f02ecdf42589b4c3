"""The CI pipeline's build steps on CPU-made fixture records: a shard executes
only its notebooks, records expire, the gathering build from two shards' records
gives the site one unsharded run gives, and the nightly comparison reports."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pytest

import records
from paths import TOOLS
from scripts import load
from sites import Built, build, copy_root
from trtdocs.notebooks import recorded

compare_records = load("compare_records", TOOLS)

GPU_PAGES = ["notebooks/alpha", "notebooks/beta", "notebooks/gamma"]  # need executorch>=1.4
# The gathering runner lacks what the recorded pages need (here: the CPU stands
# in for the GPU machines, and the gathering build is told it lacks executorch).
GATHER = {"trtdocs_disable": "executorch>=1.4", "trtdocs_require_outputs": True}


def _record(site: Path, out: Path, records: Path, notebooks: str = "", **settings: object) -> str:
    """What a GPU job runs: make record NOTEBOOKS=... REQUIRE_ALL=1 RECORD_OUT=..."""
    result = build(
        site,
        out,
        trtdocs_record=True,
        trtdocs_require_all=True,
        trtdocs_record_out=str(records),
        trtdocs_notebooks=notebooks,
        **settings,
    )
    assert result.returncode == 0, result.log
    return result.log


def _gather(site: Path, records: list[Path], out: Path, **settings: object) -> Built:
    """What the site job runs: the records downloaded into notebooks/_recorded, make html
    REQUIRE_OUTPUTS=1."""
    target = site / "notebooks" / "_recorded"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    for folder in records:
        for path in folder.glob("*.ipynb"):
            shutil.copy(path, target)
    return build(site, out, env={"CI": "true"}, strict=False, **{**GATHER, **settings})


def _status(out: Path) -> dict[str, str]:
    data = json.loads((out / "html" / "provenance.json").read_text())
    return {doc: entry["status"] for doc, entry in data["notebooks"].items()}


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("pipeline")
    site = copy_root("pipeline", tmp)
    paths = {"site": site, "tmp": tmp}
    for name, notebooks in (
        ("a", "alpha plain"),
        ("b", "notebooks/beta,notebooks/gamma.md"),
        ("all", ""),
    ):
        paths[name] = tmp / f"records-{name}"
        paths[f"log-{name}"] = tmp / f"log-{name}.txt"
        paths[f"log-{name}"].write_text(
            _record(site, tmp / f"build-{name}", paths[name], notebooks)
        )
    return paths


def test_a_shard_executes_and_records_only_its_notebooks(shards: dict[str, Path]) -> None:
    tmp = shards["tmp"]
    assert sorted(p.name for p in shards["a"].iterdir()) == ["notebooks__alpha.ipynb"]
    assert sorted(p.name for p in shards["b"].iterdir()) == [
        "notebooks__beta.ipynb",
        "notebooks__gamma.ipynb",
    ]
    # REQUIRE_ALL held for the shard's pages; the others were left alone, marked why
    status = _status(tmp / "build-a")
    assert status["notebooks/alpha"] == status["notebooks/plain"] == "executed"
    assert status["notebooks/beta"] == status["notebooks/gamma"] == "not executed"
    assert "Executing notebook" not in "".join(
        line
        for line in shards["log-a"].read_text().splitlines()
        if "beta.md" in line or "gamma.md" in line
    )
    page = (tmp / "build-a" / "html" / "notebooks" / "beta.html").read_text()
    assert (
        "not among this build&#39;s NOTEBOOKS" in page or "not among this build's NOTEBOOKS" in page
    )


def test_records_made_on_cpu_say_so(shards: dict[str, Path]) -> None:
    for path in shards["all"].glob("*.ipynb"):
        env = recorded.load(path).provenance["environment"]
        assert env["cuda_available"] is False and env["gpu_name"] is None
        assert env["versions"]["tensorrt"] is None


def test_a_page_outside_the_subset_comes_from_the_cache(shards: dict[str, Path]) -> None:
    """The unsharded build's cache holds every page: a later subset build shows them without
    executing."""
    tmp = shards["tmp"]
    text = _record(shards["site"], tmp / "build-all", tmp / "records-again", "plain")
    assert not any("Executing notebook" in line for line in text.splitlines())
    # beta's newer-release cells do not run on this release, from the cache too
    assert _status(tmp / "build-all") == {
        "notebooks/alpha": "executed",
        "notebooks/beta": "partly executed",
        "notebooks/gamma": "executed",
        "notebooks/plain": "executed",
    }
    assert not (tmp / "records-again").exists()  # recording leaves pages outside the subset alone


def test_a_stale_record_outside_the_subset_is_not_the_shard_s_error(
    shards: dict[str, Path],
) -> None:
    """In CI a stale record fails the build, but not one of a page another shard executes."""
    tmp, site = shards["tmp"], shards["site"]
    target = site / "notebooks" / "_recorded"
    shutil.copytree(shards["all"], target)
    try:
        # what a shard runs: it records alpha again, so alpha's old record is replaced
        result = build(
            site,
            tmp / "build-stale",
            env={"CI": "true"},
            strict=False,
            trtdocs_notebooks="alpha",
            trtdocs_require_all=True,
            trtdocs_record=True,
            trtdocs_record_out=str(tmp / "records-stale"),
            trtdocs_record_max_age_days=0.000001,
        )
        assert result.returncode == 0, result.log
        assert "beta.md:1: WARNING: stale record" in result.log
        assert (
            "alpha.md:1" not in result.log
        )  # executed and recorded again: its old record is replaced
    finally:
        shutil.rmtree(target)


def test_unknown_notebook_name_stops_the_build(shards: dict[str, Path]) -> None:
    result = build(shards["site"], shards["tmp"] / "build-bad", trtdocs_notebooks="alpha nope")
    assert result.returncode != 0 and "NOTEBOOKS names no page of this site: nope" in result.log


def _masked(html: str) -> str:
    html = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+\-]\d\d:\d\d", "<time>", html)
    return re.sub(r"in [\d.]+ s\b", "in <n> s", html)


def test_gathering_two_shards_gives_the_unsharded_site(shards: dict[str, Path]) -> None:
    tmp, site = shards["tmp"], shards["site"]
    sharded = _gather(site, [shards["a"], shards["b"]], tmp / "gather-sharded")
    assert sharded.returncode == 0, sharded.log
    unsharded = _gather(site, [shards["all"]], tmp / "gather-all")
    assert unsharded.returncode == 0, unsharded.log
    assert _status(tmp / "gather-sharded") == {
        "notebooks/alpha": "recorded",
        "notebooks/beta": "recorded",
        "notebooks/gamma": "recorded",
        "notebooks/plain": "executed",
    }
    pages = sorted(
        p.relative_to(tmp / "gather-all" / "html")
        for p in (tmp / "gather-all" / "html").rglob("*.html")
    )
    assert pages == sorted(
        p.relative_to(tmp / "gather-sharded" / "html")
        for p in (tmp / "gather-sharded" / "html").rglob("*.html")
    )
    for page in pages:
        a = _masked((tmp / "gather-sharded" / "html" / page).read_text())
        b = _masked((tmp / "gather-all" / "html" / page).read_text())
        assert a == b, page
    alpha = (tmp / "gather-all" / "html" / "notebooks" / "alpha.html").read_text()
    assert "alpha 42" in alpha
    assert re.search(r"Recorded on .*no CUDA GPU, TensorRT not installed, today\.", alpha)


def test_gathering_fails_on_a_missing_or_stale_record(shards: dict[str, Path]) -> None:
    tmp, site = shards["tmp"], shards["site"]
    missing = _gather(site, [shards["a"]], tmp / "gather-missing")
    assert missing.returncode != 0
    assert "gamma.md:1: ERROR: REQUIRE_OUTPUTS: not executed" in missing.log
    old = _gather(site, [shards["all"]], tmp / "gather-old", trtdocs_record_max_age_days=0.000001)
    assert old.returncode != 0 and "over the 1e-06-day limit" in old.log
    # a record made with a torch outside the documented release's pin
    off_pin = tmp / "records-off-pin"
    shutil.copytree(shards["all"], off_pin)
    records.made_with(off_pin / "notebooks__alpha.ipynb", torch="2.13.0")
    pins = _gather(site, [off_pin], tmp / "gather-pins")
    assert pins.returncode != 0
    assert "alpha.md:1: ERROR: stale record" in pins.log
    assert "made with torch 2.13.0, outside the documented release's" in pins.log


def test_expiry_compares_installed_pins_and_age() -> None:
    now = dt.datetime(2026, 12, 2, tzinfo=dt.UTC)
    # a release's pins, keyed by what they pin (features.model.Release.pins)
    fresh = recorded.Freshness.of_release(
        "2.14.0",
        {
            "torch": ">=2.14.0,<2.15.0",
            "cuda": "13.2",
            "torch-tensorrt-executorch-runtime": "==0.1.0",
        },
        30,
    )
    assert fresh.pins == {
        "torch": ">=2.14.0,<2.15.0",
        "torch_tensorrt_executorch_runtime": "==0.1.0",
        "torch_tensorrt": "==2.14.0",
    }
    prov = {
        "executed_at": "2026-11-30T10:00:00+00:00",
        "environment": {
            "versions": {
                "torch": "2.14.1",
                "torch_tensorrt": "2.14.0",
                "torch_tensorrt_executorch_runtime": None,
            }
        },
    }
    assert recorded.expiry(prov, fresh, now) == []
    prov["environment"]["versions"]["torch"] = "2.15.0.dev20261101"
    prov["executed_at"] = "2026-10-01T00:00:00+00:00"
    assert recorded.expiry(prov, fresh, now) == [
        "made with torch 2.15.0.dev20261101, outside the documented release's >=2.14.0,<2.15.0",
        "made 62 days ago, over the 30-day limit",
    ]
    assert recorded.expiry({}, recorded.Freshness({}, 1), now) == ["it has no execution date"]
    assert recorded.Freshness.of_release("", {}, 0).max_age_days is None


def test_nightly_comparison_reports_changed_outputs_and_stale_records(
    shards: dict[str, Path],
) -> None:
    tmp, site = shards["tmp"], shards["site"]
    (site / "notebooks" / "gamma-input.txt").write_text("second input\n")
    try:
        _record(site, tmp / "build-nightly", tmp / "records-nightly")
    finally:
        (site / "notebooks" / "gamma-input.txt").write_text("first input\n")
    report, output = tmp / "report.md", tmp / "github_output"
    args = [
        "--baseline",
        str(shards["all"]),
        "--fresh",
        str(tmp / "records-nightly"),
        "--root",
        str(site),
        "--markdown",
        str(report),
        "--github-output",
        str(output),
    ]
    assert compare_records.main(args) == 0
    text = report.read_text()
    assert "## notebooks/gamma" in text and "output of code cell 1 changed" in text
    assert "-gamma reads first input" in text and "+gamma reads second input" in text
    assert "## notebooks/alpha" not in text and "## notebooks/beta" not in text
    assert output.read_text() == "pages=1\n"
    assert compare_records.main([*args, "--max-age-days", "0.000001"]) == 0
    assert output.read_text().splitlines()[-1] == "pages=3"
    assert "stale baseline record: made" in report.read_text()
    # a page the run did not record (its shard failed) is listed
    (tmp / "records-nightly" / "notebooks__beta.ipynb").unlink()
    assert compare_records.main(args) == 0
    assert output.read_text().splitlines()[-1] == "pages=2"
    assert "## notebooks/beta\n\n* this run made no record of it" in report.read_text()


def test_nightly_comparison_names_a_baseline_record_the_build_refuses(
    shards: dict[str, Path],
) -> None:
    tmp, site = shards["tmp"], shards["site"]
    baseline = tmp / "records-baseline-stripped"
    shutil.copytree(shards["all"], baseline)
    records.strip_outputs(baseline / "notebooks__beta.ipynb")
    report = tmp / "report-stripped.md"
    assert (
        compare_records.main(
            [
                "--baseline",
                str(baseline),
                "--fresh",
                str(shards["all"]),
                "--root",
                str(site),
                "--markdown",
                str(report),
            ]
        )
        == 0
    )
    text = report.read_text()
    assert (
        "## notebooks/beta\n\n* stale baseline record: the build refuses it: its 1 code cell that "
        "ran" in text
    )
    assert "## notebooks/alpha" not in text
