#!/usr/bin/env python3
"""Split the notebooks across build machines by their recorded durations.

Every ``notebooks/*.md`` page is placed in one shard. A notebook weighs its
execution time (``duration_s``) from its record in ``--records`` (what the
last GPU run recorded), else from ``--provenance`` (a finished build's
``provenance.json``), else ``--default`` seconds. Pages that hand files to
each other in ``programs/`` (or share a path where the notebooks run) stay in
one shard, so a shard never runs another's writer again: the extension reads
the pages for that (``trtdocs.notebooks.handoffs``), which needs the packages
of ``requirements-plan.txt``. The groups of pages are packed greedily, longest
first, each into the shard with the least work so far.

    python3 tools/shard.py --shards 3
    python3 tools/shard.py --shards 3 --json
    python3 tools/shard.py --shards 3 --github-output "$GITHUB_OUTPUT"

``--github-output`` appends ``matrix=<json>`` (``{"include": [{"shard": 0,
"notebooks": "notebooks/a notebooks/b", "seconds": 12.5}, ...]}``, empty
shards left out) and ``shards=<count>`` for a GitHub Actions job matrix. A
planning job installs ``requirements-plan.txt`` (a few small packages), not the
docs venv.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXTENSIONS = ROOT / "docs" / "_ext"  # trtdocs, whose handoffs module says which pages hand files on
PLAN_REQUIREMENTS = "requirements-plan.txt"
RECORD_KEY = "trtdocs_record"  # docs/_ext/trtdocs/notebooks/recorded.py
# GitHub Actions refuses a matrix of more than 256 jobs.
MAX_JOBS = 256


@dataclasses.dataclass
class Shard:
    index: int
    # notebook docnames, in the order they were placed
    # (longest group first; a group in reading order)
    notebooks: list[str] = dataclasses.field(default_factory=list)
    # sum of the notebooks' durations in seconds
    seconds: float = 0.0


def notebooks(root: Path) -> list[str]:
    """The docnames of the guide's notebook pages."""
    return sorted(f"notebooks/{p.stem}" for p in (root / "notebooks").glob("*.md"))


def durations(provenance: Mapping[str, Any], default: float) -> dict[str, float]:
    """Each notebook's recorded duration from provenance.json data."""
    try:
        entries = provenance["notebooks"]
    except KeyError:
        raise ValueError("provenance data has no 'notebooks' table") from None
    found = {}
    for doc, entry in entries.items():
        value = entry.get("duration_s")
        found[doc] = float(value) if value is not None else default
    return found


def record_durations(record_dir: Path) -> dict[str, float]:
    """Each recorded notebook's duration; a record is named ``notebooks__x.ipynb``."""
    found: dict[str, float] = {}
    for path in sorted(record_dir.glob("*.ipynb")):
        try:
            meta = json.loads(path.read_text())["metadata"][RECORD_KEY]
        except (OSError, KeyError, TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: not a record ({exc})") from None
        value = (meta.get("provenance") or {}).get("duration_s")
        if value is not None:
            found[path.stem.replace("__", "/")] = float(value)
    return found


def handoff_groups(root: Path) -> list[tuple[str, ...]]:
    """The groups of pages under ``root`` that hand files to each other, each in
    reading order (groups of one left out); none without an ``index.md``."""
    if str(EXTENSIONS) not in sys.path:
        sys.path.insert(0, str(EXTENSIONS))
    try:
        from trtdocs.notebooks.handoffs import Handoffs
    except ImportError as exc:
        raise ValueError(
            f"reading the pages' handoffs needs {exc.name or exc}: "
            f"pip install -r {PLAN_REQUIREMENTS}"
        ) from None
    if not (root / "index.md").is_file():
        return []
    return [group for group in Handoffs.of_site(root).groups() if len(group) > 1]


def plan(
    weights: Mapping[str, float], shards: int, groups: Sequence[Sequence[str]] = ()
) -> list[Shard]:
    """Greedy longest-first packing of ``groups`` (pages that stay together, in
    order) and of every other page alone; ties go to the lower shard index and
    name order."""
    if shards < 1:
        raise ValueError("the number of shards must be at least 1")
    if shards > MAX_JOBS:
        raise ValueError(
            f"at most {MAX_JOBS} shards (a GitHub Actions matrix holds {MAX_JOBS} jobs)"
        )
    units = [tuple(d for d in group if d in weights) for group in groups]
    units = [u for u in units if u]
    grouped = {d for u in units for d in u}
    units += [(d,) for d in weights if d not in grouped]
    bins = [Shard(i) for i in range(shards)]
    for unit in sorted(units, key=lambda u: (-sum(weights[d] for d in u), u[0])):
        target = min(bins, key=lambda b: (b.seconds, b.index))
        target.notebooks.extend(unit)
        target.seconds += sum(weights[d] for d in unit)
    return bins


def matrix(bins: Sequence[Shard]) -> dict[str, list[dict[str, Any]]]:
    """The job matrix: one entry per shard that has notebooks."""
    return {
        "include": [
            {"shard": b.index, "notebooks": " ".join(b.notebooks), "seconds": round(b.seconds, 2)}
            for b in bins
            if b.notebooks
        ]
    }


def weights_for(
    docs: Sequence[str], *sources: Mapping[str, float], default: float
) -> dict[str, float]:
    """Each notebook's weight from the first source that has it."""
    return {d: next((s[d] for s in sources if d in s), default) for d in docs}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shards", type=int, required=True)
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the site's source root (notebooks/ in it)"
    )
    parser.add_argument(
        "--records", type=Path, help="a folder of records (default: ROOT/notebooks/_recorded)"
    )
    parser.add_argument("--provenance", type=Path, help="a built site's provenance.json")
    parser.add_argument(
        "--default",
        type=float,
        default=60.0,
        help="seconds for a notebook without a recorded duration (default 60)",
    )
    parser.add_argument("--json", action="store_true", help="print the plan as JSON")
    parser.add_argument(
        "--github-output", type=Path, help="append matrix= and shards= to this file"
    )
    args = parser.parse_args(argv)
    try:
        recorded = record_durations(args.records or args.root / "notebooks" / "_recorded")
        built = {}
        if args.provenance:
            try:
                built = durations(json.loads(args.provenance.read_text()), args.default)
            except (OSError, ValueError) as exc:
                raise ValueError(f"{args.provenance}: {exc}") from None
        docs = notebooks(args.root)
        if not docs:
            raise ValueError(f"no notebooks under {args.root / 'notebooks'}")
        bins = plan(
            weights_for(docs, recorded, built, default=args.default),
            args.shards,
            handoff_groups(args.root),
        )
    except ValueError as exc:
        print(f"shard: {exc}", file=sys.stderr)
        return 2
    if args.github_output:
        with args.github_output.open("a") as out:
            out.write(f"matrix={json.dumps(matrix(bins))}\nshards={len(matrix(bins)['include'])}\n")
    if args.json:
        print(json.dumps([dataclasses.asdict(b) for b in bins], indent=2))
        return 0
    for b in bins:
        print(f"shard {b.index}: {b.seconds:.1f} s: {' '.join(b.notebooks) or '(empty)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
