"""One release of the features table: its pins, where they come from, and its
install command's inputs. Pure: no Sphinx. :class:`~.model.FeaturesTable` holds
one :class:`Release` per column of the matrix."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from ..vocab import (
    INSTALL_PLATFORMS,
    INSTALL_TOOLS,
    NIGHTLY,
    PINS,
    PYPI_SIMPLE,
    TORCH_TENSORRT,
    UV_INDEX_STRATEGY,
)
from .sources import Source

# What a release's pins are keyed by (vocab.Pin.name) -> the table's key for that pin.
PIN_KEYS: Mapping[str, str] = {pin.name(key): key for key, pin in PINS.items()}


@dataclasses.dataclass(frozen=True, slots=True)
class Install:
    """Inputs of a release's install command (``[releases.<key>.install]``)."""

    index_url: str  # --index-url; "" = PyPI
    extra_index_urls: tuple[str, ...]  # --extra-index-url, in order
    pre: bool  # --pre (nightly builds are pre-releases)
    packages: tuple[str, ...]  # requirement strings, each quoted in the command
    windows_index_urls: tuple[
        str, ...
    ] = ()  # on Windows: these indexes instead; () = same as Linux

    def args(self, tool: str = "pip", platform: str = "linux") -> list[str]:
        """Installer arguments after ``install``, for ``tool`` (pip or uv) on ``platform``."""
        if tool not in INSTALL_TOOLS or platform not in INSTALL_PLATFORMS:
            raise ValueError(
                f"no install command for {tool!r} on {platform!r}; "
                f"tools: {INSTALL_TOOLS}, platforms: {INSTALL_PLATFORMS}"
            )
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
    field: str  # one of vocab.PIN_FIELDS

    def __str__(self) -> str:
        return f"{self.distribution} {self.version} metadata, {self.field}"


@dataclasses.dataclass(frozen=True, slots=True)
class Release:
    """One column of the matrix (``[releases.<key>]``)."""

    key: str  # "2.14", "2.15" or "nightly"; what `since` and `documented` name
    status: str  # one of vocab.STATUSES
    version: str  # full version of the release ("2.14.0"); "" for nightly
    date: str  # when it reached PyPI ("2026-09"); "" if it has not
    platforms: tuple[str, ...]  # vocab.PLATFORMS names the release supports
    sources: tuple[Source, ...]  # where the pins and platforms come from
    # what each pin pins (the distribution, or "cuda"/"python": vocab.Pin.name) -> PEP 440
    # version or specifier, in the table's order
    pins: Mapping[str, str]
    pin_sources: Mapping[str, PinSource]  # the same keys -> the metadata it is taken from
    install: Install
    # the [executorch] extra of this release brings the delegate (vocab.EXTRA_BRINGS_DELEGATE)
    extra_brings_delegate: bool = False

    @property
    def number(self) -> Version | None:
        """The release key as a version; None for the nightly channel."""
        return None if self.key == NIGHTLY else Version(self.key)

    @property
    def is_nightly(self) -> bool:
        return self.status == NIGHTLY

    @property
    def label(self) -> str:
        """How the release switcher names it: "2.14", "Nightly"."""
        return self.key if self.key[:1].isdigit() else self.key.capitalize()

    @property
    def install_platforms(self) -> tuple[str, ...]:
        """vocab.INSTALL_PLATFORMS the release installs on (from its ``platforms``)."""
        return tuple(
            p for p in INSTALL_PLATFORMS if any(q.startswith(p + "-") for q in self.platforms)
        )

    @property
    def distribution_pins(self) -> Mapping[str, str]:
        """The pins on distributions (canonical name -> spec): CUDA and Python left out."""
        return {name: spec for name, spec in self.pins.items() if PINS[PIN_KEYS[name]].distribution}

    # -- what its install command installs (the install guard asks these)
    @property
    def packages(self) -> tuple[str, ...]:
        return self.install.packages

    @property
    def pre(self) -> bool:
        return self.install.pre

    @property
    def index_urls(self) -> tuple[str, ...]:
        """--index-url (PyPI when the table leaves it empty), then each --extra-index-url."""
        return (self.install.index_url or PYPI_SIMPLE, *self.install.extra_index_urls)

    @property
    def windows_index_urls(self) -> tuple[str, ...]:
        return self.install.windows_index_urls

    @property
    def extras(self) -> frozenset[str]:
        """The extras of torch-tensorrt its install command names."""
        reqs = [Requirement(p) for p in self.install.packages]
        return frozenset(
            e for r in reqs if canonicalize_name(r.name) == TORCH_TENSORRT for e in r.extras
        )


def normalize_url(url: str) -> str:
    return url.rstrip("/")
