"""Where the C++ guard (:mod:`.cpp`) finds the headers a block includes, in the
order g++ searches them:

1. real headers that PyPI carries: ExecuTorch's C++ package (the executorch 1.5.x
   wheel in ``$EXECUTORCH_CXX_PREFIX``, :mod:`trtdocs.notebooks.cxxsdk`) or, for a
   block marked for its release, the installed executorch wheel's headers; then
   CUDA's headers from the venv's NVIDIA or triton wheel;
2. folders of real headers named in ``TRTDOCS_CXX_INCLUDE`` (os.pathsep-separated;
   the setting ``trtdocs_cxx_include``): the GPU job fetches the headers PyPI does
   not carry there (``tools/cxx_headers.py``);
3. the declaration stubs in ``stubs/``, for the headers no package carries (the
   TensorRT delegate's, ExecuTorch's CUDA extension): each declares only what the
   guide's blocks use, with its real source named above it; ``stubs/SOURCES.toml``
   lists the real files. ``TRTDOCS_CXX_STUBS=0`` (``trtdocs_cxx_stubs``) leaves
   them out, so a header no real folder has fails its block.

Each folder carries the words a block's caption names it by (:class:`Folder`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .. import config, tomlfile
from ..notebooks import cxxsdk

EXTRA_INCLUDE_ENV = config.environment_name("cxx_include")  # TRTDOCS_CXX_INCLUDE
STUBS_ENV = config.environment_name("cxx_stubs")  # TRTDOCS_CXX_STUBS
STUBS = Path(__file__).resolve().parent / "stubs"
SOURCES = STUBS / "SOURCES.toml"  # the real headers the stubs stand for
STUBS_WORDS = "docs/_ext/trtdocs/drift/stubs"  # how a caption names the stubs' folder

# Where the venv's packages carry CUDA's headers: (import name, folder in it,
# distribution). The CUDA runtime wheel's (without the crt/ headers cuda_runtime.h
# includes, which come in nvidia-cuda-crt), then the CUDA toolkit headers triton
# bundles for its compiler.
CUDA_INCLUDES: tuple[tuple[str, str, str], ...] = (
    ("nvidia", "cu13/include", "nvidia-cuda-runtime"),
    ("triton", "backends/nvidia/include", "triton"),
)
_CUDART_VERSION = re.compile(r"^#define\s+CUDART_VERSION\s+(\d+)", re.M)


@dataclasses.dataclass(frozen=True, slots=True)
class Folder:
    """One include folder, and how a caption names what comes from it."""

    path: Path
    kind: str  # "package" (PyPI's), "real" (TRTDOCS_CXX_INCLUDE) or "stubs"
    words: str  # "ExecuTorch 1.5.1's C++ package"; "" for the real and stub folders


def minor(version: str | None) -> str | None:
    m = re.match(r"(\d+)\.(\d+)", version or "")
    return f"{m[1]}.{m[2]}" if m else None


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def wheel_version() -> str | None:
    """The installed executorch wheel's version."""
    return _version("executorch")


def wheel_include() -> Path | None:
    """``site-packages/executorch/include`` of the installed wheel (found without importing it)."""
    spec = importlib.util.find_spec("executorch")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        if (Path(loc) / "include" / "executorch").is_dir():
            return Path(loc) / "include"
    return None


def executorch_include() -> Path | None:
    """The C++ package's ``include`` (trtdocs.notebooks.cxxsdk), else the installed wheel's."""
    return cxxsdk.include_dir() or wheel_include()


def _cuda() -> tuple[Path, str] | None:
    """The first of :data:`CUDA_INCLUDES` with ``cuda_runtime.h`` and the ``crt/``
    headers it includes, and its distribution."""
    for package, sub, dist in CUDA_INCLUDES:
        spec = importlib.util.find_spec(package)
        for loc in (spec.submodule_search_locations or []) if spec else []:
            inc = Path(loc) / sub
            if (inc / "cuda_runtime.h").is_file() and (inc / "crt" / "host_config.h").is_file():
                return inc, dist
    return None


def cuda_include() -> Path | None:
    found = _cuda()
    return found[0] if found else None


def cuda_words(inc: Path, dist: str) -> str:
    """'CUDA 13.1's headers (the triton 3.8.0 wheel's)', from ``CUDART_VERSION``."""
    api = inc / "cuda_runtime_api.h"
    m = (
        _CUDART_VERSION.search(api.read_text(encoding="utf-8", errors="replace"))
        if api.is_file()
        else None
    )
    cuda = f"CUDA {int(m[1]) // 1000}.{int(m[1]) % 1000 // 10}" if m else "CUDA"
    wheel = " ".join(filter(None, [dist, _version(dist)]))
    return f"{cuda}'s headers (the {wheel} wheel's)"


def _sdk_words() -> str:
    return f"ExecuTorch {cxxsdk.sdk_version()}'s C++ package"


def _wheel_words() -> str:
    return f"the executorch {wheel_version()} wheel's headers"


def stubs_enabled() -> bool:
    return bool(config.from_environment("cxx_stubs"))


def real_folders() -> tuple[Path, ...]:
    """The folders of ``TRTDOCS_CXX_INCLUDE``."""
    return tuple(
        Path(p) for p in str(config.from_environment("cxx_include")).split(os.pathsep) if p
    )


def folders(
    base: Path | None = None,
    base_words: str = "",
    extra: Sequence[Path] = (),
    stubs: bool | None = None,
) -> tuple[Folder, ...]:
    """Include folders in search order: ExecuTorch's (``base``, by default
    :func:`executorch_include`) with its c10, CUDA's, ``TRTDOCS_CXX_INCLUDE`` and
    ``extra``, then the stubs (unless ``stubs`` is False or ``TRTDOCS_CXX_STUBS=0``)."""
    out: list[Folder] = []
    if base is None:
        base = executorch_include()
        sdk = cxxsdk.include_dir()
        base_words = _sdk_words() if base is not None and base == sdk else _wheel_words()
    if base is not None:
        out += [
            Folder(base, "package", base_words),
            Folder(base / "executorch/runtime/core/portable_type/c10", "package", base_words),
        ]
    if (cuda := _cuda()) is not None:
        out.append(Folder(cuda[0], "package", cuda_words(*cuda)))
    out += [Folder(p, "real", "") for p in (*real_folders(), *extra)]
    if stubs if stubs is not None else stubs_enabled():
        out.append(Folder(STUBS, "stubs", ""))
    return tuple(out)


def include_dirs(extra: Sequence[Path] = (), base: Path | None = None) -> tuple[Path, ...]:
    """The paths of :func:`folders`."""
    return tuple(f.path for f in folders(base, "", extra))


def api_folders(
    extra: Sequence[Path] = (), stubs: bool | None = None
) -> dict[str, tuple[Folder, ...]]:
    """ExecuTorch release ("1.5") -> include folders, for each ExecuTorch whose
    headers are here: the installed Python wheel and the C++ package."""
    sets: dict[str, tuple[Folder, ...]] = {}
    if (wheel := wheel_include()) is not None and (release := minor(wheel_version())):
        sets[release] = folders(wheel, _wheel_words(), extra, stubs)
    if (sdk := cxxsdk.include_dir()) is not None and (release := minor(cxxsdk.sdk_version())):
        sets[release] = folders(sdk, _sdk_words(), extra, stubs)
    return sets


def stub_headers() -> tuple[str, ...]:
    """Every stub header, as a block includes it."""
    return tuple(sorted(str(p.relative_to(STUBS)) for p in STUBS.rglob("*.h")))


def stubs_digest() -> str:
    """The stubs' content: a stub that changes compiles its blocks again."""
    h = hashlib.sha256()
    for name in stub_headers():
        h.update(name.encode() + b"\0" + (STUBS / name).read_bytes())
    h.update(SOURCES.read_bytes())
    return h.hexdigest()


def sources() -> tuple[Mapping[str, Any], ...]:
    """The real repositories of :data:`SOURCES`."""
    data = tomlfile.read(SOURCES)
    return tuple(MappingProxyType(r) for r in data["repository"])


_REAL = re.compile(
    r"^// real: (?P<repo>[\w.-]+/[\w.-]+)@(?P<commit>[0-9a-f]{40})\b.*\n//\s+(?P<path>[^\s,]+)",
    re.M,
)
# a class or a function declared at namespace level (members are indented)
_DECLARATION = re.compile(
    r"^(?:class|struct|enum|union)\s+\w+|^[A-Za-z_][\w:<>,* &]*\s+\w+\([^;{]*\);", re.M
)


def check_stubs(folder: Path = STUBS) -> list[str]:
    """Problems of the stubs in ``folder``: a declaration at namespace level without a
    ``// real: <repo>@<commit>`` comment above it (the next comment line names the
    real file), a source not in ``SOURCES.toml``, a real file that is not where the
    stub's name says, a stub ``SOURCES.toml`` names that is not there."""
    repos = {
        (r["repo"], r["commit"]): r for r in tomlfile.read(folder / SOURCES.name)["repository"]
    }
    problems: list[str] = []
    named = {name for r in repos.values() for name in r["stubs"]}
    stubs = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.h"))
    problems += [
        f"SOURCES.toml names {name}, which is not in {folder}"
        for name in sorted(named - set(stubs))
    ]
    for name in stubs:
        text = (folder / name).read_text(encoding="utf-8")
        sources = list(_REAL.finditer(text))
        for decl in _DECLARATION.finditer(text):
            above = [m for m in sources if m.end() <= decl.start()]
            between = text[above[-1].end() : decl.start()].split("\n")[1:] if above else []
            if not above or any(line and not line.startswith("//") for line in between):
                problems.append(
                    f"{name}: {decl[0]!r} has no '// real: <repo>@<commit>' comment right above it"
                )
        for m in sources:
            repo = repos.get((m["repo"], m["commit"]))
            if repo is None:
                problems.append(f"{name}: {m['repo']}@{m['commit']} is not in SOURCES.toml")
                continue
            inside = Path(name).relative_to(repo["into"]) if repo["into"] else Path(name)
            if m["path"] != str(Path(repo["path"]) / inside) or name not in repo["stubs"]:
                problems.append(
                    f"{name}: its source {m['path']} is not {repo['path']}/{inside} "
                    f"of {m['repo']}, or SOURCES.toml does not list it there"
                )
    return problems
