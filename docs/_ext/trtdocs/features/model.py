"""The features table as data, and the questions everyone asks it.

Pure: no Sphinx, no docutils. :mod:`.validate` builds a :class:`FeaturesTable`
from ``docs/features.toml``; the notes, the matrix, the gating, the install
commands and the drift guards all ask this one object.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
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
from .words import needs_words, release_words, sentence, state_words

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

        A release feature needs ``torch_tensorrt>=<since>``. A nightly-only
        feature needs a version past the newest numbered release, which no
        release satisfies and a later nightly (a ``.dev`` build) does; its words
        say what the newest release's cell says ("not known for 2.15"), not that
        the release lacks it.
        """
        try:
            feature = self.feature(feature_id)
        except KeyError:
            raise RequirementError(
                f"unknown feature {feature_id!r}: {self.path} has no such id"
            ) from None
        package = FEATURE_PACKAGE
        if feature.since != NIGHTLY:
            # a cell gated on it runs wherever the installed release may have the code: the
            # GPU build's run is what turns "in code" or "described" into "yes"
            needs = f"Torch-TensorRT {feature.since} or newer"
            since = feature.cells[feature.since]
            if since.state in ("described", "unknown"):  # the words follow the cells
                needs += f" ({self._state(feature, feature.since)})"
            return FeatureRequirement(f"{package}>={feature.since}", needs)
        newest = self.newest.number
        assert newest is not None
        spec = f"{package}>={newest.major}.{newest.minor + 1}.0.dev0"
        return FeatureRequirement(
            spec, f"a Torch-TensorRT nightly build ({self._state(feature, self.newest.key)})"
        )

    # -- notes
    def first(self, feature: Feature, states: frozenset[str] | set[str]) -> str | None:
        """The first release from ``since`` on whose cell is in ``states``; None if none is."""
        return next(
            (
                k
                for k in list(self.releases)[self._index(feature.since) :]
                if feature.cells[k].state in states
            ),
            None,
        )

    def shown_in(self, feature: Feature) -> str | None:
        """The first release from ``since`` on whose cell shows a run (yes)."""
        return self.first(feature, {"yes"})

    def _state(self, feature: Feature, key: str, remark: bool = False) -> str:
        """What cell ``key`` of ``feature`` says, in a reader's words ("in code in 2.14, no run
        shown"), with its remark when ``remark``."""
        cell = feature.cells[key]
        return state_words(cell.state, key, self.release(key).status, cell.remark if remark else "")

    def availability(self, feature: Feature) -> str:
        """The headline of a note, relative to the documented release: what a
        reader of this guide needs to know, in the words of the cells. "" when
        a run shows the documented release has the feature (the whole guide is
        about that release)."""
        documented = self.documented
        if self.has(feature, documented):
            yes = feature.cells[documented].state == "yes"
            return "" if yes else sentence(self._state(feature, documented, remark=True))
        since, changed = feature.since, feature.kind == "changed"
        if since == NIGHTLY:  # the newest release's cell is no or unknown: say which
            return f"{needs_words(NIGHTLY)}; {self._state(feature, self.newest.key)}"
        state = feature.cells[since].state
        if state not in ("described", "unknown"):  # the release that brings it has it
            head = f"Changed in {since}" if changed else needs_words(since)
            return head if state == "yes" else f"{head}; {self._state(feature, since)}"
        said = self._state(feature, since)
        shown = self.shown_in(feature)
        if shown is not None:
            head = f"Changed in {release_words(shown)}" if changed else needs_words(shown)
            return f"{head}; {said}"
        coded = self.first(feature, {"in-code", "broken"})
        if coded is not None:
            return f"{sentence(self._state(feature, coded))}; {said}"
        if changed and state == "described":
            return "Described as changed" + said.removeprefix("described")
        return sentence(said)

    def platform_limit(self, feature: Feature) -> str:
        """Where the feature works, when that is narrower than its release:
        'Linux x86-64 only' in the documented release, 'Linux only in 2.15' in
        the release that brings it; '' otherwise."""
        key = (
            self.documented
            if self.has(feature, self.documented)
            else feature.since
            if feature.cells[feature.since].state not in ("described", "unknown")
            else self.first(feature, {"yes", "in-code", "broken"}) or feature.since
        )
        here = self.platforms(feature, key)
        if set(here) >= set(self.release(key).platforms):
            return ""
        where = f"{platform_words(here)} only"
        return where if key == self.documented else f"{where} in {release_words(key)}"

    def note_text(self, feature: Feature) -> str:
        """The one-line note: headline and platform limit; "" when there is
        nothing a reader of the documented release needs (no note is printed)."""
        parts = [p for p in (self.availability(feature), self.platform_limit(feature)) if p]
        return "; ".join(parts)

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
