#!/usr/bin/env python3
"""Compare fresh records with the baseline ones and report what changed.

    python tools/compare_records.py --baseline _build/release-records \\
        --fresh _build/nightly-records --markdown report.md

The weekly nightly run (.github/workflows/nightly.yml) re-executes every
notebook against the nightly channel (``--fresh``) and compares each code
cell's outputs with the records of the last deployed build (``--baseline``).
The report lists each page whose output changed, each recorded page this run
did not record (its shard failed), and each baseline record that is stale:
made from a source other than the notebook's, with versions outside the
documented release's pins, or older than the age limit
(docs/_ext/trtdocs/notebooks/recorded.py decides), or that the build refuses
(its outputs or provenance differ from its digest: integrity.py). ``--github-output`` appends
``pages=<count of pages listed>``. Needs the docs venv.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import difflib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from myst_nb.core.read import read_myst_markdown_notebook  # noqa: E402 -- below the sys.path line

from trtdocs.features.validate import load  # noqa: E402 -- below the sys.path line
from trtdocs.notebooks import recorded  # noqa: E402 -- below the sys.path line

# Output fields that describe the run, not the result.
_VOLATILE = frozenset({"execution_count", "metadata", "transient"})


@dataclasses.dataclass
class PageReport:
    docname: str
    changed_cells: list[tuple[int, str]] = dataclasses.field(default_factory=list)  # (cell, diff)
    stale: list[str] = dataclasses.field(default_factory=list)
    # a recorded page that this run did not record: its shard failed on it
    unrecorded: bool = False
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def listed(self) -> bool:
        return bool(self.changed_cells or self.stale or self.unrecorded)


def outputs_text(cell: dict[str, Any]) -> str:
    """A code cell's outputs as comparable text (streams joined per name)."""
    parts: list[str] = []
    for out in cell.get("outputs", []):
        out = {k: v for k, v in out.items() if k not in _VOLATILE}
        if out.get("output_type") == "stream":
            text = out["text"] if isinstance(out["text"], str) else "".join(out["text"])
            if parts and parts[-1].startswith(f"[{out['name']}]\n"):
                parts[-1] += text
                continue
            parts.append(f"[{out['name']}]\n{text}")
        else:
            parts.append(json.dumps(out, sort_keys=True, indent=1))
    return "\n".join(parts)


def _docname(path: Path) -> str:
    return path.stem.replace("__", "/")


def compare(
    baseline_dir: Path, fresh_dir: Path, root: Path, freshness: recorded.Freshness, now: dt.datetime
) -> list[PageReport]:
    baseline = {_docname(p): p for p in sorted(baseline_dir.glob("*.ipynb"))}
    fresh = {_docname(p): p for p in sorted(fresh_dir.glob("*.ipynb"))}
    reports = []
    for doc in sorted(baseline.keys() | fresh.keys()):
        report = PageReport(doc)
        old = recorded.load(baseline[doc]) if doc in baseline else None
        new = recorded.load(fresh[doc]) if doc in fresh else None
        source = root / f"{doc}.md"
        if old is not None:
            if source.is_file():
                current = recorded.source_hash(
                    read_myst_markdown_notebook(source.read_text(encoding="utf-8"))
                )
                if current != old.source_hash:
                    report.stale.append(
                        f"made from source {old.source_hash}; {doc}.md is now {current}"
                    )
            else:
                report.notes.append(f"{doc}.md no longer exists")
            refusal = old.refusal()
            if refusal is not None:
                report.stale.append(f"the build refuses it: {refusal.words()}")
            report.stale += recorded.expiry(old.provenance, freshness, now)
        if old is None:
            report.notes.append("no baseline record: nothing to compare")
        elif new is None:
            report.unrecorded = True
        else:
            old_cells = [c for c in old.notebook.cells if c.cell_type == "code"]
            new_cells = [c for c in new.notebook.cells if c.cell_type == "code"]
            if len(old_cells) != len(new_cells):
                report.notes.append(
                    f"{len(old_cells)} code cells in the baseline, {len(new_cells)} now"
                )
            for number, (a, b) in enumerate(zip(old_cells, new_cells, strict=True), start=1):
                before, after = outputs_text(a), outputs_text(b)
                if before != after:
                    diff = "\n".join(
                        difflib.unified_diff(
                            before.splitlines(),
                            after.splitlines(),
                            "baseline",
                            "nightly",
                            lineterm="",
                            n=1,
                        )
                    )
                    report.changed_cells.append((number, diff))
        reports.append(report)
    return reports


def markdown(reports: Sequence[PageReport], fresh_env: dict[str, Any] | None) -> str:
    listed = [r for r in reports if r.listed]
    lines = ["# Nightly channel: notebook outputs and records", ""]
    if fresh_env:
        versions = ", ".join(f"{k} {v}" for k, v in (fresh_env.get("versions") or {}).items() if v)
        lines += [
            f"Fresh records made on {fresh_env.get('gpu_name') or fresh_env.get('cpu_model')} "
            f"(CUDA GPU: {'yes' if fresh_env.get('cuda_available') else 'no'}), with {versions}.",
            "",
        ]
    if not listed:
        lines += ["No page's output changed and no baseline record is stale.", ""]
    for r in listed:
        lines += [f"## {r.docname}", ""]
        lines += [f"* stale baseline record: {reason}" for reason in r.stale]
        if r.unrecorded:
            lines.append("* this run made no record of it: its shard failed (see the run's logs)")
        for number, diff in r.changed_cells:
            lines += [
                f"* output of code cell {number} changed:",
                "",
                "  ```diff",
                *[f"  {line}" for line in diff.splitlines()],
                "  ```",
            ]
        lines += [f"* {note}" for note in r.notes] + [""]
    others = [r for r in reports if not r.listed and r.notes]
    if others:
        lines += (
            ["## Not compared", ""]
            + [f"* {r.docname}: {'; '.join(r.notes)}" for r in others]
            + [""]
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--baseline", type=Path, required=True, help="records of the documented release"
    )
    parser.add_argument("--fresh", type=Path, required=True, help="records of this run")
    parser.add_argument("--root", type=Path, default=ROOT, help="the site's source root")
    parser.add_argument("--table", type=Path, default=ROOT / "docs" / "features.toml")
    parser.add_argument(
        "--max-age-days",
        type=float,
        default=float(os.environ.get("TRTDOCS_RECORD_MAX_AGE_DAYS", "90")),
    )
    parser.add_argument("--markdown", type=Path, help="write the report here (default: print it)")
    parser.add_argument("--github-output", type=Path, help="append pages=<count> to this file")
    args = parser.parse_args(argv)
    release = load(args.table).documented_release
    freshness = recorded.Freshness.of_release(release.version, release.pins, args.max_age_days)
    try:
        for folder in (args.baseline, args.fresh):
            if not folder.is_dir():
                raise ValueError(f"{folder}: no such folder")
        reports = compare(args.baseline, args.fresh, args.root, freshness, dt.datetime.now(dt.UTC))
        fresh_env = next(
            (
                record.provenance.get("environment")
                for p in sorted(args.fresh.glob("*.ipynb"))
                if (record := recorded.load(p)) is not None
            ),
            None,
        )
    except ValueError as exc:
        print(f"compare_records: {exc}", file=sys.stderr)
        return 2
    text = markdown(reports, fresh_env)
    if args.markdown:
        args.markdown.write_text(text)
    else:
        print(text)
    if args.github_output:
        with args.github_output.open("a") as out:
            out.write(f"pages={sum(r.listed for r in reports)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
