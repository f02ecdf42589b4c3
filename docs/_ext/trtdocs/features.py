"""The features table (``docs/features.toml``): releases, what each feature
needs, and everything generated from it.

One table drives every version note of the guide:

* ``{feature-note} <id>`` (directive) and ``{feature}`<id>``` (role) render
  the note of a feature relative to the documented release, linked to its row
  of the support matrix;
* ``{support-matrix}`` renders features x releases x platforms;
* ``feature:<id>`` in a notebook's ``requires`` becomes a requirement on the
  installed torch_tensorrt (:meth:`FeaturesTable.requirement`);
* install commands come from each release's ``install`` table
  (:meth:`FeaturesTable.install_command`).

Every feature has one cell per release: yes, no, unconfirmed or broken (it
exists but fails), each with its evidence; a yes, no or broken cell without a
source is an error. A release's pins name the published metadata they are read
from, and only a released release has pins (tests/test_features_evidence.py
reads them back from the installed wheels).

The table is loaded and validated at ``config-inited``; every problem names
the file and the entry. Vocabularies are frozen: an unknown key, status,
state, field or platform is an error, not a silent default.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.parsers.rst import directives
from packaging.requirements import Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from sphinx import addnodes
from sphinx.errors import ConfigError
from sphinx.util import logging
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective, SphinxRole

from .releases import ROW_ID
from .requirements import FEATURE_PREFIX, RequirementError

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

# -- Vocabularies --------------------------------------------------------------

NIGHTLY = "nightly"  # the release key of the nightly channel; also a feature's `since`

# Release status -> how the matrix heads its column.
STATUSES: Mapping[str, str] = {
    "released": "released",
    "described": "described upstream, not released",
    "nightly": "nightly builds",
}

# Platform name -> label in notes and the matrix.
PLATFORMS: Mapping[str, str] = {
    "linux-x86_64": "Linux x86-64",
    "linux-aarch64": "Linux aarch64",
    "windows-x86_64": "Windows x86-64",
}

# Release status -> what the pins column says when the release has no pins.
UNPINNED: Mapping[str, str] = {
    "released": "none stated",
    "described": "unknown: not released, so no published metadata states them",
    "nightly": "set by each nightly build",
}

# Pin name -> what it pins.
PINS: Mapping[str, str] = {
    "torch": "PyTorch",
    "executorch": "ExecuTorch",
    "tensorrt": "TensorRT",
    "runtime": "torch-tensorrt-executorch-runtime",
    "cuda": "CUDA",
    "python": "Python",
}

# Cell state -> what it says. Each release cell of a feature is one of these.
STATES: Mapping[str, str] = {
    "yes": "the release has it and it works",
    "no": "the release does not have it",
    "unconfirmed": "no source shows whether the release has it or whether it works",
    "broken": "the release has it but it fails",
}
# States a cell may not claim without a source.
NEEDS_EVIDENCE = frozenset({"yes", "no", "broken"})

# Feature kind -> how its notes head it: a new feature, or a behaviour that changed
# (rendered like Sphinx's versionchanged).
KINDS: Mapping[str, str] = {
    "added": "a feature the release adds",
    "changed": "a behaviour the release changes",
}

# Metadata field a pin is read from -> what it holds (core metadata names).
PIN_FIELDS: Mapping[str, str] = {
    "Requires-Dist": "a requirement on the pinned distribution",
    "Requires-Python": "the Python versions the distribution supports",
    "Version": "the pinned distribution's own version",
    "Description": "the project description (README), for versions no other field states",
}
# Pin name -> the distribution a Requires-Dist or Version field names (None: not a distribution).
PIN_DISTRIBUTIONS: Mapping[str, str | None] = {
    "torch": "torch",
    "executorch": "executorch",
    "tensorrt": "tensorrt-cu13",
    "runtime": "torch-tensorrt-executorch-runtime",
    "cuda": None,
    "python": None,
}

_TOP_KEYS = frozenset({"documented", "releases", "features"})
_RELEASE_KEYS = frozenset({"status", "version", "date", "platforms", "evidence", "pins", "install"})
_INSTALL_KEYS = frozenset({"index_url", "extra_index_urls", "pre", "packages"})
# Optional: the indexes a Windows install uses instead (first = --index-url).
_INSTALL_OPTIONAL = frozenset({"windows_index_urls"})
# Installers a generated command can be written for, and platforms it can be for.
INSTALL_TOOLS = ("pip", "uv")
INSTALL_PLATFORMS = ("linux", "windows")
# uv takes each package from the first index that has it; with several indexes the
# nightly (or CUDA) wheels only win when uv compares versions across all of them.
UV_INDEX_STRATEGY = "unsafe-best-match"
_FEATURE_KEYS = frozenset({"id", "title", "since", "kind", "platforms", "note", "cells", "table_only"})
_CELL_KEYS = frozenset({"state", "evidence", "remark"})
_PIN_KEYS = frozenset({"spec", "metadata", "field"})
_ID = re.compile(r"[a-z0-9][a-z0-9.-]*\Z")

DEFAULT_FILE = "docs/features.toml"
PACKAGE = "torch_tensorrt"  # the distribution a feature requirement is on


class FeaturesError(ValueError):
    """A problem in the features table; the message names the file and entry."""


# -- Data ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Install:
    """Inputs of a release's pip command (``[releases.<key>.install]``)."""

    index_url: str  # --index-url; "" = PyPI
    extra_index_urls: tuple[str, ...]  # --extra-index-url, in order
    pre: bool  # --pre (nightly builds are pre-releases)
    packages: tuple[str, ...]  # requirement strings, each quoted in the command
    windows_index_urls: tuple[str, ...] = ()  # on Windows: these indexes instead; () = same as Linux

    def args(self, tool: str = "pip", platform: str = "linux") -> list[str]:
        """Installer arguments after ``install``, for ``tool`` (pip or uv) on ``platform``."""
        if tool not in INSTALL_TOOLS or platform not in INSTALL_PLATFORMS:
            raise ValueError(f"no install command for {tool!r} on {platform!r}; "
                             f"tools: {INSTALL_TOOLS}, platforms: {INSTALL_PLATFORMS}")
        index_url, extra = self.index_url, self.extra_index_urls
        if platform == "windows" and self.windows_index_urls:
            index_url, *rest = self.windows_index_urls
            extra = tuple(rest)
        args: list[str] = []
        if self.pre:
            args.append("--pre" if tool == "pip" else "--prerelease=allow")
        if tool == "uv" and (index_url or extra) and len([index_url or "pypi", *extra]) > 1:
            args += ["--index-strategy", UV_INDEX_STRATEGY]
        args += list(self.packages)
        if index_url:
            args += ["--index-url", index_url]
        for url in extra:
            args += ["--extra-index-url", url]
        return args


@dataclasses.dataclass(frozen=True, slots=True)
class PinSource:
    """Where a pin comes from: one field of a published distribution's metadata."""

    distribution: str  # the distribution whose metadata states it ("torch-tensorrt")
    version: str  # that distribution's version ("2.14.0")
    field: str  # one of PIN_FIELDS

    def __str__(self) -> str:
        return f"{self.distribution} {self.version} metadata, {self.field}"


@dataclasses.dataclass(frozen=True, slots=True)
class Release:
    """One column of the matrix (``[releases.<key>]``)."""

    key: str  # "2.14", "2.15" or "nightly"; what `since` and `documented` name
    status: str  # one of STATUSES
    version: str  # full version of the release ("2.14.0"); "" for nightly
    date: str  # when it reached PyPI ("2026-09"); "" if it has not
    platforms: tuple[str, ...]  # PLATFORMS names the release supports
    evidence: str  # where the pins and platforms come from
    pins: Mapping[str, str]  # PINS name -> PEP 440 version or specifier
    pin_sources: Mapping[str, PinSource]  # PINS name -> the metadata it is taken from
    install: Install

    @property
    def number(self) -> Version | None:
        """The release key as a version; None for the nightly channel."""
        return None if self.key == NIGHTLY else Version(self.key)

    @property
    def install_platforms(self) -> tuple[str, ...]:
        """INSTALL_PLATFORMS the release installs on (from its ``platforms``)."""
        return tuple(p for p in INSTALL_PLATFORMS if any(q.startswith(p + "-") for q in self.platforms))


@dataclasses.dataclass(frozen=True, slots=True)
class Cell:
    """What is known about one feature in one release (``cells.<release>``)."""

    state: str  # one of STATES
    evidence: str  # the source: a wheel path, a PR or issue URL, PyPI metadata; "" only if unconfirmed
    remark: str  # a few words shown beside the state ("deprecated"); "" = none


@dataclasses.dataclass(frozen=True, slots=True)
class Feature:
    """One row of the matrix (``[[features]]``)."""

    id: str  # what pages, roles and `feature:<id>` name
    title: str  # short name in the matrix
    since: str  # release key of the first release that has it, or "nightly"
    kind: str  # one of KINDS
    # release key -> platforms from that release on (until the next key);
    # {} = every platform of each release
    platforms: Mapping[str, tuple[str, ...]]
    note: str  # one line: what it is and its limits
    cells: Mapping[str, Cell]  # release key -> what is known there, one per release
    table_only: str  # why no page references it; "" = a page must


@dataclasses.dataclass(frozen=True, slots=True)
class FeaturesTable:
    """The validated table. Releases are ordered oldest first, nightly last."""

    path: Path  # the file it was read from
    documented: str  # release key the pages describe
    releases: tuple[Release, ...]
    features: tuple[Feature, ...]

    # -- look-ups
    def release(self, key: str) -> Release:
        for r in self.releases:
            if r.key == key:
                return r
        raise KeyError(key)

    def feature(self, feature_id: str) -> Feature:
        for f in self.features:
            if f.id == feature_id:
                return f
        raise KeyError(feature_id)

    @property
    def documented_release(self) -> Release:
        return self.release(self.documented)

    def _index(self, key: str) -> int:
        return [r.key for r in self.releases].index(key)

    def has(self, feature: Feature, key: str) -> bool:
        """Whether release ``key`` has ``feature``."""
        return self._index(key) >= self._index(feature.since)

    def platforms(self, feature: Feature, key: str) -> tuple[str, ...]:
        """Platforms ``feature`` works on in release ``key``; () if absent."""
        if not self.has(feature, key):
            return ()
        release = self.release(key)
        chosen: tuple[str, ...] | None = None
        for r in self.releases[: self._index(key) + 1]:
            if r.key in feature.platforms:
                chosen = feature.platforms[r.key]
        return release.platforms if chosen is None else chosen

    # -- version gating
    def requirement(self, feature_id: str) -> Requirement:
        """The torch_tensorrt requirement ``feature:<id>`` stands for.

        A release feature needs ``torch_tensorrt>=<since>``. A nightly-only
        feature needs a version past the newest numbered release, which no
        release satisfies and a later nightly (a ``.dev`` build) does.
        """
        try:
            feature = self.feature(feature_id)
        except KeyError:
            raise RequirementError(
                f"unknown feature {feature_id!r}: {self.path} has no such id") from None
        if feature.since != NIGHTLY:
            return FeatureRequirement(f"{PACKAGE}>={feature.since}",
                                      f"{PACKAGE}>={feature.since} for feature {feature.id}")
        newest = max(r.number for r in self.releases if r.number is not None)
        spec = f"{PACKAGE}>={newest.major}.{newest.minor + 1}.0.dev0"
        return FeatureRequirement(
            spec, f"a build newer than {self.documented} (nightly), {spec}, for feature {feature.id}")

    # -- notes
    def availability(self, feature: Feature) -> str:
        """The headline of a note, relative to the documented release."""
        documented = self.documented
        if feature.kind == "changed":
            return f"Changed in {feature.since}"
        if feature.since == documented:
            return f"New in {documented}"
        if self.has(feature, documented):
            return f"Since {feature.since}"
        if feature.since == NIGHTLY:
            return f"Needs a build newer than {documented}, such as a nightly"
        return f"Needs Torch-TensorRT {feature.since} or newer"

    def platform_limit(self, feature: Feature) -> str:
        """'Linux only in 2.14' where the feature is narrower in the documented
        release than elsewhere (its other releases, or the release itself);
        '' otherwise."""
        key = self.documented if self.has(feature, self.documented) else feature.since
        here = self.platforms(feature, key)
        elsewhere = set(self.release(key).platforms)
        for r in self.releases:
            elsewhere.update(self.platforms(feature, r.key))
        if set(here) >= elsewhere:
            return ""
        return f"{_platform_words(here)} only in {_release_words(key)}"

    def note_text(self, feature: Feature) -> str:
        """The one-line inline note: headline and platform limit."""
        limit = self.platform_limit(feature)
        return self.availability(feature) + (f"; {limit}" if limit else "")

    # -- install data
    def install_command(self, key: str, tool: str = "pip", platform: str = "linux") -> str:
        """The install command of release ``key`` for ``tool`` (pip or uv) on
        ``platform`` (linux or windows); package arguments in double quotes."""
        install = self.release(key).install
        prefix = "pip install " if tool == "pip" else "uv pip install "
        return prefix + " ".join(
            f'"{a}"' if a in install.packages else shlex.quote(a)
            for a in install.args(tool, platform))

    def install_commands(self, key: str) -> dict[str, str]:
        """Every generated command of release ``key``, by "tool platform" label."""
        return {f"{tool} {platform}": self.install_command(key, tool, platform)
                for tool in INSTALL_TOOLS for platform in INSTALL_PLATFORMS
                if platform in self.release(key).install_platforms}


class FeatureRequirement(Requirement):
    """A packaging Requirement that also says, in words, which feature needs it
    (``needs`` is what a not-executed mark shows)."""

    def __init__(self, spec: str, needs: str) -> None:
        super().__init__(spec)
        self.needs = needs


def inline(text: str) -> list[nodes.Node]:
    """Text with `code` spans as literal nodes (kept out of smart quotes)."""
    out: list[nodes.Node] = []
    for i, part in enumerate(text.split("`")):
        if part:
            out.append(nodes.literal(part, part) if i % 2 else nodes.Text(part))
    return out


def plain(text: str) -> str:
    return text.replace("`", "")


def _platform_words(platforms: tuple[str, ...]) -> str:
    if platforms and all(p.startswith("linux-") for p in platforms) and len(platforms) > 1:
        return "Linux"
    if platforms and all(p.startswith("windows-") for p in platforms) and len(platforms) > 1:
        return "Windows"
    return ", ".join(PLATFORMS[p] for p in platforms)


def _release_words(key: str) -> str:
    return "nightly builds" if key == NIGHTLY else key


# -- Loading and validation ----------------------------------------------------


def load(path: str | Path, documented: str | None = None) -> FeaturesTable:
    """Read and validate ``path``; ``documented`` overrides the file's value.

    Raises :class:`FeaturesError` naming the file and the entry."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise FeaturesError(f"{path}: cannot read the features table: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise FeaturesError(f"{path}: not valid TOML: {exc}") from None
    return _Validator(path).table(data, documented)


class _Validator:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, entry: str, problem: str) -> FeaturesError:
        return FeaturesError(f"{self.path}: {entry}: {problem}")

    def keys(self, entry: str, data: object, allowed: frozenset[str], required: frozenset[str]) -> dict:
        if not isinstance(data, dict):
            raise self.fail(entry, f"must be a table, not {data!r}")
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise self.fail(entry, f"unknown key {unknown[0]!r}; allowed: {sorted(allowed)}")
        missing = sorted(required - set(data))
        if missing:
            raise self.fail(entry, f"missing key {missing[0]!r}")
        return data

    def string(self, entry: str, value: object, *, empty: bool = True) -> str:
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise self.fail(entry, f"must be a {'' if empty else 'non-empty '}string, not {value!r}")
        return value

    def strings(self, entry: str, value: object) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(entry, f"must be a list of strings, not {value!r}")
        return tuple(value)

    def note(self, entry: str, value: object) -> str:
        note = self.string(entry, value, empty=False)
        if note.count("`") % 2:
            raise self.fail(entry, "has an unclosed `code` span")
        if "\n" in note:
            raise self.fail(entry, "must be one line")
        return note

    def platform_list(self, entry: str, value: object) -> tuple[str, ...]:
        platforms = self.strings(entry, value)
        if not platforms:
            raise self.fail(entry, "must name at least one platform")
        for p in platforms:
            if p not in PLATFORMS:
                raise self.fail(entry, f"unknown platform {p!r}; known: {sorted(PLATFORMS)}")
        if len(set(platforms)) != len(platforms):
            raise self.fail(entry, "names a platform twice")
        return platforms

    def table(self, data: dict[str, Any], documented: str | None) -> FeaturesTable:
        self.keys("top level", data, _TOP_KEYS, _TOP_KEYS)
        releases = self.releases(data["releases"])
        keys = [r.key for r in releases]
        documented = documented or self.string("documented", data["documented"], empty=False)
        if documented not in keys:
            raise self.fail("documented", f"release {documented!r} is not in [releases] ({keys})")
        if documented == NIGHTLY:
            raise self.fail("documented", "must be a numbered release, not the nightly channel")
        if not isinstance(data["features"], list):
            raise self.fail("features", "must be an array of tables ([[features]])")
        features: list[Feature] = []
        seen: set[str] = set()
        for i, raw in enumerate(data["features"]):
            feature = self.feature(i, raw, releases)
            if feature.id in seen:
                raise self.fail(f"features[{i}] {feature.id!r}", "duplicate id")
            seen.add(feature.id)
            features.append(feature)
        return FeaturesTable(self.path, documented, releases, tuple(features))

    def releases(self, data: object) -> tuple[Release, ...]:
        if not isinstance(data, dict) or not data:
            raise self.fail("releases", "must be a non-empty table of releases")
        releases = [self.release(key, raw) for key, raw in data.items()]
        numbered = sorted((r for r in releases if r.key != NIGHTLY), key=lambda r: r.number)
        nightly = [r for r in releases if r.key == NIGHTLY]
        return (*numbered, *nightly)

    def release(self, key: str, raw: object) -> Release:
        entry = f"releases.{key!r}" if "." in key else f"releases.{key}"
        data = self.keys(entry, raw, _RELEASE_KEYS, _RELEASE_KEYS)
        status = self.string(f"{entry}.status", data["status"])
        if status not in STATUSES:
            raise self.fail(f"{entry}.status", f"unknown status {status!r}; known: {sorted(STATUSES)}")
        if (key == NIGHTLY) != (status == NIGHTLY):
            raise self.fail(entry, f"the key {NIGHTLY!r} and the status {NIGHTLY!r} go together")
        version = self.string(f"{entry}.version", data["version"])
        if key != NIGHTLY:
            try:
                number = Version(key)
            except InvalidVersion:
                raise self.fail(entry, f"release key {key!r} is not a version") from None
            if len(number.release) != 2 or number.pre or number.dev or number.post or number.local:
                raise self.fail(entry, f"release key {key!r} must be MAJOR.MINOR")
            try:
                full = Version(version)
            except InvalidVersion:
                raise self.fail(f"{entry}.version", f"{version!r} is not a version") from None
            if full.release[:2] != number.release:
                raise self.fail(f"{entry}.version", f"{version!r} does not belong to release {key}")
        elif version:
            raise self.fail(f"{entry}.version", "the nightly channel has no version")
        pins_raw = data["pins"]
        if not isinstance(pins_raw, dict):
            raise self.fail(f"{entry}.pins", "must be a table")
        pins: dict[str, str] = {}
        sources: dict[str, PinSource] = {}
        if pins_raw and status != "released":
            raise self.fail(f"{entry}.pins", f"a {status} release has no published metadata to take a pin "
                                             "from; leave its pins empty")
        for name, raw_pin in pins_raw.items():
            pin_entry = f"{entry}.pins.{name}"
            if name not in PINS:
                raise self.fail(pin_entry, f"unknown pin; known: {sorted(PINS)}")
            pin = self.keys(pin_entry, raw_pin, _PIN_KEYS, _PIN_KEYS)
            value = self.string(f"{pin_entry}.spec", pin["spec"], empty=False)
            try:
                Version(value)
            except InvalidVersion:
                try:
                    SpecifierSet(value)
                except InvalidSpecifier:
                    raise self.fail(f"{pin_entry}.spec", f"{value!r} is neither a version nor a specifier") from None
            field = self.string(f"{pin_entry}.field", pin["field"], empty=False)
            if field not in PIN_FIELDS:
                raise self.fail(f"{pin_entry}.field", f"unknown field {field!r}; known: {sorted(PIN_FIELDS)}")
            if field in ("Requires-Dist", "Version") and PIN_DISTRIBUTIONS[name] is None:
                raise self.fail(f"{pin_entry}.field", f"{name} is not a distribution; no {field} names it")
            source = self.string(f"{pin_entry}.metadata", pin["metadata"], empty=False)
            try:
                req = Requirement(source)
                [spec] = req.specifier
                if spec.operator != "==" or req.extras or req.marker or req.url:
                    raise ValueError
            except Exception:  # packaging's InvalidRequirement, or not one exact version
                raise self.fail(f"{pin_entry}.metadata",
                                f"{source!r} must name one published distribution as <name>==<version>") from None
            pins[name] = value
            sources[name] = PinSource(req.name, spec.version, field)
        install_raw = self.keys(f"{entry}.install", data["install"], _INSTALL_KEYS | _INSTALL_OPTIONAL,
                                _INSTALL_KEYS)
        packages = self.strings(f"{entry}.install.packages", install_raw["packages"])
        if not packages:
            raise self.fail(f"{entry}.install.packages", "must name at least one package")
        for p in packages:
            try:
                Requirement(p)
            except Exception as exc:  # packaging's InvalidRequirement
                raise self.fail(f"{entry}.install.packages", f"{p!r} is not a requirement: {exc}") from None
        pre = install_raw["pre"]
        if not isinstance(pre, bool):
            raise self.fail(f"{entry}.install.pre", f"must be true or false, not {pre!r}")
        urls = (self.string(f"{entry}.install.index_url", install_raw["index_url"]),
                *self.strings(f"{entry}.install.extra_index_urls", install_raw["extra_index_urls"]))
        for url in filter(None, urls):
            if not url.startswith("https://"):
                raise self.fail(f"{entry}.install", f"index URL {url!r} is not https")
        windows = self.strings(f"{entry}.install.windows_index_urls",
                               install_raw.get("windows_index_urls", []))
        for url in windows:
            if not url.startswith("https://"):
                raise self.fail(f"{entry}.install.windows_index_urls", f"index URL {url!r} is not https")
        install = Install(urls[0], tuple(urls[1:]), pre, packages, windows)
        return Release(
            key=key, status=status, version=version,
            date=self.string(f"{entry}.date", data["date"]),
            platforms=self.platform_list(f"{entry}.platforms", data["platforms"]),
            evidence=self.string(f"{entry}.evidence", data["evidence"], empty=False),
            pins=pins, pin_sources=sources, install=install)

    def feature(self, index: int, raw: object, releases: tuple[Release, ...]) -> Feature:
        entry = f"features[{index}]"
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            entry += f" {raw['id']!r}"
        data = self.keys(entry, raw, _FEATURE_KEYS, _FEATURE_KEYS - {"platforms", "table_only", "kind"})
        fid = self.string(f"{entry}.id", data["id"], empty=False)
        if not _ID.match(fid):
            raise self.fail(entry, "an id is lower-case letters, digits, '.' and '-'")
        keys = [r.key for r in releases]
        since = self.string(f"{entry}.since", data["since"], empty=False)
        if since not in keys:
            raise self.fail(f"{entry}.since", f"unknown release {since!r}; known: {keys}")
        platforms: dict[str, tuple[str, ...]] = {}
        raw_platforms = data.get("platforms")
        if isinstance(raw_platforms, dict):
            for key, value in raw_platforms.items():
                if key not in keys:
                    raise self.fail(f"{entry}.platforms", f"unknown release {key!r}; known: {keys}")
                if keys.index(key) < keys.index(since):
                    raise self.fail(f"{entry}.platforms", f"release {key!r} is older than since={since!r}")
                platforms[key] = self.platform_list(f"{entry}.platforms.{key}", value)
        elif raw_platforms is not None:
            platforms[since] = self.platform_list(f"{entry}.platforms", raw_platforms)
        # a feature cannot work where its release does not
        for key in keys[keys.index(since):]:
            chosen = None
            for k in keys[: keys.index(key) + 1]:
                chosen = platforms.get(k, chosen)
            release = releases[keys.index(key)]
            extra = sorted(set(chosen or ()) - set(release.platforms))
            if extra:
                raise self.fail(f"{entry}.platforms",
                                f"{extra[0]!r} is not a platform of release {key!r} ({list(release.platforms)})")
        table_only = data.get("table_only", "")
        if "table_only" in data:
            table_only = self.string(f"{entry}.table_only", table_only, empty=False)
        kind = self.string(f"{entry}.kind", data.get("kind", "added"), empty=False)
        if kind not in KINDS:
            raise self.fail(f"{entry}.kind", f"unknown kind {kind!r}; known: {sorted(KINDS)}")
        if kind == "changed" and since == NIGHTLY:
            raise self.fail(f"{entry}.kind", "a changed behaviour names the release that changed it, not nightly")
        return Feature(
            id=fid,
            title=self.note(f"{entry}.title", data["title"]),
            since=since, kind=kind, platforms=platforms,
            note=self.note(f"{entry}.note", data["note"]),
            cells=self.cells(f"{entry}.cells", data["cells"], keys, since),
            table_only=table_only)

    def cells(self, entry: str, raw: object, keys: list[str], since: str) -> dict[str, Cell]:
        """One cell per release; a yes, no or broken cell names its source, and
        the cells agree with ``since`` (nothing before it, something from it on)."""
        if not isinstance(raw, dict):
            raise self.fail(entry, f"must be a table of release -> {{state, evidence}}, not {raw!r}")
        unknown = sorted(set(raw) - set(keys))
        if unknown:
            raise self.fail(entry, f"unknown release {unknown[0]!r}; known: {keys}")
        cells: dict[str, Cell] = {}
        for key in keys:
            cell_entry = f"{entry}.{key!r}" if "." in key else f"{entry}.{key}"
            if key not in raw:
                raise self.fail(entry, f"missing release {key!r}: every release gets a cell "
                                       f"({', '.join(sorted(STATES))})")
            data = self.keys(cell_entry, raw[key], _CELL_KEYS, frozenset({"state"}))
            state = self.string(f"{cell_entry}.state", data["state"], empty=False)
            if state not in STATES:
                raise self.fail(f"{cell_entry}.state", f"unknown state {state!r}; known: {sorted(STATES)}")
            evidence = self.string(f"{cell_entry}.evidence", data.get("evidence", "")).strip()
            if state in NEEDS_EVIDENCE and not evidence:
                raise self.fail(cell_entry, f"state {state!r} needs its evidence: the wheel path, PR or "
                                            "issue URL or PyPI metadata that shows it")
            if "\n" in evidence:
                raise self.fail(f"{cell_entry}.evidence", "must be one line")
            remark = self.string(f"{cell_entry}.remark", data.get("remark", "")).strip()
            before = keys.index(key) < keys.index(since)
            if before and state not in ("no", "unconfirmed"):
                raise self.fail(f"{cell_entry}.state", f"is {state!r} but since = {since!r} says "
                                                       f"release {key!r} lacks the feature")
            if not before and state == "no":
                raise self.fail(f"{cell_entry}.state", f"is 'no' but since = {since!r} says "
                                                       f"release {key!r} has the feature")
            cells[key] = Cell(state, evidence, remark)
        return cells


def line_of(path: Path, feature_id: str) -> int:
    """The line of ``id = "<feature_id>"`` in the file (1 if not found)."""
    pattern = re.compile(r'^\s*id\s*=\s*["\']' + re.escape(feature_id) + r'["\']')
    try:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.match(line):
                return number
    except OSError:
        pass
    return 1


# -- Sphinx: loading, notes, matrix, reference check ---------------------------


def table_of(env: BuildEnvironment) -> FeaturesTable:
    return env.trtdocs_features_table


def _load_for_build(app: Sphinx, config: Config) -> None:
    path = Path(app.confdir) / config.trtdocs_features_file
    try:
        app.trtdocs_features = load(path, config.trtdocs_documented_release or None)
    except FeaturesError as exc:
        raise ConfigError(str(exc)) from None


def _attach(app: Sphinx) -> None:
    env = app.env
    env.trtdocs_features_table = app.trtdocs_features
    if not hasattr(env, "trtdocs_feature_refs"):
        env.trtdocs_feature_refs = {}


def resolver(app: Sphinx):
    """The feature resolver for :mod:`.gating` (``feature:<id>`` -> Requirement)."""
    return app.trtdocs_features.requirement


def _matrix_ref(env: BuildEnvironment, feature: Feature, text: str) -> addnodes.pending_xref:
    ref = addnodes.pending_xref("", refdomain="std", reftype="ref", reftarget=f"feature-{feature.id}",
                                refexplicit=True, refwarn=True, refdoc=env.docname)
    ref += nodes.inline("", "", *inline(text))
    return ref


def _use(env: BuildEnvironment, feature_id: str, location: Any) -> Feature | None:
    table = table_of(env)
    env.note_dependency(str(table.path))
    try:
        feature = table.feature(feature_id)
    except KeyError:
        logger.error("unknown feature %r: %s has no such id", feature_id, table.path,
                     location=location, type="trtdocs", subtype="features")
        return None
    env.trtdocs_feature_refs.setdefault(env.docname, set()).add(feature.id)
    return feature


class FeatureNote(SphinxDirective):
    """``{feature-note} <id>``: the generated note of one feature."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        feature = _use(self.env, self.arguments[0].strip(), self.get_location())
        if feature is None:
            return []
        table = table_of(self.env)
        if feature.kind == "changed":
            return [self._changed(table, feature)]
        available = table.has(feature, table.documented)
        box = nodes.admonition(classes=["trtdocs-feature-note", "note" if available else "important"])
        box += nodes.title(text=table.availability(feature))
        para = nodes.paragraph()
        limit = table.platform_limit(feature)
        para += inline(feature.title)
        para += nodes.Text(". " + (f"{limit[0].upper()}{limit[1:]}. " if limit else ""))
        para += inline(feature.note)
        para += nodes.Text(" See ")
        para += _matrix_ref(self.env, feature, "the support matrix")
        para += nodes.Text(".")
        box += para
        return [box]

    def _changed(self, table: FeaturesTable, feature: Feature) -> addnodes.versionmodified:
        """A changed behaviour, as Sphinx's ``versionchanged`` renders it
        (same node and classes, so the theme styles it), without entering the
        change log of the changes builder."""
        node = addnodes.versionmodified(type="versionchanged", version=feature.since,
                                        classes=["trtdocs-feature-note"])
        self.set_source_info(node)
        para = nodes.paragraph(translatable=False)
        para += nodes.inline("", f"{table.availability(feature)}: ", classes=["versionmodified", "changed"])
        para += inline(feature.title)
        para += nodes.Text(". ")
        para += inline(feature.note)
        para += nodes.Text(" See ")
        para += _matrix_ref(self.env, feature, "the support matrix")
        para += nodes.Text(".")
        node += para
        return node


class FeatureRole(SphinxRole):
    """``{feature}`<id>```: the short note, as a link to the matrix row."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        feature = _use(self.env, self.text.strip(), self.get_location())
        if feature is None:
            return [], []
        text = table_of(self.env).note_text(feature)
        wrapper = nodes.inline(classes=["trtdocs-feature"], trtdocs_note=text)
        wrapper += nodes.Text("(")
        wrapper += _matrix_ref(self.env, feature, text)
        wrapper += nodes.Text(")")
        return [wrapper], []


# Text that may separate two inline notes of one run ("a, b", "a and b").
_NOTE_SEPARATORS = frozenset({",", ";", "and", "or", ", and", ", or"})


class FeatureNoteParentheses(SphinxTransform):
    """Inline notes fit the sentence they sit in.

    A ``{feature}`` role brings its own parentheses. Inside parentheses the
    prose already opened, it drops them (no "((New in 2.14))"); and a run of
    notes with the same text ("a, b", "a and b") keeps the first one only, so
    a sentence does not say "New in 2.14" twice.
    """

    default_priority = 700  # after the roles have run; before references resolve

    def apply(self, **kwargs: Any) -> None:
        parents = {id(n.parent): n.parent for n in self.document.findall(_is_feature_note)}
        for parent in parents.values():
            self._fit(parent)

    @staticmethod
    def _fit(parent: nodes.Element) -> None:
        # Text nodes are strings and compare equal by value, so this works on
        # positions, never on parent.index() or parent.remove().
        kept: list[nodes.Node] = []
        depth = 0
        previous: int | None = None  # index in `kept` of the last note, while only separators follow it
        for child in parent.children:
            if _is_feature_note(child):
                if previous is not None and kept[previous]["trtdocs_note"] == child["trtdocs_note"]:
                    del kept[previous + 1:]  # the separator, then this note, go
                    continue
                if depth > 0:
                    child.children = [c for c in child.children if not isinstance(c, nodes.Text)]
                previous = len(kept)
            elif isinstance(child, nodes.Text):
                words = child.astext()
                depth = max(0, depth + words.count("(") - words.count(")"))
                if words.strip() not in _NOTE_SEPARATORS:
                    previous = None
            else:
                previous = None
            kept.append(child)
        if len(kept) != len(parent.children):
            parent.children = []
            parent.extend(kept)


def _is_feature_note(node: nodes.Node) -> bool:
    return isinstance(node, nodes.inline) and "trtdocs_note" in node.attributes


class InstallCommand(SphinxDirective):
    """``{install-command} <release>``: that release's install command, generated
    from the table (and checked by trtdocs.drift like any printed command).
    ``:tool: uv`` writes it for ``uv pip``; ``:platform: windows`` for Windows."""

    required_arguments = 1
    has_content = False
    option_spec = {
        "tool": lambda arg: directives.choice(arg, INSTALL_TOOLS),
        "platform": lambda arg: directives.choice(arg, INSTALL_PLATFORMS),
    }

    def run(self) -> list[nodes.Node]:
        table = table_of(self.env)
        key = self.arguments[0].strip()
        tool = self.options.get("tool", "pip")
        platform = self.options.get("platform", "linux")
        self.env.note_dependency(str(table.path))
        try:
            release = table.release(key)
        except KeyError:
            logger.error("unknown release %r: %s has no such release", key, table.path,
                         location=self.get_location(), type="trtdocs", subtype="features")
            return []
        if platform not in release.install_platforms:
            logger.error("release %r of %s does not install on %s (its platforms: %s)", key, table.path,
                         platform, ", ".join(release.platforms),
                         location=self.get_location(), type="trtdocs", subtype="features")
            return []
        text = table.install_command(key, tool, platform)
        block = nodes.literal_block(text, text, language="bash", classes=["trtdocs-install"])
        return [block]


class SupportMatrix(SphinxDirective):
    """``{support-matrix}``: features x releases x platforms, then the releases."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        env = self.env
        table = table_of(env)
        env.note_dependency(str(table.path))
        std = env.domains.standard_domain
        out: list[nodes.Node] = [self._features_table(table), self._releases_table(table)]
        items = nodes.definition_list(classes=["trtdocs-feature-list"])
        for f in table.features:
            label = f"feature-{f.id}"
            item = nodes.definition_list_item()
            term = nodes.term(ids=[label])
            term += nodes.strong("", "", *inline(f.title))
            term += nodes.Text(" ")
            term += nodes.literal(text=f.id)
            item += term
            body = nodes.definition()
            body += nodes.paragraph("", "", nodes.Text(f"{table.note_text(f)}. "), *inline(f.note))
            known = nodes.bullet_list(classes=["trtdocs-feature-evidence"])
            for r in table.releases:
                cell = f.cells[r.key]
                words = f"{self._column(table, r)}: {cell_words(table, f, r)}"
                known += nodes.list_item("", nodes.paragraph(
                    "", "", nodes.strong(text=words), nodes.Text(f". {cell_source(cell)}.")))
            body += known
            if f.table_only:
                body += nodes.paragraph(text=f"Listed here only: {f.table_only}.")
            item += body
            items += item
            std.note_hyperlink_target(label, env.docname, label, plain(f.title))
        out.append(items)
        return out

    def _features_table(self, table: FeaturesTable) -> nodes.table:
        releases = table.releases
        head = ["Feature"] + [self._column(table, r) for r in releases]
        rows = []
        for f in table.features:
            cells: list[nodes.Node | str] = [_matrix_ref(self.env, f, f.title)]
            for r in releases:
                cell = f.cells[r.key]
                # the state as a tooltip-carrying abbreviation; the list below
                # the matrix spells out every source
                cells.append(nodes.abbreviation(
                    "", cell_words(table, f, r), explanation=cell_source(cell),
                    classes=["trtdocs-cell", f"trtdocs-cell-{cell.state}"]))
            rows.append(cells)
        return _table(head, rows, "trtdocs-support-matrix")

    @staticmethod
    def _column(table: FeaturesTable, r: Release) -> str:
        name = "Nightly" if r.key == NIGHTLY else r.key
        suffix = " (documented)" if r.key == table.documented else ""
        return f"{name}{suffix}"

    def _releases_table(self, table: FeaturesTable) -> nodes.table:
        head = ["Release", "Status", "Platforms", "Pins", "Install"]
        rows = []
        for r in table.releases:
            status = STATUSES[r.status] + (f" ({r.date})" if r.date else "")
            rows.append([r.version or "Nightly", status,
                         ", ".join(PLATFORMS[p] for p in r.platforms), _pins_cell(r),
                         nodes.literal(text=table.install_command(r.key))])
        out = _table(head, rows, "trtdocs-release-table")
        # each release's row is the release switcher's target (trtdocs.releases)
        for row, r in zip(next(out.findall(nodes.tbody)).children, table.releases):
            row["ids"].append(ROW_ID.format(key=r.key))
        return out


def cell_words(table: FeaturesTable, feature: Feature, release: Release) -> str:
    """What a matrix cell says: the state, with the platforms where a working
    feature covers fewer than the release, and the cell's remark."""
    cell = feature.cells[release.key]
    words = cell.state
    if cell.state in ("yes", "broken"):
        here = table.platforms(feature, release.key)
        if here and set(here) != set(release.platforms):
            words = f"{cell.state}, {_platform_words(here)} only"
    return f"{words}, {cell.remark}" if cell.remark else words


def cell_source(cell: Cell) -> str:
    """The tooltip and list text of a cell's evidence."""
    if cell.state == "unconfirmed":
        return f"Known: {cell.evidence}" if cell.evidence else "No source shows it"
    return f"Source: {cell.evidence}"


def _pins_cell(release: Release) -> nodes.inline:
    """Each pin with its metadata source as a tooltip; a release with no
    published metadata says why it shows none."""
    cell = nodes.inline(classes=["trtdocs-pins"])
    if not release.pins:
        cell += nodes.Text(UNPINNED[release.status])
        return cell
    for i, (name, spec) in enumerate(release.pins.items()):
        if i:
            cell += nodes.Text("; ")
        cell += nodes.abbreviation("", f"{PINS[name]} {spec}", explanation=f"From {release.pin_sources[name]}")
    return cell


def _table(head: list[str], rows: list[list[nodes.Node | str]], cls: str) -> nodes.table:
    table = nodes.table(classes=[cls])
    group = nodes.tgroup(cols=len(head))
    table += group
    for _ in head:
        group += nodes.colspec(colwidth=1)
    thead = nodes.thead()
    group += thead
    thead += _row(head)
    body = nodes.tbody()
    group += body
    for r in rows:
        body += _row(r)
    return table


def _row(cells: list[nodes.Node | str]) -> nodes.row:
    row = nodes.row()
    for c in cells:
        entry = nodes.entry()
        para = nodes.paragraph()
        para += nodes.Text(c) if isinstance(c, str) else c
        entry += para
        row += entry
    return row


def _clear_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    env.trtdocs_feature_refs.pop(docname, None)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    for doc in docnames:
        if doc in other.trtdocs_feature_refs:
            env.trtdocs_feature_refs[doc] = other.trtdocs_feature_refs[doc]


def references(env: BuildEnvironment) -> dict[str, set[str]]:
    """Feature id -> the documents that reference it (notes, roles, gating)."""
    refs: dict[str, set[str]] = {}
    for doc, ids in env.trtdocs_feature_refs.items():
        for fid in ids:
            refs.setdefault(fid, set()).add(doc)
    for doc, plan in getattr(env, "trtdocs_pages", {}).items():
        for req in (*plan.requires, *plan.cell_requires):
            if req.startswith(FEATURE_PREFIX):
                refs.setdefault(req[len(FEATURE_PREFIX):], set()).add(doc)
    return refs


def check_references(app: Sphinx, env: BuildEnvironment) -> None:
    """Every feature is referenced by a page, or says why not (table_only)."""
    table = table_of(env)
    refs = references(env)
    for f in table.features:
        where = f"{table.path}:{line_of(table.path, f.id)}"
        docs = sorted(refs.get(f.id, ()))
        if f.table_only and docs:
            logger.error("feature %r is marked table_only but %s reference it; remove table_only",
                         f.id, ", ".join(docs), location=where, type="trtdocs", subtype="features")
        elif not f.table_only and not docs:
            logger.warning("feature %r is referenced by no page: add a {feature-note} or {feature} "
                           "to the page that describes it, or give it table_only = \"<reason>\"",
                           f.id, location=where, type="trtdocs", subtype="features-unreferenced")


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_config_value("trtdocs_features_file", DEFAULT_FILE, "env", types=(str,))
    # "" = the file's `documented`; `-D trtdocs_documented_release=2.15` rewords every note
    app.add_config_value("trtdocs_documented_release", "", "env", types=(str,))
    app.connect("config-inited", _load_for_build, priority=300)
    app.connect("builder-inited", _attach, priority=300)
    app.connect("env-purge-doc", _clear_doc)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", check_references)
    app.add_directive("feature-note", FeatureNote)
    app.add_role("feature", FeatureRole())
    app.add_transform(FeatureNoteParentheses)
    app.add_directive("support-matrix", SupportMatrix)
    app.add_directive("install-command", InstallCommand)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
