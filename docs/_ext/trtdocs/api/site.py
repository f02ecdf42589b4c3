"""The installed API as one build sees it, loaded on first use.

A build makes an :class:`ApiSite` at ``builder-inited`` (cheap: nothing is
read) and keeps it in the build state. The griffe model (:mod:`.model`, from
the disk cache when it can), the reference's data files (:mod:`.data`) and
the look-ups made from them load when a page first asks: an ``{api-module}``
page, a code literal naming a documented package, a code cell that uses one.
A build with none of these never loads them.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import griffe
from sphinx.errors import ExtensionError

from ..features.model import FeaturesTable
from ..userdirs import cache_home
from ..vocab import API_PACKAGES
from . import model
from .data import ApiData, ApiDataError, load_data
from .external import ExternalIndex
from .index import ApiIndex, Missing, Unknown
from .links import Links, LinksError, load_links
from .names import CellIndex, Resolver
from .returns import by_function

LINKS_VERIFIED = (
    "api-links"  # under cache_home(): a marker per links file found whole in the installed packages
)


class ApiSite:
    """What the API reference, the checked literals and the linked code ask."""

    def __init__(
        self,
        search_paths: tuple[str, ...],
        data_file: Path,
        errata_file: Path,
        features: FeaturesTable,
        links_file: Path,
    ) -> None:
        self.search_paths = search_paths  # [] = this interpreter's site-packages
        self.data_file, self.errata_file, self.links_file = data_file, errata_file, links_file
        self.features = features

    @cached_property
    def model(self) -> model.ApiModel:
        return model.load(self.search_paths or None)

    @cached_property
    def data(self) -> ApiData:
        """docs/data/api.toml and api-errata.toml, checked against the model."""
        try:
            return load_data(self.data_file, self.errata_file, self.model, self.features)
        except ApiDataError as exc:
            raise ExtensionError(str(exc)) from None

    @cached_property
    def objects(self) -> dict[str, griffe.Object]:
        """What the reference documents: public dotted path -> griffe object."""
        return model.public_objects(self.model)

    @cached_property
    def documented(self) -> frozenset[str]:
        return frozenset(self.objects)

    @cached_property
    def index(self) -> ApiIndex:
        """Look-ups in the model, with what api.toml says calls return (``[[returns]]``)."""
        return ApiIndex.of(self.model, by_function(self.data.returns, self.objects))

    @cached_property
    def canonical(self) -> dict[str, str]:
        """Canonical griffe path -> documented name (the shortest, when several)."""
        out: dict[str, str] = {}
        for name in sorted(self.objects, key=lambda n: (len(n), n)):
            out.setdefault(self.objects[name].path, name)
        return out

    @cached_property
    def external(self) -> ExternalIndex:
        """The other installed packages (torch, packaging), read file by file."""
        return ExternalIndex(model.resolve_paths(self.search_paths or None))

    @cached_property
    def links(self) -> Links:
        """docs/data/api-links.toml, checked against the installed packages."""
        try:
            return load_links(
                self.links_file, self.external, verified=cache_home() / LINKS_VERIFIED
            )
        except LinksError as exc:
            raise ExtensionError(str(exc)) from None

    @cached_property
    def resolver(self) -> Resolver:
        """Where each name a code cell calls links (:mod:`.names`)."""
        return Resolver(
            CellIndex(lambda: self.index, self.external), self.documented_name, self.links
        )

    def load_names(self) -> None:
        """Load now what :attr:`resolver` reads (the model's index, the documented
        names, the links), which otherwise load on its first answer."""
        _ = self.resolver, self.index, self.documented, self.canonical, self.links

    @cached_property
    def later(self) -> frozenset[str]:
        """Names of a later release that api.toml maps to a feature (the installed wheel lacks
        them)."""
        return frozenset(k for k in self.data.absent if ":" not in k)

    @property
    def version(self) -> str:
        return self.model.versions.get("torch_tensorrt", "(version unknown)")

    def exists(self, name: str) -> bool:
        """Whether the installed packages have ``name`` (or it lies beyond what griffe follows)."""
        try:
            self.index.lookup(name)
        except Missing:
            return False
        except Unknown:
            return True  # an attribute's members: beyond what griffe follows
        return True

    def documented_name(self, path: str) -> str | None:
        """The reference's name for ``path`` (itself, or the documented name of its target)."""
        if path.split(".")[0] not in API_PACKAGES:
            return None  # another package's name (torch): the model stays unloaded
        if path in self.documented:
            return path
        try:
            obj = self.index.lookup(path)
        except (Missing, Unknown):
            return None
        return self.canonical.get(obj.path)
