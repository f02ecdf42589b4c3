"""One C++ block through ``g++ -fsyntax-only``: the compile, the stamp a block that
compiled leaves in the user cache, the header a failed compile misses, and what
the compile read (``-MD``: which package folders, real headers and stubs).
:mod:`.cpp` finds the blocks and picks each one's include folders."""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import functools
import hashlib
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from ..notebooks import cxxsdk
from ..pages import Violation
from ..pages.blocks import Block
from ..userdirs import cache_home
from . import headers
from .headers import Folder

PASSED = "cpp-passed"  # the user cache's stamps of blocks that compiled (passed_stamp)
CXXFLAGS: tuple[str, ...] = ("-fsyntax-only", "-std=c++17", "-Wno-deprecated-declarations")
# ExecuTorch's CMake package gives consumers this for its copy of c10 (no wheel
# carries the generated torch/headeronly/macros/cmake_macros.h).
DEFINES: tuple[str, ...] = ("-DC10_USING_CUSTOM_GENERATED_MACROS",)
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
        changed = f.path.stat().st_mtime_ns if f.path.is_dir() else "-"
        h.update(f"{f.path} {f.kind} {f.words} {changed}".encode())
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
        return compile_errors(proc.stderr, src, block, rel), [], None
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


def compile_errors(stderr: str, src: Path, block: Block, rel: str) -> list[Violation]:
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
