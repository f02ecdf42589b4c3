#!/usr/bin/env python3
"""Split the notebooks across build machines by their recorded durations.

Reads ``provenance.json`` from a finished build (``_build/html`` by default),
takes each notebook's execution time (``duration_s``), and packs the
notebooks into N shards greedily, longest first, each into the shard with the
least work so far. Notebooks without a duration (not executed in that build)
weigh ``--default`` seconds.

    python benchmarks/shard.py --shards 3
    python benchmarks/shard.py --shards 3 --json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DEFAULT_PROVENANCE = Path(__file__).resolve().parent.parent / "_build" / "html" / "provenance.json"


@dataclasses.dataclass
class Shard:
    index: int
    # notebook docnames, in the order they were placed (longest first)
    notebooks: list[str] = dataclasses.field(default_factory=list)
    # sum of the notebooks' durations in seconds
    seconds: float = 0.0


def durations(provenance: Mapping[str, Any], default: float) -> dict[str, float]:
    """Each notebook's recorded duration from provenance.json data."""
    try:
        notebooks = provenance["notebooks"]
    except KeyError:
        raise ValueError("provenance data has no 'notebooks' table") from None
    found = {}
    for doc, entry in notebooks.items():
        value = entry.get("duration_s")
        found[doc] = float(value) if value is not None else default
    return found


def plan(weights: Mapping[str, float], shards: int) -> list[Shard]:
    """Greedy longest-first packing; ties go to the lower shard index and name order."""
    if shards < 1:
        raise ValueError("the number of shards must be at least 1")
    bins = [Shard(i) for i in range(shards)]
    for doc in sorted(weights, key=lambda d: (-weights[d], d)):
        target = min(bins, key=lambda b: (b.seconds, b.index))
        target.notebooks.append(doc)
        target.seconds += weights[doc]
    return bins


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--provenance", type=Path, default=DEFAULT_PROVENANCE)
    parser.add_argument("--shards", type=int, required=True)
    parser.add_argument("--default", type=float, default=0.0,
                        help="seconds for a notebook without a recorded duration (default 0)")
    parser.add_argument("--json", action="store_true", help="print the plan as JSON")
    args = parser.parse_args(argv)
    try:
        data = json.loads(args.provenance.read_text())
        bins = plan(durations(data, args.default), args.shards)
    except (OSError, ValueError) as exc:
        print(f"shard: {args.provenance}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([dataclasses.asdict(b) for b in bins], indent=2))
        return 0
    for b in bins:
        print(f"shard {b.index}: {b.seconds:.1f} s: {' '.join(b.notebooks) or '(empty)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
