"""C++ and CMake blocks of the guide, checked against what the build machine has.

Every ```cpp / ```c++ block (or ``{code-block} cpp``) is compiled with
``g++ -fsyntax-only -std=c++17`` against the headers of ExecuTorch's C++
package (the executorch 1.5.x wheel in ``$EXECUTORCH_CXX_PREFIX``, see
:mod:`trtdocs.notebooks.cxxsdk`; the installed wheel's headers when there is none), with
the definition its CMake package gives consumers for the bundled c10 headers,
and with the CUDA headers of the venv's NVIDIA packages (``nvidia/cu13/include``).
A block that includes a header the machine lacks is not compiled: it is
reported with the header, and passes only when the header matches
:data:`EXPECTED_MISSING`, which says why it is absent. An unexpected missing
header is a violation, so nothing is skipped silently. More include folders (an
ExecuTorch source checkout at the pinned commit, TensorRT) can be given in
``TRTDOCS_CXX_INCLUDE`` (os.pathsep-separated); blocks then compile that were
listed before.

Marks for this guard sit on a MyST comment line right above the block, never
inside the code a reader copies. A block under ``% drift: fragment`` is a piece
of a larger file shown for reading; it is listed as skipped with that reason. A
block under ``% drift: executorch X.Y`` is written for that release's C++ API
(the ExecuTorch a release's source build pins): it compiles against the headers
of whichever ExecuTorch here has that version, the C++ package or the installed
wheel, and fails when neither has it. A release no package here ships (one of
:data:`UNPACKAGED_RELEASES`, which says why) is listed, not compiled; any other
release is a violation, so a mistyped mark fails.

Every block that is not compiled is listed (:class:`Listed`) with its reason;
:mod:`.captions` prints that reason under the block on the page.

A code cell that starts with ``%%writefile <file>`` is a block in the
language of that file: C++ for a ``.cpp``/``.h`` file, CMake for
``CMakeLists.txt`` or a ``.cmake`` file (the notebooks write the projects they
build this way).

Every ```cmake block is parsed by ``cmake -P`` inside ``if(FALSE) ... endif()``:
syntax and block nesting are checked, nothing is configured.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import fnmatch
import functools
import hashlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from ..notebooks import cxxsdk
from ..userdirs import cache_home
from ..vocab import CMAKE_LANGUAGES, CPP_LANGUAGES
from . import Violation
from .blocks import PAGE_GLOBS, Block, iter_blocks, page_paths

PASSED = "cpp-passed"  # the user cache's stamps of blocks that compiled (passed_stamp)
CXXFLAGS: tuple[str, ...] = ("-fsyntax-only", "-std=c++17", "-Wno-deprecated-declarations")
# ExecuTorch's CMake package gives consumers this for its copy of c10 (no wheel
# carries the generated torch/headeronly/macros/cmake_macros.h).
DEFINES: tuple[str, ...] = ("-DC10_USING_CUSTOM_GENERATED_MACROS",)
EXTRA_INCLUDE_ENV = "TRTDOCS_CXX_INCLUDE"
FRAGMENT_MARK = "fragment"
API_MARK = re.compile(r"^executorch\s+(\d+\.\d+)$")
RULES: Mapping[str, str] = MappingProxyType({
    "cpp-compile": "a C++ block compiles against the headers the machine has",
    "header-missing": "a missing header is in EXPECTED_MISSING, with the reason it is absent",
    "cmake-parse": "a CMake block parses (cmake -P inside if(FALSE))",
    "toolchain": "g++ and cmake are on PATH",
    "api-version": "a block marked for an ExecuTorch release compiles against that release's headers, "
                   "or the release is in UNPACKAGED_RELEASES (listed, with the reason)",
})

# Header pattern (fnmatch) -> why the build machine does not have it.
EXPECTED_MISSING: Mapping[str, str] = MappingProxyType({
    "executorch/extension/cuda/*": "the CUDA stream extension ships only in ExecuTorch's CUDA builds, "
                                   "not in the CPU wheel's C++ package",
    "executorch/backends/*": "backend headers come with an ExecuTorch source tree, not the C++ package",
    "torch_tensorrt/*": "the TensorRT delegate's headers ship in the libtorchtrt tarball, "
                        "not in a package the build installs",
    "NvInfer*.h": "TensorRT's headers: pip's TensorRT wheels carry libraries only",
})
# The same for the installed Python wheel's headers (a block marked for its release).
WHEEL_MISSING: Mapping[str, str] = MappingProxyType({
    "executorch/extension/module/*": "no ExecuTorch 1.4 package ships the Module API headers: "
                                     "the executorch 1.4.1 wheel carries only the runtime's",
    "executorch/extension/data_loader/*": "no ExecuTorch 1.4 package ships the data loader headers: "
                                          "the executorch 1.4.1 wheel carries only the runtime's",
    "executorch/extension/flat_tensor/*": "no ExecuTorch 1.4 package ships the flat_tensor headers: "
                                          "the executorch 1.4.1 wheel carries only the runtime's",
})

# ExecuTorch releases a page may mark blocks for whose headers no package here ships,
# and why. Measured: PyPI has no sdist of any 1.x release and the 1.4.x wheels ship the
# same 113 runtime headers on every platform (no extension/module); see the tests.
UNPACKAGED_RELEASES: Mapping[str, str] = MappingProxyType({
    "1.6": "ExecuTorch 1.6, which Torch-TensorRT 2.15 pins, ships only as nightly builds on "
           "PyTorch's own package index, and the build installs none of them",
})

CPP_SUFFIXES = frozenset({".cpp", ".cc", ".cxx", ".h", ".hpp"})
_WRITEFILE = re.compile(r"^%%writefile\s+(?:-a\s+)?(?P<file>\S+)\s*$")
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
_FATAL_MISSING = re.compile(r"fatal error: ([^:]+): No such file or directory")
_GXX_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|fatal error): (?P<msg>.*)$", re.M)


@dataclasses.dataclass(frozen=True, slots=True)
class Listed:
    """A block not compiled, and why."""

    path: str  # page
    line: int  # page line of the missing include (of the block's first line when no header)
    header: str  # the missing header ("" for a fragment or an unpackaged release)
    reason: str  # from EXPECTED_MISSING, WHEEL_MISSING, UNPACKAGED_RELEASES or the fragment mark
    fence_line: int = 0  # page line of the block's opening fence
    code: str = ""  # the block's code, as the page shows it (to find it in the doctree)
    release: str = ""  # the ExecuTorch release whose headers were used ("" when none)


@dataclasses.dataclass(frozen=True, slots=True)
class Result:
    """What the C++/CMake guard found."""

    violations: tuple[Violation, ...]  # failures
    listed: tuple[Listed, ...]  # blocks not compiled, each with its reason
    compiled: int  # C++ blocks compiled
    parsed_cmake: int  # CMake blocks parsed


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


# Where the venv's packages carry CUDA's headers: the CUDA runtime wheel's (without
# the crt/ headers cuda_runtime.h includes, which come in nvidia-cuda-crt), then the
# full CUDA toolkit header set triton bundles for its compiler.
CUDA_INCLUDES: tuple[tuple[str, str], ...] = (("nvidia", "cu13/include"), ("triton", "backends/nvidia/include"))


def cuda_include() -> Path | None:
    """The first of :data:`CUDA_INCLUDES` with ``cuda_runtime.h`` and the ``crt/`` headers
    it includes, found without importing."""
    for package, sub in CUDA_INCLUDES:
        spec = importlib.util.find_spec(package)
        for loc in (spec.submodule_search_locations or []) if spec else []:
            inc = Path(loc) / sub
            if (inc / "cuda_runtime.h").is_file() and (inc / "crt" / "host_config.h").is_file():
                return inc
    return None


def _minor(version: str | None) -> str | None:
    m = re.match(r"(\d+)\.(\d+)", version or "")
    return f"{m[1]}.{m[2]}" if m else None


def _wheel_version() -> str | None:
    try:
        return importlib.metadata.version("executorch")
    except importlib.metadata.PackageNotFoundError:
        return None


def include_dirs(extra: Sequence[Path] = (), base: Path | None = None) -> tuple[Path, ...]:
    """Include folders: ExecuTorch's (``base``, by default :func:`executorch_include`)
    with its c10, CUDA's, ``TRTDOCS_CXX_INCLUDE`` and ``extra``."""
    dirs: list[Path] = []
    base = base or executorch_include()
    if base is not None:
        dirs += [base, base / "executorch/runtime/core/portable_type/c10"]
    if (cuda := cuda_include()) is not None:
        dirs.append(cuda)
    env = os.environ.get(EXTRA_INCLUDE_ENV, "")
    dirs += [Path(p) for p in env.split(os.pathsep) if p]
    return tuple(dirs) + tuple(extra)


def api_include_dirs(extra: Sequence[Path] = ()) -> dict[str, tuple[tuple[Path, ...], Mapping[str, str]]]:
    """ExecuTorch release ("1.5") -> (include folders, expected-missing reasons), for
    each ExecuTorch whose headers are here: the C++ package and the Python wheel."""
    sets: dict[str, tuple[tuple[Path, ...], Mapping[str, str]]] = {}
    if (wheel := wheel_include()) is not None and (minor := _minor(_wheel_version())):
        sets[minor] = (include_dirs(extra, wheel), MappingProxyType({**EXPECTED_MISSING, **WHEEL_MISSING}))
    if (sdk := cxxsdk.include_dir()) is not None and (minor := _minor(cxxsdk.sdk_version())):
        sets[minor] = (include_dirs(extra, sdk), EXPECTED_MISSING)
    return sets


def expected_reason(header: str, expected: Mapping[str, str] = EXPECTED_MISSING) -> str | None:
    for pattern, reason in expected.items():
        if fnmatch.fnmatch(header, pattern):
            return reason
    return None


def _missing_project_headers(block: Block, dirs: Sequence[Path]) -> list[tuple[int, str]]:
    """Includes of ExecuTorch/TensorRT/CUDA headers found in none of ``dirs``."""
    out = []
    for n, line in enumerate(block.lines):
        m = _INCLUDE.match(line)
        if not m:
            continue
        header = m[1]
        if not (header.startswith(("executorch/", "torch_tensorrt/", "NvInfer", "cuda"))):
            continue  # the standard library and others: the compiler finds out
        if not any((d / header).is_file() for d in dirs):
            out.append((block.first_line + n, header))
    return out


def passed_stamp(text: str, dirs: Sequence[Path]) -> Path:
    """Where a block that compiled leaves a stamp, keyed by what the compile read: the
    code, the flags, the include folders (path and time) and the compiler's file. A page
    edit elsewhere compiles only the blocks that changed; a failing block compiles again
    whenever its page is checked."""
    h = hashlib.sha256("\0".join([text, *CXXFLAGS, *DEFINES, cxxsdk.toolchain_identity()]).encode())
    for d in dirs:
        h.update(f"{d} {d.stat().st_mtime_ns if d.is_dir() else '-'}".encode())
    gxx = shutil.which("g++")
    h.update(f"{gxx} {Path(gxx).resolve().stat().st_mtime_ns if gxx else '-'}".encode())
    return cache_home() / PASSED / h.hexdigest()


def listed(block: Block, rel: str, line: int, header: str, reason: str, release: str = "") -> Listed:
    """A block not compiled, with what :mod:`.captions` needs to find it on the page."""
    return Listed(rel, line, header, reason, block.fence_line, block.text, release)


def check_cpp_block(block: Block, rel: str, dirs: Sequence[Path],
                    expected: Mapping[str, str] = EXPECTED_MISSING,
                    release: str = "") -> tuple[list[Violation], list[Listed], bool]:
    """Violations, listed blocks, and whether it was compiled."""
    if FRAGMENT_MARK in block.marks:
        return [], [listed(block, rel, block.first_line, "", "a fragment of a larger file")], False
    missing = _missing_project_headers(block, dirs)
    if not missing:
        passed = passed_stamp(block.text, dirs)
        if passed.is_file():
            return [], [], True
        with tempfile.TemporaryDirectory(prefix="drift-cpp-") as tmp:
            src = Path(tmp) / "block.cpp"
            src.write_text(block.text, encoding="utf-8")
            proc = subprocess.run(["g++", *CXXFLAGS, *DEFINES, *(f"-I{d}" for d in dirs), str(src)],
                                  capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            with contextlib.suppress(OSError):
                passed.parent.mkdir(parents=True, exist_ok=True)
                passed.touch()
            return [], [], True
        fatal = _FATAL_MISSING.search(proc.stderr)
        if fatal is None:
            return _compile_errors(proc.stderr, src, block, rel), [], True
        header = fatal[1].strip()
        line = next((block.first_line + n for n, text in enumerate(block.lines)
                     if (m := _INCLUDE.match(text)) and m[1] == header), block.first_line)
        missing = [(line, header)]
    violations: list[Violation] = []
    found: list[Listed] = []
    for line, header in missing:
        reason = expected_reason(header, expected)
        if reason is None:
            violations.append(Violation(rel, line, "header-missing",
                                        f"<{header}> is not on this machine and not in EXPECTED_MISSING "
                                        f"(trtdocs/drift/cpp.py); add it with the reason, or fix the include"))
        else:
            found.append(listed(block, rel, line, header, reason, release))
    return violations, found, False


def _compile_errors(stderr: str, src: Path, block: Block, rel: str) -> list[Violation]:
    out = []
    for m in _GXX_LINE.finditer(stderr):
        if Path(m["file"]).name != src.name:
            continue
        out.append(Violation(rel, block.first_line + int(m["line"]) - 1, "cpp-compile",
                             f"g++ -fsyntax-only: {m['msg']}"))
    if not out:  # the error is inside a header: report the block with the first message
        first = next((ln for ln in stderr.splitlines() if "error" in ln), stderr.strip()[:300])
        out.append(Violation(rel, block.first_line, "cpp-compile", f"g++ -fsyntax-only: {first}"))
    return out


def _cmake() -> str | None:
    """CMake from this interpreter's scripts folder (PyPI's), else the one on PATH."""
    return shutil.which("cmake", path=cxxsdk.tool_path())


def check_cmake_block(block: Block, rel: str) -> list[Violation]:
    with tempfile.TemporaryDirectory(prefix="drift-cmake-") as tmp:
        script = Path(tmp) / "block.cmake"
        script.write_text("if(FALSE)\n" + block.text + "endif()\n", encoding="utf-8")
        proc = subprocess.run([_cmake() or "cmake", "-P", str(script)], capture_output=True, text=True, check=False, cwd=tmp)
    if proc.returncode == 0:
        return []
    m = re.search(r"CMake Error at [^:]+:(\d+)[^\n]*:\n(.*?)(?:\n\n|\Z)", proc.stderr, re.S)
    line = block.first_line + max(int(m[1]) - 2, 0) if m else block.first_line
    message = " ".join((m[2] if m else proc.stderr).split())
    return [Violation(rel, line, "cmake-parse", f"cmake -P: {message}")]


def code_block(block: Block) -> Block | None:
    """The block as C++ or CMake: a fence or code-block as it is, a ``%%writefile``
    cell as the file it writes (its language from the file name, from its second line)."""
    if block.kind in ("fence", "code-block", "code"):
        return block
    if block.kind != "code-cell" or not block.lines or not (m := _WRITEFILE.match(block.lines[0])):
        return None
    name = Path(m["file"].replace("{", "").replace("}", ""))
    language = ("cpp" if name.suffix in CPP_SUFFIXES
                else "cmake" if name.name == "CMakeLists.txt" or name.suffix == ".cmake" else "")
    return dataclasses.replace(block, kind="writefile", language=language,
                               first_line=block.first_line + 1, lines=block.lines[1:])


def check_pages(root: Path, globs: Iterable[str] = PAGE_GLOBS, *, paths: Iterable[Path] | None = None,
                extra_include: Sequence[Path] = ()) -> Result:
    """Every C++ and CMake block of the pages; the compilers run several at once
    (one a core), the findings come in page order."""
    dirs = include_dirs(extra_include)
    by_api = api_include_dirs(extra_include)
    # the release unmarked blocks compile against: the C++ package's, else the wheel's
    default_release = _minor(cxxsdk.sdk_version() if cxxsdk.include_dir() else _wheel_version()) or ""
    tools = {"g++": shutil.which("g++"), "cmake": _cmake()}
    # each block's check: () -> (violations, listed, compiled, parsed)
    checks: list[_Check] = []
    for path in (list(paths) if paths is not None else page_paths(root, globs)):
        rel = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        for found in iter_blocks(path):
            if (block := code_block(found)) is None:
                continue
            if block.language in CPP_LANGUAGES:
                if tools["g++"] is None:
                    checks.append(_found([Violation(rel, block.first_line, "toolchain", "g++ is not on PATH")]))
                    continue
                marked = next(filter(None, map(API_MARK.match, block.marks)), None)
                if marked and marked[1] not in by_api:
                    if (why := UNPACKAGED_RELEASES.get(marked[1])) is not None:
                        checks.append(_found([], [listed(block, rel, block.first_line, "", why, marked[1])]))
                        continue
                    checks.append(_found([Violation(
                        rel, block.first_line, "api-version",
                        f"the block is marked for executorch {marked[1]}; the headers here "
                        f"are executorch {', '.join(sorted(by_api)) or 'none'}, and "
                        f"UNPACKAGED_RELEASES (trtdocs/drift/cpp.py) does not name it")]))
                    continue
                block_dirs, expected = by_api[marked[1]] if marked else (dirs, EXPECTED_MISSING)
                version = marked[1] if marked else default_release
                checks.append(functools.partial(_compile_check, block, rel, block_dirs, expected, version))
            elif block.language in CMAKE_LANGUAGES:
                if tools["cmake"] is None:
                    checks.append(_found([Violation(rel, block.first_line, "toolchain", "cmake is not on PATH")]))
                    continue
                checks.append(functools.partial(_cmake_check, block, rel))
    violations: list[Violation] = []
    listed_blocks: list[Listed] = []
    compiled = parsed = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for v, lst, done, cmake in pool.map(lambda check: check(), checks):
            violations += v
            listed_blocks += lst
            compiled += done
            parsed += cmake
    return Result(tuple(violations), tuple(listed_blocks), compiled, parsed)


_Check = Callable[[], tuple[list[Violation], list[Listed], int, int]]


def _found(violations: list[Violation], found: Sequence[Listed] = ()) -> _Check:
    """A block's findings known without running anything."""
    return lambda: (violations, list(found), 0, 0)


def _compile_check(block: Block, rel: str, dirs: Sequence[Path], expected: Mapping[str, str],
                   release: str) -> tuple[list[Violation], list[Listed], int, int]:
    v, lst, done = check_cpp_block(block, rel, dirs, expected, release)
    return v, lst, int(done), 0


def _cmake_check(block: Block, rel: str) -> tuple[list[Violation], list[Listed], int, int]:
    return check_cmake_block(block, rel), [], 0, 1
