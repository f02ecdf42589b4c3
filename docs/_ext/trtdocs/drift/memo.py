"""What the guards remember between builds, and the keys that say when it holds.

* :func:`inputs_key`: everything a page guard reads besides the page itself: the
  features table and the documented release, the installed packages (their
  versions, and the sources griffe reads), the parsers the guards read pages
  with, the C++ toolchain, the folders of headers the C++ guard compiles
  against and its stubs, and this package's code;
* :func:`site_key`: that, plus every page, evidence register and the ``save()``
  options table: an unchanged site re-emits the last report without running a
  guard (:mod:`.sphinx`);
* :class:`PageMemo`: each page's findings per page guard, kept under
  :func:`inputs_key` and a digest of the page's text, so that a build after one
  page's edit runs the page guards (installs, api, cpp, marks) on that page only.
  The files guard's reading of each page, the evidence check of each page with
  its register, and the ``save()`` options check are remembered the same way,
  by their files' digests; the rules across pages (a file read before it is
  written, a register that names no page) run every time, on those findings.

A memo is a JSON file; one the guards cannot read is ignored and written again.
Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from ..api import model as api_model
from ..notebooks import cxxsdk
from ..pages.blocks import page_paths
from ..vocab import FAMILY
from .headers import EXTRA_INCLUDE_ENV, STUBS_ENV, include_dirs, stubs_digest

PACKAGE = Path(__file__).resolve().parents[1]  # trtdocs: the guards and the code they call
SCHEMA = 1
# What the guards read pages and install commands with, and where the CUDA headers come from.
TOOLS = (
    "markdown-it-py",
    "mdit-py-plugins",
    "PyYAML",
    "jupytext",
    "packaging",
    "griffe",
    "triton",
    "nvidia-cuda-runtime",
    "nvidia-cuda-crt",
)


def inputs_key(table: Path, documented: str) -> str:
    """What every page guard reads, apart from the page."""
    h = hashlib.sha256(f"schema={SCHEMA}".encode())
    for f in [table, *sorted(PACKAGE.rglob("*.py"))]:
        h.update(str(f).encode())
        h.update(f.read_bytes() if f.is_file() else b"-")
    h.update(api_model.key().encode())  # the installed packages' sources
    for dist in (*FAMILY, *TOOLS):
        try:
            h.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{dist}=none".encode())
    h.update(f"documented={documented} python={sys.version}".encode())
    h.update(f"{shutil.which('g++')} {cxxsdk.toolchain_identity()}".encode())
    h.update(os.environ.get(cxxsdk.PREFIX_ENV, "").encode())
    h.update(
        f"{os.environ.get(STUBS_ENV, '')} {stubs_digest()}".encode()
    )  # the stubs, and whether they are used
    h.update(" ".join(map(str, include_dirs())).encode())
    for folder in filter(None, os.environ.get(EXTRA_INCLUDE_ENV, "").split(os.pathsep)):
        h.update(_tree(Path(folder)).encode())  # a header checkout may change under the same path
    return h.hexdigest()


def _tree(folder: Path) -> str:
    """Each file's path, size and time under ``folder``."""
    parts = [str(folder)]
    for dirpath, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            stat = os.stat(os.path.join(dirpath, name))
            parts.append(f"{dirpath}/{name} {stat.st_size} {stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def site_key(
    root: Path,
    table: Path,
    documented: str,
    site_files: list[Path],
    cxx_include: Sequence[Path] = (),
    cxx_stubs: bool = True,
) -> str:
    """:func:`inputs_key`, every page, ``site_files`` (what the site guards read), and
    the C++ settings a build hands the guards (its folders of real headers, their files)."""
    h = hashlib.sha256(inputs_key(table, documented).encode())
    h.update(f"cxx_stubs={cxx_stubs}".encode())
    for folder in cxx_include:
        h.update(_tree(folder).encode())
    for f in [*page_paths(root), *site_files]:
        h.update(str(f).encode())
        h.update(f.read_bytes() if f.is_file() else b"-")
    return h.hexdigest()


def text_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclasses.dataclass(slots=True)
class PageMemo:
    """Findings per page and guard, valid for one :func:`inputs_key`."""

    path: Path  # the JSON file
    key: str  # inputs_key of this run
    kept: dict[str, Any]  # "<guard> <page> <digest>" -> the part of the report, as JSON
    fresh: dict[str, Any] = dataclasses.field(default_factory=dict)  # what this run used or made

    @classmethod
    def open(cls, path: Path, key: str) -> PageMemo:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            kept = data["parts"] if data.get("key") == key else {}
        except (OSError, ValueError, TypeError, KeyError):
            kept = {}  # missing or unreadable: every page is checked again
        return cls(path, key, kept if isinstance(kept, dict) else {})

    @staticmethod
    def _slot(guard: str, rel: str, digest: str) -> str:
        return f"{guard} {rel} {digest}"

    def get(self, guard: str, rel: str, digest: str) -> Any | None:
        slot = self._slot(guard, rel, digest)
        part = self.kept.get(slot)
        if part is not None:
            self.fresh[slot] = part
        return part

    def put(self, guard: str, rel: str, digest: str, part: Any) -> None:
        self.fresh[self._slot(guard, rel, digest)] = part

    def save(self) -> None:
        """Keep this run's parts only (an edited page's old parts go), atomically."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(f"{self.path.name}.{os.getpid()}")
        partial.write_text(json.dumps({"key": self.key, "parts": self.fresh}), encoding="utf-8")
        partial.replace(self.path)
