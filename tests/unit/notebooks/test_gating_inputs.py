"""Unit tests of the probe, the requirement evaluation, the dataflow, the cache
key, records and provenance entries."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import re
import sys
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement

from trtdocs.notebooks import cachekey, environment, gating, recorded, requirements
from trtdocs.notebooks.banner import needs_text, provenance
from trtdocs.notebooks.dataflow import cell_names
from trtdocs.notebooks.marks import mark_line
from trtdocs.notebooks.plan import BuildContext, PagePlan, SkippedCell


@pytest.fixture(scope="module")
def probed() -> environment.Environment:
    return environment.probe()


def _env(**changes: object) -> environment.Environment:
    """A described machine for evaluation tests (input data, not output)."""
    base = environment.Environment(
        platform="Linux",
        machine="x86_64",
        cpu_model="Test CPU",
        cpu_count=2,
        versions={
            "python": "3.11.7",
            "torch": "2.14.1",
            "torch_tensorrt": "2.14.0",
            "tensorrt": None,
            "executorch": "1.4.1",
            "torch_tensorrt_executorch_runtime": "0.1.0",
        },
        cuda_available=False,
        gpu_name=None,
        driver_version=None,
        cuda_runtime="13.0",
        cuda_error="torch.cuda.is_available() is False",
        torch_tensorrt_imports=False,
        torch_tensorrt_error="ImportError: Could not find libnvinfer.so.11",
        packages_digest="0" * 16,
        fingerprint="f" * 16,
    )
    return dataclasses.replace(base, **changes)


# -- probe ----------------------------------------------------------------------


def test_probe_reports_installed_versions(probed: environment.Environment) -> None:
    assert probed.versions["torch"] == importlib.metadata.version("torch")
    assert probed.versions["executorch"] == importlib.metadata.version("executorch")
    assert probed.versions["torch_tensorrt"] == importlib.metadata.version("torch-tensorrt")
    assert probed.cpu_count >= 1 and probed.cpu_model
    assert probed.fingerprint == environment.fingerprint()


def test_probe_gives_the_exact_import_failure(probed: environment.Environment) -> None:
    if probed.torch_tensorrt_imports:
        pytest.skip("torch_tensorrt imports on this machine")
    assert probed.torch_tensorrt_error  # the words of the failing import
    assert "libnvinfer" in probed.torch_tensorrt_error or "No module" in probed.torch_tensorrt_error


def test_cached_probe_reuses_a_matching_fingerprint_only(
    tmp_path: Path, probed: environment.Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRTDOCS_CACHE_DIR", str(tmp_path / "user-cache"))
    shared = tmp_path / "user-cache" / environment.PROBES / f"{probed.fingerprint}.json"
    cache = tmp_path / "environment.json"
    marked = dataclasses.replace(probed, cpu_model="marker from the build folder")
    cache.write_text(json.dumps(marked.to_json()))
    assert environment.cached_probe(cache).cpu_model == "marker from the build folder"
    assert (
        json.loads(shared.read_text())["cpu_model"] == "marker from the build folder"
    )  # kept for other folders
    # a fresh build folder takes the machine's probe
    fresh_folder = tmp_path / "other" / "environment.json"
    assert environment.cached_probe(fresh_folder).cpu_model == "marker from the build folder"
    assert fresh_folder.is_file()
    # a stale fingerprint in both places: probed again (the probe itself, a few seconds
    # of importing torch, is test_probe_reports_installed_versions' subject; here it is counted)
    stale = dataclasses.replace(marked, fingerprint="stale").to_json()
    cache.write_text(json.dumps(stale))
    shared.write_text(json.dumps(stale))
    probes: list[str] = []
    monkeypatch.setattr(environment, "probe", lambda python: probes.append(python) or probed)
    fresh = environment.cached_probe(cache)
    assert probes == [sys.executable]
    assert fresh.cpu_model == probed.cpu_model
    assert json.loads(cache.read_text())["fingerprint"] == fresh.fingerprint


# -- requirements -------------------------------------------------------------------


def test_capabilities_unmet_with_the_probed_reason() -> None:
    unmet = requirements.evaluate(["cuda", "tensorrt"], _env())
    assert [u.requirement for u in unmet] == ["cuda", "tensorrt"]
    assert unmet[0].reason == "torch.cuda.is_available() is False"
    assert "does not import: ImportError: Could not find libnvinfer.so.11" in unmet[1].reason
    assert (
        requirements.evaluate(
            ["cuda", "tensorrt"], _env(cuda_available=True, torch_tensorrt_imports=True)
        )
        == []
    )


def test_version_requirements_name_needed_and_installed() -> None:
    (unmet,) = requirements.evaluate(["torch_tensorrt>=2.15"], _env())
    assert unmet.needs == "torch_tensorrt>=2.15"
    assert unmet.reason == "torch_tensorrt 2.14.0 is installed"
    assert requirements.evaluate(["torch-tensorrt>=2.14,<2.15"], _env()) == []
    (missing,) = requirements.evaluate(["tensorrt-cu13>=11.1"], _env())
    assert missing.reason == "tensorrt-cu13 is not installed"


def test_features_resolve_through_the_table() -> None:
    table = {"cuda-graphs": Requirement("torch_tensorrt>=2.15")}
    (unmet,) = requirements.evaluate(["feature:cuda-graphs"], _env(), features=table.__getitem__)
    assert unmet.needs == "torch_tensorrt>=2.15"
    with pytest.raises(requirements.RequirementError, match="no features table"):
        requirements.check("feature:cuda-graphs")


@pytest.mark.parametrize("bad", ["quantum-gpu", "numpy>=1", "cuda>="])
def test_unknown_requirements_are_rejected(bad: str) -> None:
    with pytest.raises(requirements.RequirementError, match="unknown requirement"):
        requirements.check(bad)


def test_requires_must_be_strings() -> None:
    assert requirements.parse("cuda") == ("cuda",)
    with pytest.raises(requirements.RequirementError):
        requirements.parse({"cuda": True})


def test_disabled_requirements_are_unmet_with_that_reason() -> None:
    (unmet,) = requirements.evaluate(["executorch>=1.4"], _env(), disabled={"executorch>=1.4"})
    assert "disabled for this build" in unmet.reason


# -- dataflow -------------------------------------------------------------------------


def test_cell_names_follow_statement_order() -> None:
    names = cell_names(
        "import torch_tensorrt as trt\nx = y + 1\ny = 2\ndef f(a):\n    z = a\n    return w\n"
    )
    assert names is not None
    assert names.defines == {"trt", "x", "y", "f"}
    assert names.reads == {"y", "w"}  # y is read before this cell binds it; z and a are local


def test_cell_names_read_mutated_objects_and_magics() -> None:
    names = cell_names("%time model.eval()\nmodel.weight = w\ncount += 1\n!ls\n")
    assert names is not None
    assert {"model", "w", "count"} <= names.reads
    assert cell_names("def broken(:\n") is None


# -- cache key ------------------------------------------------------------------------


def test_environment_digest_changes_with_versions_and_gpu() -> None:
    base = cachekey.environment_digest(_env())
    assert cachekey.environment_digest(_env()) == base
    assert cachekey.environment_digest(_env(gpu_name="NVIDIA H200")) != base
    other = _env(versions={**_env().versions, "executorch": "1.4.2"})
    assert cachekey.environment_digest(other) != base
    assert cachekey.environment_digest(_env(fingerprint="other")) == base


def test_project_code_is_followed_through_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "helpers"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "models.py").write_text("from helpers import data\n")
    (pkg / "data.py").write_text("VALUE = 1\n")
    (tmp_path / "unused.py").write_text("")
    sources = ["import torch\nfrom helpers.models import thing\n%matplotlib inline\n"]
    files = cachekey.project_files(sources, [tmp_path])
    assert [p.relative_to(tmp_path).as_posix() for p in files] == [
        "helpers/__init__.py",
        "helpers/data.py",
        "helpers/models.py",
    ]
    before = cachekey.files_digest(files)
    (pkg / "data.py").write_text("VALUE = 2\n")
    assert cachekey.files_digest(files) != before


def test_project_digest_ignores_code_that_is_not_imported(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("A = 1\n")
    digest = cachekey.files_digest(cachekey.project_files(["x = 1"], [tmp_path]))
    (tmp_path / "mod.py").write_text("A = 2\n")
    assert cachekey.files_digest(cachekey.project_files(["x = 1"], [tmp_path])) == digest


# -- records and provenance ----------------------------------------------------------------


def _nb(*sources: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# T")] + [
        nbformat.v4.new_code_cell(s) for s in sources
    ]
    return nb


def test_source_hash_covers_code_not_markdown() -> None:
    nb = _nb("x = 1")
    h = recorded.source_hash(nb)
    nb.cells[0].source = "# Another title"
    assert recorded.source_hash(nb) == h
    nb.cells[1].source = "x = 2"
    assert recorded.source_hash(nb) != h
    nb.cells[1].source = "x = 1"
    nb.cells[1].metadata["requires"] = ["cuda"]
    assert recorded.source_hash(nb) != h


def test_record_round_trip(tmp_path: Path) -> None:
    source = _nb("print(1)")
    executed = _nb("print(1)")
    executed.cells.insert(1, nbformat.v4.new_markdown_cell("a banner cell"))
    executed.cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    path = tmp_path / "r.ipynb"
    recorded.write(path, source, executed, {"status": "executed"})
    record = recorded.load(path)
    assert record is not None and record.source_hash == recorded.source_hash(source)
    target = _nb("print(1)")
    recorded.merge_outputs(record, target)
    assert target.cells[1].outputs[0]["text"] == "1\n"
    assert recorded.load(tmp_path / "missing.ipynb") is None
    nbformat.write(_nb("x"), tmp_path / "plain.ipynb")
    with pytest.raises(ValueError, match="not a record"):
        recorded.load(tmp_path / "plain.ipynb")


def test_provenance_entry_and_needs_wording() -> None:
    skipped = [
        SkippedCell(2, 3, 10, ("tensorrt",), ("needs TensorRT: no",)),
        SkippedCell(3, 5, 12, ("cuda", "tensorrt"), ("needs a GPU: no", "needs TensorRT: no")),
        SkippedCell(
            4, 6, 14, (), ("reads `x`, which the cell at line 12 defines and which did not run",)
        ),
    ]
    plan = PagePlan(("cuda",), ("tensorrt",), 4, skipped)
    assert (
        plan.reason == "needs TensorRT: no; needs a GPU: no"
    )  # each requirement once; a dependency is none
    entry = provenance(plan, _env(), {"mtime": 0.0, "runtime": 1.234})
    assert entry["status"] == "partly executed"
    assert entry["duration_s"] == 1.23 and entry["executed_at"] == "1970-01-01T00:00:00+00:00"
    assert entry["cells_not_executed"][0] == {
        "cell": 2,
        "line": 10,
        "needs": ["tensorrt"],
        "reason": "needs TensorRT: no",
    }
    assert needs_text(plan).startswith("Needs a CUDA GPU, Torch-TensorRT with TensorRT")
    assert needs_text(PagePlan((), (), 1, [])) == "Runs on a CPU."
    assert needs_text(PagePlan((), (), 1, []), shown_as_text=True) == "Its code cells run on a CPU."


# -- what the installed release lacks (a channel's strict run and its records) ------------


@pytest.mark.parametrize(
    ("requirement", "newer"),
    [
        ("torch_tensorrt>=2.15", True),
        ("torch_tensorrt==2.15.*", True),
        ("torch_tensorrt~=2.16.0", True),
        ("torch_tensorrt>=2.16.0.dev0", True),  # a nightly-only feature
        ("torch_tensorrt<2.14", False),
        ("torch_tensorrt!=2.14.0", False),
        ("torch_tensorrt>=2.13,<2.14", False),  # fails by being too new
        ("tensorrt-cu13>=11.1", False),  # not installed: the machine lacks it, not the release
        ("cuda", False),
        ("tensorrt", False),
    ],
)
def test_a_requirement_above_the_installed_version_is_a_newer_release_s(
    requirement: str, newer: bool
) -> None:
    (unmet,) = requirements.evaluate([requirement], _env())
    assert unmet.newer is newer


def test_a_feature_or_disabled_requirement_and_newer() -> None:
    table = {"cuda-graphs": Requirement("torch_tensorrt>=2.15")}
    (unmet,) = requirements.evaluate(["feature:cuda-graphs"], _env(), features=table.__getitem__)
    assert unmet.newer
    # TRTDOCS_DISABLE makes a requirement unmet on purpose: never a release's lack
    (off,) = requirements.evaluate(
        ["torch_tensorrt>=2.15"], _env(), disabled={"torch_tensorrt>=2.15"}
    )
    assert not off.newer


def _gate(
    nb: nbformat.NotebookNode, tmp_path: Path, *, recording: bool = False, **env: object
) -> PagePlan:
    context = BuildContext(
        environment=_env(**env),
        disabled=frozenset(),
        features=_no_features,
        record_dir=tmp_path / "_recorded",
        import_roots=(tmp_path,),
        srcdir=tmp_path,
        recording=recording,
    )
    return gating.gate(nb, context, "notebooks/page")


def _no_features(feature_id: str) -> Requirement:
    raise requirements.RequirementError(feature_id)


def _cell(source: str, *requires: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(
        source, metadata={"requires": list(requires)} if requires else {}
    )


def test_a_cell_that_reads_a_newer_release_s_result_needs_it_too(tmp_path: Path) -> None:
    nb = _nb("x = 1")
    nb.cells += [
        _cell("y = x + 1", "torch_tensorrt>=2.15"),
        _cell("print(y)"),
        _cell("z = 2", "cuda"),
        _cell("print(z)"),
    ]
    plan = _gate(nb, tmp_path)
    assert [(s.number, s.newer) for s in plan.skipped] == [
        (2, True),
        (3, True),
        (4, False),
        (5, False),
    ]
    assert not plan.ran_what_release_can
    assert plan.blocking_reason == "needs a CUDA GPU: torch.cuda.is_available() is False"
    del nb.cells[4:]
    plan = _gate(nb, tmp_path)
    assert (
        plan.status == "partly executed"
        and plan.ran_what_release_can
        and plan.blocking_reason == ""
    )
    # the same cell needing a GPU as well: this machine lacks something its release has
    nb.cells[2].metadata["requires"] = ["torch_tensorrt>=2.15", "cuda"]
    assert not _gate(nb, tmp_path).ran_what_release_can


def _record_of(nb: nbformat.NotebookNode, path: Path, skipped: list[object]) -> None:
    executed = nbformat.from_dict(nb)
    for number, cell in enumerate((c for c in executed.cells if c.cell_type == "code"), start=1):
        if number not in {e["cell"] for e in skipped if isinstance(e, dict)}:
            cell.outputs = [
                nbformat.v4.new_output("stream", name="stdout", text=f"cell {number}\n")
            ]
    recorded.write(
        path,
        nb,
        executed,
        {
            "status": "partly executed",
            "cells_not_executed": skipped,
            "executed_at": "2026-01-01T00:00:00+00:00",
        },
    )


def _page() -> nbformat.NotebookNode:
    """A page that needs a GPU, one of whose cells needs a newer release."""
    nb = _nb("x = 1")
    nb.cells.append(_cell("y = x + 1", "torch_tensorrt>=2.15"))
    nb.metadata["requires"] = ["cuda"]
    return nb


def test_a_record_lists_the_cells_its_release_lacked_and_they_are_marked(tmp_path: Path) -> None:
    path = recorded.record_path(tmp_path / "_recorded", "notebooks/page")
    why = "needs torch_tensorrt>=2.15: torch_tensorrt 2.14.0 is installed"
    _record_of(
        _page(), path, [{"cell": 2, "line": 1, "needs": ["torch_tensorrt>=2.15"], "reason": why}]
    )
    nb = _page()
    nb.metadata["source_map"] = [1, 3, 7]  # where the cells start in the page now
    plan = _gate(nb, tmp_path)  # no GPU here: the record is shown
    assert plan.status == "recorded"
    assert [(s.number, s.index, s.line, s.needs, s.reason) for s in plan.skipped] == [
        (2, 2, 7, ("torch_tensorrt>=2.15",), why)
    ]
    assert nb.cells[1].outputs[0]["text"] == "cell 1\n" and nb.cells[2].outputs == []
    assert mark_line(plan.skipped[0].needs, plan.needs, recorded=True) == (
        "Not run where these outputs were recorded: needs torch_tensorrt>=2.15."
    )
    # `make record` where the release lacks only that
    # cell's need executes the page and records it again
    again = _gate(_page(), tmp_path, recording=True, cuda_available=True)
    assert again.record is None and again.ran_what_release_can
    assert (
        _gate(_page(), tmp_path, cuda_available=True).status == "recorded"
    )  # not recording: the record


@pytest.mark.parametrize(
    "entry",
    [
        {"cell": 3, "line": 1, "needs": [], "reason": "r"},  # no such code cell
        {"cell": 1, "line": 1, "reason": "r"},  # no needs
        {"cell": 1, "line": 1, "needs": "cuda", "reason": "r"},
        "cell 1",
    ],
)
def test_a_record_s_cells_not_executed_are_checked(tmp_path: Path, entry: object) -> None:
    path = tmp_path / "r.ipynb"
    _record_of(_nb("x = 1", "print(x)"), path, [entry])
    with pytest.raises(
        ValueError, match=rf"{re.escape(str(path))}: .* is not {{cell: 1\.\.2, needs"
    ):
        recorded.load(path)


def test_a_record_s_cell_not_executed_has_no_output(tmp_path: Path) -> None:
    path = tmp_path / "r.ipynb"
    _record_of(_nb("x = 1", "print(x)"), path, [{"cell": 2, "line": 1, "needs": [], "reason": "r"}])
    record = nbformat.read(path, as_version=4)  # planted: the listed cell shows an output
    record.cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="ran\n")]
    nbformat.write(record, path)
    with pytest.raises(ValueError, match="code cell 2 is listed as not executed but has outputs"):
        recorded.load(path)
