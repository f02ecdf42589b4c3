"""The griffe model of the installed packages, kept on disk between processes.

Loading torch_tensorrt and executorch with griffe takes seconds of CPU (about
1,800 modules); reading them back from a pickle takes under one. Each package
is kept under its own :func:`key`: the folder it is found in, its
distribution's version, every source file's size and time, griffe's and
Python's versions and this extension's model code (:data:`CODE`). A build, the
drift guards' child process and the tests all read the same files; a change in
any input writes a new one.

The folder is ``$TRTDOCS_CACHE_DIR``, else ``$XDG_CACHE_HOME/trtdocs`` (or
``~/.cache/trtdocs``), under ``api-model/``.
"""

from __future__ import annotations

import gc
import hashlib
import io
import logging
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import griffe

from ..userdirs import cache_home
from ..vocab import PACKAGES

# This extension's code that decides what the model holds.
CODE = (Path(__file__).with_name("model.py"), Path(__file__))
FOLDER = "api-model"
KEEP = 24  # files kept in the folder: the newest; tests write one per planted copy
_LOG = logging.getLogger(__name__)


def folder() -> Path:
    return cache_home() / FOLDER


def key(name: str, paths: Iterable[str]) -> str:
    """What the model of package ``name`` found on ``paths`` is made from: the
    folder it is found in, its distribution's version there, and each source
    file's size and time."""
    paths = tuple(paths)
    parts = [
        sys.version,
        f"griffe {metadata.version('griffe')}",
        name,
        *(hashlib.sha256(code.read_bytes()).hexdigest() for code in CODE),
        *(dist.version for dist in metadata.distributions(name=PACKAGES[name], path=list(paths))),
    ]
    root = next(
        (Path(r) for r in paths if Path(r, name).is_dir() or Path(r, f"{name}.py").is_file()), None
    )
    if root is not None:
        parts.append(str(root))
        for dirpath, dirs, files in os.walk(root / name):
            dirs.sort()
            for file in sorted(files):
                if file.endswith((".py", ".pyi")):
                    stat = os.stat(os.path.join(dirpath, file))
                    parts.append(f"{dirpath}/{file} {stat.st_size} {stat.st_mtime_ns}")
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


class _Pickler(pickle.Pickler):
    """Leaves out griffe's copies of the source lines: nothing here reads them
    from the model (options are read from the files themselves)."""

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is griffe.LinesCollection:
            return griffe.LinesCollection, ()
        return NotImplemented


_Made = TypeVar("_Made")


def cached(cache_key: str, make: Callable[[], _Made]) -> _Made:
    """The object stored under ``cache_key``, or ``make()`` stored there."""
    path = folder() / f"{cache_key}.pickle"
    try:
        with path.open("rb") as f:
            # a graph of a million small objects: the collector would walk it again and again
            gc.disable()
            try:
                kept: _Made = pickle.load(f)
                return kept
            finally:
                gc.enable()
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        pass  # not there, or written by other code: make it again
    value = make()
    buffer = io.BytesIO()
    try:
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
        path.parent.mkdir(parents=True, exist_ok=True)
        # another process may write the same key at once: each writes its own file, then renames it
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.stem, delete=False) as out:
            out.write(buffer.getvalue())
        os.replace(out.name, path)
        _prune(path.parent)
    except (OSError, pickle.PicklingError, RecursionError) as exc:
        _LOG.debug("the API model is not cached: %s", exc)
    return value


def _prune(where: Path) -> None:
    """Keep the :data:`KEEP` newest models."""
    files = sorted(where.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEEP:]:
        old.unlink(missing_ok=True)
