"""Every install command on the pages, resolved by the real resolver
(:mod:`.resolve`), and the versions it picks checked against the features
table's pins (:mod:`trtdocs.features.model`).

A page's commands are its shell blocks' install commands (found by
:mod:`trtdocs.pages.commands`) and the commands its ``{install-command}`` blocks print, for
the release, installer and platform each names. A command installs the release
:func:`.installs.target_release` finds for it. Every rule lives in :data:`RULES`.
A command whose index (or a host its resolution downloads from) does not
answer, and a command this build does not resolve (uv's, Windows'), is
*marked*: a note in the log and a line in its page's banner, never a failure.

Each resolution is kept in the cache folder for the rest of its UTC day, under
a key of the resolver, the command's words, its indexes, the interpreter and
platform, and the day: a rebuild the same day asks nothing of the network, and
the first build of a day resolves again, so a new torch or ExecuTorch on PyPI
shows on that day's build. An unreachable index, and a failure whose cause
pip's output does not name (:func:`.resolve.settled`), is kept for an hour only
(:data:`UNSETTLED_FOR_S`). ``fresh`` resolves every command again (the weekly job).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Final

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ..features.model import FeaturesTable as Table
from ..notebooks import cxxsdk
from ..pages import Violation
from ..pages.blocks import iter_blocks
from ..pages.commands import InstallCommand, find_commands, parse_command
from ..vocab import EXECUTORCH, FAMILY, TORCH_TENSORRT
from .installs import target_release
from .resolve import (
    FAILED,
    NOT_RESOLVED,
    RESOLVER,
    UNREACHABLE,
    Resolution,
    resolve,
    settled,
    target_words,
    today,
)

RULES: Mapping[str, str] = MappingProxyType(
    {
        "resolves": "the resolver finishes on the command (where it stops, a reader's pip stops)",
        "resolved-pins": "each of torch, torch-tensorrt, its runtime wheel, executorch and "
        "TensorRT that the resolution installs lies inside the pins of the release the command "
        "installs",
        "resolved-published": "a command of a release the features table calls described finds no "
        "such release on the index (once it does, the release is published: update the table)",
        "resolved-cxx": "a drift: cxx-package command resolves to the ExecuTorch the C++ guard "
        "builds against",
    }
)
Resolver = Callable[[Sequence[str], Sequence[str]], Resolution]
WORKERS = 2  # commands resolved at once: the time is the network's, not the CPU's


@dataclasses.dataclass(frozen=True, slots=True)
class Shown:
    """One install command a page shows."""

    command: InstallCommand
    label: str  # how the banner names it: "the 2.14 command (pip)", or the command
    platform: str = "linux"  # vocab.INSTALL_PLATFORMS


@dataclasses.dataclass(frozen=True, slots=True)
class Claim:
    """What the banner of a command's page says of its resolution."""

    path: str  # the page, relative to the root
    line: int  # the command's line
    status: str  # resolve.STATUSES
    text: str  # one sentence
    how: str = ""  # "pip 26.3 on 2026-12-04, for CPython 3.11, Linux x86_64" when the resolver ran


def page_commands(path: Path, root: Path, table: Table) -> list[Shown]:
    """The install commands ``path`` shows, in page order. Problems with them are the
    installs guard's and the features extension's to report."""
    rel = str(path.relative_to(root))
    shown = [Shown(c, _short(c.text)) for c in find_commands(path, root)[0]]
    for block in iter_blocks(path):
        if block.kind != "install-command":
            continue
        tool, where = block.options.get("tool", "pip"), block.options.get("platform", "linux")
        try:
            text = table.install_command(block.language, tool, where)
        except (KeyError, ValueError):
            continue  # an unknown release or platform: the directive fails the build itself
        windows = ", Windows" if where == "windows" else ""
        shown += [
            Shown(c, f"the {block.language} command ({tool}{windows})", where)
            for c in parse_command(text, rel, block.fence_line, release=block.language)[0]
        ]
    return sorted(shown, key=lambda s: s.command.line)


def _short(text: str, width: int = 72) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# A result that does not hold for the day (an index that did not answer, a failure pip
# names no cause for) is asked again after this long: the next edit's build does not
# wait on the same unreachable host (the 2.14 command takes about 17 s to fail here).
UNSETTLED_FOR_S: Final = 3600


def cache_key(shown: Shown, day: str) -> str:
    words = [
        RESOLVER,
        shown.command.tool,
        shown.platform,
        *shown.command.args,
        "|",
        *shown.command.index_urls,
        target_words(),
        day,
    ]
    return hashlib.sha256("\0".join(words).encode()).hexdigest()[:32]


def resolution(
    shown: Shown,
    cache: Path,
    *,
    fresh: bool = False,
    resolver: Resolver = resolve,
    day: str | None = None,
) -> Resolution:
    """``shown``'s resolution: from ``cache`` when kept today (unless ``fresh``), else the
    resolver's."""
    cmd = shown.command
    if cmd.tool != "pip":
        return Resolution(
            NOT_RESOLVED, reason=f"a {cmd.tool} command: this build resolves with pip only"
        )
    if shown.platform != "linux":
        return Resolution(
            NOT_RESOLVED,
            reason=f"a {shown.platform.capitalize()} command: this build resolves for "
            f"{target_words()} only",
        )
    path = cache / f"{cache_key(shown, day or today())}.json"
    if not fresh:
        try:
            kept = Resolution.from_json(json.loads(path.read_text(encoding="utf-8")))
            if settled(kept) or time.time() - path.stat().st_mtime < UNSETTLED_FOR_S:
                return kept
        except (OSError, ValueError, TypeError):
            pass  # not kept today, or unreadable: resolve again
    found = resolver(cmd.args, cmd.index_urls)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    partial.write_text(json.dumps(found.to_json()), encoding="utf-8")
    partial.replace(path)
    return found


def _inside(pin: str, version: str) -> bool:
    spec = SpecifierSet(pin if pin[:1] in "<>=!~" else f"=={pin}")
    try:
        return spec.contains(
            Version(Version(version).public), prereleases=True
        )  # torch's +cpu is no part
    except InvalidVersion:
        return False


def check(shown: Shown, found: Resolution, table: Table) -> tuple[list[Violation], str]:
    """The violations of one resolution, and the banner's sentence for it."""
    cmd = shown.command
    bad = partial(Violation, cmd.path, cmd.line)  # bad(rule, message)
    release, _ = target_release(cmd, table)  # a bad release mark is the installs guard's finding
    # the release's key when the features table calls it described (not published)
    described = release.key if release is not None and release.status == "described" else None
    if found.status in (UNREACHABLE, NOT_RESOLVED):
        picked = _family(found.provisional)
        before = f" (picked before it stopped, not checked: {picked})" if picked else ""
        return [], f"{shown.label}: not resolved: {found.reason}{before}."
    if found.status == FAILED:
        stop: str
        try:
            stop = canonicalize_name(Requirement(found.stopped_at).name)
        except InvalidRequirement:
            stop = ""  # a package pip names without a requirement (a metadata failure)
        if described is not None and stop == TORCH_TENSORRT:
            return [], (
                f"{shown.label}: not resolved: {found.reason}; release {described} is described, "
                "not published."
            )
        return [
            bad("resolves", f"{found.resolver} cannot resolve {cmd.text.strip()!r}: {found.reason}")
        ], f"{shown.label}: the resolver failed: {found.reason}."
    out: list[Violation] = []
    if described is not None and TORCH_TENSORRT in found.versions:
        out.append(
            bad(
                "resolved-published",
                f"this command of release {described}, which the features table "
                f"calls described, resolves to torch-tensorrt "
                f"{found.versions[TORCH_TENSORRT]} on the index: the release is "
                "published; give it its status, version and pins",
            )
        )
    if cmd.cxx_package:
        want = cxxsdk.sdk_version()
        got = found.versions.get(EXECUTORCH)
        if want is not None and got != want:
            out.append(
                bad(
                    "resolved-cxx",
                    f"resolves to executorch {got}, not the C++ package the build "
                    f"uses (executorch {want})",
                )
            )
        whose = "the C++ package the build compiles against"
    elif release is not None and not release.is_nightly:
        for name, pin in release.distribution_pins.items():
            got = found.versions.get(name)
            if got is not None and not _inside(pin, got):
                out.append(
                    bad(
                        "resolved-pins",
                        f"{found.resolver} resolves {name} {got} on {found.day}, "
                        f"outside release {release.key}'s pin {name} {pin}",
                    )
                )
        whose = f"release {release.key}'s pins"
    else:
        whose = "no pins (each nightly build pins its own)"
    versions = _family(found.versions)
    if not versions:
        return (
            out,
            f"{shown.label}: resolved ({len(found.versions)} packages, none that a release pins).",
        )
    verdict = "outside" if out else "inside"
    if cmd.cxx_package:
        return out, f"{shown.label}: resolved to {versions}, {'not ' if out else ''}{whose}."
    if whose.startswith("no pins"):
        return out, f"{shown.label}: resolved to {versions}; nightly builds have no pins to check."
    return out, f"{shown.label}: resolved to {versions}, {verdict} {whose}."


def _family(versions: Mapping[str, str]) -> str:
    """'torch 2.14.1, executorch 1.4.1' for the distributions a release pins."""
    names = [*FAMILY, *(n for n in versions if n.startswith("tensorrt") and n not in FAMILY)]
    return ", ".join(f"{n} {versions[n]}" for n in dict.fromkeys(names) if n in versions)


def check_pages(
    root: Path,
    table: Table,
    paths: Iterable[Path],
    cache: Path,
    *,
    fresh: bool = False,
    resolver: Resolver = resolve,
) -> tuple[list[Violation], list[Claim], list[str]]:
    """Every install command of ``paths`` resolved and checked: violations, the banners'
    claims, and one note per command for the log."""
    shown = [s for p in paths for s in page_commands(p, root, table)]

    def same(s: Shown) -> tuple[Hashable, ...]:
        """What makes two shown commands one resolution: a command several pages show is
        resolved once."""
        return (s.command.tool, s.platform, s.command.args, s.command.index_urls)

    first = {same(s): s for s in reversed(shown)}
    with ThreadPoolExecutor(WORKERS) as pool:
        done = dict(
            zip(
                first,
                pool.map(
                    lambda s: resolution(s, cache, fresh=fresh, resolver=resolver), first.values()
                ),
                strict=True,
            )
        )
    found = [done[same(s)] for s in shown]
    violations: list[Violation] = []
    claims: list[Claim] = []
    notes: list[str] = []
    for s, r in zip(shown, found, strict=True):
        bad, text = check(s, r, table)
        violations += bad
        how = f"{r.resolver} on {r.day}, for {r.target}" if r.resolver else ""
        claims.append(Claim(s.command.path, s.command.line, r.status, text, how))
        took = f" ({how}, {r.seconds} s)" if how else ""
        notes.append(f"{s.command.path}:{s.command.line}: install command {r.status}{took}: {text}")
    return violations, claims, notes


def banner_text(claims: Sequence[Claim]) -> tuple[str, list[str]]:
    """The banner's lead sentence and one item per command, for one page."""
    ran = [c.how for c in claims if c.how]
    lead = (
        f"Its install commands, given to pip's resolver ({ran[0]}) as for an empty environment:"
        if ran
        else "Its install commands, which this build does not resolve:"
    )
    return lead, [c.text for c in claims]
