"""The documented release's requirements, resolved against PyPI (needs the network)."""

from __future__ import annotations

import dataclasses

import pytest

from paths import ROOT
from trtdocs.drift import pypi
from trtdocs.features.validate import load as load_features
from trtdocs.pages.commands import parse_command

REAL_TABLE = ROOT / "docs" / "features.toml"

pytestmark = pytest.mark.network


@pytest.fixture(scope="module")
def table():
    return load_features(REAL_TABLE)


def test_documented_release_resolves_on_pypi(table):
    assert pypi.check_release(table.release(table.documented)) == []


def test_pins_agree_with_the_wheels_metadata():
    trt = {str(r) for r in pypi.requires("torch-tensorrt", "2.14.0", ["executorch"])}
    assert 'executorch<1.5,>=1.4.1; extra == "executorch"' in trt
    assert not any(r.startswith("torch-tensorrt-executorch-runtime") for r in trt)
    runtime = {str(r) for r in pypi.requires("torch-tensorrt-executorch-runtime", "0.1.0")}
    assert {
        "executorch==1.4.1",
        "torch<2.15.0,>=2.14.0",
        "torch-tensorrt<2.15.0,>=2.14.0",
    } <= runtime


def test_generated_command_requirements_exist(table):
    generated = load_features(REAL_TABLE).install_command(table.documented)
    (cmd,), _ = parse_command(generated, "generated", 1)
    for req in cmd.requirements:
        assert any(req.specifier.contains(v) for v in pypi.versions(req.name)), str(req)


def test_a_wrong_pin_is_caught(table):
    release = table.release("2.14")
    bad = dataclasses.replace(
        release, pins={"torch-tensorrt-executorch-runtime": "0.1.0", "executorch": "1.4.0"}
    )
    problems = pypi.check_release(bad)
    assert any(
        "torch-tensorrt-executorch-runtime 0.1.0 requires executorch==1.4.1" in p for p in problems
    ), problems
    missing = dataclasses.replace(
        release, pins={"torch-tensorrt-executorch-runtime": "0.1.9", "cuda": "13.2"}
    )
    assert pypi.check_release(missing) == [  # CUDA is not on PyPI: not asked
        "torch-tensorrt-executorch-runtime ==0.1.9: no version on PyPI satisfies it"
    ]
