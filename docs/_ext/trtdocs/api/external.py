"""Installed packages outside the reference's own (torch, packaging): what a
dotted name stands for, read from their sources with griffe, never imported.
Pure: no Sphinx.

Loading all of torch with griffe takes about a minute and gigabytes, so
:class:`ExternalIndex` visits only the files a look-up needs: the module the
name starts in, then each module an alias or a wildcard import (``from
torch._C._VariableFunctions import *``) leads to, with ``.pyi`` stubs where a
module is compiled. ``torch.nn.Linear`` visits ``torch/nn/__init__.py``,
``torch/nn/modules/__init__.py`` and ``torch/nn/modules/linear.py``. A name
the files do not define raises :class:`~.index.Missing`; one beyond what
static reading follows (an attribute's value, a base class outside the
package) raises :class:`~.index.Unknown`.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path

import griffe

from ..vocab import API_PACKAGES
from .index import Missing, Unknown, from_bases

_DEPTH = 25  # aliases followed before a name counts as not checkable


class ExternalIndex:
    """Look-ups in the packages installed on ``search_paths``, other than
    :data:`trtdocs.vocab.API_PACKAGES` and the standard library."""

    def __init__(self, search_paths: tuple[str, ...]) -> None:
        self.search_paths = tuple(Path(p) for p in search_paths)
        self._modules: dict[str, list[griffe.Module]] = {}

    def installed(self, root: str) -> bool:
        """Whether ``root`` is a top-level package or module installed on the search paths."""
        if root in API_PACKAGES or root in sys.stdlib_module_names or root.startswith("_"):
            return False
        return bool(self._files(root))

    @functools.cache  # noqa: B019 -- one index per build; the versions do not change during it
    def version(self, root: str) -> str | None:
        """The version of the distribution that installs ``root``, found on the search paths."""
        paths = [str(p) for p in self.search_paths]
        for dist in metadata.distributions(name=root, path=paths):
            return dist.version
        for dist in metadata.distributions(path=paths):  # a distribution named otherwise
            if root in (dist.read_text("top_level.txt") or "").split():
                return dist.version
        return None

    def lookup(self, path: str, depth: int = 0) -> griffe.Object:
        """The object at the dotted ``path``; raises Missing or Unknown."""
        if depth > _DEPTH:
            raise Unknown(path)
        parts = path.split(".")
        for end in range(len(parts), 0, -1):
            modules = self._module(".".join(parts[:end]))
            if modules:
                break
        else:
            raise Missing(path)
        objects: list[griffe.Object] = list(modules)
        for i, part in enumerate(parts[end:], start=end):
            objects = [self._member(objects, part, ".".join(parts[:i]), depth)]
        return objects[0]

    def return_path(
        self, obj: griffe.Object, keywords: Mapping[str, object] | None = None
    ) -> str | None:
        """Dotted path of a function's return class, when its package is installed
        (``keywords``, the call's, do not change it here)."""
        if not isinstance(obj, griffe.Function) or obj.returns is None:
            return None
        path = getattr(obj.returns, "canonical_path", None)
        if path and self.installed(path.split(".")[0]):
            return path
        return None

    # -- reading the files ---------------------------------------------------------

    def _files(self, module: str) -> list[Path]:
        """The source files of a dotted module name: its ``.py`` and ``.pyi``, the
        package's ``__init__`` ones for a package."""
        rel = Path(*module.split("."))
        for root in self.search_paths:
            found = [
                f
                for f in (
                    root / rel / "__init__.py",
                    root / rel / "__init__.pyi",
                    root / rel.with_suffix(".py"),
                    root / rel.with_suffix(".pyi"),
                )
                if f.is_file()
            ]
            if found:
                return found
        return []

    def _module(self, module: str) -> list[griffe.Module]:
        """The module's griffe trees, one a file, visited once."""
        if module not in self._modules:
            files = self._files(module)
            parent = None
            for part in module.split(".")[:-1]:
                parent = griffe.Module(part, parent=parent)  # so that relative imports resolve
            logging.getLogger("griffe").setLevel(logging.CRITICAL)
            self._modules[module] = [
                griffe.visit(
                    module.rsplit(".", 1)[-1], f, f.read_text(encoding="utf-8-sig"), parent=parent
                )
                for f in files
            ]
        return self._modules[module]

    def _member(
        self, objects: list[griffe.Object], name: str, owner: str, depth: int
    ) -> griffe.Object:
        """Member ``name`` of ``objects`` (one object, seen in a ``.py`` and a ``.pyi``)."""
        for obj in objects:
            if name in obj.members:
                member = obj.members[name]
                if isinstance(member, griffe.Alias):
                    return self.lookup(member.target_path, depth + 1)
                return member
            overloads = getattr(obj, "overloads", {}).get(name)
            if overloads:
                return overloads[0]  # a stub declares only overloads
        if all(obj.is_module for obj in objects):
            for obj in objects:
                for member in list(obj.members.values()):
                    if isinstance(member, griffe.Alias) and member.wildcard:
                        try:
                            return self.lookup(f"{member.wildcard}.{name}", depth + 1)
                        except Missing:
                            continue
            sub = self._module(f"{owner}.{name}")
            if sub:
                return sub[0]
            raise Missing(f"{owner}.{name}")
        for obj in objects:
            if isinstance(obj, griffe.Class):
                return self._inherited(obj, name, depth)
        raise Unknown(f"{owner}.{name}")  # a member of a function's or an attribute's value

    def _inherited(self, cls: griffe.Class, name: str, depth: int) -> griffe.Object:
        return from_bases(
            cls,
            name,
            self.installed,
            lambda path: self._member([self.lookup(path, depth + 1)], name, path, depth + 1),
        )
