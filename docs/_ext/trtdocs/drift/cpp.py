"""C++ and CMake blocks of the guide, checked against the headers they include.

Every ```cpp / ```c++ block (or ``{code-block} cpp``) is compiled with
``g++ -fsyntax-only -std=c++17`` against the include folders of :mod:`.headers`,
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
import json
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
from . import Violation, headers
from .blocks import PAGE_GLOBS, Block, iter_blocks, page_paths
from .headers import Folder

PASSED = "cpp-passed"  # the user cache's stamps of blocks that compiled (passed_stamp)
CXXFLAGS: tuple[str, ...] = ("-fsyntax-only", "-std=c++17", "-Wno-deprecated-declarations")
# ExecuTorch's CMake package gives consumers this for its copy of c10 (no wheel
# carries the generated torch/headeronly/macros/cmake_macros.h).
DEFINES: tuple[str, ...] = ("-DC10_USING_CUSTOM_GENERATED_MACROS",)
FRAGMENT_MARK = "fragment"
API_MARK = re.compile(r"^executorch\s+(\d+\.\d+)$")
RULES: Mapping[str, str] = MappingProxyType(
    {
        "cpp-compile": "a C++ block compiles against the headers of its release, CUDA's, and the stubs",
        "header-missing": "every header a block includes is in an include folder or a stub (drift/stubs)",
        "cmake-parse": "a CMake block parses (cmake -P inside if(FALSE))",
        "toolchain": "g++ and cmake are on PATH",
        "api-version": "a block marked for an ExecuTorch release compiles against that release's headers, "
        "or the release is in UNPACKAGED_RELEASES (listed, with the reason)",
    }
)

# Header pattern (fnmatch) -> why the installed Python wheel's headers lack it (a block marked for its release).
WHEEL_MISSING: Mapping[str, str] = MappingProxyType(
    {
        "executorch/extension/module/*": "no ExecuTorch 1.4 package ships the Module API headers: "
        "the executorch 1.4.1 wheel carries only the runtime's",
        "executorch/extension/data_loader/*": "no ExecuTorch 1.4 package ships the data loader headers: "
        "the executorch 1.4.1 wheel carries only the runtime's",
        "executorch/extension/flat_tensor/*": "no ExecuTorch 1.4 package ships the flat_tensor headers: "
        "the executorch 1.4.1 wheel carries only the runtime's",
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
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
_FATAL_MISSING = re.compile(r"fatal error: ([^:]+): No such file or directory")
_GXX_LINE = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|fatal error): (?P<msg>.*)$",
    re.M,
)


@dataclasses.dataclass(frozen=True, slots=True)
class Listed:
    """A block not compiled, and why."""

    path: str  # page
    line: int  # page line of the missing include (of the block's first line when no header)
    header: str  # the missing header ("" for a fragment or an unpackaged release)
    reason: str  # from WHEEL_MISSING, UNPACKAGED_RELEASES or the fragment mark
    fence_line: int = 0  # page line of the block's opening fence
    code: str = ""  # the block's code, as the page shows it (to find it in the doctree)
    release: str = ""  # the ExecuTorch release whose headers were used ("" when none)


@dataclasses.dataclass(frozen=True, slots=True)
class Compiled:
    """A block that compiled, and what it read."""

    path: str  # page
    fence_line: int  # page line of the block's opening fence
    code: str  # the block's code, as the page shows it (to find it in the doctree)
    compiler: str  # "g++ 12.2.0"
    against: tuple[
        str, ...
    ]  # the words of the package folders it read ("ExecuTorch 1.5.1's C++ package")
    real: tuple[
        str, ...
    ] = ()  # the headers it includes that came from TRTDOCS_CXX_INCLUDE's folders
    stubs: tuple[str, ...] = ()  # the stub headers it read


@dataclasses.dataclass(frozen=True, slots=True)
class Result:
    """What the C++/CMake guard found."""

    violations: tuple[Violation, ...]  # failures
    listed: tuple[Listed, ...]  # blocks not compiled, each with its reason
    compiled: int  # C++ blocks compiled
    parsed_cmake: int  # CMake blocks parsed
    blocks: tuple[Compiled, ...] = ()  # the blocks compiled, each with what it read


@functools.cache
def compiler() -> str:
    """'g++ 12.2.0'."""
    try:
        out = subprocess.run(
            ["g++", "-dumpfullversion"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return "g++"
    return f"g++ {out.strip()}"


def passed_stamp(text: str, folders: Sequence[Folder]) -> Path:
    """Where a block that compiled leaves its stamp (what it read, as JSON), keyed by
    what the compile read: the code, the flags, the include folders (path, time and
    words), the stubs' content and the compiler's file. A page edit elsewhere compiles
    only the blocks that changed; a failing block compiles again whenever its page is
    checked."""
    h = hashlib.sha256(
        "\0".join(
            [text, *CXXFLAGS, *DEFINES, cxxsdk.toolchain_identity(), headers.stubs_digest()]
        ).encode()
    )
    for f in folders:
        h.update(
            f"{f.path} {f.kind} {f.words} {f.path.stat().st_mtime_ns if f.path.is_dir() else '-'}".encode()
        )
    gxx = shutil.which("g++")
    h.update(f"{gxx} {Path(gxx).resolve().stat().st_mtime_ns if gxx else '-'}".encode())
    return cache_home() / PASSED / h.hexdigest()


def listed(
    block: Block, rel: str, line: int, header: str, reason: str, release: str = ""
) -> Listed:
    """A block not compiled, with what :mod:`.captions` needs to find it on the page."""
    return Listed(rel, line, header, reason, block.fence_line, block.text, release)


def expected_reason(header: str, expected: Mapping[str, str]) -> str | None:
    for pattern, reason in expected.items():
        if fnmatch.fnmatch(header, pattern):
            return reason
    return None


def read_files(deps: str) -> list[Path]:
    """The files a make-style dependency list (g++ ``-MD``) names, the source first."""
    joined = deps.replace("\\\n", " ").split(":", 1)[-1]
    return [Path(p.replace("\\ ", " ")) for p in re.split(r"(?<!\\)\s+", joined.strip()) if p]


def what_was_read(
    block: Block, rel: str, folders: Sequence[Folder], files: Iterable[Path]
) -> Compiled:
    """The block's :class:`Compiled`: which folders' headers the compile read."""

    def inside(path: Path, folder: Folder) -> bool:
        return path.is_relative_to(folder.path)

    read = [p.resolve() for p in files]
    places = [dataclasses.replace(f, path=f.path.resolve()) for f in folders]
    against = tuple(
        dict.fromkeys(
            f.words for f in places if f.kind == "package" and any(inside(p, f) for p in read)
        )
    )
    stubs = tuple(
        sorted(
            {
                str(p.relative_to(f.path))
                for f in places
                if f.kind == "stubs"
                for p in read
                if inside(p, f)
            }
        )
    )
    included = [m[1] for line in block.lines if (m := _INCLUDE.match(line))]

    def found_in(name: str) -> Folder | None:  # the folder g++ finds <name> in
        return next((f for f in places if (f.path / name).is_file()), None)

    real = tuple(
        name for name in included if (f := found_in(name)) is not None and f.kind == "real"
    )
    return Compiled(rel, block.fence_line, block.text, compiler(), against, real, stubs)


def check_cpp_block(
    block: Block,
    rel: str,
    folders: Sequence[Folder],
    expected: Mapping[str, str] = MappingProxyType({}),
    release: str = "",
) -> tuple[list[Violation], list[Listed], Compiled | None]:
    """Violations, the block when listed, and what it read when it compiled."""
    if FRAGMENT_MARK in block.marks:
        return [], [listed(block, rel, block.first_line, "", "a fragment of a larger file")], None
    passed = passed_stamp(block.text, folders)
    with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
        kept = json.loads(passed.read_text(encoding="utf-8"))
        return (
            [],
            [],
            Compiled(
                rel,
                block.fence_line,
                block.text,
                kept["compiler"],
                tuple(kept["against"]),
                tuple(kept["real"]),
                tuple(kept["stubs"]),
            ),
        )
    with tempfile.TemporaryDirectory(prefix="drift-cpp-") as tmp:
        src, deps = Path(tmp) / "block.cpp", Path(tmp) / "block.d"
        src.write_text(block.text, encoding="utf-8")
        proc = subprocess.run(
            [
                "g++",
                *CXXFLAGS,
                *DEFINES,
                "-MD",
                "-MF",
                str(deps),
                *(f"-I{f.path}" for f in folders),
                str(src),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        files = read_files(deps.read_text(encoding="utf-8")) if proc.returncode == 0 else []
    if proc.returncode == 0:
        done = what_was_read(block, rel, folders, files[1:])
        with contextlib.suppress(OSError):
            passed.parent.mkdir(parents=True, exist_ok=True)
            passed.write_text(
                json.dumps(
                    {
                        "compiler": done.compiler,
                        "against": done.against,
                        "real": done.real,
                        "stubs": done.stubs,
                    }
                ),
                encoding="utf-8",
            )
        return [], [], done
    fatal = _FATAL_MISSING.search(proc.stderr)
    if fatal is None:
        return _compile_errors(proc.stderr, src, block, rel), [], None
    header = fatal[1].strip()
    line = next(
        (
            block.first_line + n
            for n, text in enumerate(block.lines)
            if (m := _INCLUDE.match(text)) and m[1] == header
        ),
        block.first_line,
    )
    if (reason := expected_reason(header, expected)) is not None:
        return [], [listed(block, rel, line, header, reason, release)], None
    stubs = (
        "the stubs are off (TRTDOCS_CXX_STUBS=0)"
        if not any(f.kind == "stubs" for f in folders)
        else f"no stub in {headers.STUBS_WORDS} declares it"
    )
    return (
        [
            Violation(
                rel,
                line,
                "header-missing",
                f"<{header}> is in no include folder, and {stubs}; fix the include, name a "
                f"folder of real headers in {headers.EXTRA_INCLUDE_ENV}, or write a stub with "
                f"its source ({headers.STUBS_WORDS}/SOURCES.toml)",
            )
        ],
        [],
        None,
    )


def _compile_errors(stderr: str, src: Path, block: Block, rel: str) -> list[Violation]:
    out = []
    for m in _GXX_LINE.finditer(stderr):
        if Path(m["file"]).name != src.name:
            continue
        out.append(
            Violation(
                rel,
                block.first_line + int(m["line"]) - 1,
                "cpp-compile",
                f"g++ -fsyntax-only: {m['msg']}",
            )
        )
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
        proc = subprocess.run(
            [_cmake() or "cmake", "-P", str(script)],
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp,
        )
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
    tools = {"g++": shutil.which("g++"), "cmake": _cmake()}
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
                                    f"the block is marked for executorch {marked[1]}; the headers here "
                                    f"are executorch {', '.join(sorted(by_api)) or 'none'}, and "
                                    f"UNPACKAGED_RELEASES (trtdocs/drift/cpp.py) does not name it",
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
    v, lst, done = check_cpp_block(block, rel, folders, expected, release)
    return v, lst, done, 0


def _cmake_check(
    block: Block, rel: str
) -> tuple[list[Violation], list[Listed], Compiled | None, int]:
    return check_cmake_block(block, rel), [], None, 1
