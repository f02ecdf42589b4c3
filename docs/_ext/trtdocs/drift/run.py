"""Run the guards over the project's pages: one entry point for the CLI, the
Sphinx hook and the tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..api.index import ApiIndex
from ..features.model import FeaturesTable
from ..features.validate import DEFAULT_FILE
from ..features.validate import load as load_features
from . import Violation, api, cpp, evidence, installs, marks, options, programs
from .blocks import page_paths

# the offline guards; the PyPI check runs in tests/CLI only
GUARDS = ("installs", "api", "cpp", "marks", "programs", "evidence")
DEFAULT_TABLE = DEFAULT_FILE
SAVE_OPTIONS = "docs/data/save-options.toml"  # checked with the api guard (drift/options.py)


@dataclasses.dataclass(frozen=True, slots=True)
class Report:
    """What the guards found."""

    violations: tuple[Violation, ...]  # errors: the build warns (fails under -W), tests fail
    notes: tuple[str, ...]  # not errors: gated API findings, C++ blocks not compiled and why
    uncompiled: tuple[cpp.Listed, ...] = ()  # the C++ blocks not compiled (captioned on their pages)


def report_to_json(report: Report) -> dict[str, Any]:
    return {"notes": list(report.notes),
            "violations": [dataclasses.asdict(v) for v in report.violations],
            "uncompiled": [dataclasses.asdict(item) for item in report.uncompiled]}


def report_from_json(data: dict[str, Any]) -> Report:
    return Report(tuple(Violation(**v) for v in data["violations"]), tuple(data["notes"]),
                  tuple(cpp.Listed(**item) for item in data.get("uncompiled", ())))


def run_guards(root: Path, *, features: FeaturesTable | None = None, table_path: Path | None = None,
               guards: Iterable[str] = GUARDS, index: ApiIndex | None = None) -> Report:
    """Run ``guards`` over the pages under ``root``, against ``features`` (or the
    table at ``table_path``, by default the project's)."""
    root = root.resolve()
    guards = tuple(guards)
    if unknown := set(guards) - set(GUARDS):
        raise ValueError(f"unknown guard(s) {sorted(unknown)}; known: {', '.join(GUARDS)}")
    if features is None:
        path = table_path or root / DEFAULT_TABLE
        features = load_features(path) if path.is_file() else None
    violations: list[Violation] = []
    notes: list[str] = []
    uncompiled: list[cpp.Listed] = []
    if "installs" in guards:
        if features is None:
            notes.append(f"install commands not checked: no features table at {DEFAULT_TABLE}")
        else:
            installed = installs.Installed.from_metadata()
            violations += installs.check_pages(root, features, installed)
            notes += [f"features table vs installed metadata: {p}"
                      for p in installs.check_table_against_installed(features, installed)]
    if "api" in guards:
        index = index or ApiIndex.load()
        resolver = features.requirement if features is not None else None
        notebooks = [p for p in page_paths(root) if p.is_relative_to(root / "notebooks")]
        for finding in api.check_notebooks(notebooks, index, root=root, features=resolver):
            if finding.gated:
                notes.append(f"{finding.violation} (cell gated on a newer release)")
            else:
                violations.append(finding.violation)
        save_options = root / SAVE_OPTIONS
        if save_options.is_file() and features is not None:
            documented = features.documented
            violations += options.check(save_options, index,
                                        lambda f: features.has(features.feature(f), documented),
                                        where=SAVE_OPTIONS)
    if "cpp" in guards:
        result = cpp.check_pages(root)
        violations += result.violations
        notes += [f"{item.path}:{item.line}: C++ block not compiled: "
                  f"{'<' + item.header + '> missing: ' if item.header else ''}{item.reason}"
                  for item in result.listed]
        uncompiled += result.listed
    if "marks" in guards:
        violations += marks.check_pages(root, page_paths(root))
    if "programs" in guards and (root / programs.INDEX).is_file():
        violations += programs.check(root)
    if "evidence" in guards:
        register = evidence.check(root)
        violations += register.violations
        if register.without_evidence:
            notes.append(f"{len(register.without_evidence)} guide page(s) without an evidence file in "
                         f"{evidence.EVIDENCE_DIR}/ (listed, not failed: require=False): "
                         f"{', '.join(register.without_evidence)}")
    return Report(tuple(violations), tuple(notes), tuple(uncompiled))
