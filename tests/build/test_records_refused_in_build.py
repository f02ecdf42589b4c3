"""A record proves its run (issue #32): the build refuses a record whose outputs
or provenance changed after `make record` wrote it, or whose outputs an output
stripper removed, naming the record and the command that re-records it;
REQUIRE_OUTPUTS counts only the records it verified; a record of no page is
named; a record cut short is an error. Each case is planted in a record made by
a real `make record` of the gating fixture's `recordable` page."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import records
from sites import Built, build, copy_root

RECORD = "notebooks/_recorded/notebooks__recordable.ipynb"
RERECORD = "re-record it with `make record NOTEBOOKS=notebooks/recordable`"
# The gathering build of CI: this machine lacks what the page needs, every page must have outputs.
GATHER = {"trtdocs_disable": "executorch>=1.4", "trtdocs_require_outputs": True}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site whose one notebook was recorded by `make record` (TRTDOCS_RECORD)."""
    tmp = tmp_path_factory.mktemp("records")
    site = copy_root("gating", tmp)
    (site / "notebooks" / "gated.md").unlink()
    result = build(site, tmp / "record", trtdocs_record=True)
    assert result.returncode == 0, result.log
    assert (site / RECORD).is_file()
    return site


def _copy(made: Path, tmp_path: Path) -> Path:
    site = tmp_path / "site"
    shutil.copytree(made, site)
    return site


def _gather(site: Path, tmp_path: Path, **settings: object) -> Built:
    return build(site, tmp_path / "_build", strict=False, **{**GATHER, **settings})


def _refused(result: Built, line: int, why: str) -> None:
    """The refusal: an error at the page, naming the record, why, and the command."""
    errors = result.errors(f"notebooks/recordable.md:{line}: ERROR: record {RECORD} refused: {why}")
    assert len(errors) == 1, result.log
    assert RERECORD in errors[0], errors[0]
    # REQUIRE_OUTPUTS counts only verified records: the page has no outputs
    assert "notebooks/recordable.md:1: ERROR: REQUIRE_OUTPUTS: not executed" in result.log
    assert result.returncode != 0


def test_an_intact_record_is_shown(made: Path, tmp_path: Path) -> None:
    result = _gather(_copy(made, tmp_path), tmp_path)
    assert result.returncode == 0, result.log
    assert "recorded value 42" in result.html("notebooks/recordable").get_text()


def test_an_output_line_edited_by_hand_is_refused(made: Path, tmp_path: Path) -> None:
    """Refused by the incremental build after a green one, and shown again once restored."""
    site = _copy(made, tmp_path)
    assert _gather(site, tmp_path).returncode == 0
    intact = (site / RECORD).read_text(encoding="utf-8")
    records.edit_output_line(site / RECORD, "recorded value 42", "recorded value 43")
    result = _gather(site, tmp_path)
    _refused(
        result, 16, "the outputs of code cell 1 (line 16) differ from those `make record` wrote"
    )
    text = result.html("notebooks/recordable").get_text()
    assert "recorded value 43" not in text and "recorded value 42" not in text
    (site / RECORD).write_text(intact, encoding="utf-8")
    result = _gather(site, tmp_path)
    assert result.returncode == 0, result.log
    assert "recorded value 42" in result.html("notebooks/recordable").get_text()


def test_a_stripped_record_is_refused_in_every_build(made: Path, tmp_path: Path) -> None:
    site = _copy(made, tmp_path)
    assert records.strip_outputs(site / RECORD) == 1
    _refused(_gather(site, tmp_path), 16, "its 1 code cell that ran holds no outputs")
    # a local build that asks for nothing strict fails on it too: no page shows a stripped run
    local = build(site, tmp_path / "local", strict=False, trtdocs_disable="executorch>=1.4")
    assert local.returncode != 0
    assert len(local.errors(f"ERROR: record {RECORD} refused: its 1 code cell")) == 1, local.log


def test_an_edited_provenance_is_refused(made: Path, tmp_path: Path) -> None:
    site = _copy(made, tmp_path)
    records.claim_a_gpu(site / RECORD)
    result = _gather(site, tmp_path)
    _refused(
        result,
        1,
        "its provenance (metadata.trtdocs_record.provenance) differs from what `make record` wrote",
    )
    assert "NVIDIA H100" not in result.html("notebooks/recordable").get_text()


def test_a_record_cut_short_is_an_error(made: Path, tmp_path: Path) -> None:
    site = _copy(made, tmp_path)
    records.cut_short(site / RECORD)
    result = _gather(site, tmp_path)
    _refused(result, 1, "it is not a notebook")


def test_a_record_of_no_page_is_named(made: Path, tmp_path: Path) -> None:
    """A warning, as a stale record is: an error in CI and strict builds, and -W fails on it."""
    site = _copy(made, tmp_path)
    orphan = "notebooks/_recorded/notebooks__gone.ipynb"
    shutil.copy(site / RECORD, site / orphan)
    message = (
        f"{orphan}:1: {{}}: record of notebooks/gone, which is not a notebook page of this site: "
        f"delete it (`git rm {orphan}`)"
    )
    local = build(site, tmp_path / "local", strict=False)
    assert local.returncode == 0, local.log
    assert message.format("WARNING") in local.log, local.log
    assert build(site, tmp_path / "local").returncode != 0  # make html's -W
    ci = build(site, tmp_path / "ci", strict=False, env={"CI": "true"})
    assert ci.returncode != 0 and message.format("ERROR") in ci.log, ci.log
    gathered = _gather(site, tmp_path)
    assert gathered.returncode != 0 and message.format("ERROR") in gathered.log, gathered.log
