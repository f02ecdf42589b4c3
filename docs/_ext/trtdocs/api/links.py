"""``docs/data/api-links.toml``: where a name the guide's code calls is
documented when this guide's reference is not its home, and the names left
unlinked, each with its reason. Pure: no Sphinx.

``[upstream.<package>]`` maps names of an installed package (torch) to pages
of that project's documentation for one release series: ``release`` (the
installed version's ``major.minor`` the pages describe), ``docs`` (the
documentation's root URL), ``inventory`` (its ``objects.inv``, relative to
``docs``) and ``names`` (dotted name -> page and anchor, relative to ``docs``).
No inventory can be fetched while the site builds (there is no network), so
the mapping is committed and :func:`load_links` checks it against the
installed package instead: the installed version must be of that series, and
every name must exist in it (griffe, :mod:`.external`). ``tests/test_api_names.py``
reads each project's ``objects.inv`` (marked ``network``) and checks that every
page and anchor is there.

``[unlinked]`` maps a name to the reason it links nowhere.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import sys
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from types import MappingProxyType

from packaging.version import InvalidVersion, Version

from .. import tomlfile
from . import external as external_module
from . import index as index_module
from .external import ExternalIndex
from .index import Missing, Unknown

_PACKAGE_KEYS = frozenset({"release", "docs", "inventory", "names"})
_SERIES = re.compile(r"\d+\.\d+\Z")
KEEP_VERIFIED = 16  # markers kept: the newest


class LinksError(Exception):
    """A problem in the links file; the message names the file and the entry."""


@dataclasses.dataclass(frozen=True, slots=True)
class Upstream:
    """One project's documentation, for one release series."""

    package: str  # import name (torch)
    release: str  # major.minor
    docs: str  # root URL, ending in /
    inventory: str  # objects.inv, relative to docs
    names: Mapping[str, str]  # dotted name -> page#anchor, relative to docs

    def url(self, name: str) -> str:
        return self.docs + self.names[name]


@dataclasses.dataclass(frozen=True, slots=True)
class Links:
    """The file, checked."""

    path: Path
    upstream: Mapping[str, Upstream]  # package -> its documentation
    unlinked: Mapping[str, str]  # name -> why it links nowhere

    def url(self, name: str) -> str | None:
        """The upstream page of ``name``, if the file maps it."""
        upstream = self.upstream.get(name.split(".")[0])
        return upstream.url(name) if upstream is not None and name in upstream.names else None


def load_links(path: Path, external: ExternalIndex, *, verified: Path | None = None) -> Links:
    """Read ``path`` and check it against the packages installed where ``external``
    looks. With ``verified`` (a folder), a file whose names were all found in the
    same installed releases before is not looked up again (a second or so of
    reading torch's sources): a marker there, named by :func:`_verified_key`, says so."""
    raw = tomlfile.read(path, LinksError)
    if unknown := sorted(set(raw) - {"upstream", "unlinked"}):
        raise LinksError(
            f"{path}: top level: unknown key {unknown[0]!r}; allowed: upstream, unlinked"
        )
    marker = verified / _verified_key(path, raw, external) if verified is not None else None
    look_up = marker is None or not marker.is_file()
    upstream = {
        package: _upstream(path, package, table, external, look_up)
        for package, table in raw.get("upstream", {}).items()
    }
    unlinked = raw.get("unlinked", {})
    for name, reason in unlinked.items():
        if not isinstance(reason, str) or not reason.strip():
            raise LinksError(f"{path}: unlinked.{name!r}: the reason must be a non-empty string")
        if any(name in u.names for u in upstream.values()):
            raise LinksError(f"{path}: unlinked.{name!r}: the file also links it upstream")
    if marker is not None and look_up:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
        for old in sorted(marker.parent.iterdir(), key=lambda f: f.stat().st_mtime, reverse=True)[
            KEEP_VERIFIED:
        ]:
            old.unlink(missing_ok=True)
    return Links(path, MappingProxyType(upstream), MappingProxyType(dict(unlinked)))


def _verified_key(path: Path, raw: Mapping[str, object], external: ExternalIndex) -> str:
    """The file's text, this code, where packages are read, and each linked package's version."""
    h = hashlib.sha256(path.read_bytes())
    h.update(f"{sys.version} griffe {metadata.version('griffe')}".encode())
    h.update(" ".join(map(str, external.search_paths)).encode())
    for code in (Path(__file__), Path(external_module.__file__), Path(index_module.__file__)):
        h.update(code.read_bytes())
    upstream = raw.get("upstream", {})
    for package in sorted(upstream) if isinstance(upstream, dict) else ():
        h.update(f"{package}={external.version(package)}".encode())
    return h.hexdigest()


def _upstream(
    path: Path, package: str, table: object, external: ExternalIndex, look_up: bool = True
) -> Upstream:
    entry = f"upstream.{package}"
    if not isinstance(table, dict) or set(table) != _PACKAGE_KEYS:
        raise LinksError(f"{path}: {entry}: needs exactly the keys {sorted(_PACKAGE_KEYS)}")
    release, docs, names = table["release"], table["docs"], table["names"]
    if not isinstance(release, str) or not _SERIES.match(release):
        raise LinksError(
            f"{path}: {entry}.release: {release!r} is not a release series (major.minor)"
        )
    if not isinstance(docs, str) or not docs.startswith("https://") or not docs.endswith("/"):
        raise LinksError(f"{path}: {entry}.docs: must be an https URL ending in /")
    if not external.installed(package):
        raise LinksError(
            f"{path}: {entry}: {package} is not installed where the build reads packages"
        )
    installed = external.version(package)
    try:
        series = f"{Version(installed).major}.{Version(installed).minor}" if installed else None
    except InvalidVersion:
        series = None
    if series != release:
        raise LinksError(
            f"{path}: {entry}.release: the links are for {package} {release}, the installed "
            f"{package} is {installed}: check each name against that release's documentation, "
            f"then set release and docs"
        )
    if not isinstance(names, dict) or not names:
        raise LinksError(f"{path}: {entry}.names: must map names to pages")
    for name, page in names.items():
        where = f"{path}: {entry}.names.{name!r}"
        if name.split(".")[0] != package:
            raise LinksError(f"{where}: not a name of {package}")
        if not isinstance(page, str) or not page or page.startswith(("/", "http")):
            raise LinksError(f"{where}: the page must be a path relative to docs")
        if not look_up:
            continue  # found in this installed release before (load_links' verified)
        try:
            external.lookup(name)
        except Missing:
            raise LinksError(f"{where}: installed {package} {installed} has no such name") from None
        except Unknown:
            raise LinksError(
                f"{where}: the installed sources do not show what it is; link a name they "
                f"define, or list it under [unlinked] with the reason"
            ) from None
    return Upstream(package, release, docs, str(table["inventory"]), MappingProxyType(dict(names)))
