"""Run the drift guards outside a build::

    python -m trtdocs.drift [--root DIR] [--table FILE] [--memo FILE] [--network]
                            [--resolve DIR [--fresh]] [GUARD ...]

Prints every violation as ``file:line: [rule] message`` and exits 1 if any.
``--network`` also resolves the documented release's pins against PyPI;
``--resolve DIR`` resolves every install command on the pages with pip's
resolver, keeping the day's results in DIR (``--fresh``: resolve each again).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..features.validate import load as load_features
from . import pypi
from .memo import PageMemo, inputs_key
from .run import DEFAULT_TABLE, GUARDS, report_to_json, run_guards


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m trtdocs.drift", description=__doc__.splitlines()[2]
    )
    parser.add_argument(
        "guards", nargs="*", metavar="GUARD", help=f"any of {', '.join(GUARDS)} (default: all)"
    )
    parser.add_argument("--root", type=Path, default=Path.cwd())
    parser.add_argument("--table", type=Path, default=None)
    parser.add_argument(
        "--documented", default=None, help="check against this release, not the table's"
    )
    parser.add_argument(
        "--network", action="store_true", help="check the documented release on PyPI"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the report as JSON (what the build reads)"
    )
    parser.add_argument(
        "--memo",
        type=Path,
        default=None,
        help="keep each page's findings in this file and reuse those of unchanged pages",
    )
    parser.add_argument(
        "--resolve",
        type=Path,
        default=None,
        metavar="DIR",
        help="resolve each install command on the pages; keep the day's results in DIR",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="with --resolve: resolve each command again"
    )
    args = parser.parse_args(argv)
    table_path = args.table or args.root / DEFAULT_TABLE
    features = load_features(table_path, args.documented)
    page_memo = (
        PageMemo.open(args.memo, inputs_key(Path(features.path), features.documented))
        if args.memo
        else None
    )
    report = run_guards(
        args.root,
        features=features,
        guards=args.guards or GUARDS,
        page_memo=page_memo,
        resolve_cache=args.resolve,
        fresh=args.fresh,
    )
    if page_memo is not None:
        page_memo.save()
    if args.json:
        print(json.dumps(report_to_json(report)))
        return 1 if report.violations else 0
    for note in report.notes:
        print(f"note: {note}")
    problems = [str(v) for v in report.violations]
    if args.network:
        table = load_features(table_path)
        problems += [
            f"{table_path}: [pypi] {p}" for p in pypi.check_release(table.release(table.documented))
        ]
    for problem in problems:
        print(problem)
    print(f"drift: {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
