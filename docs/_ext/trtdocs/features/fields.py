"""The value checks every entry of ``docs/features.toml`` is read with: a table's
keys, a string, a list of strings, a note, a list of sources, the evidence a
cell's state needs, a list of platforms. Each raises :class:`FeaturesError`
naming the file and the entry. Pure: no Sphinx."""

from __future__ import annotations

from pathlib import Path

from ..vocab import PLATFORMS, STATES
from .sources import CODE, RUNS, Source, SourceError, parse
from .sources import KINDS as SOURCE_KINDS


class FeaturesError(ValueError):
    """A problem in the features table; the message names the file and entry."""


class Fields:
    """Typed reads of one value of ``path``; each failure names the file and the entry."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, entry: str, problem: str) -> FeaturesError:
        return FeaturesError(f"{self.path}: {entry}: {problem}")

    def keys(
        self, entry: str, data: object, allowed: frozenset[str], required: frozenset[str]
    ) -> dict:
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
            raise self.fail(
                entry, f"must be a {'' if empty else 'non-empty '}string, not {value!r}"
            )
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

    def sources(self, entry: str, value: object) -> tuple[Source, ...]:
        """A list of sources (:mod:`.sources`), each one a reader can open."""
        if not isinstance(value, list):
            raise self.fail(
                entry,
                f'must be a list of sources ([{{ pr = "owner/repo#1", shows = "..." }}]), '
                f"not {value!r}",
            )
        out = []
        for i, raw in enumerate(value):
            try:
                out.append(parse(raw))
            except SourceError as exc:
                raise self.fail(f"{entry}[{i}]", str(exc)) from None
        return tuple(out)

    def nonempty_sources(self, entry: str, value: object) -> tuple[Source, ...]:
        sources = self.sources(entry, value)
        if not sources:
            raise self.fail(entry, "must name at least one source")
        return sources

    def evidence(self, entry: str, state: str, sources: tuple[Source, ...]) -> None:
        """The cell's sources show what its state needs (vocab.STATES)."""
        needed = STATES[state].evidence
        if not needed or any(s.kind in _EVIDENCE[needed] for s in sources):
            return
        if not sources:
            raise self.fail(entry, f"state {state!r} needs its sources: {STATES[state].needs}")
        named = ", ".join(sorted({s.kind for s in sources}))
        lesser = "; say 'in-code' or 'described' for what they show" if state == "yes" else ""
        raise self.fail(
            entry,
            f"state {state!r} means {STATES[state].needs}, but its sources ({named}) show "
            f"none of that: it needs a source of kind {_kinds(_EVIDENCE[needed])}{lesser}",
        )

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


# What each kind of evidence a state needs is met by (vocab.State.evidence).
_EVIDENCE = {"run": RUNS, "code": CODE, "any": frozenset(SOURCE_KINDS)}


def _kinds(names: frozenset[str]) -> str:
    return ", ".join(f"{k} ({SOURCE_KINDS[k].split(',')[0]})" for k in sorted(names))
