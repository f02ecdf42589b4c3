"""The release half of the features table, as the drift guards read it.

``docs/features.toml`` is owned by the features table module. The guards read
it only through :func:`load_table`, so the key names they depend on live in
this one function. Expected shape (keys the guards read; others are ignored)::

    documented = "2.14"                      # release key of the documented release

    [releases."2.14"]
    status = "released"                      # released | described | nightly
    version = "2.14.0"                       # exact torch-tensorrt version (released only)
    extras = ["executorch", "all"]           # extras torch-tensorrt offers in this release
    index_urls = ["https://pypi.org/simple"] # where its wheels come from; first = --index-url
    [releases."2.14".pins]                   # distribution -> exact version or specifier
    torch-tensorrt = "2.14.0"
    torch-tensorrt-executorch-runtime = "0.1.0"
    executorch = "1.4.1"
    torch = ">=2.14.0,<2.15.0"

    [releases.nightly]
    status = "nightly"
    index_urls = ["https://download.pytorch.org/whl/nightly/cu132", "https://pypi.org/simple"]

    [[features]]
    id = "extra-brings-delegate"
    since = "2.15"                           # a release key or "nightly"

Release keys other than "nightly" are ``major.minor`` strings.

The features module's shape is read too: ``pins`` keyed ``runtime`` (the runtime
wheel), ``tensorrt`` (tensorrt-cu13), plus ``cuda`` and ``python`` (not
distributions, ignored here), and an ``install`` table::

    [releases."2.14".install]
    index_url = ""                           # "" = PyPI
    extra_index_urls = []
    pre = false
    packages = ["torch-tensorrt[executorch]==2.14.0", "torch-tensorrt-executorch-runtime==0.1.0"]

Without ``extras``, a release's extras are those its install packages name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

if TYPE_CHECKING:
    from ..features import FeaturesTable

NIGHTLY = "nightly"
STATUSES = frozenset({"released", "described", "nightly"})
# The feature whose first release makes the [executorch] extra bring the delegate.
EXTRA_BRINGS_DELEGATE = "extra-brings-delegate"
# Pin keys of the features table that are not distribution names -> distribution (None: not one).
PIN_ALIASES: Mapping[str, str | None] = MappingProxyType({
    "runtime": "torch-tensorrt-executorch-runtime",
    "tensorrt": "tensorrt-cu13",
    "cuda": None,
    "python": None,
})
TORCH_TENSORRT = "torch-tensorrt"
RUNTIME = "torch-tensorrt-executorch-runtime"


class TableError(ValueError):
    """The features table lacks something the guards need."""


@dataclasses.dataclass(frozen=True, slots=True)
class Release:
    """One ``[releases.<key>]`` entry."""

    key: str  # the table key: "2.14", "2.15", "nightly"
    status: str  # released | described | nightly (from ``status``)
    version: str | None  # exact torch-tensorrt version; None unless released (``version``)
    extras: frozenset[str]  # extras of torch-tensorrt in this release (``extras``)
    index_urls: tuple[str, ...]  # first: --index-url, rest: --extra-index-url (``index_urls``)
    pins: Mapping[str, str]  # canonical distribution name -> version or specifier (``pins``)
    packages: tuple[str, ...]  # requirements the install command names (``install.packages``), may be ()
    pre: bool  # the install command passes --pre (``install.pre``; nightly: always)
    extra_brings_delegate: bool  # derived from the extra-brings-delegate feature's ``since``
    windows_index_urls: tuple[str, ...] = ()  # indexes of its Windows command (``install.windows_index_urls``)

    @property
    def is_nightly(self) -> bool:
        return self.status == NIGHTLY


@dataclasses.dataclass(frozen=True, slots=True)
class Table:
    """The releases the guards check commands against."""

    documented: str  # key of the documented release (``documented``)
    releases: Mapping[str, Release]  # release key -> Release
    feature_since: Mapping[str, str]  # feature id -> release key it first appears in

    def release(self, key: str) -> Release:
        try:
            return self.releases[key]
        except KeyError:
            raise TableError(f"release {key!r} is not in the features table; known: "
                             f"{sorted(self.releases)}") from None

    def by_version(self, version: str) -> Release | None:
        """The released entry whose torch-tensorrt version is ``version``."""
        for rel in self.releases.values():
            if rel.version is not None and Version(rel.version) == Version(version):
                return rel
        return None

    @property
    def nightly_index_urls(self) -> frozenset[str]:
        return frozenset(u for r in self.releases.values() if r.is_nightly for u in r.index_urls[:1])

    @property
    def known_index_urls(self) -> frozenset[str]:
        return frozenset(normalize_url(u) for r in self.releases.values()
                         for u in (*r.index_urls, *r.windows_index_urls))

    def first_release_key(self, feature_id: str) -> str:
        try:
            return self.feature_since[feature_id]
        except KeyError:
            raise TableError(f"unknown feature {feature_id!r}") from None


def normalize_url(url: str) -> str:
    return url.rstrip("/")


def release_order(key: str) -> tuple[int, ...]:
    """Sort key: numbered releases by version, nightly after all of them."""
    if key == NIGHTLY:
        return (1 << 30,)
    return Version(key).release


def load_table(path: Path, documented: str | None = None) -> Table:
    """The guards' view of ``path``, validated by trtdocs.features first."""
    from ..features import load

    return table_from_features(load(path, documented))


def table_from_features(table: FeaturesTable) -> Table:
    """The guards' view of a validated features table (its documented release included)."""
    return table_from_data({
        "documented": table.documented,
        "releases": {r.key: {"status": r.status, "version": r.version, "pins": dict(r.pins),
                             "install": {"index_url": r.install.index_url,
                                         "extra_index_urls": list(r.install.extra_index_urls),
                                         "pre": r.install.pre, "packages": list(r.install.packages),
                                         "windows_index_urls": list(r.install.windows_index_urls)}}
                     for r in table.releases},
        "features": [{"id": f.id, "since": f.since} for f in table.features],
    }, source=str(table.path))


def table_from_data(data: Mapping[str, Any], *, source: str = "features table") -> Table:
    """Build a :class:`Table` from parsed data: a features table's, or a small
    synthetic one (the rule tests)."""
    try:
        documented = str(data["documented"])
        raw_releases = data["releases"]
    except KeyError as exc:
        raise TableError(f"{source}: missing key {exc}") from None
    since = {str(f["id"]): str(f["since"]) for f in data.get("features", ()) if "since" in f}
    delegate_since = since.get(EXTRA_BRINGS_DELEGATE)
    releases: dict[str, Release] = {}
    for key, raw in raw_releases.items():
        status = str(raw.get("status", ""))
        if status not in STATUSES:
            raise TableError(f"{source}: release {key!r} has status {status!r}; use one of {sorted(STATUSES)}")
        version = raw.get("version") or None
        pins = {}
        for k, v in raw.get("pins", {}).items():
            name = PIN_ALIASES.get(k, k)
            if name is not None:
                pins[canonicalize_name(name)] = str(v)
        if version is None and status == "released":
            # Fall back to an exact torch-tensorrt pin ("2.14.0" or "==2.14.0").
            pin = pins.get(TORCH_TENSORRT, "").removeprefix("==")
            version = pin if pin[:1].isdigit() and not any(c in pin for c in "<>=!~,") else None
        install = raw.get("install", {})
        packages = tuple(str(p) for p in install.get("packages", ()))
        index_urls = tuple(raw.get("index_urls", ()))
        if not index_urls and install:
            index_urls = (install.get("index_url") or "https://pypi.org/simple",
                          *install.get("extra_index_urls", ()))
        extras = raw.get("extras")
        if extras is None:
            extras = {e for p in packages for e in Requirement(p).extras
                      if canonicalize_name(Requirement(p).name) == TORCH_TENSORRT}
        brings = delegate_since is not None and release_order(key) >= release_order(delegate_since)
        releases[key] = Release(
            key=key,
            status=status,
            version=str(version) if version is not None and status != NIGHTLY else None,
            extras=frozenset(extras),
            index_urls=index_urls,
            pins=MappingProxyType(pins),
            packages=packages,
            pre=bool(install.get("pre", status == NIGHTLY)),
            extra_brings_delegate=brings,
            windows_index_urls=tuple(str(u) for u in install.get("windows_index_urls", ())),
        )
    if documented not in releases:
        raise TableError(f"{source}: documented release {documented!r} has no [releases.{documented!r}] entry")
    return Table(documented, MappingProxyType(releases), MappingProxyType(since))
