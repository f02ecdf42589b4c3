"""C++ and CMake blocks of the guide, checked against what the build machine has.

Every ```cpp / ```c++ block (or ``{code-block} cpp``) is compiled with
``g++ -fsyntax-only -std=c++17`` against the headers the installed ExecuTorch
wheel ships (``site-packages/executorch/include``), with the definition
ExecuTorch's own build passes for its bundled c10 headers. A block that
includes a header the machine lacks is not compiled: it is reported with the
header, and passes only when the header matches :data:`EXPECTED_MISSING`, which
says why it is absent. An unexpected missing header is a violation, so nothing
is skipped silently. More include folders (an ExecuTorch source checkout at the
pinned commit, TensorRT, CUDA) can be given in ``TRTDOCS_CXX_INCLUDE``
(os.pathsep-separated); blocks then compile that were listed before.

A block whose first line is ``// drift: fragment`` is a piece of a larger file
shown for reading; it is listed as skipped with that reason.

Every ```cmake block is parsed by ``cmake -P`` inside ``if(FALSE) ... endif()``:
syntax and block nesting are checked, nothing is configured.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from . import Violation
from .blocks import PAGE_GLOBS, Block, iter_blocks, page_paths

CPP_LANGUAGES = frozenset({"cpp", "c++", "cxx"})
CMAKE_LANGUAGES = frozenset({"cmake"})
CXXFLAGS: tuple[str, ...] = ("-fsyntax-only", "-std=c++17", "-Wno-deprecated-declarations")
# ExecuTorch's build defines this for its copy of c10 (the wheel lacks the generated
# torch/headeronly/macros/cmake_macros.h).
DEFINES: tuple[str, ...] = ("-DC10_USING_CUSTOM_GENERATED_MACROS",)
EXTRA_INCLUDE_ENV = "TRTDOCS_CXX_INCLUDE"
FRAGMENT_MARK = "// drift: fragment"
RULES: Mapping[str, str] = MappingProxyType({
    "cpp-compile": "a C++ block compiles against the headers the machine has",
    "header-missing": "a missing header is in EXPECTED_MISSING, with the reason it is absent",
    "cmake-parse": "a CMake block parses (cmake -P inside if(FALSE))",
    "toolchain": "g++ and cmake are on PATH",
})

# Header pattern (fnmatch) -> why the build machine does not have it.
EXPECTED_MISSING: Mapping[str, str] = MappingProxyType({
    "executorch/extension/module/*": "the executorch 1.4.1 wheel ships no Module API headers",
    "executorch/extension/data_loader/*": "the executorch 1.4.1 wheel ships no data loader headers",
    "executorch/extension/flat_tensor/*": "the executorch 1.4.1 wheel ships no flat_tensor headers",
    "executorch/extension/cuda/*": "ExecuTorch's CUDA extension headers are not in the CPU wheel",
    "executorch/backends/*": "backend headers come with an ExecuTorch source tree, not the wheel",
    "torch_tensorrt/*": "the delegate's headers ship in the libtorchtrt tarball, not in a wheel",
    "NvInfer*.h": "TensorRT's headers: TensorRT is not installable on the build machines",
    "cuda.h": "the CUDA toolkit is not on the build machines",
    "cuda_runtime.h": "the CUDA toolkit is not on the build machines",
    "cuda_runtime_api.h": "the CUDA toolkit is not on the build machines",
})

_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
_FATAL_MISSING = re.compile(r"fatal error: ([^:]+): No such file or directory")
_GXX_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|fatal error): (?P<msg>.*)$", re.M)


@dataclasses.dataclass(frozen=True, slots=True)
class Listed:
    """A block not compiled, and why."""

    path: str  # page
    line: int  # page line of the block's first line
    header: str  # the missing header ("" for a fragment)
    reason: str  # from EXPECTED_MISSING, or the fragment mark


@dataclasses.dataclass(frozen=True, slots=True)
class Result:
    """What the C++/CMake guard found."""

    violations: tuple[Violation, ...]  # failures
    listed: tuple[Listed, ...]  # blocks not compiled, each with its reason
    compiled: int  # C++ blocks compiled
    parsed_cmake: int  # CMake blocks parsed


def executorch_include() -> Path | None:
    """``site-packages/executorch/include`` of the installed wheel (found without importing it)."""
    spec = importlib.util.find_spec("executorch")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        if (Path(loc) / "include" / "executorch").is_dir():
            return Path(loc) / "include"
    return None


def include_dirs(extra: Sequence[Path] = ()) -> tuple[Path, ...]:
    dirs: list[Path] = []
    base = executorch_include()
    if base is not None:
        dirs += [base, base / "executorch/runtime/core/portable_type/c10"]
    env = os.environ.get(EXTRA_INCLUDE_ENV, "")
    dirs += [Path(p) for p in env.split(os.pathsep) if p]
    return tuple(dirs) + tuple(extra)


def expected_reason(header: str) -> str | None:
    for pattern, reason in EXPECTED_MISSING.items():
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


def check_cpp_block(block: Block, rel: str, dirs: Sequence[Path]) -> tuple[list[Violation], list[Listed], bool]:
    """Violations, listed blocks, and whether it was compiled."""
    if block.lines and block.lines[0].strip() == FRAGMENT_MARK:
        return [], [Listed(rel, block.first_line, "", "a fragment (marked '// drift: fragment')")], False
    missing = _missing_project_headers(block, dirs)
    if not missing:
        with tempfile.TemporaryDirectory(prefix="drift-cpp-") as tmp:
            src = Path(tmp) / "block.cpp"
            src.write_text(block.text, encoding="utf-8")
            proc = subprocess.run(["g++", *CXXFLAGS, *DEFINES, *(f"-I{d}" for d in dirs), str(src)],
                                  capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            return [], [], True
        fatal = _FATAL_MISSING.search(proc.stderr)
        if fatal is None:
            return _compile_errors(proc.stderr, src, block, rel), [], True
        header = fatal[1].strip()
        line = next((block.first_line + n for n, text in enumerate(block.lines)
                     if (m := _INCLUDE.match(text)) and m[1] == header), block.first_line)
        missing = [(line, header)]
    violations, listed = [], []
    for line, header in missing:
        reason = expected_reason(header)
        if reason is None:
            violations.append(Violation(rel, line, "header-missing",
                                        f"<{header}> is not on this machine and not in EXPECTED_MISSING "
                                        f"(trtdocs/drift/cpp.py); add it with the reason, or fix the include"))
        else:
            listed.append(Listed(rel, line, header, reason))
    return violations, listed, False


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


def check_cmake_block(block: Block, rel: str) -> list[Violation]:
    with tempfile.TemporaryDirectory(prefix="drift-cmake-") as tmp:
        script = Path(tmp) / "block.cmake"
        script.write_text("if(FALSE)\n" + block.text + "endif()\n", encoding="utf-8")
        proc = subprocess.run(["cmake", "-P", str(script)], capture_output=True, text=True, check=False, cwd=tmp)
    if proc.returncode == 0:
        return []
    m = re.search(r"CMake Error at [^:]+:(\d+)[^\n]*:\n(.*?)(?:\n\n|\Z)", proc.stderr, re.S)
    line = block.first_line + max(int(m[1]) - 2, 0) if m else block.first_line
    message = " ".join((m[2] if m else proc.stderr).split())
    return [Violation(rel, line, "cmake-parse", f"cmake -P: {message}")]


def check_pages(root: Path, globs: Iterable[str] = PAGE_GLOBS, *, paths: Iterable[Path] | None = None,
                extra_include: Sequence[Path] = ()) -> Result:
    violations: list[Violation] = []
    listed: list[Listed] = []
    compiled = parsed = 0
    dirs = include_dirs(extra_include)
    tools = {"g++": shutil.which("g++"), "cmake": shutil.which("cmake")}
    for path in (list(paths) if paths is not None else page_paths(root, globs)):
        rel = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        for block in iter_blocks(path):
            if block.kind not in ("fence", "code-block", "code"):
                continue
            if block.language in CPP_LANGUAGES:
                if tools["g++"] is None:
                    violations.append(Violation(rel, block.first_line, "toolchain", "g++ is not on PATH"))
                    continue
                v, lst, done = check_cpp_block(block, rel, dirs)
                violations += v
                listed += lst
                compiled += done
            elif block.language in CMAKE_LANGUAGES:
                if tools["cmake"] is None:
                    violations.append(Violation(rel, block.first_line, "toolchain", "cmake is not on PATH"))
                    continue
                violations += check_cmake_block(block, rel)
                parsed += 1
    return Result(tuple(violations), tuple(listed), compiled, parsed)
