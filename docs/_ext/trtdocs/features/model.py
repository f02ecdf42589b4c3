"""The features table as data, and the questions everyone asks it.

Pure: no Sphinx, no docutils. :mod:`.validate` builds a :class:`FeaturesTable`
from ``docs/features.toml``; the notes, the matrix, the gating, the install
commands and the drift guards all ask this one object.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

from ..vocab import (
    FEATURE_PACKAGE,
    INSTALL_PLATFORMS,
    INSTALL_TOOLS,
    NIGHTLY,
    PLATFORMS,
    STATES,
    RequirementError,
)
from .releases import Release, normalize_url
from .sources import Source
from .words import needs_words, state_words

# Feature kind -> how its notes head it: a new feature, or a behaviour that changed
# (rendered like Sphinx's versionchanged).
KINDS: Mapping[str, str] = {
    "added": "a feature the release adds",
    "changed": "a behaviour the release changes",
}


@dataclasses.dataclass(frozen=True, slots=True)
class Cell:
    """What is known about one feature in one release (``cells.<release>``)."""

    state: str  # one of vocab.STATES
    sources: tuple[
        Source, ...
    ]  # what shows it (a test, a wheel's file, a PR, a commit); () only if unknown
    remark: str  # a few words shown beside the state ("deprecated"); "" = none

    @property
    def evidence(self) -> str:
        """The sources in plain words, one after the other ("" when there are none)."""
        return "; ".join(s.text for s in self.sources)


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


class FeatureRequirement(Requirement):
    """A packaging Requirement that also says, in words, which feature needs it
    (``needs`` is what a not-executed mark shows)."""

    def __init__(self, spec: str, needs: str) -> None:
        super().__init__(spec)
        self.needs = needs


@dataclasses.dataclass(frozen=True, slots=True)
class FeaturesTable:
    """The validated table."""

    path: Path  # the file it was read from
    documented: str  # release key the pages describe
    releases: Mapping[str, Release]  # by key, oldest first, nightly last
    features: tuple[Feature, ...]

    # -- look-ups
    def release(self, key: str) -> Release:
        return self.releases[key]

    def feature(self, feature_id: str) -> Feature:
        for f in self.features:
            if f.id == feature_id:
                return f
        raise KeyError(feature_id)

    @property
    def documented_release(self) -> Release:
        return self.release(self.documented)

    def by_version(self, version: str) -> Release | None:
        """The release whose torch-tensorrt version is ``version``."""
        for r in self.releases.values():
            if r.version and Version(r.version) == Version(version):
                return r
        return None

    @property
    def nightly_index_urls(self) -> frozenset[str]:
        """The index of each nightly channel (its --index-url)."""
        return frozenset(r.index_urls[0] for r in self.releases.values() if r.is_nightly)

    @property
    def known_index_urls(self) -> frozenset[str]:
        """Every index a release's command names, in :func:`normalize_url` form."""
        return frozenset(
            normalize_url(u)
            for r in self.releases.values()
            for u in (*r.index_urls, *r.windows_index_urls)
        )

    def _index(self, key: str) -> int:
        return list(self.releases).index(key)

    def has(self, feature: Feature, key: str) -> bool:
        """Whether release ``key`` has ``feature``."""
        return self._index(key) >= self._index(feature.since)

    def platforms(self, feature: Feature, key: str) -> tuple[str, ...]:
        """Platforms ``feature`` works on in release ``key``; () if absent."""
        if not self.has(feature, key):
            return ()
        chosen: tuple[str, ...] | None = None
        for r in list(self.releases)[: self._index(key) + 1]:
            chosen = feature.platforms.get(r, chosen)
        return self.release(key).platforms if chosen is None else chosen

    # -- version gating
    @property
    def newest(self) -> Release:
        """The newest numbered release (described or released)."""
        numbered = [(n, r) for r in self.releases.values() if (n := r.number) is not None]
        return max(numbered, key=lambda pair: pair[0])[1]

    def requirement(self, feature_id: str) -> Requirement:
        """The torch_tensorrt requirement ``feature:<id>`` stands for, with what
        it needs in a reader's words (no feature id: marks and banners show it).

        A release feature needs ``torch_tensorrt>=<since>``: a cell gated on it
        runs wherever the installed release may have the code, and the GPU
        build's run is what the support matrix cites. A nightly-only feature
        needs a version past the newest numbered release, which no release
        satisfies and a later nightly (a ``.dev`` build) does.
        """
        try:
            feature = self.feature(feature_id)
        except KeyError:
            raise RequirementError(
                f"unknown feature {feature_id!r}: {self.path} has no such id"
            ) from None
        package = FEATURE_PACKAGE
        since = self.release(feature.since)
        needs = needs_words(since.key, since.status)
        if feature.since != NIGHTLY:
            return FeatureRequirement(f"{package}>={feature.since}", needs)
        newest = self.newest.number
        assert newest is not None
        return FeatureRequirement(f"{package}>={newest.major}.{newest.minor + 1}.0.dev0", needs)

    # -- notes
    def release_of(self, feature: Feature) -> Release:
        """The release a reader of this guide gets ``feature`` in: the documented
        one when it has it, else the one that brings it (``since``)."""
        return (
            self.documented_release
            if self.has(feature, self.documented)
            else self.release(feature.since)
        )

    def state(self, feature: Feature) -> str:
        """Which of the three states ``feature`` is in, in a reader's words: "In
        2.14", "In 2.15, not released", "Nightly builds only" (vocab.Status.state).
        A changed behaviour reads the same: the note's text says what changed."""
        release = self.release_of(feature)
        return state_words(release.key, release.status)

    def availability(self, feature: Feature) -> str:
        """The headline of a note, relative to the documented release: its
        :meth:`state`; "" when the documented release has the feature (the whole
        guide is about that release). The evidence behind a state (a run, code,
        a description) is the support matrix's, never a note's."""
        return "" if self.has(feature, self.documented) else self.state(feature)

    def platform_limit(self, feature: Feature) -> str:
        """Where the feature works, when that is narrower than the release a
        reader gets it in (:meth:`release_of`): "Linux x86-64 only"; "" otherwise."""
        release = self.release_of(feature)
        here = self.platforms(feature, release.key)
        if set(here) >= set(release.platforms):
            return ""
        return f"{platform_words(here)} only"

    def note_text(self, feature: Feature) -> str:
        """The one-line note: headline and platform limit; "" when there is
        nothing a reader of the documented release needs (no note is printed)."""
        parts = [p for p in (self.availability(feature), self.platform_limit(feature)) if p]
        return "; ".join(parts)

    def table_note(self, feature: Feature) -> str:
        """A table cell's note: the state, the documented release's included ("In
        2.14"), where other rows of its column say another release; and the
        platform limit."""
        return "; ".join(p for p in (self.state(feature), self.platform_limit(feature)) if p)

    def column_notes(self, ids: Sequence[str]) -> tuple[list[str], str]:
        """What a table column of feature ids (one per row, "" for none) says: the
        note of each row, or, when every row says the same, no row and that one
        feature's id, for the table to say once (its caption). A column where no
        row needs a note (the documented release everywhere) says nothing."""
        features = [self.feature(i) if i else None for i in ids]
        if all(f is None or not self.note_text(f) for f in features):
            return ["" for _ in ids], ""
        notes = [self.table_note(f) if f else "" for f in features]
        if all(ids) and len(set(notes)) == 1:
            return ["" for _ in ids], ids[0]
        return notes, ""

    def cell_words(self, feature: Feature, release: Release) -> str:
        """What a matrix cell says: the state, with the platforms where a working
        feature covers fewer than the release, and the cell's remark."""
        cell = feature.cells[release.key]
        words = STATES[cell.state].word
        if cell.state in ("yes", "in-code", "broken"):
            here = self.platforms(feature, release.key)
            if here and set(here) != set(release.platforms):
                words = f"{words}, {platform_words(here)} only"
        return f"{words}, {cell.remark}" if cell.remark else words

    # -- install commands
    def install_command(self, key: str, tool: str = "pip", platform: str = "linux") -> str:
        """The install command of release ``key`` for ``tool`` (pip or uv) on
        ``platform`` (linux or windows); package arguments in double quotes."""
        release = self.release(key)
        if platform in INSTALL_PLATFORMS and platform not in release.install_platforms:
            raise ValueError(
                f"no install command for release {key!r} on {platform!r}: "
                f"its platforms are {list(release.platforms)}"
            )
        install = release.install
        prefix = "pip install " if tool == "pip" else "uv pip install "
        return prefix + " ".join(
            f'"{a}"' if a in install.packages else shlex.quote(a)
            for a in install.args(tool, platform)
        )

    def install_commands(self, key: str) -> dict[str, str]:
        """Every generated command of release ``key``, by "tool platform" label."""
        return {
            f"{tool} {platform}": self.install_command(key, tool, platform)
            for tool in INSTALL_TOOLS
            for platform in INSTALL_PLATFORMS
            if platform in self.release(key).install_platforms
        }


def cell_source(cell: Cell) -> str:
    """The tooltip and list text of a cell's evidence."""
    if not cell.sources:
        return "No source shows it"
    return f"{'Known' if cell.state == 'unknown' else 'Source'}: {cell.evidence}"


def platform_words(platforms: tuple[str, ...]) -> str:
    """'Linux', 'Windows', or the platforms' labels."""
    if platforms and all(p.startswith("linux-") for p in platforms) and len(platforms) > 1:
        return "Linux"
    if platforms and all(p.startswith("windows-") for p in platforms) and len(platforms) > 1:
        return "Windows"
    return ", ".join(PLATFORMS[p] for p in platforms)
