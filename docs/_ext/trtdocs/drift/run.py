"""Run the guards over the project's pages: one entry point for the CLI, the
Sphinx hook and the tests."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..api.index import ApiIndex
from ..features.model import FeaturesTable
from ..features.validate import DEFAULT_FILE
from ..features.validate import load as load_features
from ..pages import Violation, accesses
from ..pages.blocks import page_paths
from . import (
    api,
    cpp,
    evidence,
    gxx,
    installs,
    marks,
    memo,
    options,
    programs,
    raises,
    resolved,
)
from .memo import PageMemo

# the offline guards; the PyPI check runs in tests/CLI only
GUARDS = ("installs", "api", "cpp", "marks", "programs", "evidence")
DEFAULT_TABLE = DEFAULT_FILE
SAVE_OPTIONS = "docs/data/save-options.toml"  # checked with the api guard (drift/options.py)


@dataclasses.dataclass(frozen=True, slots=True)
class Report:
    """What the guards found."""

    violations: tuple[Violation, ...]  # errors: the build warns (fails under -W), tests fail
    notes: tuple[str, ...]  # not errors: gated API findings, C++ blocks not compiled and why
    _: dataclasses.KW_ONLY  # what the guards add by name: two merges once shifted a positional one
    uncompiled: tuple[
        gxx.Listed, ...
    ] = ()  # the C++ blocks not compiled (captioned on their pages)
    resolved: tuple[
        resolved.Claim, ...
    ] = ()  # each install command's resolution (in its page's banner)
    compiled: tuple[
        gxx.Compiled, ...
    ] = ()  # the C++ blocks compiled, with what they read (captioned too)


def report_to_json(report: Report) -> dict[str, Any]:
    return {
        "notes": list(report.notes),
        "violations": [dataclasses.asdict(v) for v in report.violations],
        "uncompiled": [dataclasses.asdict(item) for item in report.uncompiled],
        "resolved": [dataclasses.asdict(claim) for claim in report.resolved],
        "compiled": [dataclasses.asdict(item) for item in report.compiled],
    }


def report_from_json(data: dict[str, Any]) -> Report:
    return Report(
        tuple(Violation(**v) for v in data["violations"]),
        tuple(data["notes"]),
        uncompiled=tuple(gxx.Listed(**item) for item in data.get("uncompiled", ())),
        resolved=tuple(resolved.Claim(**claim) for claim in data.get("resolved", ())),
        compiled=tuple(_compiled(item) for item in data.get("compiled", ())),
    )


def _compiled(item: dict[str, Any]) -> gxx.Compiled:
    lists = {k: tuple(item[k]) for k in ("against", "real", "stubs")}
    return gxx.Compiled(**{**item, **lists})


PAGE_GUARDS = ("installs", "api", "cpp", "marks")  # findings of one page each: memoised per page


def _page_findings(
    guard: str,
    root: Path,
    paths: list[Path],
    features: FeaturesTable | None,
    index: Callable[[], ApiIndex],
    installed: Callable[[], installs.Installed],
) -> Report:
    """One page guard over ``paths``; every finding names its page."""
    if guard == "installs":
        if features is None:
            return Report((), ())
        return Report(tuple(installs.check_pages(root, features, installed(), paths=paths)), ())
    if guard == "api":
        notebooks = [p for p in paths if p.is_relative_to(root / "notebooks")]
        if not notebooks:
            return Report((), ())
        resolver = features.requirement if features is not None else None
        found = api.check_notebooks(notebooks, index(), root=root, features=resolver)
        return Report(
            tuple(f.violation for f in found if not f.gated),
            tuple(f"{f.violation} (cell gated on a newer release)" for f in found if f.gated),
        )
    if guard == "cpp":
        result = cpp.check_pages(root, paths=paths)
        return Report(
            result.violations,
            tuple(
                f"{item.path}:{item.line}: C++ block not compiled: "
                f"{'<' + item.header + '> missing: ' if item.header else ''}{item.reason}"
                for item in result.listed
            ),
            uncompiled=result.listed,
            compiled=result.blocks,
        )
    assert guard == "marks", guard
    return Report(tuple(marks.check_pages(root, paths)), ())


def _by_page(report: Report, rels: list[str]) -> dict[str, Report] | None:
    """``report`` split by page; None when a finding names no page of ``rels``."""
    parts: dict[str, tuple[list[Violation], list[str], list[gxx.Listed], list[gxx.Compiled]]] = {
        r: ([], [], [], []) for r in rels
    }
    for v in report.violations:
        if v.path not in parts:
            return None
        parts[v.path][0].append(v)
    for note in report.notes:
        rel = next((r for r in rels if note.startswith(f"{r}:")), None)
        if rel is None:
            return None
        parts[rel][1].append(note)
    for item in report.uncompiled:
        if item.path not in parts:
            return None
        parts[item.path][2].append(item)
    for done in report.compiled:
        if done.path not in parts:
            return None
        parts[done.path][3].append(done)
    return {
        rel: Report(tuple(v), tuple(n), uncompiled=tuple(u), compiled=tuple(c))
        for rel, (v, n, u, c) in parts.items()
    }


def _page_guard(
    guard: str,
    root: Path,
    pages: list[Path],
    features: FeaturesTable | None,
    index: Callable[[], ApiIndex],
    installed: Callable[[], installs.Installed],
    page_memo: PageMemo | None,
) -> Report:
    """One page guard over every page, each page from ``page_memo`` when it holds it."""
    rels = [str(p.relative_to(root)) for p in pages]
    digests = (
        {rel: memo.text_digest(p) for rel, p in zip(rels, pages, strict=True)} if page_memo else {}
    )
    parts: dict[str, Report] = {}
    if page_memo is not None:
        for rel in rels:
            if (kept := page_memo.get(guard, rel, digests[rel])) is not None:
                parts[rel] = report_from_json(kept)
    todo = [p for rel, p in zip(rels, pages, strict=True) if rel not in parts]
    if todo:
        found = _page_findings(guard, root, todo, features, index, installed)
        split = _by_page(found, [str(p.relative_to(root)) for p in todo])
        if split is None:  # a finding outside its batch's pages: keep the batch whole, unmemoised
            parts[str(todo[0].relative_to(root))] = found
            split = {}
        for rel, part in split.items():
            parts[rel] = part
            if page_memo is not None:
                page_memo.put(guard, rel, digests[rel], report_to_json(part))
    ordered = [parts[rel] for rel in rels if rel in parts]
    return Report(
        tuple(v for r in ordered for v in r.violations),
        tuple(n for r in ordered for n in r.notes),
        uncompiled=tuple(u for r in ordered for u in r.uncompiled),
        compiled=tuple(c for r in ordered for c in r.compiled),
    )


def _remembered(
    page_memo: PageMemo | None,
    guard: str,
    rel: str,
    files: list[Path],
    check: Callable[[], list[Violation]],
) -> list[Violation]:
    """``check()``'s violations, taken from ``page_memo`` while ``files`` are unchanged."""
    if page_memo is None:
        return check()
    digest = "+".join(memo.text_digest(f) for f in files)
    if (kept := page_memo.get(guard, rel, digest)) is not None:
        return [Violation(**v) for v in kept]
    found = check()
    page_memo.put(guard, rel, digest, [dataclasses.asdict(v) for v in found])
    return found


def _accesses_of(page_memo: PageMemo | None) -> programs.Accesses:
    """:func:`trtdocs.pages.accesses.page_accesses`, through ``page_memo``."""
    if page_memo is None:
        return accesses.page_accesses

    def accesses_of(path: Path, rel: str) -> tuple[list[accesses.Access], list[Violation]]:
        digest = memo.text_digest(path)
        if (kept := page_memo.get("accesses", rel, digest)) is not None:
            return [accesses.Access(**a) for a in kept["accesses"]], [
                Violation(**v) for v in kept["problems"]
            ]
        found, problems = accesses.page_accesses(path, rel)
        page_memo.put(
            "accesses",
            rel,
            digest,
            {
                "accesses": [dataclasses.asdict(a) for a in found],
                "problems": [dataclasses.asdict(v) for v in problems],
            },
        )
        return found, problems

    return accesses_of


def run_guards(
    root: Path,
    *,
    features: FeaturesTable | None = None,
    table_path: Path | None = None,
    guards: Iterable[str] = GUARDS,
    index: ApiIndex | None = None,
    page_memo: PageMemo | None = None,
    resolve_cache: Path | None = None,
    fresh: bool = False,
) -> Report:
    """Run ``guards`` over the pages under ``root``, against ``features`` (or the
    table at ``table_path``, by default the project's). With ``page_memo``, the
    page guards take unchanged pages' findings from it and put the others in.
    With ``resolve_cache`` and the installs guard, every install command is also
    resolved (:mod:`.resolved`, the network), kept there for the day; ``fresh``
    resolves each again."""
    root = root.resolve()
    guards = tuple(guards)
    if unknown := set(guards) - set(GUARDS):
        raise ValueError(f"unknown guard(s) {sorted(unknown)}; known: {', '.join(GUARDS)}")
    if features is None:
        path = table_path or root / DEFAULT_TABLE
        features = load_features(path) if path.is_file() else None
    loaded: list[ApiIndex] = [index] if index is not None else []

    def api_index() -> ApiIndex:  # loaded on first use: a memoised run may need none
        if not loaded:
            loaded.append(ApiIndex.load())
        return loaded[0]

    installed = functools.cache(installs.Installed.from_metadata)

    pages = page_paths(root)
    violations: list[Violation] = []
    notes: list[str] = []
    uncompiled: list[gxx.Listed] = []
    claims: list[resolved.Claim] = []
    compiled: list[gxx.Compiled] = []
    for guard in guards:
        if guard in PAGE_GUARDS:
            part = _page_guard(guard, root, pages, features, api_index, installed, page_memo)
            violations += part.violations
            notes += part.notes
            uncompiled += part.uncompiled
            compiled += part.compiled
        if guard == "installs":
            if features is None:
                notes.append(f"install commands not checked: no features table at {DEFAULT_TABLE}")
            else:
                notes += [
                    f"features table vs installed metadata: {p}"
                    for p in installs.check_table_against_installed(features, installed())
                ]
                if resolve_cache is not None:
                    found, claims, said = resolved.check_pages(
                        root, features, pages, resolve_cache, fresh=fresh
                    )
                    violations += found
                    notes += said
        elif guard == "api":
            save_options = root / SAVE_OPTIONS
            if save_options.is_file() and features is not None:

                def check_options(path: Path = save_options) -> list[Violation]:
                    return options.check(
                        path,
                        api_index(),
                        lambda f: features.has(features.feature(f), features.documented),
                        where=SAVE_OPTIONS,
                    )

                violations += _remembered(
                    page_memo, "options", SAVE_OPTIONS, [save_options], check_options
                )
        elif guard == "programs" and (root / accesses.INDEX).is_file():
            violations += programs.check(root, accesses_of=_accesses_of(page_memo))
        elif guard == "evidence":

            def check_one(root: Path, page: Path, register: Path) -> list[Violation]:
                return _remembered(
                    page_memo,
                    "evidence",
                    str(page.relative_to(root)),
                    [page, register],
                    lambda: evidence.check_page(root, page, register),
                )

            register = evidence.check(root, check_one=check_one)
            violations += register.violations
            violations += raises.check(root)  # the failure register (docs/evidence/failures.toml)
            if register.without_evidence:
                notes.append(
                    f"{len(register.without_evidence)} guide page(s) without an evidence file in "
                    f"{evidence.EVIDENCE_DIR}/ (listed, not failed: require=False): "
                    f"{', '.join(register.without_evidence)}"
                )
    return Report(
        tuple(violations),
        tuple(notes),
        uncompiled=tuple(uncompiled),
        resolved=tuple(claims),
        compiled=tuple(compiled),
    )
