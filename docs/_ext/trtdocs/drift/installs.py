"""Install commands in the guide (found and parsed by :mod:`trtdocs.pages.commands`), checked
against the features table and the installed packages' metadata; and the
check of the commands the site generates. Every rule lives in :data:`RULES`.

A command installs the documented release unless it names a nightly channel
or pins torch-tensorrt. Marks on MyST comment lines (``% drift: ...``) right
above the block say more (never inside the code: drift/marks.py fails that):

* ``drift: export-only``: the install is for exporting, so the delegate rule
  does not apply;
* ``drift: release=<key>``: the command is the one of that release of the
  features table (a described release's unpinned command, say);
* ``drift: cxx-package``: the command installs ExecuTorch's C++ package (a
  newer executorch wheel) into a folder of its own, not into the environment:
  it must pass ``--target`` and ``--no-deps``, name only ``executorch``, and its
  pin must hold the C++ package the build uses (trtdocs.notebooks.cxxsdk); the release
  pins do not apply to it.

A command that installs the ``executorch`` extra for a release whose extra does
not bring the delegate must also name the runtime wheel.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from functools import partial
from importlib import metadata
from pathlib import Path
from types import MappingProxyType

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from ..features.model import FeaturesTable as Table
from ..features.releases import Release, normalize_url
from ..notebooks import cxxsdk
from ..pages import Violation
from ..pages.blocks import PAGE_GLOBS, page_paths
from ..pages.commands import EXPORT_ONLY_MARK, InstallCommand, find_commands, parse_command
from ..vocab import FAMILY as VOCAB_FAMILY
from ..vocab import PYPI_SIMPLE, RUNTIME, TORCH_TENSORRT, UV_INDEX_STRATEGY

# Rule id -> what it requires. Violations carry the id.
RULES: Mapping[str, str] = MappingProxyType(
    {
        "parse": "the command splits with shlex and every requirement is PEP 508",
        "option-known": "only pip options this guard understands (commands.OPTIONS_WITH_VALUE, "
        "FLAGS)",
        "shell-quoting": "a requirement with <, > or [ ] is quoted, or the shell eats it",
        "index-known": "every index URL is PyPI or a channel of the features table",
        "nightly-pre": "a command using a nightly channel passes --pre (uv: --prerelease=allow)",
        "pin-exists": "a pinned torch-tensorrt version is a released entry of the features table",
        "pin-agrees": "a pin agrees with the features table's pin for that release",
        "extra-known": "an extra exists for that release in the features table",
        "extra-installed": "an extra of the installed release exists in the installed metadata",
        "delegate-missing": "installing the executorch extra of a release whose extra lacks the "
        "delegate also installs torch-tensorrt-executorch-runtime",
        "release-known": "a drift: release=<key> mark names a release of the features table",
        "uv-index-strategy": "a uv command with more than one index passes --index-strategy "
        "unsafe-best-match (uv otherwise takes each package from the first index that has it)",
        "pin-upgrade": "a command does not upgrade a distribution its release pins without naming "
        "a version inside the pin (pip install -U executorch breaks the release's pairing)",
        "cxx-package": "a drift: cxx-package command installs only executorch, with --target and "
        "--no-deps, pinned to hold the C++ package the build uses",
    }
)

# Families of distributions this guard knows; commands naming none of them are only
# checked for their indexes and options.
FAMILY = frozenset(VOCAB_FAMILY)
_EXTRAS_WITH_DELEGATE_INTENT = frozenset({"executorch", "all"})


@dataclasses.dataclass(frozen=True, slots=True)
class Installed:
    """What this machine has installed (from importlib.metadata)."""

    versions: Mapping[str, str]  # canonical name -> version
    extras: Mapping[str, frozenset[str]]  # canonical name -> Provides-Extra

    @classmethod
    def from_metadata(cls, names: Iterable[str] = VOCAB_FAMILY) -> Installed:
        versions: dict[str, str] = {}
        extras: dict[str, frozenset[str]] = {}
        for name in names:
            try:
                dist = metadata.distribution(name)
            except metadata.PackageNotFoundError:
                continue
            key = canonicalize_name(name)
            versions[key] = dist.version
            extras[key] = frozenset(dist.metadata.get_all("Provides-Extra") or ())
        return cls(MappingProxyType(versions), MappingProxyType(extras))


# -- checking commands -----------------------------------------------------------


def _exact(spec: str | SpecifierSet) -> Version | None:
    spec = SpecifierSet(spec) if isinstance(spec, str) and spec[:1] in "<>=!~" else spec
    if isinstance(spec, str):
        return Version(spec)
    pins = [s for s in spec if s.operator in ("==", "===") and "*" not in s.version]
    return Version(pins[0].version) if len(pins) == 1 else None


def target_release(cmd: InstallCommand, table: Table) -> tuple[Release | None, list[Violation]]:
    """The release a command installs: by its release mark, else nightly by channel, else
    by torch-tensorrt pin, else by runtime pin, else the documented release."""
    if cmd.release is not None:
        if cmd.release not in table.releases:
            return None, [
                Violation(
                    cmd.path,
                    cmd.line,
                    "release-known",
                    f"'drift: release={cmd.release}' names no release of the features table "
                    f"(known: {', '.join(sorted(table.releases))})",
                )
            ]
        return table.releases[cmd.release], []
    if any(
        normalize_url(u) in {normalize_url(n) for n in table.nightly_index_urls}
        for u in cmd.index_urls
    ):
        return next(r for r in table.releases.values() if r.is_nightly), []
    by_name: dict[str, Requirement] = {canonicalize_name(r.name): r for r in cmd.requirements}
    trt = by_name.get(TORCH_TENSORRT)
    if trt is not None and (version := _exact(trt.specifier)) is not None:
        rel = table.by_version(str(version))
        if rel is None or rel.status != "released":
            released = sorted(
                r.version for r in table.releases.values() if r.version and r.status == "released"
            )
            return None, [
                Violation(
                    cmd.path,
                    cmd.line,
                    "pin-exists",
                    f"torch-tensorrt=={version} is not a released version in the features "
                    f"table (released: {', '.join(released)})",
                )
            ]
        return rel, []
    runtime = by_name.get(RUNTIME)
    if runtime is not None and (version := _exact(runtime.specifier)) is not None:
        for rel in table.releases.values():
            pin = rel.pins.get(RUNTIME)
            if rel.status == "released" and pin and _exact(pin) == version:
                return rel, []
    return table.release(table.documented), []


def check_command(
    cmd: InstallCommand, table: Table, installed: Installed | None = None
) -> list[Violation]:
    bad = partial(Violation, cmd.path, cmd.line)  # bad(rule, message)
    out: list[Violation] = []
    known = table.known_index_urls | {normalize_url(PYPI_SIMPLE)}
    for url in cmd.index_urls:
        if normalize_url(url) not in known:
            out.append(
                bad(
                    "index-known",
                    f"index {url!r} is neither PyPI nor a channel of the features "
                    f"table ({', '.join(sorted(known))})",
                )
            )
    nightly = {normalize_url(u) for u in table.nightly_index_urls}
    if any(normalize_url(u) in nightly for u in cmd.index_urls) and not cmd.pre:
        flag = "--pre" if cmd.tool == "pip" else "--prerelease=allow"
        out.append(
            bad(
                "nightly-pre",
                f"this command uses a nightly channel but does not pass {flag}, "
                f"so {cmd.tool} skips the nightly (pre-release) wheels",
            )
        )
    if cmd.tool == "uv" and len(cmd.index_urls) > 1 and cmd.index_strategy != UV_INDEX_STRATEGY:
        out.append(
            bad(
                "uv-index-strategy",
                f"uv takes each package from the first of these {len(cmd.index_urls)} "
                "indexes that has it, and tries --extra-index-url before "
                f"--index-url: pass --index-strategy {UV_INDEX_STRATEGY}",
            )
        )
    names: dict[str, Requirement] = {canonicalize_name(r.name): r for r in cmd.requirements}
    if cmd.cxx_package:
        return out + _check_cxx_package(cmd, names)
    if not FAMILY.intersection(names):
        return out
    release, errs = target_release(cmd, table)
    out += errs
    if release is None:
        return out
    if not release.is_nightly:
        for name, req in names.items():
            pin = release.pins.get(name)
            if pin is None:
                continue
            if not str(req.specifier):
                if cmd.upgrade:
                    out.append(
                        bad(
                            "pin-upgrade",
                            f"upgrading {name} without a version leaves release "
                            f"{release.key}'s pin {name}{_as_pin(pin)}: the newest "
                            f"{name} breaks the pairing; name a version inside the pin",
                        )
                    )
                continue
            out += _pin_agrees(cmd, release, name, req, pin)
    trt = names.get(TORCH_TENSORRT)
    if trt is not None and trt.extras:
        unknown = sorted(set(trt.extras) - release.extras)
        if release.extras and unknown:
            out.append(
                bad(
                    "extra-known",
                    f"torch-tensorrt {release.key} has no extra {', '.join(unknown)} "
                    f"(features table: {', '.join(sorted(release.extras))})",
                )
            )
        if (
            installed is not None
            and release.version is not None
            and installed.versions.get(TORCH_TENSORRT) == release.version
        ):
            missing = sorted(set(trt.extras) - installed.extras.get(TORCH_TENSORRT, frozenset()))
            if missing:
                out.append(
                    bad(
                        "extra-installed",
                        f"installed torch-tensorrt {release.version} has no extra "
                        f"{', '.join(missing)} (Provides-Extra: "
                        f"{', '.join(sorted(installed.extras[TORCH_TENSORRT]))})",
                    )
                )
        if (
            set(trt.extras) & _EXTRAS_WITH_DELEGATE_INTENT
            and not release.extra_brings_delegate
            and RUNTIME not in names
            and not cmd.export_only
        ):
            out.append(
                bad(
                    "delegate-missing",
                    f"the [{','.join(sorted(trt.extras))}] extra of torch-tensorrt "
                    f"{release.key} does not bring the delegate: add {RUNTIME}"
                    f"{_as_pin(release.pins.get(RUNTIME, ''))}, "
                    f"or mark an export-only install with '% {EXPORT_ONLY_MARK}' on a MyST "
                    f"comment line above the block",
                )
            )
    return out


def _check_cxx_package(cmd: InstallCommand, names: Mapping[str, Requirement]) -> list[Violation]:
    bad = partial(Violation, cmd.path, cmd.line, "cxx-package")  # bad(message)
    out = []
    if cmd.target is None or not cmd.no_deps:
        out.append(
            bad(
                "ExecuTorch's C++ package goes into a folder of its own: pass --target DIR and "
                "--no-deps, so the environment's executorch stays the one its release pins"
            )
        )
    if set(names) != {"executorch"}:
        out.append(
            bad(f"a cxx-package command installs executorch only, not {', '.join(sorted(names))}")
        )
    version = cxxsdk.sdk_version()
    req = names.get("executorch")
    if (
        req is not None
        and version is not None
        and not req.specifier.contains(version, prereleases=True)
    ):
        out.append(
            bad(f"{req} does not hold the C++ package the build uses (executorch {version})")
        )
    return out


def _as_pin(pin: str) -> str:
    return f"=={pin}" if pin[:1].isdigit() else pin


def _overlap(a: SpecifierSet, b: SpecifierSet) -> bool:
    """Whether two version ranges share a version (``==2.14.*`` and ``>=2.14.0,<2.15.0``
    do; ``==2.13.*`` does not). Two ranges that meet share their highest lower bound,
    or a version just above it when it excludes itself, or, with no lower bound, 0."""
    bounds = [Version(spec.version.removesuffix(".*")) for spec in [*a, *b]]
    tries = [Version("0"), *bounds, *(Version(f"{v.base_version}.0.1") for v in bounds)]
    return any(a.contains(v, prereleases=True) and b.contains(v, prereleases=True) for v in tries)


def _pin_agrees(
    cmd: InstallCommand, release: Release, name: str, req: Requirement, pin: str
) -> list[Violation]:
    table_version = _exact(pin)
    cmd_version = _exact(req.specifier)
    if table_version is not None:
        ok = req.specifier.contains(table_version, prereleases=True)
    elif cmd_version is not None:
        ok = SpecifierSet(pin).contains(cmd_version, prereleases=True)
    else:
        ok = _overlap(req.specifier, SpecifierSet(pin))
    if ok:
        return []
    return [
        Violation(
            cmd.path,
            cmd.line,
            "pin-agrees",
            f"{req} disagrees with the features table: release {release.key} pins {name} {pin}",
        )
    ]


def check_pages(
    root: Path,
    table: Table,
    installed: Installed | None = None,
    globs: Iterable[str] = PAGE_GLOBS,
    *,
    paths: Iterable[Path] | None = None,
) -> list[Violation]:
    """Every install command of every page (or of ``paths``), checked."""
    out: list[Violation] = []
    for path in list(paths) if paths is not None else page_paths(root, globs):
        commands, problems = find_commands(path, root)
        out += problems
        for cmd in commands:
            out += check_command(cmd, table, installed)
    return out


def check_table_against_installed(table: Table, installed: Installed) -> list[str]:
    """Where the table's entry for the installed release disagrees with its metadata."""
    version = installed.versions.get(TORCH_TENSORRT)
    rel = table.by_version(version) if version else None
    if rel is None:
        return []
    out: list[str] = []
    missing = rel.extras - installed.extras.get(TORCH_TENSORRT, frozenset())
    if missing:
        out.append(
            f"release {rel.key} lists extras {sorted(missing)} that installed torch-tensorrt "
            f"{version} does not provide"
        )
    for name, pin in rel.pins.items():
        have = installed.versions.get(name)
        if have is None:
            continue
        exact = _exact(pin)
        ok = (
            (Version(have) == exact)
            if exact is not None
            else SpecifierSet(pin).contains(Version(have).public, prereleases=True)
        )
        # torch's local label (+cpu) is not part of the pin
        if not ok and exact is not None and Version(Version(have).public) == exact:
            ok = True
        if not ok:
            out.append(f"release {rel.key} pins {name} {pin} but {have} is installed")
    return out


# -- generating commands ---------------------------------------------------------


def check_generated(
    commands: Mapping[str, str],
    table: Table,
    installed: Installed | None = None,
    *,
    path: str = "docs/features.toml",
) -> list[Violation]:
    """Check the commands the site generates from the features table
    (``FeaturesTable.install_command``), one per release key, by the same rules."""
    violations: list[Violation] = []
    for key, text in commands.items():
        parsed, problems = parse_command(text, f"{path} [releases.{key!r}]", 1, release=key)
        violations += problems
        for cmd in parsed:
            violations += check_command(cmd, table, installed)
    return violations
