"""``docs/features.toml`` read and checked: :func:`load` gives a
:class:`~.model.FeaturesTable` or raises :class:`FeaturesError` naming the file
and the entry. Pure: no Sphinx.

Vocabularies are frozen (:mod:`trtdocs.vocab`, :mod:`.model`): an unknown key,
status, state, field or platform is an error, not a silent default. Every
feature has one cell per release, and each state names the sources it needs
(vocab.STATES, the evidence standard): a yes cell a run (:data:`.sources.RUNS`),
an in-code cell code, a described, broken or no cell any source; an in-code
cell's remark says which run is missing. A release's pins name the published
metadata they are read from, and only a released release has pins.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from .. import tomlfile
from ..vocab import (
    EXTRA_BRINGS_DELEGATE,
    NIGHTLY,
    PIN_FIELDS,
    PINS,
    STATES,
    STATES_BEFORE_SINCE,
    STATUSES,
)
from .fields import FeaturesError, Fields
from .model import KINDS, Cell, Feature, FeaturesTable
from .releases import Install, PinSource, Release

DEFAULT_FILE = "docs/features.toml"
_TOP_KEYS = frozenset({"documented", "releases", "features"})
_RELEASE_KEYS = frozenset({"status", "version", "date", "platforms", "sources", "pins", "install"})
_INSTALL_KEYS = frozenset({"index_url", "extra_index_urls", "pre", "packages"})
# Optional: the indexes a Windows install uses instead (first = --index-url).
_INSTALL_OPTIONAL = frozenset({"windows_index_urls"})
_FEATURE_KEYS = frozenset(
    {"id", "title", "since", "kind", "platforms", "note", "cells", "table_only"}
)
_CELL_KEYS = frozenset({"state", "sources", "remark"})
_PIN_KEYS = frozenset({"spec", "metadata", "field"})
_ID = re.compile(r"[a-z0-9][a-z0-9.-]*\Z")


def load(path: str | Path, documented: str | None = None) -> FeaturesTable:
    """Read and validate ``path``; ``documented`` overrides the file's value.

    Raises :class:`FeaturesError` naming the file and the entry."""
    path = Path(path)
    data = tomlfile.read(path, FeaturesError)
    return _Validator(path).table(data, documented)


class _Validator(Fields):
    """The table's entries, each read with :class:`~.fields.Fields`' checks."""

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
        # the releases whose [executorch] extra brings the delegate, from that feature's `since`
        brings = next((f for f in features if f.id == EXTRA_BRINGS_DELEGATE), None)
        releases = tuple(
            dataclasses.replace(r, extra_brings_delegate=True)
            if brings is not None and keys.index(r.key) >= keys.index(brings.since)
            else r
            for r in releases
        )
        return FeaturesTable(self.path, documented, {r.key: r for r in releases}, tuple(features))

    def releases(self, data: object) -> tuple[Release, ...]:
        if not isinstance(data, dict) or not data:
            raise self.fail("releases", "must be a non-empty table of releases")
        releases = [self.release(key, raw) for key, raw in data.items()]
        numbered = [
            r
            for _, r in sorted(
                ((r.number, r) for r in releases if r.number is not None), key=lambda p: p[0]
            )
        ]
        nightly = [r for r in releases if r.key == NIGHTLY]
        return (*numbered, *nightly)

    def release(self, key: str, raw: object) -> Release:
        entry = f"releases.{key!r}" if "." in key else f"releases.{key}"
        data = self.keys(entry, raw, _RELEASE_KEYS, _RELEASE_KEYS)
        status = self.string(f"{entry}.status", data["status"])
        if status not in STATUSES:
            raise self.fail(
                f"{entry}.status", f"unknown status {status!r}; known: {sorted(STATUSES)}"
            )
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
            raise self.fail(
                f"{entry}.pins",
                f"a {status} release has no published metadata to take a pin "
                "from; leave its pins empty",
            )
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
                    raise self.fail(
                        f"{pin_entry}.spec", f"{value!r} is neither a version nor a specifier"
                    ) from None
            field = self.string(f"{pin_entry}.field", pin["field"], empty=False)
            if field not in PIN_FIELDS:
                raise self.fail(
                    f"{pin_entry}.field", f"unknown field {field!r}; known: {sorted(PIN_FIELDS)}"
                )
            if field in ("Requires-Dist", "Version") and PINS[name].distribution is None:
                raise self.fail(
                    f"{pin_entry}.field", f"{name} is not a distribution; no {field} names it"
                )
            source = self.string(f"{pin_entry}.metadata", pin["metadata"], empty=False)
            try:
                req = Requirement(source)
                [spec] = req.specifier
                if spec.operator != "==" or req.extras or req.marker or req.url:
                    raise ValueError
            except ValueError:  # packaging's InvalidRequirement, or not one exact version
                raise self.fail(
                    f"{pin_entry}.metadata",
                    f"{source!r} must name one published distribution as <name>==<version>",
                ) from None
            pins[PINS[name].name(name)] = value
            sources[PINS[name].name(name)] = PinSource(req.name, spec.version, field)
        install_raw = self.keys(
            f"{entry}.install", data["install"], _INSTALL_KEYS | _INSTALL_OPTIONAL, _INSTALL_KEYS
        )
        packages = self.strings(f"{entry}.install.packages", install_raw["packages"])
        if not packages:
            raise self.fail(f"{entry}.install.packages", "must name at least one package")
        for p in packages:
            try:
                Requirement(p)
            except InvalidRequirement as exc:
                raise self.fail(
                    f"{entry}.install.packages", f"{p!r} is not a requirement: {exc}"
                ) from None
        pre = install_raw["pre"]
        if not isinstance(pre, bool):
            raise self.fail(f"{entry}.install.pre", f"must be true or false, not {pre!r}")
        urls = (
            self.string(f"{entry}.install.index_url", install_raw["index_url"]),
            *self.strings(f"{entry}.install.extra_index_urls", install_raw["extra_index_urls"]),
        )
        for url in filter(None, urls):
            if not url.startswith("https://"):
                raise self.fail(f"{entry}.install", f"index URL {url!r} is not https")
        windows = self.strings(
            f"{entry}.install.windows_index_urls", install_raw.get("windows_index_urls", [])
        )
        for url in windows:
            if not url.startswith("https://"):
                raise self.fail(
                    f"{entry}.install.windows_index_urls", f"index URL {url!r} is not https"
                )
        install = Install(urls[0], tuple(urls[1:]), pre, packages, windows)
        return Release(
            key=key,
            status=status,
            version=version,
            date=self.string(f"{entry}.date", data["date"]),
            platforms=self.platform_list(f"{entry}.platforms", data["platforms"]),
            sources=self.nonempty_sources(f"{entry}.sources", data["sources"]),
            pins=pins,
            pin_sources=sources,
            install=install,
        )

    def feature(self, index: int, raw: object, releases: tuple[Release, ...]) -> Feature:
        entry = f"features[{index}]"
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            entry += f" {raw['id']!r}"
        data = self.keys(
            entry, raw, _FEATURE_KEYS, _FEATURE_KEYS - {"platforms", "table_only", "kind"}
        )
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
                    raise self.fail(
                        f"{entry}.platforms", f"release {key!r} is older than since={since!r}"
                    )
                platforms[key] = self.platform_list(f"{entry}.platforms.{key}", value)
        elif raw_platforms is not None:
            platforms[since] = self.platform_list(f"{entry}.platforms", raw_platforms)
        # a feature cannot work where its release does not
        for key in keys[keys.index(since) :]:
            chosen = None
            for k in keys[: keys.index(key) + 1]:
                chosen = platforms.get(k, chosen)
            release = releases[keys.index(key)]
            extra = sorted(set(chosen or ()) - set(release.platforms))
            if extra:
                raise self.fail(
                    f"{entry}.platforms",
                    f"{extra[0]!r} is not a platform of release {key!r} "
                    f"({list(release.platforms)})",
                )
        table_only = data.get("table_only", "")
        if "table_only" in data:
            table_only = self.string(f"{entry}.table_only", table_only, empty=False)
        kind = self.string(f"{entry}.kind", data.get("kind", "added"), empty=False)
        if kind not in KINDS:
            raise self.fail(f"{entry}.kind", f"unknown kind {kind!r}; known: {sorted(KINDS)}")
        if kind == "changed" and since == NIGHTLY:
            raise self.fail(
                f"{entry}.kind",
                "a changed behaviour names the release that changed it, not nightly",
            )
        return Feature(
            id=fid,
            title=self.note(f"{entry}.title", data["title"]),
            since=since,
            kind=kind,
            platforms=platforms,
            note=self.note(f"{entry}.note", data["note"]),
            cells=self.cells(f"{entry}.cells", data["cells"], keys, since),
            table_only=table_only,
        )

    def cells(self, entry: str, raw: object, keys: list[str], since: str) -> dict[str, Cell]:
        """One cell per release; a yes, no or broken cell names its source, and
        the cells agree with ``since`` (nothing before it, something from it on)."""
        if not isinstance(raw, dict):
            raise self.fail(entry, f"must be a table of release -> {{state, sources}}, not {raw!r}")
        unknown = sorted(set(raw) - set(keys))
        if unknown:
            raise self.fail(entry, f"unknown release {unknown[0]!r}; known: {keys}")
        cells: dict[str, Cell] = {}
        for key in keys:
            cell_entry = f"{entry}.{key!r}" if "." in key else f"{entry}.{key}"
            if key not in raw:
                raise self.fail(
                    entry,
                    f"missing release {key!r}: every release gets a cell "
                    f"({', '.join(sorted(STATES))})",
                )
            data = self.keys(cell_entry, raw[key], _CELL_KEYS, frozenset({"state"}))
            state = self.string(f"{cell_entry}.state", data["state"], empty=False)
            if state not in STATES:
                raise self.fail(
                    f"{cell_entry}.state", f"unknown state {state!r}; known: {sorted(STATES)}"
                )
            sources = self.sources(f"{cell_entry}.sources", data.get("sources", []))
            self.evidence(cell_entry, state, sources)
            remark = self.string(f"{cell_entry}.remark", data.get("remark", "")).strip()
            if state == "in-code" and remark and not remark.startswith(IN_CODE_REMARK):
                # the matrix prints the remark in place of "no run shown" (model.cell_words)
                raise self.fail(
                    f"{cell_entry}.remark",
                    f"an in-code remark names the run that is missing, "
                    f"such as 'no run with engines shown'; {remark!r} "
                    f"does not start with {IN_CODE_REMARK!r}",
                )
            before = keys.index(key) < keys.index(since)
            if before and state not in STATES_BEFORE_SINCE:
                raise self.fail(
                    f"{cell_entry}.state",
                    f"is {state!r} but since = {since!r} says release {key!r} lacks the feature",
                )
            if not before and state == "no":
                raise self.fail(
                    f"{cell_entry}.state",
                    f"is 'no' but since = {since!r} says release {key!r} has the feature",
                )
            cells[key] = Cell(state, sources, remark)
        return cells


# How an in-code cell's remark begins: it names the run that is missing (model.cell_words).
IN_CODE_REMARK = "no "


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
