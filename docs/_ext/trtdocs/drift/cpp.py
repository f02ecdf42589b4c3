"""C++ and CMake blocks of the guide, checked against the headers they include.

Every ```cpp / ```c++ block (or ``{code-block} cpp``) is compiled with
``g++ -fsyntax-only -std=c++17`` (:mod:`.gxx`) against the include folders of :mod:`.headers`,
in g++'s search order: the real headers PyPI carries (ExecuTorch's C++ package or
wheel, CUDA's from the venv's wheels), the real folders of ``TRTDOCS_CXX_INCLUDE``,
then the declaration stubs for the headers no package carries. No block is left
out for a missing header: a header found nowhere fails its block (rule
``header-missing``), so a missing include fails the build whatever the block
includes. The compile's dependency list (``-MD``) says which folders a block read;
each compiled block is reported (:class:`Compiled`) with them, and :mod:`.captions`
says under it what it was compiled against, naming every stub it read.

Marks for this guard sit on a MyST comment line right above the block, never
inside the code a reader copies. A block under ``% drift: fragment`` is a piece
of a larger file shown for reading; it is listed with that reason. A block under
``% drift: executorch X.Y`` is written for that release's C++ API (the ExecuTorch
a release's source build pins): it compiles against the headers of whichever
ExecuTorch here has that version, the C++ package or the installed wheel, and
fails when neither has it. A header that release's wheel does not ship
(:data:`WHEEL_MISSING`) and a release no package here ships
(:data:`UNPACKAGED_RELEASES`) are listed, with the reason; any other release is a
violation, so a mistyped mark fails. Every block not compiled is listed
(:class:`Listed`) and :mod:`.captions` prints the reason under it.

A code cell that starts with ``%%writefile <file>`` is a block in the
language of that file: C++ for a ``.cpp``/``.h`` file, CMake for
``CMakeLists.txt`` or a ``.cmake`` file (the notebooks write the projects they
build this way).

Every ```cmake block is parsed by ``cmake -P`` inside ``if(FALSE) ... endif()``
(:mod:`.cmake`): syntax and block nesting are checked, nothing is configured.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from ..pages import Violation
from ..pages.blocks import PAGE_GLOBS, Block, iter_blocks, page_paths
from ..vocab import CMAKE_LANGUAGES, CPP_LANGUAGES
from . import headers
from .cmake import check_cmake_block, cmake_tool
from .gxx import Compiled, Listed, check_cpp_block, listed
from .headers import Folder

FRAGMENT_MARK = "fragment"
API_MARK = re.compile(r"^executorch\s+(\d+\.\d+)$")
RULES: Mapping[str, str] = MappingProxyType(
    {
        "cpp-compile": "a C++ block compiles against the headers of its release, CUDA's, and the "
        "stubs",
        "header-missing": "every header a block includes is in an include folder or a stub "
        "(drift/stubs)",
        "cmake-parse": "a CMake block parses (cmake -P inside if(FALSE))",
        "toolchain": "g++ and cmake are on PATH",
        "api-version": "a block marked for an ExecuTorch release compiles against that release's "
        "headers, or the release is in UNPACKAGED_RELEASES (listed, with the reason)",
    }
)

# Header pattern (fnmatch) -> why the installed Python wheel's headers lack it (a block marked for
# its release).
WHEEL_MISSING: Mapping[str, str] = MappingProxyType(
    {
        "executorch/extension/module/*": "no ExecuTorch 1.4 package ships the Module API headers: "
        "the executorch 1.4.1 wheel carries only the runtime's",
        "executorch/extension/data_loader/*": "no ExecuTorch 1.4 package ships the data loader "
        "headers: the executorch 1.4.1 wheel carries only the runtime's",
        "executorch/extension/flat_tensor/*": "no ExecuTorch 1.4 package ships the flat_tensor "
        "headers: the executorch 1.4.1 wheel carries only the runtime's",
    }
)

# ExecuTorch releases a page may mark blocks for whose headers no package here ships,
# and why. Measured: PyPI has no sdist of any 1.x release and the 1.4.x wheels ship the
# same 113 runtime headers on every platform (no extension/module); see the tests.
UNPACKAGED_RELEASES: Mapping[str, str] = MappingProxyType(
    {
        "1.6": "ExecuTorch 1.6, which Torch-TensorRT 2.15 pins, ships only as nightly builds on "
        "PyTorch's own package index, and the build installs none of them",
    }
)

CPP_SUFFIXES = frozenset({".cpp", ".cc", ".cxx", ".h", ".hpp"})
_WRITEFILE = re.compile(r"^%%writefile\s+(?:-a\s+)?(?P<file>\S+)\s*$")


@dataclasses.dataclass(frozen=True, slots=True)
class Result:
    """What the C++/CMake guard found."""

    violations: tuple[Violation, ...]  # failures
    listed: tuple[Listed, ...]  # blocks not compiled, each with its reason
    compiled: int  # C++ blocks compiled
    parsed_cmake: int  # CMake blocks parsed
    blocks: tuple[Compiled, ...] = ()  # the blocks compiled, each with what it read


def code_block(block: Block) -> Block | None:
    """The block as C++ or CMake: a fence or code-block as it is, a ``%%writefile``
    cell as the file it writes (its language from the file name, from its second line)."""
    if block.kind in ("fence", "code-block", "code"):
        return block
    if block.kind != "code-cell" or not block.lines or not (m := _WRITEFILE.match(block.lines[0])):
        return None
    name = Path(m["file"].replace("{", "").replace("}", ""))
    language = (
        "cpp"
        if name.suffix in CPP_SUFFIXES
        else "cmake"
        if name.name == "CMakeLists.txt" or name.suffix == ".cmake"
        else ""
    )
    return dataclasses.replace(
        block,
        kind="writefile",
        language=language,
        first_line=block.first_line + 1,
        lines=block.lines[1:],
    )


def check_pages(
    root: Path,
    globs: Iterable[str] = PAGE_GLOBS,
    *,
    paths: Iterable[Path] | None = None,
    extra_include: Sequence[Path] = (),
    stubs: bool | None = None,
) -> Result:
    """Every C++ and CMake block of the pages; the compilers run several at once
    (one a core), the findings come in page order. ``extra_include``: more folders
    of real headers; ``stubs``: whether to use the stubs (default: ``TRTDOCS_CXX_STUBS``)."""
    folders = headers.folders(extra=extra_include, stubs=stubs)
    by_api = headers.api_folders(extra_include, stubs)
    wheel = headers.minor(headers.wheel_version())
    tools = {"g++": shutil.which("g++"), "cmake": cmake_tool()}
    # each block's check: () -> (violations, listed, compiled, parsed)
    checks: list[_Check] = []
    for path in list(paths) if paths is not None else page_paths(root, globs):
        rel = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        for found in iter_blocks(path):
            if (block := code_block(found)) is None:
                continue
            if block.language in CPP_LANGUAGES:
                if tools["g++"] is None:
                    checks.append(
                        _found(
                            [Violation(rel, block.first_line, "toolchain", "g++ is not on PATH")]
                        )
                    )
                    continue
                marked = next(filter(None, map(API_MARK.match, block.marks)), None)
                if marked and marked[1] not in by_api:
                    if (why := UNPACKAGED_RELEASES.get(marked[1])) is not None:
                        checks.append(
                            _found([], [listed(block, rel, block.first_line, "", why, marked[1])])
                        )
                        continue
                    checks.append(
                        _found(
                            [
                                Violation(
                                    rel,
                                    block.first_line,
                                    "api-version",
                                    f"the block is marked for executorch {marked[1]}; the headers "
                                    f"here are executorch {', '.join(sorted(by_api)) or 'none'}, "
                                    "and UNPACKAGED_RELEASES (trtdocs/drift/cpp.py) does not "
                                    "name it",
                                )
                            ]
                        )
                    )
                    continue
                block_folders = by_api[marked[1]] if marked else folders
                expected = WHEEL_MISSING if marked and marked[1] == wheel else MappingProxyType({})
                release = marked[1] if marked else ""
                checks.append(
                    functools.partial(_compile_check, block, rel, block_folders, expected, release)
                )
            elif block.language in CMAKE_LANGUAGES:
                if tools["cmake"] is None:
                    checks.append(
                        _found(
                            [Violation(rel, block.first_line, "toolchain", "cmake is not on PATH")]
                        )
                    )
                    continue
                checks.append(functools.partial(_cmake_check, block, rel))
    violations: list[Violation] = []
    listed_blocks: list[Listed] = []
    compiled: list[Compiled] = []
    parsed = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for v, lst, done, cmake in pool.map(lambda check: check(), checks):
            violations += v
            listed_blocks += lst
            compiled += [done] if done is not None else []
            parsed += cmake
    return Result(tuple(violations), tuple(listed_blocks), len(compiled), parsed, tuple(compiled))


_Check = Callable[[], tuple[list[Violation], list[Listed], Compiled | None, int]]


def _found(violations: list[Violation], found: Sequence[Listed] = ()) -> _Check:
    """A block's findings known without running anything."""
    return lambda: (violations, list(found), None, 0)


def _compile_check(
    block: Block, rel: str, folders: Sequence[Folder], expected: Mapping[str, str], release: str
) -> tuple[list[Violation], list[Listed], Compiled | None, int]:
    if FRAGMENT_MARK in block.marks:
        return (
            [],
            [listed(block, rel, block.first_line, "", "a fragment of a larger file")],
            None,
            0,
        )
    v, lst, done = check_cpp_block(block, rel, folders, expected, release)
    return v, lst, done, 0


def _cmake_check(
    block: Block, rel: str
) -> tuple[list[Violation], list[Listed], Compiled | None, int]:
    return check_cmake_block(block, rel), [], None, 1
