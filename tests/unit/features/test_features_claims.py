"""What the real features table claims, and where each claim comes from.

Every cell's sources meet its state (the validator's evidence standard; a yes
names a run); every pin of a released
release is read from the installed wheels' metadata (the docs venv installs
torch-tensorrt 2.14.0 and torch-tensorrt-executorch-runtime 0.1.0), and a
release that is not on PyPI prints no pins at all.
"""

from __future__ import annotations

import importlib.metadata

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from paths import ROOT
from trtdocs import vocab
from trtdocs.features import model as F
from trtdocs.features.sources import RUNS
from trtdocs.features.validate import load

TABLE = ROOT / "docs" / "features.toml"


@pytest.fixture(scope="module")
def table() -> F.FeaturesTable:
    return load(TABLE)


def test_every_claim_has_a_source(table: F.FeaturesTable) -> None:
    missing = [
        f"{f.id} in {key}: {cell.state}"
        for f in table.features
        for key, cell in f.cells.items()
        if cell.state != "unknown" and not cell.sources
    ]
    assert not missing


def test_every_yes_names_a_run(table: F.FeaturesTable) -> None:
    """The standard on the real table: each yes cites a test at a commit, a published
    file that does it or a page of this guide; the sources of a described release
    (not on PyPI) show no run at all."""
    no_run = [
        f"{f.id} in {key}"
        for f in table.features
        for key, cell in f.cells.items()
        if cell.state == "yes" and not any(s.kind in RUNS for s in cell.sources)
    ]
    assert not no_run
    described = [r.key for r in table.releases.values() if r.status == "described"]
    ran = [
        f"{f.id} in {key}"
        for f in table.features
        for key in described
        if f.cells[key].state in ("yes", "in-code")
    ]
    assert not ran, "no 2.15 branch or wheel is public: nothing shows its code or a run"


# Issue 27, fix 4: these 2.14 cells rested on code, strings or main-branch CMake; now each
# names the run it rests on, or says that no run is shown.
@pytest.mark.parametrize(
    "fid, state, run",
    [
        ("cuda-backend-coalesce", "in-code", None),
        ("green-context", "in-code", None),
        # review 1: the 2.14.0 wheel's export() changed the KV path after d7f2062810, and the run
        # there has the TensorRT delegate alone, not the CUDA one the note names
        ("kv-cache-alias", "in-code", None),
        ("caller-stream", "in-code", None),
        ("cmake-from-source", "yes", ".github/scripts/verify-executorch-reference-runner.sh"),
    ],
)
def test_fix_4_cells(table: F.FeaturesTable, fid: str, state: str, run: str | None) -> None:
    cell = table.feature(fid).cells["2.14"]
    assert cell.state == state
    tests = [s for s in cell.sources if s.kind == "test"]
    assert [s.path for s in tests if s.path == run] == ([run] if run else [])
    assert all(
        s.url.startswith("https://github.com/pytorch/TensorRT/blob/d7f2062810/") for s in tests
    )


# Review 1: d7f2062810 is a commit of main, so a test there counts for nightly builds too
# (finding 1); a test that skips where `nvcc` or a green context is missing shows no run
# without a log (finding 3).
@pytest.mark.parametrize(
    "fid, key, state",
    [
        ("edge-export-api", "nightly", "yes"),
        ("lowering-kwargs", "nightly", "yes"),
        ("target-device-per-partition", "nightly", "yes"),
        ("blob-format", "nightly", "yes"),
        ("runtime-options-cpp", "nightly", "in-code"),
        ("multi-method", "2.14", "in-code"),
        ("multi-method", "nightly", "in-code"),
        ("green-context", "nightly", "in-code"),
    ],
)
def test_review_1_cells(table: F.FeaturesTable, fid: str, key: str, state: str) -> None:
    assert table.feature(fid).cells[key].state == state


def test_no_yes_rests_on_a_test_that_skips_without_nvcc(table: F.FeaturesTable) -> None:
    """test_cuda_partitioner_composition.py skips every test without nvcc and ExecuTorch's
    CUDA backend, and no log shows it passing: it may be cited as code, never as the run."""
    skipping = "tests/py/dynamo/executorch/test_cuda_partitioner_composition.py"
    cited = [
        f"{f.id} in {key}"
        for f in table.features
        for key, cell in f.cells.items()
        if any(s.kind == "test" and s.path == skipping for s in cell.sources)
    ]
    assert not cited


def test_every_release_has_a_cell_per_feature(table: F.FeaturesTable) -> None:
    keys = [r.key for r in table.releases.values()]
    assert all(list(f.cells) == keys for f in table.features)


# The cells issues #11 and #27 name, as the table must state them.
@pytest.mark.parametrize(
    "fid, key, state",
    [
        ("etrecord", "2.14", "in-code"),
        ("etrecord", "2.15", "broken"),
        ("etrecord", "nightly", "broken"),
        ("shared-engines", "2.15", "unknown"),
        ("cmake-wheel-package", "2.15", "unknown"),
        # issue 27, fix 5: the 2.15 cells that rested on the pull request's description
        ("shared-scratch", "2.15", "described"),
        ("cuda-graphs", "2.15", "described"),
        ("pte-save", "2.15", "described"),
    ],
)
def test_named_cells(table: F.FeaturesTable, fid: str, key: str, state: str) -> None:
    assert table.feature(fid).cells[key].state == state


def test_the_multi_method_note_says_what_save_writes(table: F.FeaturesTable) -> None:
    """Issue 27, fix 6: save() lowers one method, and constant_methods add methods
    (the 2.14.0 wheel's _save_as_executorch hands them to export())."""
    note = table.feature("multi-method").note
    assert "`save()` writes one method" not in note and "`constant_methods`" in note


def test_the_0_1_runtime_path_is_deprecated_after_2_14(table: F.FeaturesTable) -> None:
    feature = table.feature("python-runtime-0.1")
    assert feature.cells["2.14"].state == "yes"
    for key in ("2.15", "nightly"):
        assert "deprecated" in feature.cells[key].remark


def test_only_released_releases_have_pins(table: F.FeaturesTable) -> None:
    for r in table.releases.values():
        assert bool(r.pins) == (r.status == "released"), r.key
        assert set(r.pins) == set(r.pin_sources), r.key


def _metadata_value(source: F.PinSource, name: str) -> str:
    """What ``source``'s field says about pin ``name``, read from the installed distribution."""
    meta = importlib.metadata.metadata(source.distribution)
    assert Version(meta["Version"]) == Version(source.version), (
        f"the docs venv has {source.distribution} {meta['Version']}, the table cites "
        f"{source.version}"
    )
    if source.field == "Version":
        return "==" + meta["Version"]
    if source.field == "Requires-Python":
        return meta["Requires-Python"]
    if source.field == "Requires-Dist":
        wanted = canonicalize_name(name)  # a Requires-Dist pin is on a distribution, which names it
        found = [Requirement(r) for r in meta.get_all("Requires-Dist") or ()]
        # an unconditional requirement states the pin; an extra's is what that extra adds
        [req] = [r for r in found if canonicalize_name(r.name) == wanted and r.marker is None]
        return str(req.specifier)
    assert source.field == "Description"
    return meta.get_payload() or meta["Description"] or ""


def _pins() -> list[tuple[str, str]]:
    t = load(TABLE)
    return [(r.key, name) for r in t.releases.values() for name in r.pins]


@pytest.mark.parametrize("key, name", _pins())
def test_pin_is_taken_from_the_release_metadata(
    table: F.FeaturesTable, key: str, name: str
) -> None:
    release = table.release(key)
    spec, source = release.pins[name], release.pin_sources[name]
    # the metadata belongs to this release: Torch-TensorRT's own, or a wheel it pins exactly
    own = {canonicalize_name(vocab.TORCH_TENSORRT): release.version}
    own.update(
        {
            canonicalize_name(n): s.removeprefix("==")
            for n, s in release.distribution_pins.items()
            if s.startswith("==")
        }
    )
    assert own.get(canonicalize_name(source.distribution)) == source.version, (
        f"{name}: {source} is not metadata of release {key}"
    )
    stated = _metadata_value(source, name)
    if source.field == "Description":
        assert f"CUDA {spec}" in stated, f"{name}: the {source} does not state CUDA {spec}"
    else:
        assert SpecifierSet(stated) == SpecifierSet(spec if spec[:1] in "<>=!~" else f"=={spec}"), (
            f"{name}: the table says {spec}, {source} says {stated}"
        )


def test_a_pin_the_metadata_does_not_state_fails(table: F.FeaturesTable) -> None:
    """The check above is not vacuous: a dry-run range read against real metadata disagrees."""
    source = table.release("2.14").pin_sources[vocab.TENSORRT]
    assert SpecifierSet(_metadata_value(source, vocab.TENSORRT)) != SpecifierSet(">=11.3,<11.4")
