"""What the delegate's C++ source build reads besides Python packages, and whether
this machine has it: the ``source-build`` capability (:data:`trtdocs.vocab.SOURCE_BUILD`).

``notebooks/run-cpp`` builds ExecuTorch and the TensorRT delegate from source, as
the documented release's recipe does. Besides a GPU with TensorRT, its cells read:

* the CUDA toolkit, where CMake's FindCUDAToolkit looks for it: ``CUDAToolkit_ROOT``,
  ``CUDA_PATH``, the folder above the ``nvcc`` on ``PATH``, or ``/usr/local/cuda``
  (a folder with ``include/cuda_runtime.h``);
* a TensorRT SDK at ``TensorRT_ROOT``, where the delegate's FindTensorRT looks for
  ``include/NvInfer.h``;
* the release's ``libtorchtrt.tar.gz``, which holds the delegate's sources, at
  ``LIBTORCHTRT_TARBALL``.

:func:`inputs` reports each as the version or file name it found, or None (no
folder of the machine: the probe is published with the build's provenance);
:func:`missing` says what is absent, as the gate's reason. :func:`identity` is
their cheap fingerprint, so setting a variable probes again. Standard library
only: the probe script imports this module.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

TENSORRT_ROOT_ENV = "TensorRT_ROOT"  # the variable the delegate's FindTensorRT reads
TARBALL_ENV = "LIBTORCHTRT_TARBALL"  # the release's libtorchtrt.tar.gz, as the page's cells read it
CUDA_ROOT_ENVS = ("CUDAToolkit_ROOT", "CUDA_PATH")  # FindCUDAToolkit's hints, in its order
DEFAULT_CUDA = Path("/usr/local/cuda")
# The keys of :func:`inputs`, each with what its absence means (the gate's reason).
MISSING: Mapping[str, str] = {
    "cuda_toolkit": f"no CUDA toolkit (include/cuda_runtime.h) under {', '.join(CUDA_ROOT_ENVS)}, "
    f"the folder above nvcc or {DEFAULT_CUDA}",
    "tensorrt_sdk": f"{TENSORRT_ROOT_ENV} is unset or names no TensorRT SDK (include/NvInfer.h)",
    "libtorchtrt": f"{TARBALL_ENV} is unset or names no file",
}
_TRT_PART = re.compile(
    r"^\s*#\s*define\s+(?:NV_TENSORRT|TRT)_(MAJOR|MINOR|PATCH|BUILD)\w*\s+(\d+)", re.M
)
_CUDA_VERSION = re.compile(r"^\s*#\s*define\s+CUDA_VERSION\s+(\d+)", re.M)


Environ = Mapping[str, str]  # the variables the probe reads (os.environ; a test passes its own)


def cuda_roots(environ: Environ = os.environ, default: Path = DEFAULT_CUDA) -> list[Path]:
    """Where FindCUDAToolkit looks, in its order."""
    roots = [Path(v) for v in (environ.get(name) for name in CUDA_ROOT_ENVS) if v]
    if nvcc := shutil.which("nvcc", path=environ.get("PATH")):
        roots.append(Path(nvcc).resolve().parent.parent)
    return [*roots, default]


def cuda_toolkit(environ: Environ = os.environ, default: Path = DEFAULT_CUDA) -> str | None:
    """The first toolkit's version ("13.0.2", from version.json or cuda.h), or None."""
    for root in cuda_roots(environ, default):
        if not (root / "include" / "cuda_runtime.h").is_file():
            continue
        try:
            return str(json.loads((root / "version.json").read_text())["cuda"]["version"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
        try:
            m = _CUDA_VERSION.search((root / "include" / "cuda.h").read_text(errors="replace"))
        except OSError:
            m = None
        return f"{int(m[1]) // 1000}.{int(m[1]) % 1000 // 10}" if m else "version unknown"
    return None


def tensorrt_sdk(environ: Environ = os.environ) -> str | None:
    """The SDK's version ("11.1.0.106", from NvInferVersion.h), or None without NvInfer.h."""
    root = environ.get(TENSORRT_ROOT_ENV)
    if not root or not (Path(root) / "include" / "NvInfer.h").is_file():
        return None
    try:
        text = (Path(root) / "include" / "NvInferVersion.h").read_text(errors="replace")
    except OSError:
        return "version unknown"
    parts: dict[str, str] = {}
    for m in _TRT_PART.finditer(text):
        parts.setdefault(m[1], m[2])
    found = [parts[k] for k in ("MAJOR", "MINOR", "PATCH", "BUILD") if k in parts]
    return ".".join(found) if found else "version unknown"


def libtorchtrt(environ: Environ = os.environ) -> str | None:
    """The archive's file name and size, or None."""
    path = environ.get(TARBALL_ENV)
    if not path or not Path(path).is_file():
        return None
    return f"{Path(path).name} ({Path(path).stat().st_size} bytes)"


def inputs(environ: Environ = os.environ, default: Path = DEFAULT_CUDA) -> dict[str, str | None]:
    """Each input of the source build: what was found, or None."""
    return {
        "cuda_toolkit": cuda_toolkit(environ, default),
        "tensorrt_sdk": tensorrt_sdk(environ),
        "libtorchtrt": libtorchtrt(environ),
    }


def missing(found: Mapping[str, str | None]) -> list[str]:
    """What the source build lacks here, one reason per input (none: it can run)."""
    return [why for key, why in MISSING.items() if not found.get(key)]


def identity(environ: Environ = os.environ, default: Path = DEFAULT_CUDA) -> str:
    """What :func:`inputs` reads, cheaply: the variables, nvcc's place, and each
    file's size and time."""

    def stamp(path: Path) -> str:
        try:
            st = path.stat()
        except OSError:
            return f"{path} none"
        return f"{path} {st.st_size} {st.st_mtime_ns}"

    trt = environ.get(TENSORRT_ROOT_ENV, "")
    files = [root / "include" / "cuda_runtime.h" for root in cuda_roots(environ, default)]
    files += [Path(trt) / "include" / "NvInferVersion.h"] if trt else []
    files += [Path(p)] if (p := environ.get(TARBALL_ENV)) else []
    names = (*CUDA_ROOT_ENVS, TENSORRT_ROOT_ENV, TARBALL_ENV)
    return "\n".join([*(f"{n}={environ.get(n, '')}" for n in names), *map(stamp, files)])
