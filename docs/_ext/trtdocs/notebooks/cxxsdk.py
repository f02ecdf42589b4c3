"""ExecuTorch's C++ package and the C++ toolchain the guide's C++ builds use.

The executorch 1.5.x wheel is a C++ SDK (headers, shared libraries, a CMake
package). The guide's Python pairing needs executorch 1.4.1, so the Makefile
installs the 1.5.x wheel with no dependencies into ``<venv>/cxx`` (``pip install
--target``), where Python does not import it. :data:`PREFIX_ENV` names that
folder for the notebooks and the C++ drift guard; a reader sets it to the folder
they installed into. The build sets it to ``<venv>/cxx`` when it is unset.

What the C++ build depends on (:func:`toolchain`) goes into the environment
probe, so a notebook that builds C++ re-executes when the package, the compiler
or CMake changes. Standard library only: the probe script imports this module.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

PREFIX_ENV = "EXECUTORCH_CXX_PREFIX"
# ExecuTorch's policy for which runtime loads which .pte (canonical on main).
COMPATIBILITY_URL = "https://github.com/pytorch/executorch/blob/main/runtime/COMPATIBILITY.md"
_CMAKE_CONFIG = Path("executorch/lib/cmake/executorch/executorch-config.cmake")
_VERSION = re.compile(r"(\d+)\.(\d+)")


def prefix() -> Path | None:
    """The folder holding the C++ package: ``$EXECUTORCH_CXX_PREFIX``, else ``<sys.prefix>/cxx``."""
    for candidate in (os.environ.get(PREFIX_ENV), str(Path(sys.prefix) / "cxx")):
        if candidate and (Path(candidate) / _CMAKE_CONFIG).is_file():
            return Path(candidate)
    return None


def package_root(where: Path | None = None) -> Path | None:
    """``<prefix>/executorch``: what ``CMAKE_PREFIX_PATH`` names, with ``include/`` and ``lib/``."""
    where = where or prefix()
    return where / "executorch" if where is not None else None


def include_dir(where: Path | None = None) -> Path | None:
    root = package_root(where)
    return (
        root / "include"
        if root is not None and (root / "include" / "executorch").is_dir()
        else None
    )


def sdk_version(where: Path | None = None) -> str | None:
    """The C++ package's version, from the dist-info pip wrote beside it."""
    where = where or prefix()
    if where is None:
        return None
    for dist in metadata.distributions(path=[str(where)]):
        if dist.metadata["Name"] == "executorch":
            return dist.version
    return None


def _first_line(command: list[str]) -> str | None:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.strip().splitlines()[0] if out.strip() else None


def tool_path() -> str:
    """PATH with this interpreter's scripts folder first (PyPI's cmake and ninja)."""
    return os.pathsep.join(filter(None, [sysconfig.get_path("scripts"), os.environ.get("PATH")]))


def toolchain() -> dict[str, str | None]:
    """What a C++ build here depends on: the package version, the compiler, CMake, Ninja."""
    path = tool_path()
    cxx = os.environ.get("CXX") or "c++"
    return {
        "executorch_cxx": sdk_version(),
        "compiler": _first_line([shutil.which(cxx, path=path) or cxx, "--version"]),
        "cmake": _first_line([shutil.which("cmake", path=path) or "cmake", "--version"]),
        "ninja": _first_line([shutil.which("ninja", path=path) or "ninja", "--version"]),
    }


def toolchain_identity() -> str:
    """What :func:`toolchain` reports, cheaply: the C++ package's version and each
    tool's file, size and time (a new compiler, CMake or Ninja is a new file).
    For the keys a build computes on every run; the probe records the versions."""
    path = tool_path()
    cxx = os.environ.get("CXX") or "c++"
    parts = [f"executorch_cxx={sdk_version()}"]
    for name in (cxx, "cmake", "ninja"):
        found = shutil.which(name, path=path)
        if found is None:
            parts.append(f"{name}=none")
            continue
        real = Path(found).resolve()
        stat = real.stat()
        parts.append(f"{name}={real} {stat.st_size} {stat.st_mtime_ns}")
    return "\n".join(parts)


def within_policy(exported: str, runtime: str) -> bool:
    """Whether ExecuTorch's compatibility policy guarantees that a runtime of
    version ``runtime`` loads a program exported by ``exported``: the same or the
    next minor release (a new major counts as next)."""
    e, r = (_VERSION.match(v) for v in (exported, runtime))
    if e is None or r is None:
        return False
    (em, en), (rm, rn) = ((int(m[1]), int(m[2])) for m in (e, r))
    return (rm, rn) in ((em, en), (em, en + 1)) or (rm == em + 1 and rn == 0)


def pairing(exported: str | None, runtime: str | None) -> dict[str, object]:
    """Provenance of the C++ runs: which ExecuTorch exported (Python), which ran
    (the C++ package), whether the policy covers the pair, and the policy."""
    return {
        "exported_by": f"executorch {exported} (Python)" if exported else None,
        "run_by": f"executorch {runtime} (C++ package)" if runtime else None,
        "within_policy": bool(exported and runtime and within_policy(exported, runtime)),
        "policy": COMPATIBILITY_URL,
    }


def kernel_env() -> dict[str, str]:
    """What the notebooks' kernels need to find the package: ``$EXECUTORCH_CXX_PREFIX``,
    the folder :func:`prefix` found (the caller's choice first); empty when none."""
    where = prefix()
    return {PREFIX_ENV: str(where)} if where is not None else {}
