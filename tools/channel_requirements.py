#!/usr/bin/env python3
"""Print a pip requirements file for one release of docs/features.toml.

    python tools/channel_requirements.py nightly > nightly-requirements.txt

The index options and packages come from the release's ``install`` table, as
the install commands of the pages do; the GPU jobs of the nightly run install
the file (.github/workflows/gpu-shards.yml). Needs the docs venv (the table is
validated by the guide's extension).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from trtdocs.features.validate import FeaturesError, load  # noqa: E402 -- below the sys.path line


def requirements(key: str, table: Path) -> str:
    install = load(table).release(key).install
    lines = [f"--index-url {install.index_url}"] if install.index_url else []
    lines += [f"--extra-index-url {url}" for url in install.extra_index_urls]
    lines += ["--pre"] if install.pre else []
    return "\n".join([*lines, *install.packages]) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", help='a release key of the table: "2.14", "nightly", ...')
    parser.add_argument("--table", type=Path, default=ROOT / "docs" / "features.toml")
    args = parser.parse_args(argv)
    try:
        sys.stdout.write(requirements(args.release, args.table))
    except (FeaturesError, KeyError) as exc:
        print(f"channel_requirements: {args.table}: no release {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
