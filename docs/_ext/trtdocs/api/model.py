"""The installed packages' API, loaded with griffe from their sources (nothing
is imported: ``import torch_tensorrt`` fails without TensorRT's libraries).

One loader for every reader of the API: the drift guards (:mod:`trtdocs.drift.api`),
the API reference (:mod:`.sphinx`), the checked literals (:mod:`.xref`) and the
linked code (:mod:`.codelinks`). It loads the packages of
:data:`trtdocs.vocab.API_PACKAGES` once per process and search path, from the
disk cache when their sources have not changed (:mod:`.cache`), with their
versions read from the distributions found on that path, so a new wheel
changes what all of them see with no edit. Pure: no Sphinx.

:data:`COVERED` says what the reference documents; :func:`public_objects`
gives those objects.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import gc
import logging
import sysconfig
from collections.abc import Iterable, Iterator, Mapping
from importlib import metadata
from pathlib import Path
from types import MappingProxyType

import griffe

from ..vocab import API_PACKAGES, EXECUTORCH, PACKAGES, TORCH_TENSORRT
from . import cache

# Module -> the names the reference covers; None = the module's __all__. The
# guide's own packages whole; of torch_tensorrt and executorch, what the guide's
# code calls (the names check, :mod:`.names`, fails on a name it calls that is
# neither here, nor linked upstream, nor excused in docs/data/api-links.toml).
COVERED: Mapping[str, tuple[str, ...] | None] = MappingProxyType(
    {
        "torch_tensorrt": ("compile", "Input", "save", "load"),
        "torch_tensorrt.dynamo": ("compile", "export"),
        "torch_tensorrt.executorch": None,
        "torch_tensorrt.executorch.serialization": ("deserialize_engine",),
        "torch_tensorrt_executorch_runtime": None,
        "torch_tensorrt_executorch_runtime.runtime": None,
        "executorch.exir": (
            "to_edge_transform_and_lower",
            "EdgeProgramManager",
            "ExecutorchProgramManager",
            "ExecutorchBackendConfig",
        ),
        "executorch.exir.passes": ("MemoryPlanningPass",),
        "executorch.exir.passes.init_mutable_pass": ("InitializedMutableBufferPass",),
        "executorch.exir.passes.propagate_device_config": ("PropagateDeviceConfig",),
        "executorch.exir.passes.propagate_device_pass": ("TARGET_DEVICE_COMPILE_SPEC_KEY",),
        "executorch.exir.schema": ("DeviceType",),
        "executorch.exir.backend.partitioner": ("Partitioner", "DelegationSpec", "PartitionResult"),
        "executorch.exir.backend.backend_details": ("BackendDetails", "PreprocessResult"),
        "executorch.exir.backend.compile_spec_schema": ("CompileSpec",),
        "executorch.backends.xnnpack.partition.xnnpack_partitioner": ("XnnpackPartitioner",),
        "executorch.backends.cuda.cuda_partitioner": ("CudaPartitioner",),
        "executorch.backends.cuda.cuda_backend": ("CudaBackend",),
        "executorch.backends.aoti.aoti_backend": (
            "AotiBackend",
        ),  # CudaBackend's methods are defined here
        "executorch.runtime": ("Runtime", "Program", "Method", "BackendRegistry"),
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class Upstream:
    """Where a package's sources live upstream, for links to a file and line."""

    repo: str  # https URL of the repository
    prefix: str  # folder of the package inside the repository
    tag_of: str  # distribution whose version names the tag ("v<version>")


# Both wheels are built from pytorch/TensorRT's release tag, named for the
# torch-tensorrt version (the runtime wheel has its own version number).
UPSTREAM: Mapping[str, Upstream] = MappingProxyType(
    {
        "torch_tensorrt": Upstream(
            "https://github.com/pytorch/TensorRT", "py/torch_tensorrt", TORCH_TENSORRT
        ),
        "torch_tensorrt_executorch_runtime": Upstream(
            "https://github.com/pytorch/TensorRT",
            "py/torch-tensorrt-executorch-runtime/torch_tensorrt_executorch_runtime",
            TORCH_TENSORRT,
        ),
        # the executorch wheel maps the repository's top
        # folders (exir/, backends/, runtime/) into the package
        "executorch": Upstream("https://github.com/pytorch/executorch", "", EXECUTORCH),
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class ApiModel:
    """The loaded packages."""

    modules: Mapping[str, griffe.Module]  # import name -> griffe module tree
    versions: Mapping[str, str]  # import name -> version of its distribution on the search path
    search_paths: tuple[str, ...]  # the folders griffe reads (site-packages)
    # dotted path -> a module griffe did not walk into (a
    # folder without __init__.py), visited on first use
    namespace: dict[str, griffe.Module] = dataclasses.field(default_factory=dict, compare=False)

    def version_of(self, dist: str) -> str | None:
        for name in API_PACKAGES:
            if PACKAGES[name] == dist:
                return self.versions.get(name)
        return None


def default_search_paths() -> tuple[str, ...]:
    return (sysconfig.get_paths()["purelib"],)


def resolve_paths(search_paths: Iterable[str | Path] | None = None) -> tuple[str, ...]:
    """``search_paths`` as absolute folders; none given: this interpreter's site-packages."""
    return (
        tuple(str(Path(p).resolve()) for p in search_paths)
        if search_paths
        else default_search_paths()
    )


def key(search_paths: Iterable[str | Path] | None = None) -> str:
    """What the model on ``search_paths`` is made from (cheap: no griffe load)."""
    return _key(resolve_paths(search_paths))


@functools.cache
def _key(paths: tuple[str, ...]) -> str:
    # once per process: a build asks twice (the API pages, the drift guards' cache)
    return "-".join(cache.key(name, paths) for name in API_PACKAGES)


def load(search_paths: Iterable[str | Path] | None = None) -> ApiModel:
    """The model of the packages on ``search_paths`` (default: this interpreter's
    site-packages), loaded once per process for each search path."""
    return _load(resolve_paths(search_paths))


@functools.cache
def _load(paths: tuple[str, ...]) -> ApiModel:
    modules = {
        name: cache.cached(cache.key(name, paths), functools.partial(_griffe_load, name, paths))
        for name in API_PACKAGES
    }
    # The model lives as long as the process (this function's cache holds it). Its
    # objects (about 600,000, in cycles: griffe's parent links) go to the collector's
    # permanent generation, so no later collection walks them, nor the one at
    # interpreter exit (about 1.5 s a model). Garbage waiting to be collected is
    # collected first, so that freezing keeps nothing alive.
    gc.collect()
    gc.freeze()
    versions = {}
    for name in API_PACKAGES:
        found = list(metadata.distributions(name=PACKAGES[name], path=list(paths)))
        if found:
            versions[name] = found[0].version
    return ApiModel(MappingProxyType(modules), MappingProxyType(versions), paths)


def _griffe_load(name: str, paths: tuple[str, ...]) -> griffe.Module:
    logging.getLogger("griffe").setLevel(logging.CRITICAL)  # unresolved externals are expected
    module = griffe.load(
        name, search_paths=list(paths), allow_inspection=False, try_relative_path=False
    )
    if not isinstance(module, griffe.Module):
        raise TypeError(f"{name}: griffe loaded a {module.kind.value}, not a package")
    return module


def popped_options(func: griffe.Function) -> Mapping[str, str]:
    """``kwargs.pop("name", default)`` calls in a function's source: name -> the
    default's source text ("None" when the call has none), in source order."""
    source = defined_in(func).read_text(encoding="utf-8")
    tree = ast.parse(source)
    node = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef) and n.name == func.name and n.lineno == func.lineno
    )
    kw = node.args.kwarg.arg if node.args.kwarg else "kwargs"
    pops: list[tuple[int, int, str, str]] = []  # line, column, name, default
    for c in ast.walk(node):
        if (
            isinstance(c, ast.Call)
            and isinstance(c.func, ast.Attribute)
            and c.func.attr == "pop"
            and isinstance(c.func.value, ast.Name)
            and c.func.value.id == kw
            and c.args
            and isinstance(first := c.args[0], ast.Constant)
            and isinstance(first.value, str)
        ):
            default = ast.get_source_segment(source, c.args[1]) if len(c.args) > 1 else "None"
            pops.append((c.lineno, c.col_offset, first.value, default or "None"))
    out: dict[str, str] = {}
    for _, _, name, default in sorted(pops):
        out.setdefault(name, default)
    return MappingProxyType(out)


def defined_in(obj: griffe.Object) -> Path:
    """The one file an object is defined in (a namespace package has none)."""
    if isinstance(obj.filepath, list):
        raise ValueError(f"{obj.path}: a namespace package, defined in no one file")
    return obj.filepath


def site_relative(model: ApiModel, obj: griffe.Object) -> str:
    """The object's file relative to the search path it was found on (never an
    absolute build-machine path)."""
    path = defined_in(obj)
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
    inside = Path(upstream.prefix, Path(site_relative(model, obj)).relative_to(root)).as_posix()
    return f"{upstream.repo}/blob/v{version}/{inside}#L{obj.lineno}"


# -- what the reference documents --------------------------------------------------


def public_objects(model: ApiModel) -> dict[str, griffe.Object]:
    """Every object the reference documents: public dotted path -> griffe object
    (aliases followed); modules and the public members of classes included."""
    out: dict[str, griffe.Object] = {}
    for module_path, names in COVERED.items():
        module = get(model, module_path)
        out[module_path] = module
        for name in names if names is not None else exported(module):
            obj = target(module.members[name])
            path = f"{module_path}.{name}"
            out[path] = obj
            if obj.is_class:
                for member, value in class_members(obj):
                    out[f"{path}.{member}"] = value
    return out


def exported(module: griffe.Object) -> list[str]:
    """The names of a module's ``__all__`` (griffe keeps a name it could not expand as an
    expression: its text)."""
    return [str(name) for name in module.exports or ()]


def get(model: ApiModel, path: str) -> griffe.Object:
    """The object at a dotted ``path`` of the model (aliases followed; modules in
    folders without ``__init__.py`` visited from their source)."""
    root, *parts = path.split(".")
    obj: griffe.Object = model.modules[root]
    for part in parts:
        if part not in obj.members and isinstance(obj, griffe.Module):
            child = namespace_child(model, obj, part)
            if child is not None:
                obj = child
                continue
        obj = target(obj.members[part])
    return obj


def namespace_child(model: ApiModel, module: griffe.Module, name: str) -> griffe.Module | None:
    """A submodule griffe did not walk into: a folder without ``__init__.py``, or a
    module file inside one. Visited from its source, never imported; kept on the model."""
    key = f"{module.path}.{name}"
    if key in model.namespace:
        return model.namespace[key]
    files = module.filepath if isinstance(module.filepath, list) else [module.filepath]
    for f in files:
        folder = f if f.is_dir() else f.parent if f.name == "__init__.py" else None
        if folder is None:
            continue
        if (folder / name).is_dir() and not (folder / name / "__init__.py").exists():
            sub = griffe.Module(name, filepath=[folder / name], parent=module)
        elif (folder / f"{name}.py").is_file():
            py = folder / f"{name}.py"
            sub = griffe.visit(name, py, py.read_text(encoding="utf-8"), parent=module)
        else:
            continue
        model.namespace[key] = sub
        return sub
    return None


def target(obj: griffe.Object | griffe.Alias) -> griffe.Object:
    """The object an alias stands for (an object: itself)."""
    return obj.final_target if isinstance(obj, griffe.Alias) else obj


def class_members(cls: griffe.Object) -> Iterator[tuple[str, griffe.Object]]:
    """Public methods and properties defined in the class (inherited ones are
    the base's API, not this package's)."""
    for name, member in cls.members.items():
        if name.startswith("_") or isinstance(member, griffe.Alias):
            continue
        if member.is_function or (member.is_attribute and "property" in member.labels):
            yield name, member


def params(obj: griffe.Object) -> list[griffe.Parameter]:
    """A function's parameters, or a class's ``__init__``'s, without self and cls."""
    if obj.is_class:
        init = obj.members.get("__init__")
        if init is None:
            return []
        obj = target(init)
    if not isinstance(obj, griffe.Function):
        return []
    return [p for p in obj.parameters if p.name not in ("self", "cls")]
