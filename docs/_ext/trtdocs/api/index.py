"""Look-ups in the installed API: does ``torch_tensorrt.executorch.export``
exist, which keywords does it take, what does it return. Pure: no Sphinx.

A return type defined in a private module is named as the public module that
re-exports it names it (:meth:`ApiIndex.public_path`), and a call whose
annotation says ``Any`` may return a known class for one keyword's value
(:class:`CallReturn`, from ``docs/data/api.toml``, checked by :mod:`.returns`).

:class:`ApiIndex` walks the griffe model of :mod:`.model` the way Python
resolves a dotted name (aliases, inherited members, namespace folders griffe
did not walk into). A name the installed package lacks raises :class:`Missing`;
a name beyond what griffe loaded (torch, the standard library, an attribute's
value) raises :class:`Unknown`, so callers can tell "wrong" from "not checkable".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

import griffe

from . import model

# Functions whose **kwargs are not open: a keyword must be a parameter or a name the
# source pops from kwargs (2.14's save() raises TypeError on any other with the
# executorch format).
KWARGS_FROM_SOURCE = frozenset({"torch_tensorrt._compile.save"})


class Unknown(Exception):
    """The object lies outside what griffe loaded (torch, stdlib): not checkable."""


class Missing(Exception):
    """The installed package lacks the name."""


_Found = TypeVar("_Found")


@dataclasses.dataclass(frozen=True, slots=True)
class CallReturn:
    """What a function returns when a call passes the keywords ``when`` (each with
    that constant value): ``returns``, a class's dotted path."""

    when: tuple[tuple[str, object], ...]  # (keyword, value), in the data's order
    returns: str

    def applies(self, keywords: Mapping[str, object]) -> bool:
        return all(k in keywords and keywords[k] == v for k, v in self.when)


def private(part: str) -> bool:
    """Whether a dotted path's part is private (``_program``; not ``__init__``)."""
    return part.startswith("_") and not part.startswith("__")


def from_bases(
    cls: griffe.Class,
    name: str,
    known: Callable[[str], bool],
    member: Callable[[str], _Found],
    unknown: bool = False,
) -> _Found:
    """``name`` from the first base class of ``cls`` that has it, each base asked
    through ``member(base_path)``. A base whose package ``known`` rejects, or one
    that cannot be checked, makes a miss :class:`Unknown`, not :class:`Missing`."""
    for base in cls.bases:
        path = getattr(base, "canonical_path", None)
        if not path or not known(path.split(".")[0]):
            unknown = True  # typing, object, or a package this index does not read
            continue
        try:
            return member(path)
        except Missing:
            continue
        except Unknown:
            unknown = True
    if unknown:
        raise Unknown(f"{cls.path}.{name}")
    raise Missing(f"{cls.path}.{name}")


@dataclasses.dataclass
class ApiIndex:
    """The statically loaded packages and what is known about their signatures."""

    modules: Mapping[str, griffe.Module]  # import name -> griffe module tree
    versions: Mapping[str, str]  # import name -> version of the distribution on the search path
    search_paths: list[str]  # site-packages folders griffe reads
    _model: model.ApiModel | None = None  # where namespace subpackages are kept once visited
    # a function's canonical path -> what it returns for given keywords (CallReturn)
    call_returns: Mapping[str, tuple[CallReturn, ...]] = dataclasses.field(
        default_factory=lambda: MappingProxyType({})
    )

    @classmethod
    def load(cls, search_paths: Iterable[Path | str] | None = None) -> ApiIndex:
        """The index over :func:`.model.load`'s model, the one the API reference renders."""
        return cls.of(model.load(search_paths))

    @classmethod
    def of(
        cls, api: model.ApiModel, call_returns: Mapping[str, tuple[CallReturn, ...]] | None = None
    ) -> ApiIndex:
        return cls(
            api.modules,
            api.versions,
            list(api.search_paths),
            api,
            MappingProxyType(dict(call_returns or {})),
        )

    def lookup(self, path: str) -> griffe.Object:
        """The object at ``path``; raises Missing or Unknown."""
        root, *parts = path.split(".")
        obj: griffe.Object | griffe.Alias = self.modules[root]
        for i, part in enumerate(parts):
            obj = target(obj)
            if part in obj.members:
                obj = obj.members[part]
            elif isinstance(obj, griffe.Class):
                try:
                    obj = self._inherited(obj, part)
                except Missing:
                    raise Missing(".".join([root, *parts[: i + 1]])) from None
            elif (
                isinstance(obj, griffe.Module)
                and (sub := self._load_namespace_child(obj, part)) is not None
            ):
                obj = sub  # a folder without __init__.py, which griffe does not walk into
            elif not (obj.is_module or obj.is_class):
                value = self._value_class(
                    obj
                )  # an attribute's or a property's value: its class, if known
                if value is None:
                    raise Unknown(path)
                obj = self.lookup(f"{value}.{part}")
            else:
                raise Missing(".".join([root, *parts[: i + 1]]))
        return target(obj)

    def _value_class(self, obj: griffe.Object) -> str | None:
        """The class of an attribute's value (its annotation, or the class its value
        calls: ``self.registry = BackendRegistry(...)``), or of a property's result,
        when it is in a loaded package."""
        expr: str | griffe.Expr | None = None
        if isinstance(obj, griffe.Attribute):
            expr = obj.annotation
            if expr is None and isinstance(obj.value, griffe.ExprCall):
                expr = obj.value.function
        elif isinstance(obj, griffe.Function):
            expr = obj.returns
        path = getattr(expr, "canonical_path", None)
        if not path or path.split(".")[0] not in self.modules:
            return None
        try:
            return path if self.lookup(path).is_class else None
        except (Missing, Unknown):
            return None

    def _inherited(
        self, cls: griffe.Class, name: str, depth: int = 0
    ) -> griffe.Object | griffe.Alias:
        """``name`` from a base class, resolved through :meth:`lookup` (griffe leaves
        bases in folders without ``__init__.py`` unresolved)."""
        if name in cls.members:
            return cls.members[name]

        def member(path: str) -> griffe.Object | griffe.Alias:
            base_cls = self.lookup(path)
            if not isinstance(base_cls, griffe.Class):
                raise Missing(path)  # not a class: the next base may have it
            return self._inherited(base_cls, name, depth + 1)

        return from_bases(cls, name, lambda root: root in self.modules, member, unknown=depth > 10)

    def _load_namespace_child(self, module: griffe.Module, name: str) -> griffe.Module | None:
        """A submodule griffe did not walk into (:func:`.model.namespace_child`)."""
        if self._model is None:
            return None
        return model.namespace_child(self._model, module, name)

    @cached_property
    def popped_kwargs(self) -> Mapping[str, frozenset[str]]:
        """Names each function of KWARGS_FROM_SOURCE pops from its **kwargs."""
        return MappingProxyType({p: kwargs_popped(self.lookup(p)) for p in KWARGS_FROM_SOURCE})

    def accepted_keywords(self, obj: griffe.Object) -> frozenset[str] | None:
        """Keyword names a call accepts, or None when any keyword is accepted."""
        if isinstance(obj, griffe.Class):
            try:
                obj = target(self._inherited(obj, "__init__"))
            except (Missing, Unknown):
                return None
        if not isinstance(obj, griffe.Function):
            return None
        params = obj.parameters
        names = frozenset(
            p.name
            for p in params
            if p.kind
            in (griffe.ParameterKind.positional_or_keyword, griffe.ParameterKind.keyword_only)
        )
        if any(p.kind is griffe.ParameterKind.var_keyword for p in params):
            if obj.path not in KWARGS_FROM_SOURCE:
                return None
            names |= self.popped_kwargs[obj.path]
        return names - {"self", "cls"}

    def return_path(
        self, obj: griffe.Object, keywords: Mapping[str, object] | None = None
    ) -> str | None:
        """Dotted path of a function's return class, when it is in a checked package,
        by its public name (:meth:`public_path`). ``keywords``: the call's keywords with
        constant values, for a return that depends on one (:attr:`call_returns`)."""
        for known in self.call_returns.get(obj.path, ()):
            if known.applies(keywords or {}):
                return known.returns
        if not isinstance(obj, griffe.Function) or obj.returns is None:
            return None
        ret: str | griffe.Expr = obj.returns
        if isinstance(ret, griffe.ExprSubscript) and getattr(ret.left, "canonical_path", "") in (
            "typing.Optional",
            "Optional",
        ):
            ret = ret.slice  # Optional[X] -> X
        elif isinstance(ret, griffe.ExprBinOp) and str(ret.right) == "None":
            ret = ret.left  # X | None -> X
        path = getattr(ret, "canonical_path", None)
        if isinstance(ret, str):  # quoted forward reference: resolve in its scope
            if obj.parent is None:
                return None
            try:
                path = obj.parent.resolve(ret.strip("'\""))
            except Exception:  # noqa: BLE001 -- unresolvable names are external
                return None
        if path and path.split(".")[0] in self.modules:
            return self.public_path(path)
        return None

    def public_path(self, path: str) -> str:
        """``path`` by the name a public module gives it: an object of a private module
        (``executorch.exir.program._program.EdgeProgramManager.to_executorch``) as the
        shortest public module above it that re-exports it names it
        (``executorch.exir.EdgeProgramManager.to_executorch``); ``path`` itself when it
        has no private part, or no such module re-exports it."""
        parts = path.split(".")
        first = next((i for i, part in enumerate(parts) if private(part)), None)
        if first is None or first + 1 >= len(parts) or private(parts[first + 1]):
            return path
        name, rest = parts[first + 1], parts[first + 2 :]
        try:
            exported = self.lookup(".".join(parts[: first + 2]))
        except (Missing, Unknown):
            return path
        for end in range(1, first + 1):
            module = ".".join(parts[:end])
            try:
                found = self.lookup(f"{module}.{name}")
            except (Missing, Unknown):
                continue
            if found is exported or found.path == exported.path:
                return ".".join([module, name, *rest])
        return path


def target(obj: griffe.Object | griffe.Alias) -> griffe.Object:
    """The object an alias stands for; :class:`Unknown` when griffe cannot follow it."""
    if isinstance(obj, griffe.Alias):
        try:
            return obj.final_target
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            raise Unknown(obj.target_path) from None
    return obj


def kwargs_popped(func: griffe.Object) -> frozenset[str]:
    """String literals ``kwargs.pop("name", ...)`` in a function's source (read with ast);
    none for an object that is not a function."""
    return (
        frozenset(model.popped_options(func)) if isinstance(func, griffe.Function) else frozenset()
    )
