"""The installed packages' API, loaded with griffe from their sources (nothing
is imported: ``import torch_tensorrt`` fails without TensorRT's libraries).

One loader for every reader of the API: the drift guards
(:mod:`.drift.api`) and the API reference (:mod:`.apiref`). It loads the
packages of :data:`PACKAGES` once per process and search path, with their
versions read from the distributions found on that path, so a new wheel
changes what both see with no edit.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import logging
import sysconfig
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from types import MappingProxyType

import griffe

# Packages loaded statically: import name -> distribution name.
PACKAGES: Mapping[str, str] = MappingProxyType({
    "torch_tensorrt": "torch-tensorrt",
    "torch_tensorrt_executorch_runtime": "torch-tensorrt-executorch-runtime",
    "executorch": "executorch",
})


@dataclasses.dataclass(frozen=True, slots=True)
class Upstream:
    """Where a package's sources live upstream, for links to a file and line."""

    repo: str  # https URL of the repository
    prefix: str  # folder of the package inside the repository
    tag_of: str  # distribution whose version names the tag ("v<version>")


# Both wheels are built from pytorch/TensorRT's release tag, named for the
# torch-tensorrt version (the runtime wheel has its own version number).
UPSTREAM: Mapping[str, Upstream] = MappingProxyType({
    "torch_tensorrt": Upstream("https://github.com/pytorch/TensorRT", "py/torch_tensorrt", "torch-tensorrt"),
    "torch_tensorrt_executorch_runtime": Upstream(
        "https://github.com/pytorch/TensorRT",
        "py/torch-tensorrt-executorch-runtime/torch_tensorrt_executorch_runtime", "torch-tensorrt"),
})


@dataclasses.dataclass(frozen=True, slots=True)
class ApiModel:
    """The loaded packages."""

    modules: Mapping[str, griffe.Module]  # import name -> griffe module tree
    versions: Mapping[str, str]  # import name -> version of its distribution on the search path
    search_paths: tuple[str, ...]  # the folders griffe reads (site-packages)

    def version_of(self, dist: str) -> str | None:
        for name, d in PACKAGES.items():
            if d == dist:
                return self.versions.get(name)
        return None


def default_search_paths() -> tuple[str, ...]:
    return (sysconfig.get_paths()["purelib"],)


def load(search_paths: Iterable[str | Path] | None = None) -> ApiModel:
    """The model of the packages on ``search_paths`` (default: this interpreter's
    site-packages), loaded once per process for each search path."""
    paths = tuple(str(Path(p).resolve()) for p in search_paths) if search_paths else default_search_paths()
    return _load(paths)


@functools.cache
def _load(paths: tuple[str, ...]) -> ApiModel:
    logging.getLogger("griffe").setLevel(logging.CRITICAL)  # unresolved externals are expected
    modules = {name: griffe.load(name, search_paths=list(paths), allow_inspection=False,
                                 try_relative_path=False) for name in PACKAGES}
    versions = {}
    for name, dist in PACKAGES.items():
        found = list(metadata.distributions(name=dist, path=list(paths)))
        if found:
            versions[name] = found[0].version
    return ApiModel(MappingProxyType(modules), MappingProxyType(versions), paths)


def popped_options(func: griffe.Function) -> Mapping[str, str]:
    """``kwargs.pop("name", default)`` calls in a function's source: name -> the
    default's source text ("None" when the call has none), in source order."""
    source = Path(func.filepath).read_text(encoding="utf-8")
    tree = ast.parse(source)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                and n.name == func.name and n.lineno == func.lineno)
    kw = node.args.kwarg.arg if node.args.kwarg else "kwargs"
    calls = sorted((c for c in ast.walk(node)
                    if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "pop"
                    and isinstance(c.func.value, ast.Name) and c.func.value.id == kw
                    and c.args and isinstance(c.args[0], ast.Constant) and isinstance(c.args[0].value, str)),
                   key=lambda c: (c.lineno, c.col_offset))
    out: dict[str, str] = {}
    for call in calls:
        default = ast.get_source_segment(source, call.args[1]) if len(call.args) > 1 else "None"
        out.setdefault(call.args[0].value, default or "None")
    return MappingProxyType(out)


def site_relative(model: ApiModel, obj: griffe.Object) -> str:
    """The object's file relative to the search path it was found on (never an
    absolute build-machine path)."""
    path = Path(obj.filepath)
    for root in model.search_paths:
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return obj.relative_package_filepath.as_posix()


def source_url(model: ApiModel, obj: griffe.Object) -> str | None:
    """The object's file and line at the upstream tag of the installed version."""
    root = obj.path.split(".")[0]
    upstream = UPSTREAM.get(root)
    version = model.version_of(upstream.tag_of) if upstream else None
    if upstream is None or version is None:
        return None
    inside = Path(site_relative(model, obj)).relative_to(root).as_posix()
    return f"{upstream.repo}/blob/v{version}/{upstream.prefix}/{inside}#L{obj.lineno}"
