"""The ``source-build`` capability: what the delegate's C++ source build reads
(the CUDA toolkit, a TensorRT SDK, the release's libtorchtrt.tar.gz), probed from
the variables its cells read, and the gate's reason when one is absent."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from paths import ROOT
from trtdocs.features.validate import load
from trtdocs.notebooks import environment, recorded, requirements, sourcebuild
from trtdocs.notebooks.marks import needs_words
from trtdocs.vocab import SOURCE_BUILD

TRT_VERSION_H = """#define TRT_MAJOR_ENTERPRISE 11
#define TRT_MINOR_ENTERPRISE 1
#define TRT_PATCH_ENTERPRISE 0
#define TRT_BUILD_ENTERPRISE 106
#define NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE
"""


def _machine(tmp_path: Path) -> dict[str, str]:
    """A machine with all three inputs, as files (input data); its variables."""
    cuda = tmp_path / "cuda"
    (cuda / "include").mkdir(parents=True)
    (cuda / "include" / "cuda_runtime.h").write_text("// header\n")
    (cuda / "version.json").write_text(json.dumps({"cuda": {"version": "13.0.2"}}))
    trt = tmp_path / "TensorRT-11.1"
    (trt / "include").mkdir(parents=True)
    (trt / "include" / "NvInfer.h").write_text("// header\n")
    (trt / "include" / "NvInferVersion.h").write_text(TRT_VERSION_H)
    tarball = tmp_path / "libtorchtrt.tar.gz"
    tarball.write_bytes(b"\x1f\x8b" + b"\0" * 98)
    return {
        "CUDAToolkit_ROOT": str(cuda),
        "TensorRT_ROOT": str(trt),
        "LIBTORCHTRT_TARBALL": str(tarball),
        "PATH": str(tmp_path / "no-bin"),
    }


def test_every_input_found_with_its_version_and_no_folder(tmp_path: Path) -> None:
    environ = _machine(tmp_path)
    found = sourcebuild.inputs(environ, default=tmp_path / "none")
    assert found == {
        "cuda_toolkit": "13.0.2",
        "tensorrt_sdk": "11.1.0.106",
        "libtorchtrt": "libtorchtrt.tar.gz (100 bytes)",
    }
    assert not any(str(tmp_path) in v for v in found.values() if v)  # published: no machine folder
    assert sourcebuild.missing(found) == []


def test_each_absent_input_is_a_reason(tmp_path: Path) -> None:
    environ = _machine(tmp_path)
    # planted: an SDK folder without NvInfer.h, the archive unset, no toolkit anywhere
    (Path(environ["TensorRT_ROOT"]) / "include" / "NvInfer.h").unlink()
    del environ["LIBTORCHTRT_TARBALL"]
    environ["CUDAToolkit_ROOT"] = str(tmp_path / "elsewhere")
    found = sourcebuild.inputs(environ, default=tmp_path / "none")
    assert found == {"cuda_toolkit": None, "tensorrt_sdk": None, "libtorchtrt": None}
    reasons = sourcebuild.missing(found)
    assert len(reasons) == 3
    assert "TensorRT_ROOT is unset or names no TensorRT SDK (include/NvInfer.h)" in reasons
    assert "LIBTORCHTRT_TARBALL is unset or names no file" in reasons
    assert reasons[0].startswith("no CUDA toolkit (include/cuda_runtime.h) under CUDAToolkit_ROOT")


def test_the_toolkit_version_from_cuda_h_and_the_default_folder(tmp_path: Path) -> None:
    default = tmp_path / "usr-local-cuda"
    (default / "include").mkdir(parents=True)
    (default / "include" / "cuda_runtime.h").write_text("")
    (default / "include" / "cuda.h").write_text("#define CUDA_VERSION 12090\n")
    assert sourcebuild.cuda_toolkit({"PATH": ""}, default) == "12.9"


def test_setting_a_variable_or_replacing_the_archive_probes_again(tmp_path: Path) -> None:
    environ = _machine(tmp_path)
    before = sourcebuild.identity(environ, tmp_path / "none")
    assert (
        sourcebuild.identity({**environ, "TensorRT_ROOT": str(tmp_path)}, tmp_path / "none")
        != before
    )
    Path(environ["LIBTORCHTRT_TARBALL"]).write_bytes(b"\x1f\x8b" + b"\0" * 10)
    assert sourcebuild.identity(environ, tmp_path / "none") != before


def _env(source_build: dict[str, str | None]) -> environment.Environment:
    """A GPU machine with TensorRT (input data); its source-build inputs as given."""
    return environment.Environment(
        platform="Linux",
        machine="x86_64",
        cpu_model="Test CPU",
        cpu_count=2,
        versions={"python": "3.11.7", "torch": "2.14.1", "torch_tensorrt": "2.14.0"},
        cuda_available=True,
        gpu_name="GPU",
        driver_version="580",
        cuda_runtime="13.0",
        cuda_error=None,
        torch_tensorrt_imports=True,
        torch_tensorrt_error=None,
        packages_digest="0",
        fingerprint="f",
        source_build=source_build,
    )


def test_the_gate_runs_a_source_build_cell_only_with_every_input(tmp_path: Path) -> None:
    found = sourcebuild.inputs(_machine(tmp_path), default=tmp_path / "none")
    assert requirements.evaluate(["cuda", "tensorrt", SOURCE_BUILD], _env(found)) == []
    (unmet,) = requirements.evaluate(
        ["cuda", "tensorrt", SOURCE_BUILD], _env({**found, "tensorrt_sdk": None})
    )
    assert (
        unmet.requirement == SOURCE_BUILD and not unmet.newer
    )  # the machine lacks it, not the release
    assert unmet.reason == "TensorRT_ROOT is unset or names no TensorRT SDK (include/NvInfer.h)"
    # a probe from before the capability existed has no inputs: unmet, never met by default
    old = dataclasses.replace(_env(found), source_build={})
    assert len(requirements.evaluate([SOURCE_BUILD], old)[0].reason.split("; ")) == 3


def test_a_cells_mark_names_the_three_together() -> None:
    assert needs_words(["cuda", "tensorrt", SOURCE_BUILD], {}) == (
        "a CUDA GPU with TensorRT, the CUDA toolkit, a TensorRT SDK and libtorchtrt.tar.gz"
    )
    assert needs_words(["cuda", "tensorrt"], {}) == "a CUDA GPU with TensorRT"


def test_the_gate_takes_only_the_release_s_tensorrt_sdk(tmp_path: Path) -> None:
    """The SDK's accepted versions are the documented release's tensorrt pin, read
    from docs/features.toml through the features model (not written here)."""
    release = load(ROOT / "docs" / "features.toml").documented_release
    pins = recorded.Freshness.of_release(release.version, release.pins, None).pins
    environ = _machine(tmp_path)
    assert (
        requirements.evaluate(
            [SOURCE_BUILD], _env(sourcebuild.inputs(environ, tmp_path / "none")), pins=pins
        )
        == []
    )  # 11.1.0.106: the release's TensorRT
    # planted: a TensorRT 10.3 SDK at TensorRT_ROOT
    header = Path(environ["TensorRT_ROOT"]) / "include" / "NvInferVersion.h"
    header.write_text(
        TRT_VERSION_H.replace("MAJOR_ENTERPRISE 11", "MAJOR_ENTERPRISE 10").replace(
            "MINOR_ENTERPRISE 1", "MINOR_ENTERPRISE 3"
        )
    )
    (unmet,) = requirements.evaluate(
        [SOURCE_BUILD], _env(sourcebuild.inputs(environ, tmp_path / "none")), pins=pins
    )
    assert (
        unmet.reason == "TensorRT_ROOT names TensorRT SDK 10.3.0.106; the release's TensorRT is "
        f"{pins['tensorrt']}"
    )
    # an SDK whose version cannot be read is not taken for the release's either
    header.unlink()
    (unmet,) = requirements.evaluate(
        [SOURCE_BUILD], _env(sourcebuild.inputs(environ, tmp_path / "none")), pins=pins
    )
    assert unmet.reason.startswith(
        "TensorRT_ROOT names a TensorRT SDK of unknown version (no NvInferVersion.h);"
    )
