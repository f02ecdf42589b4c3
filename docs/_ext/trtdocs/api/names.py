"""Every public name a code cell calls has a home: an entry of this guide's
reference, a page of its project's documentation, or a written reason why
it links nowhere. Pure: no Sphinx.

:class:`CellIndex` resolves a cell's names the way the drift guard does
(:mod:`.uses`: imports, aliases, assignments, return types) over every
installed package: the reference's own through :class:`~.index.ApiIndex`,
the others (torch, packaging) through :class:`~.external.ExternalIndex`.
The standard library is not an installed package and stays out.

:func:`targets` gives each name its :class:`Target`; :func:`check` reports the
names that have none. A name is checked as the cell writes it, whole
(``torch.nn.Linear``, not ``torch``), unless it is a call's result bound to a
name (an instance: its attributes are checked, ``program.run``), private
(``_x``), or missing from the installed release (the drift guard reports those).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property

import griffe

from ..vocab import API_PACKAGES
from .external import ExternalIndex
from .index import ApiIndex, Missing, Unknown
from .links import Links
from .uses import Use, cell_uses

ENTRY, UPSTREAM, UNLINKED = "entry", "upstream", "unlinked"


class _Roots:
    """The top-level names a cell's imports bind for checking."""

    def __init__(self, index: CellIndex) -> None:
        self.index = index

    def __contains__(self, root: object) -> bool:
        return isinstance(root, str) and (
            root in API_PACKAGES or self.index.external.installed(root)
        )


class _Versions:
    def __init__(self, index: CellIndex) -> None:
        self.index = index

    def get(self, root: str, default: str | None = None) -> str | None:
        if root in API_PACKAGES:
            return self.index.api.versions.get(root, default)
        return self.index.external.version(root) or default


class CellIndex:
    """What :class:`~.uses.CellChecker` asks of an index, over every installed package.
    The reference's own packages load when a cell first names one."""

    def __init__(self, api: Callable[[], ApiIndex], external: ExternalIndex) -> None:
        self._api, self.external = api, external
        self.modules = _Roots(self)
        self.versions = _Versions(self)

    @cached_property
    def api(self) -> ApiIndex:
        return self._api()

    @staticmethod
    def _own(path: str) -> bool:
        return path.split(".")[0] in API_PACKAGES

    def lookup(self, path: str) -> griffe.Object:
        return self.api.lookup(path) if self._own(path) else self.external.lookup(path)

    def accepted_keywords(self, obj: griffe.Object) -> frozenset[str] | None:
        return (
            self.api.accepted_keywords(obj) if self._own(obj.path) else None
        )  # others: not checked here

    def return_path(
        self, obj: griffe.Object, keywords: Mapping[str, object] | None = None
    ) -> str | None:
        if self._own(obj.path):
            return self.api.return_path(obj, keywords)
        return self.external.return_path(obj)


@dataclasses.dataclass(frozen=True, slots=True)
class Target:
    """Where a name links: its entry here, a page upstream, or nowhere with a reason."""

    kind: str  # ENTRY, UPSTREAM or UNLINKED
    name: (
        str  # the reference's name (ENTRY), the mapped name (UPSTREAM), the name as used (UNLINKED)
    )
    url: str = ""  # UPSTREAM: the page
    reason: str = ""  # UNLINKED: why


@dataclasses.dataclass(frozen=True, slots=True)
class CellPage:
    """A page's code as the names check reads it, kept from its reading: its code
    cells and static Python blocks (:mod:`.pagecode`)."""

    # every piece of code, in reading order (hidden cells too: they bind names)
    sources: tuple[str, ...]
    shown: tuple[int | None, ...]  # for each, the index of its block on the page; None: hidden
    # for each block: section id, section title, line
    places: tuple[tuple[str, str, int | None], ...]
    cells: tuple[bool, ...] = ()  # for each block: a code cell (True) or a static block

    def label(self, i: int) -> str:
        """How a message names piece ``i``: its code cell's number, or a static block."""
        static = {k for k, cell in enumerate(self.cells) if not cell}
        j = self.shown[i]
        if j in static:
            return f"code block {sum(1 for k in static if k <= j)} (not a cell)"
        number = sum(1 for k in range(i) if self.shown[k] not in static)
        return f"code cell {number + 1}"


@dataclasses.dataclass(frozen=True, slots=True)
class UseSite:
    """A shown code cell's use of a name that links, for the name's "Used in" list."""

    kind: str  # ENTRY or UPSTREAM
    name: str  # the target's name
    docname: str  # the page
    section: str  # the id of the section the cell is in ("" at the page's top)
    heading: str  # that section's title
    cell: int  # index among the page's code (cells and static blocks)


@dataclasses.dataclass(frozen=True, slots=True)
class Finding:
    """A name a cell or a static block uses that has no target."""

    cell: int  # index among the page's code
    line: int  # 1-based line of the cell
    name: str  # the dotted name it resolves to
    label: str = ""  # how the message names the code ("code block 3"); "": code cell <cell + 1>

    def message(self) -> str:
        where = self.label or f"code cell {self.cell + 1}"
        return (
            f"{where}, line {self.line}: `{self.name}` links nowhere: document "
            "it (trtdocs.api.model.COVERED), map it to its project's documentation ([upstream] of "
            "docs/data/api-links.toml), or list it under [unlinked] there with the reason"
        )


class Resolver:
    """Targets of names, for one build's reference and links file."""

    def __init__(
        self, index: CellIndex, documented_name: Callable[[str], str | None], links: Links
    ) -> None:
        self.index, self.documented_name, self.links = index, documented_name, links

    @cached_property
    def _upstream_by_object(self) -> Mapping[str, str]:
        """The defining path of each upstream-mapped name's object -> that name."""
        out: dict[str, str] = {}
        for upstream in self.links.upstream.values():
            for name in sorted(upstream.names, key=lambda n: (len(n), n)):
                try:
                    out.setdefault(self.index.lookup(name).path, name)
                except (Missing, Unknown):
                    continue
        return out

    def target(self, path: str) -> Target | None:
        """Where ``path`` (a name as a cell's imports resolve it) links, or None."""
        if name := self.documented_name(path):
            return Target(ENTRY, name)
        if url := self.links.url(path):
            return Target(UPSTREAM, path, url=url)
        if path in self.links.unlinked:
            return Target(UNLINKED, path, reason=self.links.unlinked[path])
        try:
            defined = self.index.lookup(path).path
        except (Missing, Unknown):
            return None
        if (name := self._upstream_by_object.get(defined)) is not None:
            return Target(UPSTREAM, name, url=self.links.url(name) or "")
        return None

    def checked(self, path: str) -> bool:
        """Whether a name is one the check holds to a target (public, in the installed release)."""
        if any(part.startswith("_") and not part.startswith("__") for part in path.split(".")):
            return False
        try:
            self.index.lookup(path)
        except Missing:
            # not in the installed release: the drift guard's finding, or a later release's name
            return False
        except Unknown:
            return True
        return True


def whole(uses: Iterable[Use]) -> Iterator[Use]:
    """Of the names written from one place, the longest (``torch.nn.Linear``, not
    ``torch``), in source order; instances left out."""
    longest: dict[tuple[int, int], Use] = {}
    for use in uses:
        key = (use.line, use.start)
        if key not in longest or use.end > longest[key].end:
            longest[key] = use
    for _, use in sorted(longest.items()):
        if not use.instance:
            yield use


def _continued(lines: list[str], use: Use) -> bool:
    """Whether the written name goes on past the use (``torch.nn`` of a missing
    ``torch.nn.NoSuchLayer``): the use is then only the part that resolved."""
    line = lines[use.line - 1] if use.line <= len(lines) else ""
    return re.match(r"\s*\.\s*[A-Za-z_]", line[use.end :]) is not None


def targets(sources: list[str], resolver: Resolver) -> list[list[tuple[Use, Target | None]]]:
    """For each code cell (in notebook order, sharing one namespace), each checked
    name it writes with its target (None: it has none)."""
    out = []
    for source, uses in zip(sources, cell_uses(sources, resolver.index), strict=True):
        lines = re.split(r"\r\n|\r|\n", source)
        out.append(
            [
                (use, resolver.target(use.path))
                for use in whole(uses)
                if resolver.checked(use.path) and not _continued(lines, use)
            ]
        )
    return out


def check(sources: list[str], resolver: Resolver) -> list[Finding]:
    """The names of ``sources`` that link nowhere and have no recorded reason."""
    return [
        Finding(i, use.line, use.path)
        for i, cell in enumerate(targets(sources, resolver))
        for use, target in cell
        if target is None
    ]
