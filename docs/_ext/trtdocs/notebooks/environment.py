"""Probe the machine that builds the site: what it is and what it can run.

The probe runs in a child process with the kernel's Python, so importing
torch (and trying torch_tensorrt, which may fail or crash) never touches the
Sphinx process. Its result is cached in the build folder, and in the user
cache (:mod:`trtdocs.userdirs`) for fresh build folders, under a fingerprint
that is cheap to recompute: installed distributions, Python, CPU, the C++
toolchain, the source build's inputs and the NVIDIA driver. A change in any
of them probes again.

Run ``python -m trtdocs.notebooks.environment`` (with ``docs/_ext`` on the
path) to print the probe as JSON; it needs only the standard library (and
reports torch if it is there).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..userdirs import cache_home
from ..vocab import PACKAGES  # the versions reported: the guide's distributions, by display name
from . import sourcebuild
from .cxxsdk import toolchain, toolchain_identity

# Where the package lives: the probe's child process imports it from there.
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]

_PROBE_TIMEOUT_S = 300
PROBES = "probes"  # the machine's probes under the user cache, by fingerprint


@dataclasses.dataclass(frozen=True)
class Environment:
    """What one machine offers the notebooks."""

    # platform.platform() and platform.machine() in the child process
    platform: str
    machine: str
    # "model name" in /proc/cpuinfo (platform.processor() elsewhere)
    cpu_model: str
    cpu_count: int
    # importlib.metadata versions of PACKAGES; None when not installed
    versions: dict[str, str | None]
    # torch.cuda.is_available() and torch.cuda.get_device_name(0)
    cuda_available: bool
    gpu_name: str | None
    # nvidia-smi --query-gpu=driver_version; None without a driver
    driver_version: str | None
    # torch.version.cuda: the CUDA runtime torch was built with
    cuda_runtime: str | None
    # why CUDA is not usable, in the words of the failing call
    cuda_error: str | None
    # whether `import torch_tensorrt` succeeded, and the exact error if not
    torch_tensorrt_imports: bool
    torch_tensorrt_error: str | None
    # sha256 of every installed distribution's name==version (importlib.metadata)
    packages_digest: str
    # the cheap fingerprint this probe was taken under
    fingerprint: str
    # ExecuTorch's C++ package version, the C++ compiler, CMake and Ninja
    # (.cxxsdk.toolchain): what a notebook's C++ build depends on
    cxx_toolchain: dict[str, str | None] = dataclasses.field(default_factory=dict)
    # the delegate's source-build inputs (.sourcebuild.inputs): CUDA toolkit, TensorRT
    # SDK, the release's libtorchtrt.tar.gz; each what was found, or None
    source_build: dict[str, str | None] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Environment:
        return cls(**data)

    def describe_machine(self) -> str:
        """One line: the GPU with driver and CUDA, or the CPU."""
        if self.cuda_available and self.gpu_name:
            return (
                f"{self.gpu_name} (driver {self.driver_version or 'unknown'}, "
                f"CUDA {self.cuda_runtime or 'unknown'})"
            )
        return f"{self.cpu_model} ({self.cpu_count} cores), no CUDA GPU"

    def cache_fields(self) -> dict[str, Any]:
        """The fields that decide whether a cached output still holds."""
        data = self.to_json()
        del data["fingerprint"]
        return data


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _nvidia_smi() -> tuple[str | None, str | None]:
    """(GPU name, driver version) of GPU 0 from nvidia-smi, or (None, None)."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None, None
    try:
        out = subprocess.run(
            [exe, "--query-gpu=name,driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None, None
    first = out.strip().splitlines()[0] if out.strip() else ""
    name, _, driver = first.partition(",")
    return name.strip() or None, driver.strip() or None


def _versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for key, dist in PACKAGES.items():
        if not dist:
            continue
        try:
            versions[key] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[key] = None
    return versions


def _distributions() -> list[str]:
    return sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())


def _installed() -> list[str]:
    """The installed distributions, cheaply: the names of the ``*.dist-info`` and
    ``*.egg-info`` entries on ``sys.path`` (each names its project and version)."""
    found = []
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as it:
                found += [
                    f"{entry}/{e.name}" for e in it if e.name.endswith((".dist-info", ".egg-info"))
                ]
        except OSError:
            continue
    return sorted(found)


def fingerprint() -> str:
    """A hash of everything the probe depends on that is cheap to read."""
    parts = [
        # the interpreter by its environment: python and python3 are one interpreter
        sys.prefix,
        sys.version,
        platform.platform(),
        _cpu_model(),
        repr(_nvidia_smi()),
        os.environ.get("CUDA_VISIBLE_DEVICES", ""),
        os.environ.get("LD_LIBRARY_PATH", ""),
        *_installed(),
        toolchain_identity(),
        sourcebuild.identity(),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"


def probe_here() -> Environment:
    """Probe this process's interpreter. Imports torch; prefer :func:`probe`."""
    cuda_available, gpu_name, cuda_runtime, cuda_error = False, None, None, None
    try:
        import torch

        cuda_runtime = torch.version.cuda
        cuda_available = bool(torch.cuda.is_available())
        if cuda_available:
            gpu_name = torch.cuda.get_device_name(0)
        else:
            cuda_error = "torch.cuda.is_available() is False"
    except Exception as exc:  # noqa: BLE001 -- torch missing or broken: say so
        cuda_error = _error_text(exc)

    smi_name, driver = _nvidia_smi()
    if cuda_error and smi_name is None:
        cuda_error += (
            "; nvidia-smi found no GPU" if shutil.which("nvidia-smi") else "; no nvidia-smi"
        )

    trt_imports, trt_error = False, None
    try:
        import torch_tensorrt  # noqa: F401 -- importing it is the probe

        trt_imports = True
    except BaseException as exc:  # noqa: BLE001 -- ImportError, OSError, a bad build's SystemExit
        trt_error = _error_text(exc)

    return Environment(
        platform=platform.platform(),
        machine=platform.machine(),
        cpu_model=_cpu_model(),
        cpu_count=os.cpu_count() or 1,
        versions=_versions(),
        cuda_available=cuda_available,
        gpu_name=gpu_name or smi_name,
        driver_version=driver,
        cuda_runtime=cuda_runtime,
        cuda_error=cuda_error,
        torch_tensorrt_imports=trt_imports,
        torch_tensorrt_error=trt_error,
        packages_digest=hashlib.sha256("\n".join(_distributions()).encode()).hexdigest()[:16],
        cxx_toolchain=toolchain(),
        source_build=sourcebuild.inputs(),
        fingerprint=fingerprint(),
    )


def probe(python: str = sys.executable) -> Environment:
    """Probe with ``python`` in a child process."""
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(
            filter(None, [str(_PACKAGE_ROOT), os.environ.get("PYTHONPATH")])
        ),
    )
    proc = subprocess.run(
        [python, "-m", __name__],
        capture_output=True,
        text=True,
        timeout=_PROBE_TIMEOUT_S,
        env=env,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"environment probe failed ({python}):\n{proc.stderr}")
    return Environment.from_json(json.loads(proc.stdout.strip().splitlines()[-1]))


def cached_probe(cache_file: Path, python: str = sys.executable) -> Environment:
    """The probe from ``cache_file`` when its fingerprint still matches, else from
    this machine's probe cache (a fresh build folder: one probe per machine state,
    not per folder), else a new one, kept in both."""
    current = fingerprint()
    shared = cache_home() / PROBES / f"{current}.json"
    found = _read_probe(cache_file, current)
    if found is None:
        found = _read_probe(shared, current) or probe(python)
        _write_probe(cache_file, found)
    if not shared.is_file():
        _write_probe(shared, found)
    return found


def _read_probe(path: Path, current: str) -> Environment | None:
    try:
        cached = Environment.from_json(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None
    return cached if cached.fingerprint == current else None


def _write_probe(path: Path, env: Environment) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(env.to_json(), indent=2))


if __name__ == "__main__":
    print(json.dumps(probe_here().to_json()))
