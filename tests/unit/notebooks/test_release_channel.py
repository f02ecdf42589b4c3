"""The guide's own pages on a GPU build machine with the documented release:
each runs every cell but those that need a newer release, so the release
channel's strict shard (``make record REQUIRE_ALL=1``) passes and records it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import jupytext

from paths import ROOT
from trtdocs.features.validate import load as load_features
from trtdocs.notebooks import gating
from trtdocs.notebooks.environment import cached_probe
from trtdocs.notebooks.plan import BuildContext


def test_every_page_runs_what_the_documented_release_can(tmp_path: Path) -> None:
    table = load_features(ROOT / "docs" / "features.toml")
    # this venv holds the documented release's packages (requirements-trt-nodeps.txt); the
    # machine's probe, as a build reads it (one probe per machine state, shared by builds)
    here = cached_probe(tmp_path / "environment.json")
    assert here.versions["torch_tensorrt"] == table.documented_release.version
    # a GPU machine of the release channel: what this one lacks, described (input data),
    # with what run-cpp's source build reads (the runner provides them: docs/building.md)
    gpu = dataclasses.replace(
        here,
        cuda_available=True,
        gpu_name="a CUDA GPU",
        torch_tensorrt_imports=True,
        source_build={
            "cuda_toolkit": "13.0",
            "tensorrt_sdk": "11.1.0.106",
            "libtorchtrt": "libtorchtrt.tar.gz (1 bytes)",
        },
    )
    context = BuildContext(
        environment=gpu,
        disabled=frozenset(),
        features=table.requirement,
        record_dir=tmp_path,
        import_roots=(ROOT / "notebooks",),
        srcdir=ROOT,
    )
    newer: dict[str, list[tuple[str, ...]]] = {}
    for page in sorted((ROOT / "notebooks").glob("*.md")):
        plan = gating.gate(jupytext.read(page), context, f"notebooks/{page.stem}")
        assert plan.ran_what_release_can, f"{page.name}: {plan.blocking_reason}"
        if plan.skipped:
            newer[page.stem] = [s.needs for s in plan.skipped]
    # pages have cells the release lacks, each gated on a feature of a newer release
    assert newer, (
        "no page has a cell that needs a newer release: this test no longer tests the exemption"
    )
    assert all(
        needs and all(n.startswith("feature:") for n in needs)
        for cells in newer.values()
        for needs in cells
    ), newer
